/* Integer and bit intrinsics, reinterpretations and conversions, cache-hinted loads and
   stores, min/max overloads, clocks and traps. */
#ifndef SIMULEE_INTRINSICS_H
#define SIMULEE_INTRINSICS_H

/* Bit counting and reversal. __clz(0) is 32 and __ffs(0) is 0, as in CUDA. */
__SIMULEE_DEVICE int __popc(unsigned int x) { return __builtin_popcount(x); }
__SIMULEE_DEVICE int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
__SIMULEE_DEVICE int __clz(int x) { return __builtin_clzg((unsigned int)x, 32); }
__SIMULEE_DEVICE int __clzll(long long x) { return __builtin_clzg((unsigned long long)x, 64); }
__SIMULEE_DEVICE int __ffs(int x) { return __builtin_ffs(x); }
__SIMULEE_DEVICE int __ffsll(long long x) { return __builtin_ffsll(x); }
__SIMULEE_DEVICE unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
__SIMULEE_DEVICE unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
__SIMULEE_DEVICE int __fns(unsigned int mask, unsigned int base, int offset) {
  return __nvvm_fns(mask, base, offset);
}

/* 24-bit multiplies, high halves of products, sums of absolute differences, averages. */
__SIMULEE_DEVICE int __mul24(int x, int y) { return __nvvm_mul24_i(x, y); }
__SIMULEE_DEVICE unsigned int __umul24(unsigned int x, unsigned int y) { return __nvvm_mul24_ui(x, y); }
__SIMULEE_DEVICE int __mulhi(int x, int y) { return __nvvm_mulhi_i(x, y); }
__SIMULEE_DEVICE unsigned int __umulhi(unsigned int x, unsigned int y) { return __nvvm_mulhi_ui(x, y); }
__SIMULEE_DEVICE long long __mul64hi(long long x, long long y) { return __nvvm_mulhi_ll(x, y); }
__SIMULEE_DEVICE unsigned long long __umul64hi(unsigned long long x, unsigned long long y) {
  return __nvvm_mulhi_ull(x, y);
}
__SIMULEE_DEVICE unsigned int __sad(int x, int y, unsigned int z) { return __nvvm_sad_i(x, y, z); }
__SIMULEE_DEVICE unsigned int __usad(unsigned int x, unsigned int y, unsigned int z) { return __nvvm_sad_ui(x, y, z); }
__SIMULEE_DEVICE int __hadd(int x, int y) { return (int)(((long long)x + y) >> 1); }
__SIMULEE_DEVICE int __rhadd(int x, int y) { return (int)(((long long)x + y + 1) >> 1); }
__SIMULEE_DEVICE unsigned int __uhadd(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x + y) >> 1);
}
__SIMULEE_DEVICE unsigned int __urhadd(unsigned int x, unsigned int y) {
  return (unsigned int)(((unsigned long long)x + y + 1) >> 1);
}
__SIMULEE_DEVICE unsigned int __byte_perm(unsigned int x, unsigned int y, unsigned int s) {
  return __nvvm_prmt(x, y, s);
}
/* Funnel shifts of the 64-bit value hi:lo; _l/_r wrap the shift at 32, _lc/_rc clamp it. */
__SIMULEE_DEVICE unsigned int __funnelshift_l(unsigned int lo, unsigned int hi, unsigned int shift) {
  return (unsigned int)(((((unsigned long long)hi << 32) | lo) << (shift & 31)) >> 32);
}
__SIMULEE_DEVICE unsigned int __funnelshift_lc(unsigned int lo, unsigned int hi, unsigned int shift) {
  return (unsigned int)(((((unsigned long long)hi << 32) | lo) << (shift < 32 ? shift : 32)) >> 32);
}
__SIMULEE_DEVICE unsigned int __funnelshift_r(unsigned int lo, unsigned int hi, unsigned int shift) {
  return (unsigned int)((((unsigned long long)hi << 32) | lo) >> (shift & 31));
}
__SIMULEE_DEVICE unsigned int __funnelshift_rc(unsigned int lo, unsigned int hi, unsigned int shift) {
  return (unsigned int)((((unsigned long long)hi << 32) | lo) >> (shift < 32 ? shift : 32));
}

/* Reinterpretations. */
__SIMULEE_HD int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
__SIMULEE_HD unsigned int __float_as_uint(float x) { return __builtin_bit_cast(unsigned int, x); }
__SIMULEE_HD float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
__SIMULEE_HD float __uint_as_float(unsigned int x) { return __builtin_bit_cast(float, x); }
__SIMULEE_HD long long __double_as_longlong(double x) { return __builtin_bit_cast(long long, x); }
__SIMULEE_HD double __longlong_as_double(long long x) { return __builtin_bit_cast(double, x); }
__SIMULEE_DEVICE int __double2hiint(double x) { return (int)(__builtin_bit_cast(unsigned long long, x) >> 32); }
__SIMULEE_DEVICE int __double2loint(double x) { return (int)__builtin_bit_cast(unsigned long long, x); }
__SIMULEE_DEVICE double __hiloint2double(int hi, int lo) {
  return __builtin_bit_cast(double, ((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo);
}

/* Conversions with a rounding mode: rn to nearest even, rz toward zero, ru up, rd down. */
#define __SIMULEE_CONVERSIONS(FROM, FNAME, TO, TNAME, RINT, CEIL, FLOOR) \
  __SIMULEE_DEVICE TO __##FNAME##2##TNAME##_rn(FROM x) { return (TO)RINT(x); } \
  __SIMULEE_DEVICE TO __##FNAME##2##TNAME##_rz(FROM x) { return (TO)x; } \
  __SIMULEE_DEVICE TO __##FNAME##2##TNAME##_ru(FROM x) { return (TO)CEIL(x); } \
  __SIMULEE_DEVICE TO __##FNAME##2##TNAME##_rd(FROM x) { return (TO)FLOOR(x); }
__SIMULEE_CONVERSIONS(float, float, int, int, __builtin_rintf, __builtin_ceilf, __builtin_floorf)
__SIMULEE_CONVERSIONS(float, float, unsigned int, uint, __builtin_rintf, __builtin_ceilf, __builtin_floorf)
__SIMULEE_CONVERSIONS(float, float, long long, ll, __builtin_rintf, __builtin_ceilf, __builtin_floorf)
__SIMULEE_CONVERSIONS(float, float, unsigned long long, ull, __builtin_rintf, __builtin_ceilf, __builtin_floorf)
__SIMULEE_CONVERSIONS(double, double, int, int, __builtin_rint, __builtin_ceil, __builtin_floor)
__SIMULEE_CONVERSIONS(double, double, unsigned int, uint, __builtin_rint, __builtin_ceil, __builtin_floor)
__SIMULEE_CONVERSIONS(double, double, long long, ll, __builtin_rint, __builtin_ceil, __builtin_floor)
__SIMULEE_CONVERSIONS(double, double, unsigned long long, ull, __builtin_rint, __builtin_ceil, __builtin_floor)
#undef __SIMULEE_CONVERSIONS
/* Integer to float and narrowing float conversions in each mode: NVVM's intrinsics (32-bit
   integers convert to double exactly). */
#define __SIMULEE_TO_FLOAT(FROM, FNAME, TO, TNAME, BUILTIN) \
  __SIMULEE_DEVICE TO __##FNAME##2##TNAME##_rn(FROM x) { return BUILTIN##_rn(x); } \
  __SIMULEE_DEVICE TO __##FNAME##2##TNAME##_rz(FROM x) { return BUILTIN##_rz(x); } \
  __SIMULEE_DEVICE TO __##FNAME##2##TNAME##_ru(FROM x) { return BUILTIN##_rp(x); } \
  __SIMULEE_DEVICE TO __##FNAME##2##TNAME##_rd(FROM x) { return BUILTIN##_rm(x); }
__SIMULEE_TO_FLOAT(int, int, float, float, __nvvm_i2f)
__SIMULEE_TO_FLOAT(unsigned int, uint, float, float, __nvvm_ui2f)
__SIMULEE_TO_FLOAT(long long, ll, float, float, __nvvm_ll2f)
__SIMULEE_TO_FLOAT(unsigned long long, ull, float, float, __nvvm_ull2f)
__SIMULEE_TO_FLOAT(long long, ll, double, double, __nvvm_ll2d)
__SIMULEE_TO_FLOAT(unsigned long long, ull, double, double, __nvvm_ull2d)
__SIMULEE_TO_FLOAT(double, double, float, float, __nvvm_d2f)
__SIMULEE_DEVICE double __int2double_rn(int x) { return (double)x; }
__SIMULEE_DEVICE double __uint2double_rn(unsigned int x) { return (double)x; }
#undef __SIMULEE_TO_FLOAT

/* Cache-hinted loads and stores are plain accesses for the memory model. */
template <class T> __SIMULEE_DEVICE T __ldg(const T *p) { return *p; }
template <class T> __SIMULEE_DEVICE T __ldcg(const T *p) { return *p; }
template <class T> __SIMULEE_DEVICE T __ldca(const T *p) { return *p; }
template <class T> __SIMULEE_DEVICE T __ldcs(const T *p) { return *p; }
template <class T> __SIMULEE_DEVICE T __ldlu(const T *p) { return *p; }
template <class T> __SIMULEE_DEVICE T __ldcv(const T *p) { return *p; }
template <class T> __SIMULEE_DEVICE void __stwb(T *p, T v) { *p = v; }
template <class T> __SIMULEE_DEVICE void __stcg(T *p, T v) { *p = v; }
template <class T> __SIMULEE_DEVICE void __stcs(T *p, T v) { *p = v; }
template <class T> __SIMULEE_DEVICE void __stwt(T *p, T v) { *p = v; }

/* min and max for every integer and floating type CUDA overloads them for. Mixed
   signed/unsigned arguments compare as unsigned, as in CUDA. */
#define __SIMULEE_MINMAX(T) \
  __SIMULEE_HD T min(T a, T b) { return a < b ? a : b; } \
  __SIMULEE_HD T max(T a, T b) { return a > b ? a : b; }
__SIMULEE_MINMAX(int)
__SIMULEE_MINMAX(unsigned int)
__SIMULEE_MINMAX(long)
__SIMULEE_MINMAX(unsigned long)
__SIMULEE_MINMAX(long long)
__SIMULEE_MINMAX(unsigned long long)
#undef __SIMULEE_MINMAX
__SIMULEE_HD float min(float a, float b) { return __builtin_fminf(a, b); }
__SIMULEE_HD float max(float a, float b) { return __builtin_fmaxf(a, b); }
__SIMULEE_HD double min(double a, double b) { return __builtin_fmin(a, b); }
__SIMULEE_HD double max(double a, double b) { return __builtin_fmax(a, b); }
__SIMULEE_HD double min(float a, double b) { return __builtin_fmin(a, b); }
__SIMULEE_HD double max(float a, double b) { return __builtin_fmax(a, b); }
__SIMULEE_HD double min(double a, float b) { return __builtin_fmin(a, b); }
__SIMULEE_HD double max(double a, float b) { return __builtin_fmax(a, b); }
__SIMULEE_HD unsigned int min(int a, unsigned int b) { return min((unsigned int)a, b); }
__SIMULEE_HD unsigned int max(int a, unsigned int b) { return max((unsigned int)a, b); }
__SIMULEE_HD unsigned int min(unsigned int a, int b) { return min(a, (unsigned int)b); }
__SIMULEE_HD unsigned int max(unsigned int a, int b) { return max(a, (unsigned int)b); }
__SIMULEE_HD unsigned long long min(long long a, unsigned long long b) { return min((unsigned long long)a, b); }
__SIMULEE_HD unsigned long long max(long long a, unsigned long long b) { return max((unsigned long long)a, b); }
__SIMULEE_HD unsigned long long min(unsigned long long a, long long b) { return min(a, (unsigned long long)b); }
__SIMULEE_HD unsigned long long max(unsigned long long a, long long b) { return max(a, (unsigned long long)b); }
__SIMULEE_HD unsigned int umin(unsigned int a, unsigned int b) { return min(a, b); }
__SIMULEE_HD unsigned int umax(unsigned int a, unsigned int b) { return max(a, b); }
__SIMULEE_HD long long llmin(long long a, long long b) { return min(a, b); }
__SIMULEE_HD long long llmax(long long a, long long b) { return max(a, b); }
__SIMULEE_HD unsigned long long ullmin(unsigned long long a, unsigned long long b) { return min(a, b); }
__SIMULEE_HD unsigned long long ullmax(unsigned long long a, unsigned long long b) { return max(a, b); }

/* Clocks, traps and sleeps. */
__SIMULEE_DEVICE long long clock64(void) { return __nvvm_read_ptx_sreg_clock64(); }
__SIMULEE_DEVICE void __trap(void) { __builtin_trap(); }
__SIMULEE_DEVICE void __brkpt(void) { __builtin_trap(); }
__SIMULEE_DEVICE void __nanosleep(unsigned int ns) { __nvvm_nanosleep(ns); }
__SIMULEE_DEVICE void __prof_trigger(int counter) { (void)counter; }

/* Byte swaps. */
__SIMULEE_DEVICE unsigned short __nv_bswap16(unsigned short x) { return __builtin_bswap16(x); }
__SIMULEE_DEVICE unsigned int __nv_bswap32(unsigned int x) { return __builtin_bswap32(x); }
__SIMULEE_DEVICE unsigned long long __nv_bswap64(unsigned long long x) { return __builtin_bswap64(x); }

/* Address spaces. A generic pointer converts to and from its address in a space (shared: the
   offset in the block's shared memory, which fits 32 bits) as PTX's cvta does; the address
   space predicates read the space a pointer points into. */
#define __SIMULEE_CVTA(NAME, SPACE) \
  __SIMULEE_DEVICE size_t __cvta_generic_to_##NAME(const void *p) { \
    return (size_t)(const __attribute__((address_space(SPACE))) void *)p; \
  } \
  __SIMULEE_DEVICE void *__cvta_##NAME##_to_generic(size_t a) { \
    return (void *)(__attribute__((address_space(SPACE))) void *)a; \
  }
__SIMULEE_CVTA(global, 1)
__SIMULEE_CVTA(shared, 3)
__SIMULEE_CVTA(constant, 4)
__SIMULEE_CVTA(local, 5)
#undef __SIMULEE_CVTA
__SIMULEE_DEVICE size_t __cvta_generic_to_grid_constant(const void *p) { return (size_t)p; }
__SIMULEE_DEVICE void *__cvta_grid_constant_to_generic(size_t a) { return (void *)a; }
__SIMULEE_DEVICE unsigned int __isGlobal(const void *p) { return __nvvm_isspacep_global(p); }
__SIMULEE_DEVICE unsigned int __isShared(const void *p) { return __nvvm_isspacep_shared(p); }
__SIMULEE_DEVICE unsigned int __isConstant(const void *p) { return __nvvm_isspacep_const(p); }
__SIMULEE_DEVICE unsigned int __isLocal(const void *p) { return __nvvm_isspacep_local(p); }
__SIMULEE_DEVICE unsigned int __isGridConstant(const void *p) { return 0; }

#endif
