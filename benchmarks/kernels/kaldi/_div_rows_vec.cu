// project: kaldi (table 3)
// bug: _div_rows_vec: each thread stores the inverse of its row's divisor in its own shared
// slot and reads back only that slot; the barrier in between orders nothing shared.
// expect: _div_rows_vec redundant-barrier 13
// fixed: _div_rows_vec_fixed
__global__ void _div_rows_vec(float *mat, const float *vec_div, int rows, int cols) {
  __shared__ float inv[16][16];
  int tx = threadIdx.x, ty = threadIdx.y;
  if (blockDim.x > 16 || blockDim.y > 16) return;
  int col = blockIdx.x * blockDim.x + tx, row = blockIdx.y * blockDim.y + ty;
  bool inside = row < rows && col < cols;
  inv[ty][tx] = inside ? 1.0f / vec_div[row] : 0.0f;
  __syncthreads();
  if (inside) mat[row * cols + col] *= inv[ty][tx];
}

__global__ void _div_rows_vec_fixed(float *mat, const float *vec_div, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= rows || col >= cols) return;
  mat[row * cols + col] *= 1.0f / vec_div[row];
}
