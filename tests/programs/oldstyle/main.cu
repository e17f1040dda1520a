// A program written as older code is, which nvcc and gcc build: launches spaced as
// `k << < grid, block >> > (...)`, host C with implicit declarations (helpers.c), and the
// glibc and OpenMP headers a GPU build machine has (error.h, execinfo.h, omp.h).
#include <cstdio>
#include <error.h>
#include <execinfo.h>
#include <omp.h>

extern "C" float *make_values(int n);

extern "C" void report_filled(int n) { printf("filled %d on %d thread(s)\n", n, omp_get_max_threads()); }

__global__ void doubled(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef SHIFTED
  if (i + 1 < n) v[i + 1] = 2 * v[i];  // reads the slot the next thread writes
#else
  if (i < n) v[i] *= 2;
#endif
}

int main() {
  const int n = 100;
  float *host = make_values(n), *device;
  void *frames[4];
  int depth = backtrace(frames, 4);
  cudaMalloc(&device, n * sizeof(float));
  cudaMemcpy(device, host, n * sizeof(float), cudaMemcpyHostToDevice);
  doubled << < (n + 63) / 64, 64 >> > (device, n);
  cudaMemcpy(host, device, n * sizeof(float), cudaMemcpyDeviceToHost);
  printf("v[99] = %g, %d frames\n", host[99], depth);
  if (host[99] != 594)
    error(3, 0, "v[99] is %g, not 594", host[99]);
  return 0;
}
