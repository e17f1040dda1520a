/* Device versions of the C library functions kernels may call, and the assumption hook.
   Included after the C headers: each __device__ declaration overloads the host one by target. */
#ifndef SIMULEE_DEVICE_LIBC_H
#define SIMULEE_DEVICE_LIBC_H

extern "C" {
/* clang lowers device printf to vprintf(format, packed arguments). */
__device__ int vprintf(const char *format, void *args);
__device__ int printf(const char *format, ...);
__device__ void *malloc(size_t size);
__device__ void free(void *ptr);
__device__ void *memcpy(void *dst, const void *src, size_t n);
__device__ void *memset(void *dst, int value, size_t n);
/* A failed assert() in device code; the interpreter reports the thread and the message. */
__device__ void __assert_fail(const char *assertion, const char *file, int line, const char *function);
__device__ void __assertfail(const char *assertion, const char *file, unsigned int line, const char *function,
                             size_t char_size);
/* A condition every valid launch satisfies; a thread for which it is false makes the launch
   invalid (the kernel's contract), not buggy. */
__device__ void __simulee_assume(bool condition);
}

/* A conditional graph node's value: its handle is the device address of the value
   (runtime/graphs.cpp), which the node reads when it runs. */
extern "C" __device__ inline void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value) {
  *(unsigned int *)handle = value;
}

__SIMULEE_DEVICE clock_t clock(void) { return (clock_t)__nvvm_read_ptx_sreg_clock(); }

/* new and delete in device code: on the device heap, and placement new (CUB constructs in
   shared memory with it). Each overloads libc++'s host version by target. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Winline-new-delete"  /* each TU's own: its device code is a module of its own */
__device__ inline void *operator new(size_t size) { return malloc(size ? size : 1); }
__device__ inline void *operator new[](size_t size) { return malloc(size ? size : 1); }
__device__ inline void operator delete(void *pointer) noexcept { free(pointer); }
__device__ inline void operator delete[](void *pointer) noexcept { free(pointer); }
__device__ inline void operator delete(void *pointer, size_t) noexcept { free(pointer); }
__device__ inline void operator delete[](void *pointer, size_t) noexcept { free(pointer); }
__device__ inline void *operator new(size_t, void *place) noexcept { return place; }
__device__ inline void *operator new[](size_t, void *place) noexcept { return place; }
__device__ inline void operator delete(void *, void *) noexcept {}
__device__ inline void operator delete[](void *, void *) noexcept {}
#pragma clang diagnostic pop

/* Faial's and GPUVerify's precondition spelling. */
#define __assume(condition) __simulee_assume(condition)

#endif
