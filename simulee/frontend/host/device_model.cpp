/* The GPU a host program's launch sites are read for (simulee/frontend/hostprogram.py links
   this into every program it reads): the virtual device `simulee exec` programs run on, a
   Tesla V100 (exec/runtime/device.cpp), so that what a program computes from what
   cudaGetDeviceProperties or cudaDeviceGetAttribute answers (a grid sized to fill its
   multiprocessors, a block of its warp size) folds to that device's numbers. */

#include "../../exec/runtime/device.cpp"

static const uint64_t MODEL_MEMORY_BYTES = 16ull << 30;  // a V100's 16 GiB

extern "C" cudaError_t cudaGetDeviceProperties_v2(cudaDeviceProp *properties, int device) {
    simulee_virtual_device(properties, MODEL_MEMORY_BYTES);
    return device == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}

extern "C" cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attribute, int device) {
    cudaDeviceProp properties;
    simulee_virtual_device(&properties, MODEL_MEMORY_BYTES);
    return device == 0 && simulee_device_attribute(&properties, attribute, value) ? cudaSuccess
                                                                                   : cudaErrorInvalidValue;
}
