/* Half precision: __half and __half2 hold IEEE binary16 bits; arithmetic goes through clang's
   _Float16, so the IR carries half-precision operations and conversions. */
#ifndef SIMULEE_CUDA_FP16_H
#define SIMULEE_CUDA_FP16_H
#include "simulee_prelude.h"

struct __half_raw {
  unsigned short x;
};
struct __half2_raw {
  unsigned short x, y;
};

struct __align__(2) __half {
  unsigned short __x;
  __half() = default;
  __host__ __device__ __half(const __half_raw &r) : __x(r.x) {}
  __host__ __device__ __half(_Float16 f) : __x(__builtin_bit_cast(unsigned short, f)) {}
  __host__ __device__ __half(float f) : __half((_Float16)f) {}
  __host__ __device__ __half(double f) : __half((_Float16)f) {}
  __host__ __device__ __half(int i) : __half((_Float16)i) {}
  __host__ __device__ __half(unsigned int i) : __half((_Float16)i) {}
  __host__ __device__ operator __half_raw() const { return __half_raw{__x}; }
  __host__ __device__ _Float16 __value() const { return __builtin_bit_cast(_Float16, __x); }
  __host__ __device__ operator float() const { return (float)__value(); }
};
typedef struct __half half;

struct __align__(4) __half2 {
  __half x, y;
  __half2() = default;
  __host__ __device__ __half2(const __half &a, const __half &b) : x(a), y(b) {}
  __host__ __device__ __half2(const __half2_raw &r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
};
typedef struct __half2 half2;

#define __SIMULEE_H(v) ((v).__value())

/* Conversions. */
__SIMULEE_HD __half __float2half(float f) { return __half(f); }
__SIMULEE_HD __half __float2half_rn(float f) { return __half(f); }
__SIMULEE_HD __half __double2half(double f) { return __half(f); }
__SIMULEE_HD float __half2float(__half h) { return (float)__SIMULEE_H(h); }
__SIMULEE_HD __half __int2half_rn(int i) { return __half(i); }
__SIMULEE_HD int __half2int_rz(__half h) { return (int)__SIMULEE_H(h); }
__SIMULEE_HD int __half2int_rn(__half h) { return (int)__builtin_rintf(__half2float(h)); }
__SIMULEE_HD __half __uint2half_rn(unsigned int i) { return __half(i); }
__SIMULEE_HD unsigned int __half2uint_rz(__half h) { return (unsigned int)__SIMULEE_H(h); }
__SIMULEE_HD short __half_as_short(__half h) { return (short)h.__x; }
__SIMULEE_HD unsigned short __half_as_ushort(__half h) { return h.__x; }
__SIMULEE_HD __half __short_as_half(short s) { return __half(__half_raw{(unsigned short)s}); }
__SIMULEE_HD __half __ushort_as_half(unsigned short s) { return __half(__half_raw{s}); }
__SIMULEE_HD __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
__SIMULEE_HD __half2 __half2half2(__half a) { return __half2(a, a); }
__SIMULEE_HD __half2 __float2half2_rn(float f) { return __half2(__half(f), __half(f)); }
__SIMULEE_HD __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
__SIMULEE_HD __half2 make_half2(__half a, __half b) { return __half2(a, b); }
__SIMULEE_HD float2 __half22float2(__half2 h) { return make_float2(__half2float(h.x), __half2float(h.y)); }
__SIMULEE_HD __half2 __float22half2_rn(float2 f) { return __floats2half2_rn(f.x, f.y); }
__SIMULEE_HD __half __low2half(__half2 h) { return h.x; }
__SIMULEE_HD __half __high2half(__half2 h) { return h.y; }
__SIMULEE_HD float __low2float(__half2 h) { return __half2float(h.x); }
__SIMULEE_HD float __high2float(__half2 h) { return __half2float(h.y); }
__SIMULEE_HD __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
__SIMULEE_HD __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }

/* Scalar arithmetic and comparisons, rounded to half after every operation. */
__SIMULEE_HD __half __hadd(__half a, __half b) { return __half(__SIMULEE_H(a) + __SIMULEE_H(b)); }
__SIMULEE_HD __half __hsub(__half a, __half b) { return __half(__SIMULEE_H(a) - __SIMULEE_H(b)); }
__SIMULEE_HD __half __hmul(__half a, __half b) { return __half(__SIMULEE_H(a) * __SIMULEE_H(b)); }
__SIMULEE_HD __half __hdiv(__half a, __half b) { return __half(__SIMULEE_H(a) / __SIMULEE_H(b)); }
__SIMULEE_HD __half __hneg(__half a) { return __half(-__SIMULEE_H(a)); }
__SIMULEE_HD __half __habs(__half a) { return __SIMULEE_H(a) < 0 ? __hneg(a) : a; }
__SIMULEE_HD __half __hfma(__half a, __half b, __half c) {
  return __half((_Float16)__builtin_fmaf(__half2float(a), __half2float(b), __half2float(c)));
}
__SIMULEE_HD __half __hmax(__half a, __half b) { return __SIMULEE_H(a) < __SIMULEE_H(b) ? b : a; }
__SIMULEE_HD __half __hmin(__half a, __half b) { return __SIMULEE_H(b) < __SIMULEE_H(a) ? b : a; }
__SIMULEE_HD bool __heq(__half a, __half b) { return __SIMULEE_H(a) == __SIMULEE_H(b); }
__SIMULEE_HD bool __hne(__half a, __half b) { return __SIMULEE_H(a) != __SIMULEE_H(b); }
__SIMULEE_HD bool __hlt(__half a, __half b) { return __SIMULEE_H(a) < __SIMULEE_H(b); }
__SIMULEE_HD bool __hle(__half a, __half b) { return __SIMULEE_H(a) <= __SIMULEE_H(b); }
__SIMULEE_HD bool __hgt(__half a, __half b) { return __SIMULEE_H(a) > __SIMULEE_H(b); }
__SIMULEE_HD bool __hge(__half a, __half b) { return __SIMULEE_H(a) >= __SIMULEE_H(b); }
__SIMULEE_HD bool __hisnan(__half a) { return __SIMULEE_H(a) != __SIMULEE_H(a); }
__SIMULEE_HD bool __hisinf(__half a) { return (a.__x & 0x7fff) == 0x7c00; }
__SIMULEE_DEVICE __half hsqrt(__half a) { return __half(sqrtf(__half2float(a))); }
__SIMULEE_DEVICE __half hrsqrt(__half a) { return __half(rsqrtf(__half2float(a))); }
__SIMULEE_DEVICE __half hrcp(__half a) { return __half(1.0f / __half2float(a)); }
__SIMULEE_DEVICE __half hexp(__half a) { return __half(expf(__half2float(a))); }
__SIMULEE_DEVICE __half hlog(__half a) { return __half(logf(__half2float(a))); }
__SIMULEE_DEVICE __half hsin(__half a) { return __half(sinf(__half2float(a))); }
__SIMULEE_DEVICE __half hcos(__half a) { return __half(cosf(__half2float(a))); }
__SIMULEE_DEVICE __half hfloor(__half a) { return __half(floorf(__half2float(a))); }
__SIMULEE_DEVICE __half hceil(__half a) { return __half(ceilf(__half2float(a))); }

/* Paired arithmetic. */
#define __SIMULEE_H2(NAME, OP) \
  __SIMULEE_HD __half2 NAME(__half2 a, __half2 b) { return __half2(OP(a.x, b.x), OP(a.y, b.y)); }
__SIMULEE_H2(__hadd2, __hadd)
__SIMULEE_H2(__hsub2, __hsub)
__SIMULEE_H2(__hmul2, __hmul)
__SIMULEE_H2(__h2div, __hdiv)
__SIMULEE_H2(__hmax2, __hmax)
__SIMULEE_H2(__hmin2, __hmin)
#undef __SIMULEE_H2
__SIMULEE_HD __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
  return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
__SIMULEE_HD __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }

/* Operators on __half, as CUDA's headers define them. */
__SIMULEE_HD __half operator+(__half a, __half b) { return __hadd(a, b); }
__SIMULEE_HD __half operator-(__half a, __half b) { return __hsub(a, b); }
__SIMULEE_HD __half operator*(__half a, __half b) { return __hmul(a, b); }
__SIMULEE_HD __half operator/(__half a, __half b) { return __hdiv(a, b); }
__SIMULEE_HD __half operator-(__half a) { return __hneg(a); }
__SIMULEE_HD __half &operator+=(__half &a, __half b) { return a = __hadd(a, b); }
__SIMULEE_HD __half &operator-=(__half &a, __half b) { return a = __hsub(a, b); }
__SIMULEE_HD __half &operator*=(__half &a, __half b) { return a = __hmul(a, b); }
__SIMULEE_HD __half &operator/=(__half &a, __half b) { return a = __hdiv(a, b); }
__SIMULEE_HD bool operator==(__half a, __half b) { return __heq(a, b); }
__SIMULEE_HD bool operator!=(__half a, __half b) { return __hne(a, b); }
__SIMULEE_HD bool operator<(__half a, __half b) { return __hlt(a, b); }
__SIMULEE_HD bool operator<=(__half a, __half b) { return __hle(a, b); }
__SIMULEE_HD bool operator>(__half a, __half b) { return __hgt(a, b); }
__SIMULEE_HD bool operator>=(__half a, __half b) { return __hge(a, b); }
__SIMULEE_HD __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
__SIMULEE_HD __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
__SIMULEE_HD __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
__SIMULEE_HD __half2 operator/(__half2 a, __half2 b) { return __h2div(a, b); }

/* Warp shuffles and atomics on halves, through their bits. */
#define __SIMULEE_SHFL_HALF(NAME) \
  __SIMULEE_DEVICE __half NAME(unsigned int mask, __half var, int lane, int width = 32) { \
    return __ushort_as_half((unsigned short)NAME(mask, (unsigned int)var.__x, lane, width)); \
  } \
  __SIMULEE_DEVICE __half2 NAME(unsigned int mask, __half2 var, int lane, int width = 32) { \
    unsigned int bits = NAME(mask, __builtin_bit_cast(unsigned int, var), lane, width); \
    return __builtin_bit_cast(__half2, bits); \
  }
__SIMULEE_SHFL_HALF(__shfl_sync)
__SIMULEE_SHFL_HALF(__shfl_up_sync)
__SIMULEE_SHFL_HALF(__shfl_down_sync)
__SIMULEE_SHFL_HALF(__shfl_xor_sync)
#undef __SIMULEE_SHFL_HALF

__SIMULEE_DEVICE __half atomicAdd(__half *p, __half v) {
  return __half(__atomic_fetch_add((_Float16 *)p, __SIMULEE_H(v), __ATOMIC_SEQ_CST));
}

#undef __SIMULEE_H
#endif
