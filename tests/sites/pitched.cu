// Block r writes row r of a pitched matrix. Rows overlap only when pitch < width, which
// cudaMallocPitch never gives.
#include <cuda_runtime.h>

__global__ void rows(float *m, int width, int pitch) {
  for (int c = threadIdx.x; c < width; c += blockDim.x)
    m[blockIdx.x * pitch + c] = blockIdx.x;
}

int main() {
  int width = 300, height = 40;
  float *d;
  size_t pitch;
  cudaMallocPitch((void **)&d, &pitch, width * sizeof(float), height);
  rows<<<height, 64>>>(d, width, pitch / sizeof(float));
  return 0;
}
