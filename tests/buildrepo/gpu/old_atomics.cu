// Written for GPUs before sm_60, which had no atomicAdd on double.
__device__ double atomicAdd(double *address, double value) {
  unsigned long long *bits = (unsigned long long *)address;
  unsigned long long old = *bits, assumed;
  do {
    assumed = old;
    old = atomicCAS(bits, assumed, __double_as_longlong(value + __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}

__global__ void total(const double *in, double *sum) { atomicAdd(sum, in[threadIdx.x]); }
