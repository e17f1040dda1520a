/* The virtual device `simulee exec` programs see, and the runtime's error texts.

   One device, "Simulee virtual GPU", compute capability 7.0 (the interpreter's warp model is
   Volta's independent thread scheduling), with the limits of a Tesla V100: 80
   multiprocessors, 48 KiB of shared memory per block, 64 KiB of constant memory, 1,024
   threads per block; its global memory is the arena's size. Its clock (clock(), clock64())
   counts the interpreter's scheduler steps, and its clock rate says 1 MHz: a kernel that
   waits N milliseconds by the clock, as the samples' clock_block does, waits N thousand
   steps, not the 1.38 billion per second of a V100, which the interpreter would take hours
   to reach. */

#include <cuda_runtime_api.h>
#include <string.h>

#include "protocol.h"

extern "C" {

void simulee_virtual_device(cudaDeviceProp *p, uint64_t memory_bytes) {
    strcpy(p->name, "Simulee virtual GPU");
    p->totalGlobalMem = memory_bytes;
    p->sharedMemPerBlock = 48 * 1024;
    p->sharedMemPerBlockOptin = 96 * 1024;
    p->sharedMemPerMultiprocessor = 96 * 1024;
    p->regsPerBlock = p->regsPerMultiprocessor = 65536;
    p->warpSize = 32;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->clockRate = 1000;  // kHz: one cycle per scheduler step (above)
    p->memoryClockRate = 877000;
    p->memoryBusWidth = 4096;
    p->totalConstMem = 64 * 1024;
    p->major = 7;
    p->minor = 0;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->deviceOverlap = 1;
    p->multiProcessorCount = 80;
    p->maxThreadsPerMultiProcessor = 2048;
    p->maxBlocksPerMultiProcessor = 32;
    p->canMapHostMemory = 1;
    p->concurrentKernels = 1;
    p->asyncEngineCount = 2;
    p->unifiedAddressing = 1;
    p->l2CacheSize = 6 * 1024 * 1024;
    p->persistingL2CacheMaxSize = 3 * 1024 * 1024;  // accepted and without effect: no cache is simulated
    p->accessPolicyMaxWindowSize = 128 * 1024 * 1024;
    p->managedMemory = 1;
    p->concurrentManagedAccess = 1;
    p->cooperativeLaunch = 1;
    p->memoryPoolsSupported = 1;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = p->localL1CacheSupported = 1;
    p->computePreemptionSupported = 1;
    p->hostNativeAtomicSupported = 0;
    p->singleToDoublePrecisionPerfRatio = 2;
    p->maxTexture1D = 131072;
    p->maxTexture2D[0] = 131072;
    p->maxTexture2D[1] = 65536;
    p->maxTexture3D[0] = p->maxTexture3D[1] = p->maxTexture3D[2] = 16384;
    p->pciBusID = 1;
    p->computeMode = cudaComputeModeDefault;
}

int simulee_device_attribute(const cudaDeviceProp *p, int attribute, int *value) {
    switch (attribute) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p->maxThreadsPerBlock; return 1;
    case cudaDevAttrMaxBlockDimX: *value = p->maxThreadsDim[0]; return 1;
    case cudaDevAttrMaxBlockDimY: *value = p->maxThreadsDim[1]; return 1;
    case cudaDevAttrMaxBlockDimZ: *value = p->maxThreadsDim[2]; return 1;
    case cudaDevAttrMaxGridDimX: *value = p->maxGridSize[0]; return 1;
    case cudaDevAttrMaxGridDimY: *value = p->maxGridSize[1]; return 1;
    case cudaDevAttrMaxGridDimZ: *value = p->maxGridSize[2]; return 1;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(p->sharedMemPerBlock); return 1;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(p->sharedMemPerBlockOptin); return 1;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = int(p->sharedMemPerMultiprocessor); return 1;
    case cudaDevAttrTotalConstantMemory: *value = int(p->totalConstMem); return 1;
    case cudaDevAttrWarpSize: *value = p->warpSize; return 1;
    case cudaDevAttrMaxRegistersPerBlock: *value = p->regsPerBlock; return 1;
    case cudaDevAttrClockRate: *value = p->clockRate; return 1;
    case cudaDevAttrMultiProcessorCount: *value = p->multiProcessorCount; return 1;
    case cudaDevAttrComputeCapabilityMajor: *value = p->major; return 1;
    case cudaDevAttrComputeCapabilityMinor: *value = p->minor; return 1;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p->maxThreadsPerMultiProcessor; return 1;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p->maxBlocksPerMultiProcessor; return 1;
    case cudaDevAttrConcurrentKernels: *value = p->concurrentKernels; return 1;
    case cudaDevAttrUnifiedAddressing: *value = p->unifiedAddressing; return 1;
    case cudaDevAttrManagedMemory: *value = p->managedMemory; return 1;
    case cudaDevAttrConcurrentManagedAccess: *value = p->concurrentManagedAccess; return 1;
    case cudaDevAttrCooperativeLaunch: *value = p->cooperativeLaunch; return 1;
    case cudaDevAttrCanMapHostMemory: *value = p->canMapHostMemory; return 1;
    case cudaDevAttrL2CacheSize: *value = p->l2CacheSize; return 1;
    case cudaDevAttrMemoryClockRate: *value = p->memoryClockRate; return 1;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p->memoryBusWidth; return 1;
    case cudaDevAttrAsyncEngineCount: *value = p->asyncEngineCount; return 1;
    case cudaDevAttrComputeMode: *value = p->computeMode; return 1;
    case cudaDevAttrPciBusId: *value = p->pciBusID; return 1;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p->regsPerMultiprocessor; return 1;
    case cudaDevAttrTextureAlignment: *value = int(p->textureAlignment); return 1;
    case cudaDevAttrMaxPitch: *value = int(p->memPitch); return 1;
    case cudaDevAttrGpuOverlap: *value = p->deviceOverlap; return 1;
    case cudaDevAttrStreamPrioritiesSupported: *value = p->streamPrioritiesSupported; return 1;
    case cudaDevAttrGlobalL1CacheSupported: *value = p->globalL1CacheSupported; return 1;
    case cudaDevAttrLocalL1CacheSupported: *value = p->localL1CacheSupported; return 1;
    case cudaDevAttrComputePreemptionSupported: *value = p->computePreemptionSupported; return 1;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: *value = p->singleToDoublePrecisionPerfRatio; return 1;
    case cudaDevAttrMaxPersistingL2CacheSize: *value = p->persistingL2CacheMaxSize; return 1;
    case cudaDevAttrMaxAccessPolicyWindowSize: *value = p->accessPolicyMaxWindowSize; return 1;
    case cudaDevAttrMemoryPoolsSupported: *value = 1; return 1;
    default:  // any other attribute of the enumeration: a feature the virtual device lacks
        if (attribute < 0 || attribute >= cudaDevAttrMax) return 0;
        *value = 0;
        return 1;
    }
}

/* The texts NVIDIA's runtime gives (cudaGetErrorString); the others' text is their name. */
const char *simulee_error_text(int error) {
    switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidPitchValue: return "invalid pitch argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorMissingConfiguration: return "__global__ function call is not configured";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
    default: return simulee_error_name(error);
    }
}

}  // extern "C"
