// The other program's `launch` takes (threads, blocks): its call (256, 1) read against
// own/stamp.cu's parameters would be 256 blocks of one thread.
#include <cuda_runtime.h>

__global__ void scale(int *data) {
  data[blockIdx.x * blockDim.x + threadIdx.x] *= 2;
}

void launch(int *data, int threads, int blocks) {
  scale<<<blocks, threads>>>(data);
}
