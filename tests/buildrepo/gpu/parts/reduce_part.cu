// Kernels kept in a .cu of their own that unity.cu includes: not a translation unit.
__global__ void block_sum(const int *in, int *out) {
  __shared__ int partial[TILE];
  partial[threadIdx.x] = in[blockIdx.x * TILE + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    int sum = 0;
    for (int k = 0; k < TILE; ++k) sum += partial[k];
    out[blockIdx.x] = sum;
  }
}
