/* What clang needs for kernel<<<grid, block, shared, stream>>>(...): the first for device
   compilation, the second for host compilation (CUDA 9.2 and later), where Simulee reads
   launch sites from the IR and never runs it, so declarations are enough. */
#ifndef SIMULEE_LAUNCH_H
#define SIMULEE_LAUNCH_H

extern "C" int cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);
extern "C" unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);

/* The device runtime (dynamic parallelism) as the host pass sees it: NVIDIA's header defines
   it for the device pass only, and nvcc lets device code call the host declarations; clang
   needs device overloads to resolve those calls, which the host pass never emits. */
#ifndef __CUDA_ARCH__
__device__ cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
__device__ cudaError_t cudaStreamDestroy(cudaStream_t stream);
__device__ cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
__device__ cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
__device__ cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
__device__ cudaError_t cudaEventDestroy(cudaEvent_t event);
__device__ cudaError_t cudaGetLastError(void);
__device__ cudaError_t cudaPeekAtLastError(void);
__device__ const char *cudaGetErrorString(cudaError_t error);
__device__ const char *cudaGetErrorName(cudaError_t error);
__device__ cudaError_t cudaGetDevice(int *device);
__device__ cudaError_t cudaGetDeviceCount(int *count);
__device__ cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attribute, int device);
__device__ cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit);
__device__ cudaError_t cudaMalloc(void **pointer, size_t size);
__device__ cudaError_t cudaFree(void *pointer);
__device__ cudaError_t cudaMemcpyAsync(void *destination, const void *source, size_t count, enum cudaMemcpyKind kind,
                                       cudaStream_t stream);
__device__ cudaError_t cudaMemsetAsync(void *destination, int value, size_t count, cudaStream_t stream);
__device__ cudaError_t cudaRuntimeGetVersion(int *version);
#endif

#endif
