// Arithmetic and conversions in each explicit rounding mode, for tests/test_arithmetic.py to
// compare bit for bit with exact rational arithmetic rounded in that mode.
#include <cuda_fp16.h>
#define FOUR(F, ...) F##_rn(__VA_ARGS__), F##_rz(__VA_ARGS__), F##_ru(__VA_ARGS__), F##_rd(__VA_ARGS__)

__global__ void float_modes(const float *x, const float *y, const float *z, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = y[i], c = z[i];
  float r[] = {FOUR(__fadd, a, b), FOUR(__fsub, a, b), FOUR(__fmul, a, b), FOUR(__fdiv, a, b),
               FOUR(__frcp, a), FOUR(__fsqrt, a), FOUR(__fmaf, a, b, c)};
  for (int k = 0; k < 28; ++k) out[k * n + i] = r[k];
}

__global__ void double_modes(const double *x, const double *y, const double *z, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a = x[i], b = y[i], c = z[i];
  double r[] = {FOUR(__dadd, a, b), FOUR(__dsub, a, b), FOUR(__dmul, a, b), FOUR(__ddiv, a, b),
                FOUR(__drcp, a), FOUR(__dsqrt, a), FOUR(__fma, a, b, c)};
  for (int k = 0; k < 28; ++k) out[k * n + i] = r[k];
}

__global__ void conversions(const long long *w, const double *d, float *out, double *dout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long v = w[i];
  int s = (int)v;
  float r[] = {FOUR(__int2float, s), FOUR(__uint2float, (unsigned)s), FOUR(__ll2float, v),
               FOUR(__ull2float, (unsigned long long)v), FOUR(__double2float, d[i])};
  double q[] = {FOUR(__ll2double, v), FOUR(__ull2double, (unsigned long long)v)};
  for (int k = 0; k < 20; ++k) out[k * n + i] = r[k];
  for (int k = 0; k < 8; ++k) dout[k * n + i] = q[k];
}

// The same operations in inline PTX (a rounding modifier on the instruction), beside the
// intrinsics that say the same; and cuda_fp16.h's conversions to half in each mode.
#define PTX2(T, C, OP, A, B) ({ T r_; asm(OP " %0, %1, %2;" : "=" C(r_) : C(A), C(B)); r_; })
__global__ void inline_modes(const float *x, const float *y, const double *u, const double *v, float *out,
                             double *dout, __half *hout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = y[i], fr, fs;
  double c = u[i], d = v[i], dr;
  asm("fma.rm.f32 %0, %1, %2, %1;" : "=f"(fr) : "f"(a), "f"(b));
  asm("sqrt.rp.f32 %0, %1;" : "=f"(fs) : "f"(a));
  asm("rcp.rz.f64 %0, %1;" : "=d"(dr) : "d"(c));
  float pairs[][2] = {{PTX2(float, "f", "add.rz.f32", a, b), __fadd_rz(a, b)},
                      {PTX2(float, "f", "sub.rm.f32", a, b), __fsub_rd(a, b)},
                      {PTX2(float, "f", "mul.rp.f32", a, b), __fmul_ru(a, b)},
                      {PTX2(float, "f", "div.rz.f32", a, b), __fdiv_rz(a, b)},
                      {fr, __fmaf_rd(a, b, a)}, {fs, __fsqrt_ru(a)}};
  double dpairs[][2] = {{PTX2(double, "d", "add.rp.f64", c, d), __dadd_ru(c, d)},
                        {PTX2(double, "d", "sub.rz.f64", c, d), __dsub_rz(c, d)},
                        {PTX2(double, "d", "mul.rm.f64", c, d), __dmul_rd(c, d)},
                        {PTX2(double, "d", "div.rp.f64", c, d), __ddiv_ru(c, d)}, {dr, __drcp_rz(c)}};
  float cvt;
  asm("cvt.rz.f32.f64 %0, %1;" : "=f"(cvt) : "d"(c));
  out[12 * n + i] = cvt;
  out[13 * n + i] = __double2float_rz(c);
  asm("cvt.rm.f32.s32 %0, %1;" : "=f"(cvt) : "r"(__float_as_int(a)));
  out[14 * n + i] = cvt;
  out[15 * n + i] = __int2float_rd(__float_as_int(a));
  for (int k = 0; k < 6; ++k) {
    out[2 * k * n + i] = pairs[k][0];
    out[(2 * k + 1) * n + i] = pairs[k][1];
  }
  for (int k = 0; k < 5; ++k) {
    dout[2 * k * n + i] = dpairs[k][0];
    dout[(2 * k + 1) * n + i] = dpairs[k][1];
  }
  hout[i] = __float2half_rz(a);
  hout[n + i] = __float2half_rd(a);
  hout[2 * n + i] = __float2half_ru(a);
  hout[3 * n + i] = __float2half_rn(a);
}
