// The host dereferences a device pointer after one launch: it crashes, as on a GPU.
#include <cstdio>

__global__ void fill(int *data) { data[threadIdx.x] = threadIdx.x; }

int main() {
  int *data;
  cudaMalloc(&data, 32 * sizeof(int));
  fill<<<1, 32>>>(data);
  cudaDeviceSynchronize();
  printf("before the crash\n");
  fflush(stdout);
  return data[5];
}
