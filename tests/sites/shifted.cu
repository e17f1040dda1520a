// out[t] = in[t + 1] races when out and in are one buffer: the host passes the same one twice.
#include <cuda_runtime.h>

__global__ void shift(float *out, const float *in) {
  int t = threadIdx.x;
  out[t] = in[t + 1];
}

void shift_in_place(float *d) {
  shift<<<1, 64>>>(d, d);
}
