#include <cuda_runtime.h>

void launch(int *data, int threads, int blocks);

int main() {
  int *data;
  cudaMalloc(&data, 256 * sizeof(int));
  launch(data, 256, 1);
  cudaDeviceSynchronize();
  return 0;
}
