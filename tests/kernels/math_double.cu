// Double-precision math, with integer arguments promoted to double as in <cmath>.
// kernel: double_math(const double *in, double *out, int n)
//   reads: tid.x
//   shared: 0

__global__ void double_math(const double *in, double *out, int n) {
  double x = in[threadIdx.x];
  out[0] = sqrt(x) + rsqrt(x) + exp(x) + log(x) + log1p(x) + expm1(x) + pow(x, 3.0);
  out[1] = sin(x) + cos(x) + tan(x) + atan2(x, 1.0) + fabs(x) + floor(x) + ceil(x) + round(x);
  out[2] = fmin(x, 1.0) + fmax(x, 2.0) + fma(x, 2.0, 1.0) + fmod(x, 2.0) + erf(x) + cbrt(x);
  out[3] = sqrt(n) + pow(n, 2.0) + (double)isnan(x) + (double)isinf(x) + (double)llrint(x);
  out[4] = __longlong_as_double(__double_as_longlong(x)) + __hiloint2double(__double2hiint(x), __double2loint(x));
}
