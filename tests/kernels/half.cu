// Half precision: conversions, arithmetic, operators, half2 and a half shuffle.
// kernel: half_math(const float *in, __half *h, float *out)
//   reads: tid.x
//   shared: 0
#include <cuda_fp16.h>

__global__ void half_math(const float *in, __half *h, float *out) {
  int i = threadIdx.x;
  __half a = __float2half(in[i]);
  __half b = __float2half_rn(2.0f);
  __half c = __hadd(a, b) * b - a / b;
  __half2 pair = __floats2half2_rn(in[i], 1.0f);
  pair = __hmul2(pair, __half2half2(c));
  h[i] = __shfl_xor_sync(0xffffffff, c, 1);
  out[i] = __half2float(c) + __low2float(pair) + __high2float(pair) + (__hlt(a, b) ? 1.0f : 0.0f);
}
