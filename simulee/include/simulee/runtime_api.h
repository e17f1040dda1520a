/* Host-side CUDA runtime API: types and declarations so that whole programs (main(),
   cudaMalloc, kernel<<<grid, block>>>(...)) compile. Host code is never executed. */
#ifndef SIMULEE_RUNTIME_API_H
#define SIMULEE_RUNTIME_API_H

#define CUDART_VERSION 12000
#define __CUDART_API_VERSION CUDART_VERSION

enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorLaunchFailure = 4,
  cudaErrorLaunchTimeout = 6,
  cudaErrorLaunchOutOfResources = 7,
  cudaErrorInvalidDeviceFunction = 8,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 10,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorNoDevice = 100,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorAssert = 710,
  cudaErrorUnknown = 999,
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};
enum cudaFuncCache {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3,
};
enum cudaSharedMemConfig {
  cudaSharedMemBankSizeDefault = 0,
  cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2,
};
enum cudaLimit {
  cudaLimitStackSize = 0,
  cudaLimitPrintfFifoSize = 1,
  cudaLimitMallocHeapSize = 2,
};
enum cudaMemoryAdvise {
  cudaMemAdviseSetReadMostly = 1,
  cudaMemAdviseUnsetReadMostly = 2,
  cudaMemAdviseSetPreferredLocation = 3,
  cudaMemAdviseUnsetPreferredLocation = 4,
};

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceMapHost 0x08
#define cudaCpuDeviceId ((int)-1)

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  int deviceOverlap;
  int multiProcessorCount;
  int kernelExecTimeoutEnabled;
  int integrated;
  int canMapHostMemory;
  int computeMode;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int memoryClockRate;
  int memoryBusWidth;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  int unifiedAddressing;
  int managedMemory;
  int cooperativeLaunch;
  size_t sharedMemPerMultiprocessor;
  size_t sharedMemPerBlockOptin;
  int regsPerMultiprocessor;
};

struct cudaPitchedPtr {
  void *ptr;
  size_t pitch;
  size_t xsize;
  size_t ysize;
};
struct cudaExtent {
  size_t width;
  size_t height;
  size_t depth;
};
struct cudaPos {
  size_t x;
  size_t y;
  size_t z;
};
struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
};

/* Host functions: declared, never defined; device compilation emits no host code. */
#define __SIMULEE_HOST_API extern "C" __host__ cudaError_t
__SIMULEE_HOST_API cudaMalloc(void **ptr, size_t size);
__SIMULEE_HOST_API cudaMallocManaged(void **ptr, size_t size, unsigned int flags = cudaMemAttachGlobal);
__SIMULEE_HOST_API cudaMallocHost(void **ptr, size_t size);
__SIMULEE_HOST_API cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
__SIMULEE_HOST_API cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height);
__SIMULEE_HOST_API cudaMalloc3D(struct cudaPitchedPtr *ptr, struct cudaExtent extent);
__SIMULEE_HOST_API cudaFree(void *ptr);
__SIMULEE_HOST_API cudaFreeHost(void *ptr);
__SIMULEE_HOST_API cudaFreeArray(cudaArray_t array);
__SIMULEE_HOST_API cudaHostGetDevicePointer(void **device, void *host, unsigned int flags);
__SIMULEE_HOST_API cudaHostRegister(void *ptr, size_t size, unsigned int flags);
__SIMULEE_HOST_API cudaHostUnregister(void *ptr);
__SIMULEE_HOST_API cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
__SIMULEE_HOST_API cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                   cudaStream_t stream = 0);
__SIMULEE_HOST_API cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                size_t height, enum cudaMemcpyKind kind);
__SIMULEE_HOST_API cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                     size_t count, enum cudaMemcpyKind kind);
__SIMULEE_HOST_API cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                       size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
__SIMULEE_HOST_API cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset = 0,
                                      enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
__SIMULEE_HOST_API cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset = 0,
                                        enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
__SIMULEE_HOST_API cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind, cudaStream_t stream = 0);
__SIMULEE_HOST_API cudaGetSymbolAddress(void **ptr, const void *symbol);
__SIMULEE_HOST_API cudaMemset(void *ptr, int value, size_t count);
__SIMULEE_HOST_API cudaMemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream = 0);
__SIMULEE_HOST_API cudaMemset2D(void *ptr, size_t pitch, int value, size_t width, size_t height);
__SIMULEE_HOST_API cudaMemGetInfo(size_t *free, size_t *total);
__SIMULEE_HOST_API cudaMemPrefetchAsync(const void *ptr, size_t count, int device, cudaStream_t stream = 0);
__SIMULEE_HOST_API cudaMemAdvise(const void *ptr, size_t count, enum cudaMemoryAdvise advice, int device);
__SIMULEE_HOST_API cudaDeviceSynchronize(void);
__SIMULEE_HOST_API cudaThreadSynchronize(void);
__SIMULEE_HOST_API cudaDeviceReset(void);
__SIMULEE_HOST_API cudaThreadExit(void);
__SIMULEE_HOST_API cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
__SIMULEE_HOST_API cudaDeviceGetLimit(size_t *value, enum cudaLimit limit);
__SIMULEE_HOST_API cudaDeviceSetCacheConfig(enum cudaFuncCache config);
__SIMULEE_HOST_API cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config);
__SIMULEE_HOST_API cudaSetDeviceFlags(unsigned int flags);
__SIMULEE_HOST_API cudaGetLastError(void);
__SIMULEE_HOST_API cudaPeekAtLastError(void);
extern "C" __host__ const char *cudaGetErrorString(cudaError_t error);
extern "C" __host__ const char *cudaGetErrorName(cudaError_t error);
__SIMULEE_HOST_API cudaGetDeviceCount(int *count);
__SIMULEE_HOST_API cudaGetDevice(int *device);
__SIMULEE_HOST_API cudaSetDevice(int device);
__SIMULEE_HOST_API cudaChooseDevice(int *device, const struct cudaDeviceProp *prop);
__SIMULEE_HOST_API cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
__SIMULEE_HOST_API cudaDeviceGetAttribute(int *value, int attribute, int device);
__SIMULEE_HOST_API cudaDriverGetVersion(int *version);
__SIMULEE_HOST_API cudaRuntimeGetVersion(int *version);
__SIMULEE_HOST_API cudaDeviceCanAccessPeer(int *canAccess, int device, int peer);
__SIMULEE_HOST_API cudaDeviceEnablePeerAccess(int peer, unsigned int flags);
__SIMULEE_HOST_API cudaStreamCreate(cudaStream_t *stream);
__SIMULEE_HOST_API cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
__SIMULEE_HOST_API cudaStreamDestroy(cudaStream_t stream);
__SIMULEE_HOST_API cudaStreamSynchronize(cudaStream_t stream);
__SIMULEE_HOST_API cudaStreamQuery(cudaStream_t stream);
__SIMULEE_HOST_API cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
__SIMULEE_HOST_API cudaEventCreate(cudaEvent_t *event);
__SIMULEE_HOST_API cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
__SIMULEE_HOST_API cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
__SIMULEE_HOST_API cudaEventSynchronize(cudaEvent_t event);
__SIMULEE_HOST_API cudaEventQuery(cudaEvent_t event);
__SIMULEE_HOST_API cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
__SIMULEE_HOST_API cudaEventDestroy(cudaEvent_t event);
__SIMULEE_HOST_API cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config);
__SIMULEE_HOST_API cudaFuncSetAttribute(const void *func, int attribute, int value);
__SIMULEE_HOST_API cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
__SIMULEE_HOST_API cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                                    cudaStream_t stream);
__SIMULEE_HOST_API cudaLaunchCooperativeKernel(const void *func, dim3 grid, dim3 block, void **args,
                                               size_t shared, cudaStream_t stream);
__SIMULEE_HOST_API cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int blockSize,
                                                                 size_t dynamicShared);
__SIMULEE_HOST_API cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, const void *func,
                                                      size_t dynamicShared = 0, int blockSizeLimit = 0);
#undef __SIMULEE_HOST_API

/* Typed conveniences of the C++ runtime API. */
template <class T> __host__ inline cudaError_t cudaMalloc(T **ptr, size_t size) {
  return cudaMalloc((void **)ptr, size);
}
template <class T> __host__ inline cudaError_t cudaMallocManaged(T **ptr, size_t size,
                                                                 unsigned int flags = cudaMemAttachGlobal) {
  return cudaMallocManaged((void **)ptr, size, flags);
}
template <class T> __host__ inline cudaError_t cudaMallocHost(T **ptr, size_t size) {
  return cudaMallocHost((void **)ptr, size);
}
template <class T> __host__ inline cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags) {
  return cudaHostAlloc((void **)ptr, size, flags);
}
template <class T> __host__ inline cudaError_t cudaMallocPitch(T **ptr, size_t *pitch, size_t width, size_t height) {
  return cudaMallocPitch((void **)ptr, pitch, width, height);
}
template <class T> __host__ inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                                                                  size_t offset = 0,
                                                                  enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}
template <class T> __host__ inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
                                                                    size_t offset = 0,
                                                                    enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset, kind);
}
template <class T> __host__ inline cudaError_t cudaGetSymbolAddress(void **ptr, const T &symbol) {
  return cudaGetSymbolAddress(ptr, (const void *)&symbol);
}
template <class T> __host__ inline cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache config) {
  return cudaFuncSetCacheConfig((const void *)func, config);
}
template <class T> __host__ inline cudaError_t cudaFuncSetAttribute(T *func, int attribute, int value) {
  return cudaFuncSetAttribute((const void *)func, attribute, value);
}
template <class T> __host__ inline cudaError_t cudaLaunchCooperativeKernel(T *func, dim3 grid, dim3 block,
                                                                           void **args, size_t shared = 0,
                                                                           cudaStream_t stream = 0) {
  return cudaLaunchCooperativeKernel((const void *)func, grid, block, args, shared, stream);
}
template <class T> __host__ inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    int *blocks, T func, int blockSize, size_t dynamicShared) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, (const void *)func, blockSize, dynamicShared);
}

/* What clang's <<<grid, block, shared, stream>>> lowering calls before a launch. */
extern "C" __host__ unsigned int __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0,
                                                             cudaStream_t stream = 0);
extern "C" __host__ cudaError_t cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0,
                                                  cudaStream_t stream = 0);

#endif
