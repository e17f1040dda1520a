// Template kernels exist only where host code instantiates them: scale<float>,
// scale<double> and fill<int, 4> come out as kernels, the uninstantiated unused<T> not.
// kernel: scale<float>(float *data, float factor, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: scale<double>(double *data, double factor, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: fill<int, 4>(int *data, int value)
//   reads: tid.x
//   shared: 16
#include <cuda_runtime.h>

template <typename T> __global__ void scale(T *data, T factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

template <typename T, int Width> __global__ void fill(T *data, T value) {
  __shared__ T staging[Width];
  if (threadIdx.x < Width) staging[threadIdx.x] = value;
  __syncthreads();
  data[threadIdx.x] = staging[threadIdx.x % Width];
}

template <typename T> __global__ void unused(T *data) { data[0] = T(); }

void launch(float *f, double *d, int *i, int n) {
  scale<float><<<(n + 127) / 128, 128>>>(f, 2.0f, n);
  scale<<<(n + 127) / 128, 128>>>(d, 0.5, n);
  fill<int, 4><<<1, 32>>>(i, 7);
}
