// project: kaldi (table 3)
// bug: _add_diag_mat_mat: threads past the matrix's column count return early, before the
// barrier the rest of the block waits at for the shared partial dot products.
// expect: _add_diag_mat_mat barrier-divergence 17
// fixed: _add_diag_mat_mat_fixed
#define THREADS 256

__global__ void _add_diag_mat_mat(float alpha, const float *m, const float *n, float beta, float *v,
                                  int cols) {
  __shared__ float partial[THREADS];
  int tid = threadIdx.x, row = blockIdx.x;
  if (blockDim.x > THREADS) return;
  if (tid >= cols) return;
  float sum = 0.0f;
  for (int k = tid; k < cols; k += blockDim.x) sum += m[row * cols + k] * n[k * gridDim.x + row];
  partial[tid] = sum;
  __syncthreads();
  if (tid == 0) {
    float total = 0.0f;
    for (int k = 0; k < blockDim.x && k < cols; ++k) total += partial[k];
    v[row] = alpha * total + beta * v[row];
  }
}

__global__ void _add_diag_mat_mat_fixed(float alpha, const float *m, const float *n, float beta, float *v,
                                        int cols) {
  __shared__ float partial[THREADS];
  int tid = threadIdx.x, row = blockIdx.x;
  if (blockDim.x > THREADS) return;
  float sum = 0.0f;
  for (int k = tid; k < cols; k += blockDim.x) sum += m[row * cols + k] * n[k * gridDim.x + row];
  partial[tid] = sum;
  __syncthreads();
  if (tid == 0) {
    float total = 0.0f;
    for (int k = 0; k < blockDim.x && k < cols; ++k) total += partial[k];
    v[row] = alpha * total + beta * v[row];
  }
}
