/* CUDA 12.8's built-in atomic functions (__nv_atomic_fetch_add, ..., __nv_atomic_thread_fence)
   with their memory orders and thread scopes. An operation of relaxed order at its scope is
   CUDA's scoped atomic of that scope (atomicAdd_block, atomicAdd, atomicAdd_system) or a
   strong load or store of it (ld.relaxed.cta/.gpu/.sys); a release adds the scope's fence
   before it, an acquire the scope's fence after it (as PTX's own fence-based mapping does),
   so the race model sees the release and the acquire. Thread scope holds only the calling
   thread: its operations are plain ones, which race with any other thread's. A cluster is
   one block (Simulee launches no clusters). */
#ifndef SIMULEE_NV_ATOMICS_H
#define SIMULEE_NV_ATOMICS_H

#define __NV_ATOMIC_RELAXED 0
#define __NV_ATOMIC_CONSUME 1
#define __NV_ATOMIC_ACQUIRE 2
#define __NV_ATOMIC_RELEASE 3
#define __NV_ATOMIC_ACQ_REL 4
#define __NV_ATOMIC_SEQ_CST 5

#define __NV_THREAD_SCOPE_SYSTEM 0
#define __NV_THREAD_SCOPE_DEVICE 1
#define __NV_THREAD_SCOPE_CLUSTER 2
#define __NV_THREAD_SCOPE_BLOCK 3
#define __NV_THREAD_SCOPE_THREAD 4

/* the fence of a scope (none for a thread's) */
__SIMULEE_DEVICE void __simulee_nv_fence(int scope) {
  if (scope == __NV_THREAD_SCOPE_BLOCK || scope == __NV_THREAD_SCOPE_CLUSTER)
    __threadfence_block();
  else if (scope == __NV_THREAD_SCOPE_DEVICE)
    __threadfence();
  else if (scope == __NV_THREAD_SCOPE_SYSTEM)
    __threadfence_system();
}

__SIMULEE_DEVICE void __simulee_nv_release(int order, int scope) {
  if (order == __NV_ATOMIC_RELEASE || order == __NV_ATOMIC_ACQ_REL || order == __NV_ATOMIC_SEQ_CST)
    __simulee_nv_fence(scope);
}

__SIMULEE_DEVICE void __simulee_nv_acquire(int order, int scope) {
  if (order == __NV_ATOMIC_CONSUME || order == __NV_ATOMIC_ACQUIRE || order == __NV_ATOMIC_ACQ_REL ||
      order == __NV_ATOMIC_SEQ_CST)
    __simulee_nv_fence(scope);
}

__SIMULEE_DEVICE void __nv_atomic_thread_fence(int order, int scope = __NV_THREAD_SCOPE_SYSTEM) {
  if (order != __NV_ATOMIC_RELAXED)
    __simulee_nv_fence(scope);
}

/* a read-modify-write OP (CUDA's atomicOP) of any type CUDA's has, at the scope asked; a
   thread's scope does it plainly, with UPDATE(old, val) the value it leaves */
#define __SIMULEE_NV_RMW(NAME, OP, UPDATE) \
  template <typename T> __SIMULEE_DEVICE T __nv_atomic_fetch_##NAME(T *ptr, T val, int order, \
                                                                    int scope = __NV_THREAD_SCOPE_SYSTEM) { \
    __simulee_nv_release(order, scope); \
    T old; \
    if (scope == __NV_THREAD_SCOPE_THREAD) { \
      old = *ptr; \
      *ptr = UPDATE(old, val); \
    } else if (scope == __NV_THREAD_SCOPE_BLOCK || scope == __NV_THREAD_SCOPE_CLUSTER) { \
      old = atomic##OP##_block(ptr, val); \
    } else if (scope == __NV_THREAD_SCOPE_DEVICE) { \
      old = atomic##OP(ptr, val); \
    } else { \
      old = atomic##OP##_system(ptr, val); \
    } \
    __simulee_nv_acquire(order, scope); \
    return old; \
  } \
  template <typename T> __SIMULEE_DEVICE void __nv_atomic_##NAME(T *ptr, T val, int order, \
                                                                 int scope = __NV_THREAD_SCOPE_SYSTEM) { \
    __nv_atomic_fetch_##NAME(ptr, val, order, scope); \
  }

#define __SIMULEE_NV_ADD(a, b) ((a) + (b))
#define __SIMULEE_NV_SUB(a, b) ((a) - (b))
#define __SIMULEE_NV_AND(a, b) ((a) & (b))
#define __SIMULEE_NV_OR(a, b) ((a) | (b))
#define __SIMULEE_NV_XOR(a, b) ((a) ^ (b))
#define __SIMULEE_NV_MIN(a, b) ((b) < (a) ? (b) : (a))
#define __SIMULEE_NV_MAX(a, b) ((a) < (b) ? (b) : (a))

__SIMULEE_NV_RMW(add, Add, __SIMULEE_NV_ADD)
__SIMULEE_NV_RMW(sub, Sub, __SIMULEE_NV_SUB)
__SIMULEE_NV_RMW(and, And, __SIMULEE_NV_AND)
__SIMULEE_NV_RMW(or, Or, __SIMULEE_NV_OR)
__SIMULEE_NV_RMW(xor, Xor, __SIMULEE_NV_XOR)
__SIMULEE_NV_RMW(min, Min, __SIMULEE_NV_MIN)
__SIMULEE_NV_RMW(max, Max, __SIMULEE_NV_MAX)
#undef __SIMULEE_NV_RMW

template <typename T> __SIMULEE_DEVICE T __nv_atomic_exchange_n(T *ptr, T val, int order,
                                                                int scope = __NV_THREAD_SCOPE_SYSTEM) {
  __simulee_nv_release(order, scope);
  T old;
  if (scope == __NV_THREAD_SCOPE_THREAD) {
    old = *ptr;
    *ptr = val;
  } else if (scope == __NV_THREAD_SCOPE_BLOCK || scope == __NV_THREAD_SCOPE_CLUSTER) {
    old = atomicExch_block(ptr, val);
  } else if (scope == __NV_THREAD_SCOPE_DEVICE) {
    old = atomicExch(ptr, val);
  } else {
    old = atomicExch_system(ptr, val);
  }
  __simulee_nv_acquire(order, scope);
  return old;
}

template <typename T> __SIMULEE_DEVICE void __nv_atomic_exchange(T *ptr, T *val, T *ret, int order,
                                                                 int scope = __NV_THREAD_SCOPE_SYSTEM) {
  *ret = __nv_atomic_exchange_n(ptr, *val, order, scope);
}

/* compare-and-swap: whether *ptr held *expected (then desired is stored), else *expected
   gets what it held; a weak one never fails spuriously here */
template <typename T> __SIMULEE_DEVICE bool __nv_atomic_compare_exchange_n(T *ptr, T *expected, T desired, bool weak,
                                                                          int success_order, int failure_order,
                                                                          int scope = __NV_THREAD_SCOPE_SYSTEM) {
  (void)weak;
  (void)failure_order;
  __simulee_nv_release(success_order, scope);
  T old;
  if (scope == __NV_THREAD_SCOPE_THREAD) {
    old = *ptr;
    if (old == *expected) *ptr = desired;
  } else if (scope == __NV_THREAD_SCOPE_BLOCK || scope == __NV_THREAD_SCOPE_CLUSTER) {
    old = atomicCAS_block(ptr, *expected, desired);
  } else if (scope == __NV_THREAD_SCOPE_DEVICE) {
    old = atomicCAS(ptr, *expected, desired);
  } else {
    old = atomicCAS_system(ptr, *expected, desired);
  }
  __simulee_nv_acquire(success_order, scope);
  bool swapped = old == *expected;
  *expected = old;
  return swapped;
}

template <typename T> __SIMULEE_DEVICE bool __nv_atomic_compare_exchange(T *ptr, T *expected, T *desired, bool weak,
                                                                        int success_order, int failure_order,
                                                                        int scope = __NV_THREAD_SCOPE_SYSTEM) {
  return __nv_atomic_compare_exchange_n(ptr, expected, *desired, weak, success_order, failure_order, scope);
}

/* strong loads and stores of 4 and 8 bytes at a scope (PTX ld/st.relaxed) */
#define __SIMULEE_NV_ACCESS(BITS, TYPE, CONSTRAINT) \
  __SIMULEE_DEVICE TYPE __simulee_nv_load##BITS(const TYPE *ptr, int scope) { \
    TYPE value; \
    if (scope == __NV_THREAD_SCOPE_THREAD) \
      value = *ptr; \
    else if (scope == __NV_THREAD_SCOPE_BLOCK || scope == __NV_THREAD_SCOPE_CLUSTER) \
      asm volatile("ld.relaxed.cta.b" #BITS " %0, [%1];" : "=" CONSTRAINT(value) : "l"(ptr) : "memory"); \
    else if (scope == __NV_THREAD_SCOPE_DEVICE) \
      asm volatile("ld.relaxed.gpu.b" #BITS " %0, [%1];" : "=" CONSTRAINT(value) : "l"(ptr) : "memory"); \
    else \
      asm volatile("ld.relaxed.sys.b" #BITS " %0, [%1];" : "=" CONSTRAINT(value) : "l"(ptr) : "memory"); \
    return value; \
  } \
  __SIMULEE_DEVICE void __simulee_nv_store##BITS(TYPE *ptr, TYPE value, int scope) { \
    if (scope == __NV_THREAD_SCOPE_THREAD) \
      *ptr = value; \
    else if (scope == __NV_THREAD_SCOPE_BLOCK || scope == __NV_THREAD_SCOPE_CLUSTER) \
      asm volatile("st.relaxed.cta.b" #BITS " [%0], %1;" : : "l"(ptr), CONSTRAINT(value) : "memory"); \
    else if (scope == __NV_THREAD_SCOPE_DEVICE) \
      asm volatile("st.relaxed.gpu.b" #BITS " [%0], %1;" : : "l"(ptr), CONSTRAINT(value) : "memory"); \
    else \
      asm volatile("st.relaxed.sys.b" #BITS " [%0], %1;" : : "l"(ptr), CONSTRAINT(value) : "memory"); \
  }

__SIMULEE_NV_ACCESS(32, unsigned int, "r")
__SIMULEE_NV_ACCESS(64, unsigned long long, "l")
#undef __SIMULEE_NV_ACCESS

/* the word a 4- or 8-byte type is loaded and stored as */
template <int Bytes> struct __simulee_nv_word;
template <> struct __simulee_nv_word<4> {
  typedef unsigned int type;
  static __device__ __forceinline__ type load(const type *ptr, int scope) { return __simulee_nv_load32(ptr, scope); }
  static __device__ __forceinline__ void store(type *ptr, type value, int scope) {
    __simulee_nv_store32(ptr, value, scope);
  }
};
template <> struct __simulee_nv_word<8> {
  typedef unsigned long long type;
  static __device__ __forceinline__ type load(const type *ptr, int scope) { return __simulee_nv_load64(ptr, scope); }
  static __device__ __forceinline__ void store(type *ptr, type value, int scope) {
    __simulee_nv_store64(ptr, value, scope);
  }
};

template <typename T> __SIMULEE_DEVICE T __nv_atomic_load_n(const T *ptr, int order,
                                                            int scope = __NV_THREAD_SCOPE_SYSTEM) {
  typedef __simulee_nv_word<sizeof(T)> word;  /* a 4- or 8-byte type only */
  __simulee_nv_release(order == __NV_ATOMIC_SEQ_CST ? order : __NV_ATOMIC_RELAXED, scope);
  T value = __builtin_bit_cast(T, word::load((const typename word::type *)ptr, scope));
  __simulee_nv_acquire(order, scope);
  return value;
}

template <typename T> __SIMULEE_DEVICE void __nv_atomic_load(const T *ptr, T *ret, int order,
                                                             int scope = __NV_THREAD_SCOPE_SYSTEM) {
  *ret = __nv_atomic_load_n(ptr, order, scope);
}

template <typename T> __SIMULEE_DEVICE void __nv_atomic_store_n(T *ptr, T value, int order,
                                                                int scope = __NV_THREAD_SCOPE_SYSTEM) {
  typedef __simulee_nv_word<sizeof(T)> word;  /* a 4- or 8-byte type only */
  __simulee_nv_release(order, scope);
  word::store((typename word::type *)ptr, __builtin_bit_cast(typename word::type, value), scope);
  if (order == __NV_ATOMIC_SEQ_CST)
    __simulee_nv_fence(scope);
}

template <typename T> __SIMULEE_DEVICE void __nv_atomic_store(T *ptr, T *value, int order,
                                                              int scope = __NV_THREAD_SCOPE_SYSTEM) {
  __nv_atomic_store_n(ptr, *value, order, scope);
}

#endif
