// The block size is the program's argument (1024 without one) and the grid is computed from
// `block.x`, read back from the dim3 after it is built: one host value gives both.
#include <cstdlib>

__global__ void add_one(int *data, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1;
}

int main(int argc, char **argv) {
  unsigned n = 1 << 20;
  int size = 1024;
  if (argc > 1) size = atoi(argv[1]);
  dim3 block(size, 1);
  dim3 grid((n - 1) / block.x + 1, 1);
  int *data;
  cudaMalloc(&data, n * sizeof(int));
  add_one<<<grid, block>>>(data, n);
  cudaDeviceSynchronize();
  return 0;
}
