// Kernels compiled at run time with NVRTC from this header's text: no .cu includes it.
template <typename T>
__global__ void axpy(T a, const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void fill(int *x, int value) { x[threadIdx.x] = value; }
