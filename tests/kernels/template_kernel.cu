// Template kernels come out as the instances host code launches (scale<float>,
// scale<double>, fill<int, 4>); unused<T>, which nothing instantiates, as float, int, double.
// kernel: scale<float>(float *data, float factor, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: scale<double>(double *data, double factor, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: fill<int, 4>(int *data, int value)
//   reads: tid.x
//   shared: 16
// kernel: unused<float>(float *data)
//   reads:
//   shared: 0
// kernel: unused<int>(int *data)
//   reads:
//   shared: 0
// kernel: unused<double>(double *data)
//   reads:
//   shared: 0
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
