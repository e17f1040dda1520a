/* threadIdx, blockIdx, blockDim, gridDim and warpSize, read from the NVPTX special registers. */
#ifndef SIMULEE_BUILTIN_VARS_H
#define SIMULEE_BUILTIN_VARS_H

/* Each member is a property whose getter reads one special register, so `threadIdx.x`
   becomes a call of llvm.nvvm.read.ptx.sreg.tid.x and the variable itself is never stored. */
#define __SIMULEE_BUILTIN_VAR(TYPE, VAR, REG) \
  struct TYPE { \
    __declspec(property(get = __get_x)) unsigned int x; \
    __declspec(property(get = __get_y)) unsigned int y; \
    __declspec(property(get = __get_z)) unsigned int z; \
    static __device__ __forceinline__ unsigned int __get_x(void) { return __nvvm_read_ptx_sreg_##REG##_x(); } \
    static __device__ __forceinline__ unsigned int __get_y(void) { return __nvvm_read_ptx_sreg_##REG##_y(); } \
    static __device__ __forceinline__ unsigned int __get_z(void) { return __nvvm_read_ptx_sreg_##REG##_z(); } \
    __device__ __forceinline__ operator uint3() const { return uint3{__get_x(), __get_y(), __get_z()}; } \
    __device__ __forceinline__ operator dim3() const { return dim3(__get_x(), __get_y(), __get_z()); } \
   private: \
    TYPE() = delete; \
    TYPE(const TYPE &) = delete; \
    void operator=(const TYPE &) const = delete; \
    TYPE *operator&() const = delete; \
  }; \
  extern const __device__ TYPE VAR;

__SIMULEE_BUILTIN_VAR(__simulee_threadIdx_t, threadIdx, tid)
__SIMULEE_BUILTIN_VAR(__simulee_blockIdx_t, blockIdx, ctaid)
__SIMULEE_BUILTIN_VAR(__simulee_blockDim_t, blockDim, ntid)
__SIMULEE_BUILTIN_VAR(__simulee_gridDim_t, gridDim, nctaid)
#undef __SIMULEE_BUILTIN_VAR

/* The warp width: a constant on every NVIDIA GPU, usable in host and device code. */
static const int warpSize = 32;

#endif
