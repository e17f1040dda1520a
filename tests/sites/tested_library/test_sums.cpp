// A test program of the library.
#include <cuda_runtime.h>

void group_sums(float *y, const float *x, int group_size);

int main() {
  float *y, *x;
  cudaMalloc(&y, 1024 * sizeof(float));
  cudaMalloc(&x, 1 << 20);
  group_sums(y, x, 100);
  return cudaDeviceSynchronize() != cudaSuccess;
}
