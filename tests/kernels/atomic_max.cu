// A float atomic maximum built from an atomicCAS loop, per block and over the grid.
// kernel: float_max(const float *values, float *result, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0

__device__ float atomic_max_float(float *address, float value) {
  int *bits = (int *)address;
  int old = *bits, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= value) break;
    old = atomicCAS(bits, assumed, __float_as_int(value));
  } while (assumed != old);
  return __int_as_float(old);
}

__global__ void float_max(const float *values, float *result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_float(result, values[i]);
}
