// Launches as library wrappers write them: the grid and block are the caller's dim3
// parameters, a struct of sizes goes by value, and the launch is cooperative.
#include <cuda_runtime.h>

struct Dim { int rows, cols, stride; };

__global__ void fill(float *m, Dim d, int value) {
  int r = blockIdx.x, c = threadIdx.x;
  if (r < d.rows && c < d.cols) m[r * d.stride + c] = value;
}

void fill_matrix(dim3 grid, dim3 block, float *m, int n, int value) {
  Dim d = {n, n, 2 * n};
  fill<<<grid, block>>>(m, d, value);
}

__global__ void sweep(float *m) { m[blockIdx.x * blockDim.x + threadIdx.x] = 0; }

void sweep_all(float *m) {
  void *args[] = {&m};
  cudaLaunchCooperativeKernel((void *)sweep, dim3(4), dim3(32), args, 0, 0);
}
