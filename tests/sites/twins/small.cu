// One of two programs with a kernel named shift: this one's tile has 8 floats of padding.
#include <cuda_runtime.h>

__global__ void shift(float *a) {
  extern __shared__ float tile[];
  int t = threadIdx.x;
  tile[t + 8] = a[blockIdx.x * blockDim.x + t];
  if (t < 8)
    tile[t] = 0;
  __syncthreads();
  a[blockIdx.x * blockDim.x + t] = tile[t];
}

void shift_all(float *d, int n) {
  shift<<<n / 128, 128, (128 + 8) * sizeof(float)>>>(d);
}
