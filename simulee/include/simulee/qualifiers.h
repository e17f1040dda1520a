/* CUDA declaration qualifiers and version macros, spelled with clang's CUDA attributes. */
#ifndef SIMULEE_QUALIFIERS_H
#define SIMULEE_QUALIFIERS_H

#define __CUDACC__ 1
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 0
#define __SIMULEE__ 1

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
/* A managed variable lives in device memory, addressable from the host too. */
#define __managed__ __attribute__((device)) __attribute__((managed))
#define __grid_constant__ __attribute__((grid_constant))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
/* clang treats __noinline__ as a keyword in CUDA mode; only older compilers need the macro. */
#if defined(__clang_major__) && __clang_major__ < 15
#define __noinline__ __attribute__((noinline))
#endif
#define __restrict__ __restrict
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __align__(n)
#define __location__(a) __attribute__((a))
#define __thread__ __thread
#define __device_builtin__
#define __cudart_builtin__
#define __device_builtin_texture_type__
#define __device_builtin_surface_type__
#define __CUDA_ALIGN__(n) __align__(n)
#define CUDARTAPI
#define CUDAAPI
#define __CUDA_DEPRECATED

/* Internal spellings for the definitions in these headers. */
#define __SIMULEE_DEVICE static __device__ __forceinline__
#define __SIMULEE_HD static __host__ __device__ __forceinline__

#endif
