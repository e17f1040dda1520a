// A host that never ends (after one launch): only a time-out stops it.
#include <cstdio>

__global__ void touch(int *data) { data[threadIdx.x] = 1; }

int main() {
  int *data;
  cudaMalloc(&data, 32 * sizeof(int));
  touch<<<1, 32>>>(data);
  cudaDeviceSynchronize();
  printf("spinning\n");
  fflush(stdout);
  volatile int forever = 1;
  while (forever) {}
  return 0;
}
