/* Stub for the CUDA driver API header <cuda.h>: its types and declarations (host code is
   never executed), plus everything the runtime API prelude declares. */
#ifndef SIMULEE_CUDA_H
#define SIMULEE_CUDA_H
#include "simulee_prelude.h"

#define CUDA_VERSION 12000

typedef enum cudaError_enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_LAUNCH_FAILED = 719,
  CUDA_ERROR_UNKNOWN = 999,
} CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUarray_st *CUarray;

extern "C" {
__host__ CUresult cuInit(unsigned int flags);
__host__ CUresult cuDriverGetVersion(int *version);
__host__ CUresult cuDeviceGet(CUdevice *device, int ordinal);
__host__ CUresult cuDeviceGetCount(int *count);
__host__ CUresult cuDeviceGetName(char *name, int len, CUdevice device);
__host__ CUresult cuDeviceTotalMem(size_t *bytes, CUdevice device);
__host__ CUresult cuCtxCreate(CUcontext *ctx, unsigned int flags, CUdevice device);
__host__ CUresult cuCtxDestroy(CUcontext ctx);
__host__ CUresult cuCtxSynchronize(void);
__host__ CUresult cuModuleLoad(CUmodule *module, const char *fname);
__host__ CUresult cuModuleLoadData(CUmodule *module, const void *image);
__host__ CUresult cuModuleGetFunction(CUfunction *func, CUmodule module, const char *name);
__host__ CUresult cuModuleUnload(CUmodule module);
__host__ CUresult cuMemAlloc(CUdeviceptr *ptr, size_t bytes);
__host__ CUresult cuMemFree(CUdeviceptr ptr);
__host__ CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes);
__host__ CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes);
__host__ CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
__host__ CUresult cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t count);
__host__ CUresult cuLaunchKernel(CUfunction f, unsigned int gridX, unsigned int gridY, unsigned int gridZ,
                                 unsigned int blockX, unsigned int blockY, unsigned int blockZ,
                                 unsigned int sharedBytes, CUstream stream, void **params, void **extra);
__host__ CUresult cuStreamCreate(CUstream *stream, unsigned int flags);
__host__ CUresult cuStreamSynchronize(CUstream stream);
__host__ CUresult cuStreamDestroy(CUstream stream);
__host__ CUresult cuGetErrorString(CUresult error, const char **str);
}

#endif
