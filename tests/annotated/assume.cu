// Faial-style __assume constrains the launch without any flag.
// kernel: bounded(float *x, int n)
//   reads: tid.x ntid.x

__global__ void bounded(float *x, int n) {
  __assume(blockDim.x == 256 && n >= 0);
  if (threadIdx.x < n) x[threadIdx.x] = 0;
}
