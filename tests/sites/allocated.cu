// The host allocates each buffer with cudaMalloc, and a launch's buffer is as large as that:
// n floats and ceil(n / 256) blocks of 256 threads, so a kernel without a bounds check writes
// past the end (an error: the size is the host's), one with it does not; a global pointer the
// host allocates once for 32 rows, and a grid of 40 rows writing into it (llm.c's bias
// buffer), or of 32.
#include <cuda_runtime.h>

__global__ void scale(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] *= 2.0f;  // no bounds check
}

__global__ void scale_checked(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 2.0f;
}

__global__ void rows(float *out) { out[blockIdx.y * 256 + threadIdx.x] = 1.0f; }  // a row per block

__global__ void rows_fitting(float *out) { out[blockIdx.y * 256 + threadIdx.x] = 1.0f; }

float *buffer;  // allocated once, for 32 rows

int main() {
  int n = 1000;
  float *data;
  cudaMalloc(&data, n * sizeof(float));
  scale<<<(n + 255) / 256, 256>>>(data, n);
  scale_checked<<<(n + 255) / 256, 256>>>(data, n);
  cudaMalloc(&buffer, 32 * 256 * sizeof(float));
  rows<<<dim3(1, 40), 256>>>(buffer);
  rows_fitting<<<dim3(1, 32), 256>>>(buffer);
  return cudaDeviceSynchronize() != cudaSuccess;
}
