// project: kaldi (table 3)
// bug: _add_diag_vec_mat: the first row of threads caches the vector's entries in shared
// memory and the first column caches the row scales, and every thread uses both caches with
// no barrier after the stores: two races.
// expect: _add_diag_vec_mat data-race 15/17
// expect: _add_diag_vec_mat data-race 16/17
// fixed: _add_diag_vec_mat_fixed
__global__ void _add_diag_vec_mat(float alpha, float *mat, const float *v, const float *n, float beta,
                                  int rows, int cols) {
  __shared__ float sv[16], sbeta[16];
  int tx = threadIdx.x, ty = threadIdx.y;
  if (blockDim.x > 16 || blockDim.y > 16) return;
  int col = blockIdx.x * blockDim.x + tx, row = blockIdx.y * blockDim.y + ty;
  bool inside = row < rows && col < cols;
  if (tx == 0) sv[ty] = row < rows ? alpha * v[row] : 0.0f;
  if (ty == 0) sbeta[tx] = col < cols ? beta : 0.0f;
  if (inside) mat[row * cols + col] = sv[ty] * n[row * cols + col] + sbeta[tx] * mat[row * cols + col];
}

__global__ void _add_diag_vec_mat_fixed(float alpha, float *mat, const float *v, const float *n, float beta,
                                        int rows, int cols) {
  __shared__ float sv[16], sbeta[16];
  int tx = threadIdx.x, ty = threadIdx.y;
  if (blockDim.x > 16 || blockDim.y > 16) return;
  int col = blockIdx.x * blockDim.x + tx, row = blockIdx.y * blockDim.y + ty;
  bool inside = row < rows && col < cols;
  if (tx == 0) sv[ty] = row < rows ? alpha * v[row] : 0.0f;
  if (ty == 0) sbeta[tx] = col < cols ? beta : 0.0f;
  __syncthreads();
  if (inside) mat[row * cols + col] = sv[ty] * n[row * cols + col] + sbeta[tx] * mat[row * cols + col];
}
