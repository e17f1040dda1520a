// One program of two in a repository that each define `launch`: this one's is (blocks,
// threads). Every block writes out[0..threads): two blocks race, one block is clean.
#include <cuda_runtime.h>

__global__ void stamp(int *out) {
  out[threadIdx.x] = blockIdx.x;  // the write
}

void launch(int *out, int blocks, int threads) {
  stamp<<<blocks, threads>>>(out);
}
