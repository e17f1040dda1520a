// Functions of CUDA's math API on arrays of operands, for tests/test_arithmetic.py to hold
// within the maximum errors (in units in the last place) NVIDIA documents for each.
__global__ void float_math(const float *x, const float *y, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = y[i];
  float r[] = {sinf(a), cosf(a), tanf(a), expf(a), exp2f(a), exp10f(a), expm1f(a), logf(a), log2f(a), log10f(a),
               log1pf(a), powf(a, b), sqrtf(a), rsqrtf(a), cbrtf(a), sinhf(a), coshf(a), tanhf(a), asinf(a),
               acosf(a), atanf(a), atan2f(a, b), erff(a), erfcf(a), hypotf(a, b), fmodf(a, b), floorf(a),
               ceilf(a), roundf(a), truncf(a), fminf(a, b), fmaxf(a, b), fdividef(a, b), a / b};
  for (int k = 0; k < 34; ++k) out[k * n + i] = r[k];
}

__global__ void double_math(const double *x, const double *y, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a = x[i], b = y[i];
  double r[] = {sin(a), cos(a), exp(a), log(a), pow(a, b), sqrt(a), tanh(a), atan2(a, b), erf(a), a / b};
  for (int k = 0; k < 10; ++k) out[k * n + i] = r[k];
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
