// Launches one block of 256 threads (-D BLOCKS=4: four blocks, which race).
#include <cuda_runtime.h>
#ifndef BLOCKS
#define BLOCKS 1
#endif

void launch(int *out, int blocks, int threads);

int main() {
  int *out;
  cudaMalloc(&out, 256 * sizeof(int));
  launch(out, BLOCKS, 256);
  cudaDeviceSynchronize();
  return 0;
}
