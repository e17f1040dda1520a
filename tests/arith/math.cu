// Functions of CUDA's math API on arrays of operands, for tests/test_arithmetic.py to hold
// within the maximum errors (in units in the last place) NVIDIA documents for each. The
// order of the results is the order of tests/test_arithmetic.py's MATH table.
#define RESULTS(T, F, a, b)                                                                                          \
  T s, c, sp, cp, whole;                                                                                             \
  int e, q;                                                                                                          \
  sincos##F(a, &s, &c);                                                                                              \
  sincospi##F(a, &sp, &cp);                                                                                          \
  T m = frexp##F(a, &e), fraction = modf##F(a, &whole), rq = remquo##F(a, b, &q);                                    \
  int k = (int)b;                                                                                                    \
  T r[] = {sin##F(a), cos##F(a), tan##F(a), exp##F(a), exp2##F(a), exp10##F(a), expm1##F(a), log##F(a),             \
           log2##F(a), log10##F(a), log1p##F(a), pow##F(a, b), sqrt##F(a), rsqrt##F(a), cbrt##F(a), rcbrt##F(a),     \
           sinh##F(a), cosh##F(a), tanh##F(a), asin##F(a), acos##F(a), atan##F(a), atan2##F(a, b), asinh##F(a),      \
           acosh##F(a), atanh##F(a), sinpi##F(a), cospi##F(a), s, c, sp, cp, hypot##F(a, b), rhypot##F(a, b),        \
           norm3d##F(a, b, a), rnorm3d##F(a, b, a), norm4d##F(a, b, a, b), rnorm4d##F(a, b, a, b), erf##F(a),        \
           erfc##F(a), erfinv##F(a), erfcinv##F(a), erfcx##F(a), normcdf##F(a), normcdfinv##F(a), lgamma##F(a),      \
           tgamma##F(a), j0##F(a), j1##F(a), y0##F(a), y1##F(a), jn##F(3, a), yn##F(2, a), cyl_bessel_i0##F(a),      \
           cyl_bessel_i1##F(a), fmod##F(a, b), remainder##F(a, b), rq, (T)(q & 7), fdim##F(a, b), floor##F(a),     \
           ceil##F(a), round##F(a), trunc##F(a), rint##F(a), nearbyint##F(a), (T)llrint##F(a), (T)llround##F(a),    \
           fmin##F(a, b), fmax##F(a, b), fabs##F(a), copysign##F(a, b), nextafter##F(a, b), ldexp##F(a, k),         \
           scalbn##F(a, k), logb##F(a), (T)ilogb##F(a), m, (T)e, fraction, whole, a / b};                           \
  const int K = sizeof(r) / sizeof(r[0]);                                                                            \
  for (int k = 0; k < K; ++k) out[k * n + i] = r[k];

__global__ void float_math(const float *x, const float *y, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = y[i];
  RESULTS(float, f, a, b)
}

__global__ void double_math(const double *x, const double *y, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a = x[i], b = y[i];
  RESULTS(double, , a, b)
}

// fused multiply-adds, rounded once (the GPU's FFMA and DFMA)
__global__ void fused(const float *a, const float *b, const float *c, const double *x, const double *y,
                      const double *z, float *out, double *dout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = __fmaf_rn(a[i], b[i], c[i]);
  out[n + i] = fmaf(a[i], b[i], c[i]);
  dout[i] = fma(x[i], y[i], z[i]);
}
