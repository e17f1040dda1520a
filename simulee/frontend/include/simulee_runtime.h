/* Simulee's CUDA wrapper, force-included before every CUDA source as nvcc includes
   cuda_runtime.h.

   NVIDIA's own headers (the CUDA toolkit's pip wheels) declare the runtime and driver APIs,
   their types, the vector types and the libraries (cooperative groups, half precision,
   cuRAND, thrust, CUB, libcu++). The device functions that nvcc builds in (math, atomics,
   warp collectives, bit intrinsics, textures, printf and malloc) NVIDIA's headers only
   declare, as builtins of nvcc or inline PTX; Simulee defines them on clang's NVVM builtins
   and the interpreter's hooks (simulee/), so NVIDIA's device-function headers are kept out
   by their include guards. Legacy texture references, which CUDA 12 removed, come from
   simulee/textures.h. */
#ifndef SIMULEE_RUNTIME_H
#define SIMULEE_RUNTIME_H

#define __SIMULEE__ 1
#define __CUDACC__ 1
/* nvcc -rdc's macro: the device runtime (dynamic parallelism) is there, not its stubs. */
#if defined(__CLANG_RDC__) && !defined(__CUDACC_RDC__)
#define __CUDACC_RDC__ 1
#endif
/* NVIDIA's host_defines.h refuses libc++ on x86-64 for host code; here it only declares. */
#define _ALLOW_UNSUPPORTED_LIBCPP 1
/* ... nor does it know clang 22, which compiles it well. */
#define __NV_NO_HOST_COMPILER_CHECK 1

/* The C and C++ libraries first, so that the device versions below overload their host
   functions by target, and a later <cmath> brings both into namespace std. */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <limits.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <assert.h>
#include <new>

#include "cuda.h"
/* nvcc's version macros, for code that tests them. */
#define __CUDACC_VER_MAJOR__ (CUDA_VERSION / 1000)
#define __CUDACC_VER_MINOR__ (CUDA_VERSION % 1000 / 10)
#define __CUDACC_VER_BUILD__ 0

/* NVIDIA's device-function headers stay out (their guards defined): Simulee's below
   define what they declare. */
#define __DEVICE_LAUNCH_PARAMETERS_H__
#define __COMMON_FUNCTIONS_H__
#define __DEVICE_FUNCTIONS_H__
#define __DEVICE_FUNCTIONS_DECLS_H__
#define __MATH_FUNCTIONS_H__
#define __MATH_FUNCTIONS_HPP__
/* ... and so do those a source may include by name (<sm_61_intrinsics.h> for __dp4a, <sm_20_atomic_functions.h>),
   which would define again what Simulee's define */
#define __DEVICE_ATOMIC_FUNCTIONS_H__
#define __DEVICE_ATOMIC_FUNCTIONS_HPP__
#define __DEVICE_DOUBLE_FUNCTIONS_H__
#define __DEVICE_DOUBLE_FUNCTIONS_HPP__
#define __SM_20_ATOMIC_FUNCTIONS_H__
#define __SM_20_ATOMIC_FUNCTIONS_HPP__
#define __SM_20_INTRINSICS_H__
#define __SM_20_INTRINSICS_HPP__
#define __SM_30_INTRINSICS_H__
#define __SM_30_INTRINSICS_HPP__
#define __SM_32_ATOMIC_FUNCTIONS_H__
#define __SM_32_ATOMIC_FUNCTIONS_HPP__
#define __SM_32_INTRINSICS_H__
#define __SM_32_INTRINSICS_HPP__
#define __SM_35_ATOMIC_FUNCTIONS_H__
#define __SM_35_INTRINSICS_H__
#define __SM_60_ATOMIC_FUNCTIONS_H__
#define __SM_60_ATOMIC_FUNCTIONS_HPP__
#define __SM_61_INTRINSICS_H__
#define __SM_61_INTRINSICS_HPP__

#pragma push_macro("nv_weak")
#define nv_weak weak /* device-runtime stubs in cuda_device_runtime_api.h: weak definitions */
#include "cuda_runtime.h"
#pragma pop_macro("nv_weak")

/* clang keeps managed variables for HIP: a __managed__ variable is a device variable marked
   for `simulee exec`, whose runtime keeps the host's copy and the device's the same. */
#undef __managed__
#define __managed__ __attribute__((device)) __attribute__((annotate("simulee_managed")))

#include "simulee/definitions.h"
#include "simulee/builtin_vars.h"
#include "simulee/device_math.h"
#include "simulee/device_libc.h"
#include "simulee/sync.h"
#include "simulee/warp.h"
#include "simulee/atomics.h"
#include "simulee/nv_atomics.h"
#include "simulee/intrinsics.h"
#include "simulee/simd.h"
#include "simulee/textures.h"
#include "simulee/launch.h"
#include "simulee/cuda13.h"

/* curand_mtgp32_kernel.h redeclares blockDim and threadIdx for the host as a dim3 and a
   uint3: when a source includes it (simulee.frontend.salvage defines the macro), it is included first
   with those names standing for Simulee's types, as clang's own CUDA wrapper does, and its
   guard keeps the source's #include from redeclaring them. */
#if defined(__SIMULEE_CURAND_BUILTINS) && __has_include("curand_mtgp32_kernel.h")
#pragma push_macro("dim3")
#pragma push_macro("uint3")
#define dim3 __simulee_blockDim_t
#define uint3 __simulee_threadIdx_t
#include "curand_mtgp32_kernel.h"
#pragma pop_macro("dim3")
#pragma pop_macro("uint3")
#endif

#endif
