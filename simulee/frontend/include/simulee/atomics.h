/* CUDA atomic functions on the NVVM atomic builtins (atomicrmw/cmpxchg, or the scoped
   llvm.nvvm.atomic.* intrinsics for the _block and _system variants). */
#ifndef SIMULEE_ATOMICS_H
#define SIMULEE_ATOMICS_H

typedef unsigned long long __simulee_ull;

/* Every CUDA atomic for one scope: SUFFIX is the CUDA name suffix, SCOPE the NVVM one. */
#define __SIMULEE_ATOMICS(SUFFIX, SCOPE) \
  __SIMULEE_DEVICE int atomicAdd##SUFFIX(int *p, int v) { return __nvvm_atom##SCOPE##_add_gen_i(p, v); } \
  __SIMULEE_DEVICE unsigned int atomicAdd##SUFFIX(unsigned int *p, unsigned int v) { \
    return (unsigned int)__nvvm_atom##SCOPE##_add_gen_i((int *)p, (int)v); \
  } \
  __SIMULEE_DEVICE __simulee_ull atomicAdd##SUFFIX(__simulee_ull *p, __simulee_ull v) { \
    return (__simulee_ull)__nvvm_atom##SCOPE##_add_gen_ll((long long *)p, (long long)v); \
  } \
  __SIMULEE_DEVICE float atomicAdd##SUFFIX(float *p, float v) { return __nvvm_atom##SCOPE##_add_gen_f(p, v); } \
  __SIMULEE_DEVICE int atomicSub##SUFFIX(int *p, int v) { return __nvvm_atom##SCOPE##_add_gen_i(p, -v); } \
  __SIMULEE_DEVICE unsigned int atomicSub##SUFFIX(unsigned int *p, unsigned int v) { \
    return (unsigned int)__nvvm_atom##SCOPE##_add_gen_i((int *)p, -(int)v); \
  } \
  __SIMULEE_DEVICE int atomicExch##SUFFIX(int *p, int v) { return __nvvm_atom##SCOPE##_xchg_gen_i(p, v); } \
  __SIMULEE_DEVICE unsigned int atomicExch##SUFFIX(unsigned int *p, unsigned int v) { \
    return (unsigned int)__nvvm_atom##SCOPE##_xchg_gen_i((int *)p, (int)v); \
  } \
  __SIMULEE_DEVICE __simulee_ull atomicExch##SUFFIX(__simulee_ull *p, __simulee_ull v) { \
    return (__simulee_ull)__nvvm_atom##SCOPE##_xchg_gen_ll((long long *)p, (long long)v); \
  } \
  __SIMULEE_DEVICE float atomicExch##SUFFIX(float *p, float v) { \
    return __builtin_bit_cast(float, __nvvm_atom##SCOPE##_xchg_gen_i((int *)p, __builtin_bit_cast(int, v))); \
  } \
  __SIMULEE_DEVICE int atomicMin##SUFFIX(int *p, int v) { return __nvvm_atom##SCOPE##_min_gen_i(p, v); } \
  __SIMULEE_DEVICE unsigned int atomicMin##SUFFIX(unsigned int *p, unsigned int v) { \
    return __nvvm_atom##SCOPE##_min_gen_ui(p, v); \
  } \
  __SIMULEE_DEVICE long long atomicMin##SUFFIX(long long *p, long long v) { \
    return __nvvm_atom##SCOPE##_min_gen_ll(p, v); \
  } \
  __SIMULEE_DEVICE __simulee_ull atomicMin##SUFFIX(__simulee_ull *p, __simulee_ull v) { \
    return __nvvm_atom##SCOPE##_min_gen_ull(p, v); \
  } \
  __SIMULEE_DEVICE int atomicMax##SUFFIX(int *p, int v) { return __nvvm_atom##SCOPE##_max_gen_i(p, v); } \
  __SIMULEE_DEVICE unsigned int atomicMax##SUFFIX(unsigned int *p, unsigned int v) { \
    return __nvvm_atom##SCOPE##_max_gen_ui(p, v); \
  } \
  __SIMULEE_DEVICE long long atomicMax##SUFFIX(long long *p, long long v) { \
    return __nvvm_atom##SCOPE##_max_gen_ll(p, v); \
  } \
  __SIMULEE_DEVICE __simulee_ull atomicMax##SUFFIX(__simulee_ull *p, __simulee_ull v) { \
    return __nvvm_atom##SCOPE##_max_gen_ull(p, v); \
  } \
  /* ((old >= v) ? 0 : old + 1) and (((old == 0) || (old > v)) ? v : old - 1) */ \
  __SIMULEE_DEVICE unsigned int atomicInc##SUFFIX(unsigned int *p, unsigned int v) { \
    return __nvvm_atom##SCOPE##_inc_gen_ui(p, v); \
  } \
  __SIMULEE_DEVICE unsigned int atomicDec##SUFFIX(unsigned int *p, unsigned int v) { \
    return __nvvm_atom##SCOPE##_dec_gen_ui(p, v); \
  } \
  __SIMULEE_DEVICE int atomicCAS##SUFFIX(int *p, int compare, int v) { \
    return __nvvm_atom##SCOPE##_cas_gen_i(p, compare, v); \
  } \
  __SIMULEE_DEVICE unsigned int atomicCAS##SUFFIX(unsigned int *p, unsigned int compare, unsigned int v) { \
    return (unsigned int)__nvvm_atom##SCOPE##_cas_gen_i((int *)p, (int)compare, (int)v); \
  } \
  __SIMULEE_DEVICE __simulee_ull atomicCAS##SUFFIX(__simulee_ull *p, __simulee_ull compare, __simulee_ull v) { \
    return (__simulee_ull)__nvvm_atom##SCOPE##_cas_gen_ll((long long *)p, (long long)compare, (long long)v); \
  } \
  __SIMULEE_DEVICE unsigned short atomicCAS##SUFFIX(unsigned short *p, unsigned short compare, unsigned short v) { \
    __atomic_compare_exchange_n(p, &compare, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
    return compare; \
  } \
  __SIMULEE_DEVICE int atomicAnd##SUFFIX(int *p, int v) { return __nvvm_atom##SCOPE##_and_gen_i(p, v); } \
  __SIMULEE_DEVICE unsigned int atomicAnd##SUFFIX(unsigned int *p, unsigned int v) { \
    return (unsigned int)__nvvm_atom##SCOPE##_and_gen_i((int *)p, (int)v); \
  } \
  __SIMULEE_DEVICE __simulee_ull atomicAnd##SUFFIX(__simulee_ull *p, __simulee_ull v) { \
    return (__simulee_ull)__nvvm_atom##SCOPE##_and_gen_ll((long long *)p, (long long)v); \
  } \
  __SIMULEE_DEVICE int atomicOr##SUFFIX(int *p, int v) { return __nvvm_atom##SCOPE##_or_gen_i(p, v); } \
  __SIMULEE_DEVICE unsigned int atomicOr##SUFFIX(unsigned int *p, unsigned int v) { \
    return (unsigned int)__nvvm_atom##SCOPE##_or_gen_i((int *)p, (int)v); \
  } \
  __SIMULEE_DEVICE __simulee_ull atomicOr##SUFFIX(__simulee_ull *p, __simulee_ull v) { \
    return (__simulee_ull)__nvvm_atom##SCOPE##_or_gen_ll((long long *)p, (long long)v); \
  } \
  __SIMULEE_DEVICE int atomicXor##SUFFIX(int *p, int v) { return __nvvm_atom##SCOPE##_xor_gen_i(p, v); } \
  __SIMULEE_DEVICE unsigned int atomicXor##SUFFIX(unsigned int *p, unsigned int v) { \
    return (unsigned int)__nvvm_atom##SCOPE##_xor_gen_i((int *)p, (int)v); \
  } \
  __SIMULEE_DEVICE __simulee_ull atomicXor##SUFFIX(__simulee_ull *p, __simulee_ull v) { \
    return (__simulee_ull)__nvvm_atom##SCOPE##_xor_gen_ll((long long *)p, (long long)v); \
  }

__SIMULEE_ATOMICS(, )
__SIMULEE_ATOMICS(_block, _cta)
__SIMULEE_ATOMICS(_system, _sys)
#undef __SIMULEE_ATOMICS

/* Double-precision atomicAdd came with sm_60; code for older GPUs defines its own. The host
   pass declares it too, as nvcc's headers do, for the device code it reads. */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
__SIMULEE_DEVICE double atomicAdd(double *p, double v) { return __nvvm_atom_add_gen_d(p, v); }
__SIMULEE_DEVICE double atomicAdd_block(double *p, double v) { return __nvvm_atom_cta_add_gen_d(p, v); }
__SIMULEE_DEVICE double atomicAdd_system(double *p, double v) { return __nvvm_atom_sys_add_gen_d(p, v); }
#endif

#endif
