/* Device math. Every function forwards to its libdevice name (__nv_*), which the interpreter
   implements; float and double versions and the C++ overloads (sqrt(float), ...) exist for
   each, and integer arguments go to the double version as in <cmath>. Included after the C
   library headers, so the device versions overload the host ones by target. */
#ifndef SIMULEE_DEVICE_MATH_H
#define SIMULEE_DEVICE_MATH_H

template <bool B, class T> struct __simulee_enable_if {};
template <class T> struct __simulee_enable_if<true, T> { typedef T type; };
#define __SIMULEE_IF_INTEGRAL(T, R) typename __simulee_enable_if<__is_integral(T), R>::type

/* cuda_runtime.h brought <cmath> in before these (through <utility>), so each name is also
   declared in namespace std, where std::sqrt and friends then find the device overloads. */
#define __SIMULEE_STD(NAME) \
  namespace std { \
  using ::NAME; \
  }

#define __SIMULEE_MATH1(NAME) \
  extern "C" __device__ float __nv_##NAME##f(float); \
  extern "C" __device__ double __nv_##NAME(double); \
  __SIMULEE_DEVICE float NAME##f(float x) { return __nv_##NAME##f(x); } \
  __SIMULEE_DEVICE float NAME(float x) { return __nv_##NAME##f(x); } \
  __SIMULEE_DEVICE double NAME(double x) { return __nv_##NAME(x); } \
  template <class T> __SIMULEE_DEVICE __SIMULEE_IF_INTEGRAL(T, double) NAME(T x) { return __nv_##NAME((double)x); } \
  __SIMULEE_STD(NAME) __SIMULEE_STD(NAME##f)
#define __SIMULEE_MATH2(NAME) \
  extern "C" __device__ float __nv_##NAME##f(float, float); \
  extern "C" __device__ double __nv_##NAME(double, double); \
  __SIMULEE_DEVICE float NAME##f(float x, float y) { return __nv_##NAME##f(x, y); } \
  __SIMULEE_DEVICE float NAME(float x, float y) { return __nv_##NAME##f(x, y); } \
  __SIMULEE_DEVICE double NAME(double x, double y) { return __nv_##NAME(x, y); } \
  __SIMULEE_DEVICE double NAME(float x, double y) { return __nv_##NAME(x, y); } \
  __SIMULEE_DEVICE double NAME(double x, float y) { return __nv_##NAME(x, y); } \
  template <class T> __SIMULEE_DEVICE __SIMULEE_IF_INTEGRAL(T, double) NAME(T x, double y) { \
    return __nv_##NAME((double)x, y); \
  } \
  template <class T> __SIMULEE_DEVICE __SIMULEE_IF_INTEGRAL(T, double) NAME(double x, T y) { \
    return __nv_##NAME(x, (double)y); \
  } \
  __SIMULEE_STD(NAME) __SIMULEE_STD(NAME##f)
/* A float/double pair with its own argument and result types. */
#define __SIMULEE_MATH_SIG(R, NAME, PARAMS, ARGS, FR, FPARAMS) \
  extern "C" __device__ FR __nv_##NAME##f FPARAMS; \
  extern "C" __device__ R __nv_##NAME PARAMS; \
  __SIMULEE_DEVICE FR NAME##f FPARAMS { return __nv_##NAME##f ARGS; } \
  __SIMULEE_DEVICE FR NAME FPARAMS { return __nv_##NAME##f ARGS; } \
  __SIMULEE_DEVICE R NAME PARAMS { return __nv_##NAME ARGS; } \
  __SIMULEE_STD(NAME) __SIMULEE_STD(NAME##f)

__SIMULEE_MATH1(sqrt)
__SIMULEE_MATH1(rsqrt)
__SIMULEE_MATH1(cbrt)
__SIMULEE_MATH1(rcbrt)
__SIMULEE_MATH1(exp)
__SIMULEE_MATH1(exp2)
__SIMULEE_MATH1(exp10)
__SIMULEE_MATH1(expm1)
__SIMULEE_MATH1(log)
__SIMULEE_MATH1(log2)
__SIMULEE_MATH1(log10)
__SIMULEE_MATH1(log1p)
__SIMULEE_MATH1(logb)
__SIMULEE_MATH1(sin)
__SIMULEE_MATH1(cos)
__SIMULEE_MATH1(tan)
__SIMULEE_MATH1(sinpi)
__SIMULEE_MATH1(cospi)
__SIMULEE_MATH1(asin)
__SIMULEE_MATH1(acos)
__SIMULEE_MATH1(atan)
__SIMULEE_MATH1(sinh)
__SIMULEE_MATH1(cosh)
__SIMULEE_MATH1(tanh)
__SIMULEE_MATH1(asinh)
__SIMULEE_MATH1(acosh)
__SIMULEE_MATH1(atanh)
__SIMULEE_MATH1(floor)
__SIMULEE_MATH1(ceil)
__SIMULEE_MATH1(round)
__SIMULEE_MATH1(trunc)
__SIMULEE_MATH1(rint)
__SIMULEE_MATH1(nearbyint)
__SIMULEE_MATH1(erf)
__SIMULEE_MATH1(erfc)
__SIMULEE_MATH1(erfinv)
__SIMULEE_MATH1(erfcinv)
__SIMULEE_MATH1(erfcx)
__SIMULEE_MATH1(lgamma)
__SIMULEE_MATH1(tgamma)
__SIMULEE_MATH1(normcdf)
__SIMULEE_MATH1(normcdfinv)
__SIMULEE_MATH1(j0)
__SIMULEE_MATH1(j1)
__SIMULEE_MATH1(y0)
__SIMULEE_MATH1(y1)
__SIMULEE_MATH1(cyl_bessel_i0)
__SIMULEE_MATH1(cyl_bessel_i1)
__SIMULEE_MATH2(pow)
/* nvcc's headers overload pow for an int exponent: pow(float, int) stays float. */
__SIMULEE_DEVICE float pow(float x, int e) { return __nv_powf(x, (float)e); }
__SIMULEE_DEVICE double pow(double x, int e) { return __nv_pow(x, (double)e); }
__SIMULEE_MATH2(atan2)
__SIMULEE_MATH2(fmod)
__SIMULEE_MATH2(remainder)
__SIMULEE_MATH2(fmin)
__SIMULEE_MATH2(fmax)
__SIMULEE_MATH2(fdim)
__SIMULEE_MATH2(copysign)
__SIMULEE_MATH2(hypot)
__SIMULEE_MATH2(rhypot)
__SIMULEE_MATH2(nextafter)
__SIMULEE_MATH_SIG(double, fabs, (double x), (x), float, (float x))
__SIMULEE_MATH_SIG(double, fma, (double x, double y, double z), (x, y, z), float, (float x, float y, float z))
__SIMULEE_MATH_SIG(double, ldexp, (double x, int e), (x, e), float, (float x, int e))
__SIMULEE_MATH_SIG(double, scalbn, (double x, int e), (x, e), float, (float x, int e))
__SIMULEE_MATH_SIG(double, frexp, (double x, int *e), (x, e), float, (float x, int *e))
__SIMULEE_MATH_SIG(double, modf, (double x, double *i), (x, i), float, (float x, float *i))
__SIMULEE_MATH_SIG(double, remquo, (double x, double y, int *q), (x, y, q), float, (float x, float y, int *q))
__SIMULEE_MATH_SIG(void, sincos, (double x, double *s, double *c), (x, s, c), void, (float x, float *s, float *c))
__SIMULEE_MATH_SIG(void, sincospi, (double x, double *s, double *c), (x, s, c), void, (float x, float *s, float *c))
__SIMULEE_MATH_SIG(int, ilogb, (double x), (x), int, (float x))
__SIMULEE_MATH_SIG(long long, llrint, (double x), (x), long long, (float x))
__SIMULEE_MATH_SIG(long long, llround, (double x), (x), long long, (float x))
__SIMULEE_MATH_SIG(double, norm3d, (double x, double y, double z), (x, y, z), float, (float x, float y, float z))
__SIMULEE_MATH_SIG(double, rnorm3d, (double x, double y, double z), (x, y, z), float, (float x, float y, float z))
__SIMULEE_MATH_SIG(double, norm4d, (double x, double y, double z, double w), (x, y, z, w), float,
                   (float x, float y, float z, float w))
__SIMULEE_MATH_SIG(double, rnorm4d, (double x, double y, double z, double w), (x, y, z, w), float,
                   (float x, float y, float z, float w))
__SIMULEE_MATH_SIG(double, jn, (int n, double x), (n, x), float, (int n, float x))
__SIMULEE_MATH_SIG(double, yn, (int n, double x), (n, x), float, (int n, float x))
#undef __SIMULEE_MATH1
#undef __SIMULEE_MATH2
#undef __SIMULEE_MATH_SIG

/* Euclidean norms of `dim` values and their reciprocals. */
#define __SIMULEE_NORM(NAME, T, SQRT, RECIPROCAL) \
  __SIMULEE_DEVICE T NAME(int dim, const T *p) { \
    T sum = 0; \
    for (int i = 0; i < dim; ++i) sum += p[i] * p[i]; \
    return RECIPROCAL ? (T)1 / SQRT(sum) : SQRT(sum); \
  }
__SIMULEE_NORM(normf, float, __nv_sqrtf, false)
__SIMULEE_NORM(rnormf, float, __nv_sqrtf, true)
__SIMULEE_NORM(norm, double, __nv_sqrt, false)
__SIMULEE_NORM(rnorm, double, __nv_sqrt, true)
#undef __SIMULEE_NORM

__SIMULEE_DEVICE float scalblnf(float x, long e) { return __nv_scalbnf(x, e > 2147483647L ? 2147483647 : e < -2147483647L ? -2147483647 : (int)e); }
__SIMULEE_DEVICE double scalbln(double x, long e) { return __nv_scalbn(x, e > 2147483647L ? 2147483647 : e < -2147483647L ? -2147483647 : (int)e); }
__SIMULEE_DEVICE long lrintf(float x) { return (long)__nv_llrintf(x); }
__SIMULEE_DEVICE long lrint(double x) { return (long)__nv_llrint(x); }
__SIMULEE_DEVICE long lroundf(float x) { return (long)__nv_llroundf(x); }
__SIMULEE_DEVICE long lround(double x) { return (long)__nv_llround(x); }
extern "C" __device__ float __nv_nanf(const signed char *);
extern "C" __device__ double __nv_nan(const signed char *);
__SIMULEE_DEVICE float nanf(const char *tag) { return __nv_nanf((const signed char *)tag); }
__SIMULEE_DEVICE double nan(const char *tag) { return __nv_nan((const signed char *)tag); }

/* Classification. */
extern "C" __device__ int __nv_isnanf(float);
extern "C" __device__ int __nv_isnand(double);
extern "C" __device__ int __nv_isinff(float);
extern "C" __device__ int __nv_isinfd(double);
extern "C" __device__ int __nv_finitef(float);
extern "C" __device__ int __nv_isfinited(double);
extern "C" __device__ int __nv_signbitf(float);
extern "C" __device__ int __nv_signbitd(double);
__SIMULEE_DEVICE bool isnan(float x) { return __nv_isnanf(x); }
__SIMULEE_DEVICE bool isnan(double x) { return __nv_isnand(x); }
__SIMULEE_DEVICE bool isinf(float x) { return __nv_isinff(x); }
__SIMULEE_DEVICE bool isinf(double x) { return __nv_isinfd(x); }
__SIMULEE_DEVICE bool isfinite(float x) { return __nv_finitef(x); }
__SIMULEE_DEVICE bool isfinite(double x) { return __nv_isfinited(x); }
__SIMULEE_DEVICE bool signbit(float x) { return __nv_signbitf(x); }
__SIMULEE_DEVICE bool signbit(double x) { return __nv_signbitd(x); }
__SIMULEE_DEVICE int __isnanf(float x) { return __nv_isnanf(x); }
__SIMULEE_DEVICE int __isnan(double x) { return __nv_isnand(x); }
__SIMULEE_DEVICE int __isinff(float x) { return __nv_isinff(x); }
__SIMULEE_DEVICE int __isinf(double x) { return __nv_isinfd(x); }
__SIMULEE_DEVICE int __finitef(float x) { return __nv_finitef(x); }
__SIMULEE_DEVICE int __finite(double x) { return __nv_isfinited(x); }
__SIMULEE_DEVICE int __signbitf(float x) { return __nv_signbitf(x); }
__SIMULEE_DEVICE int __signbit(double x) { return __nv_signbitd(x); }
__SIMULEE_DEVICE int __isnand(double x) { return __nv_isnand(x); }
__SIMULEE_DEVICE int __isinfd(double x) { return __nv_isinfd(x); }
__SIMULEE_DEVICE int __isfinited(double x) { return __nv_isfinited(x); }
__SIMULEE_DEVICE int __signbitd(double x) { return __nv_signbitd(x); }

/* Integer absolute values. */
__SIMULEE_DEVICE int abs(int x) { return x < 0 ? -x : x; }
__SIMULEE_DEVICE long abs(long x) { return x < 0 ? -x : x; }
__SIMULEE_DEVICE long long abs(long long x) { return x < 0 ? -x : x; }
__SIMULEE_DEVICE float abs(float x) { return __nv_fabsf(x); }
__SIMULEE_DEVICE double abs(double x) { return __nv_fabs(x); }
__SIMULEE_DEVICE long labs(long x) { return x < 0 ? -x : x; }
__SIMULEE_DEVICE long long llabs(long long x) { return x < 0 ? -x : x; }
__SIMULEE_STD(lrint) __SIMULEE_STD(lrintf) __SIMULEE_STD(lround) __SIMULEE_STD(lroundf)
__SIMULEE_STD(nan) __SIMULEE_STD(nanf) __SIMULEE_STD(isnan) __SIMULEE_STD(isinf) __SIMULEE_STD(isfinite)
__SIMULEE_STD(signbit) __SIMULEE_STD(abs) __SIMULEE_STD(labs) __SIMULEE_STD(llabs)
#undef __SIMULEE_STD

/* Fast (intrinsic) versions: the same values up to rounding, so they share the precise ones. */
__SIMULEE_DEVICE float __expf(float x) { return __nv_expf(x); }
__SIMULEE_DEVICE float __exp10f(float x) { return __nv_exp10f(x); }
__SIMULEE_DEVICE float __logf(float x) { return __nv_logf(x); }
__SIMULEE_DEVICE float __log2f(float x) { return __nv_log2f(x); }
__SIMULEE_DEVICE float __log10f(float x) { return __nv_log10f(x); }
__SIMULEE_DEVICE float __sinf(float x) { return __nv_sinf(x); }
__SIMULEE_DEVICE float __cosf(float x) { return __nv_cosf(x); }
__SIMULEE_DEVICE float __tanf(float x) { return __nv_tanf(x); }
__SIMULEE_DEVICE void __sincosf(float x, float *s, float *c) { __nv_sincosf(x, s, c); }
__SIMULEE_DEVICE float __powf(float x, float y) { return __nv_powf(x, y); }
__SIMULEE_DEVICE float __tanhf(float x) { return __nv_tanhf(x); }
__SIMULEE_DEVICE float __fdividef(float x, float y) { return x / y; }
__SIMULEE_DEVICE float fdividef(float x, float y) { return x / y; }
__SIMULEE_DEVICE double fdivide(double x, double y) { return x / y; }
__SIMULEE_DEVICE float __saturatef(float x) { return __nvvm_saturate_f(x); }
__SIMULEE_DEVICE float __frsqrt_rn(float x) { return __nv_rsqrtf(x); }

/* Arithmetic with an explicit rounding mode (rn nearest even, rz toward zero, ru up, rd
   down): NVVM's intrinsics, which round as PTX does (interpreter/rounding.py). */
#define __SIMULEE_ROUNDED(R, M) \
  __SIMULEE_DEVICE float __fadd_##R(float x, float y) { return __nvvm_add_##M##_f(x, y); } \
  __SIMULEE_DEVICE float __fsub_##R(float x, float y) { return __nvvm_add_##M##_f(x, -y); } \
  __SIMULEE_DEVICE float __fmul_##R(float x, float y) { return __nvvm_mul_##M##_f(x, y); } \
  __SIMULEE_DEVICE float __fdiv_##R(float x, float y) { return __nvvm_div_##M##_f(x, y); } \
  __SIMULEE_DEVICE float __frcp_##R(float x) { return __nvvm_rcp_##M##_f(x); } \
  __SIMULEE_DEVICE float __fsqrt_##R(float x) { return __nvvm_sqrt_##M##_f(x); } \
  __SIMULEE_DEVICE float __fmaf_##R(float x, float y, float z) { return __nvvm_fma_##M##_f(x, y, z); } \
  __SIMULEE_DEVICE float __fmaf_ieee_##R(float x, float y, float z) { return __nvvm_fma_##M##_f(x, y, z); } \
  __SIMULEE_DEVICE double __dadd_##R(double x, double y) { return __nvvm_add_##M##_d(x, y); } \
  __SIMULEE_DEVICE double __dsub_##R(double x, double y) { return __nvvm_add_##M##_d(x, -y); } \
  __SIMULEE_DEVICE double __dmul_##R(double x, double y) { return __nvvm_mul_##M##_d(x, y); } \
  __SIMULEE_DEVICE double __ddiv_##R(double x, double y) { return __nvvm_div_##M##_d(x, y); } \
  __SIMULEE_DEVICE double __drcp_##R(double x) { return __nvvm_rcp_##M##_d(x); } \
  __SIMULEE_DEVICE double __dsqrt_##R(double x) { return __nvvm_sqrt_##M##_d(x); } \
  __SIMULEE_DEVICE double __fma_##R(double x, double y, double z) { return __nvvm_fma_##M##_d(x, y, z); }
__SIMULEE_ROUNDED(rn, rn)
__SIMULEE_ROUNDED(rz, rz)
__SIMULEE_ROUNDED(ru, rp)
__SIMULEE_ROUNDED(rd, rm)
#undef __SIMULEE_ROUNDED

#endif
