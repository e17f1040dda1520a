// The classic single-precision a*x + y over a 1-D grid.
// kernel: saxpy(int n, float a, const float *x, float *y)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
