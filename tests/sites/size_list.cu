// The host runs a tiled copy for each size of a braced list (a benchmark's sizes): the
// blocks of a row cover n columns 64 at a time, so the last block of a row spills into the
// next one unless 64 divides n. Every size the list holds is the host's: with 128, 256 and
// 512 no launch races; a list holding 200 races there. Sizes below 128 would go to a
// kernel of their own, which no size of the first list reaches.
#include <cuda_runtime.h>

#include <vector>

__global__ void tiles(float *out, int n) {
  out[blockIdx.y * n + blockIdx.x * 64 + threadIdx.x] = threadIdx.x;  // no bounds check: 64 must divide n
}

__global__ void small_tiles(float *out, int n) {
  out[blockIdx.x * n + threadIdx.x] = threadIdx.x;  // a row per block
}

int main() {
  std::vector<int> sizes = {128, 256, 512};
  float *out;
  cudaMalloc(&out, 512 * 512 * sizeof(float) + 64 * sizeof(float));
  for (int n : sizes) {
    if (n < 128)
      small_tiles<<<n, n>>>(out, n);
    else
      tiles<<<dim3((n + 63) / 64, n), 64>>>(out, n);
  }
  cudaDeviceSynchronize();
  cudaFree(out);
  return 0;
}
