// A program written as older code is, which nvcc and gcc build: launches spaced as
// `k << < grid, block >> > (...)`, host C with implicit declarations (helpers.c), the glibc
// and OpenMP headers a GPU build machine has (error.h, execinfo.h, omp.h), a string literal
// right before a macro, std::unary_function (gone from C++17's libc++, kept by libstdc++)
// and nvcc's pow(float, int).
#include <cstdio>
#include <error.h>
#include <execinfo.h>
#include <functional>
#include <omp.h>

#define COUNT "%d"

struct halved : public std::unary_function<float, float> {
  float operator()(float x) const { return x / 2; }
};

extern "C" float *make_values(int n);

extern "C" void report_filled(int n) { printf("filled "COUNT" on %d thread(s)\n", n, omp_get_max_threads()); }

__global__ void doubled(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef SHIFTED
  if (i + 1 < n) v[i + 1] = 2 * v[i];  // reads the slot the next thread writes
#else
  if (i < n) v[i] *= pow(2.0f, 1);
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
  printf("v[99] = %g, %d frames, half of it %g\n", host[99], depth, halved()(host[99]));
  if (host[99] != 594)
    error(3, 0, "v[99] is %g, not 594", host[99]);
  return 0;
}
