// The block size is the program's argument (1024 without one), the grid computed from it.
// Each block sums its slice in place with strides 1, 2, 4, ...: for a block size that is a
// power of two every read stays in the block's slice; for others (852), the last threads
// read the next block's first elements while that block writes them.
#include <cstdlib>

__global__ void neighbours(int *data, int *sums, unsigned n) {
  unsigned tid = threadIdx.x;
  int *slice = data + blockIdx.x * blockDim.x;
  for (int stride = 1; stride < blockDim.x; stride *= 2) {
    if (tid % (2 * stride) == 0 && blockIdx.x * blockDim.x + tid + stride < n)
      slice[tid] += slice[tid + stride];  // the sum
    __syncthreads();
  }
  if (tid == 0) sums[blockIdx.x] = slice[0];
}

int main(int argc, char **argv) {
  unsigned n = 1 << 22;
  int size = 1024;
  if (argc > 1) size = atoi(argv[1]);
  dim3 block(size, 1);
  dim3 grid((n - 1) / block.x + 1, 1);
  int *data, *sums;
  cudaMalloc(&data, n * sizeof(int));
  cudaMalloc(&sums, grid.x * sizeof(int));
  neighbours<<<grid, block>>>(data, sums, n);
  cudaDeviceSynchronize();
  return 0;
}
