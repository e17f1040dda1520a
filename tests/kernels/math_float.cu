// Single-precision math: C names, C++ overloads, fast intrinsics and classification.
// kernel: float_math(const float *in, float *out, int *flags)
//   reads: tid.x
//   shared: 0
#include <math.h>

__global__ void float_math(const float *in, float *out, int *flags) {
  float x = in[threadIdx.x];
  out[0] = sqrtf(x) + rsqrtf(x) + cbrtf(x) + expf(x) + exp2f(x) + __expf(x) + logf(x) + log2f(x) + log10f(x);
  out[1] = powf(x, 2.0f) + __powf(x, 0.5f) + sinf(x) + cosf(x) + tanf(x) + __sinf(x) + __cosf(x);
  out[2] = fabsf(x) + floorf(x) + ceilf(x) + roundf(x) + truncf(x) + rintf(x) + fmodf(x, 3.0f);
  out[3] = fminf(x, 1.0f) + fmaxf(x, 2.0f) + fmaf(x, 2.0f, 1.0f) + __fdividef(x, 3.0f) + hypotf(x, 4.0f);
  out[4] = atan2f(x, 1.0f) + asinf(x) + acosf(x) + atanf(x) + sinhf(x) + tanhf(x) + erff(x) + erfcf(x);
  out[5] = sqrt(x) + exp(x) + fabs(x) + pow(x, 3.0f) + copysignf(x, -1.0f) + __saturatef(x);
  float s, c;
  sincosf(x, &s, &c);
  out[6] = s + c + ldexpf(x, 2) + lgammaf(x) + tgammaf(x);
  flags[0] = isnan(x) + isinf(x) + isfinite(x) + signbit(x) + __isnanf(x);
}
