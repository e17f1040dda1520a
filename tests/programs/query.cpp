// A program of the runtime API alone (no kernel), as deviceQuery is.
#include <cstdio>
#include <cuda_runtime.h>

int main() {
  int count = 0, version = 0;
  cudaGetDeviceCount(&count);
  cudaRuntimeGetVersion(&version);
  cudaDeviceProp properties;
  cudaGetDeviceProperties(&properties, 0);
  printf("%d device, %s, %d multiprocessors, runtime %d\n", count, properties.name, properties.multiProcessorCount,
         version / 1000);
  return 0;
}
