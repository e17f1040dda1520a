// Launches as host code writes them: a grid computed from n, dim3 of constants, dynamic
// shared memory, a template instance, cudaLaunchKernel with an argument array.
#include <cuda_runtime.h>

__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

template <int TILE> __global__ void tiled(float *x) {
  extern __shared__ float s[];
  s[threadIdx.x] = x[blockIdx.x * TILE + threadIdx.x];
}

void run(float *x, int n) {
  scale<<<(n + 255) / 256, 256>>>(x, 2.0f, n);
  tiled<16><<<dim3(4, 2), dim3(16, 1), 16 * sizeof(float)>>>(x);
  void *args[] = {&x, &n};
  float a = 0.5f;
  void *more[] = {&x, &a, &n};
  cudaLaunchKernel((void *)scale, dim3(8), dim3(128), more, 0, 0);
}
