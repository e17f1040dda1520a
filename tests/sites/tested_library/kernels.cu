// A library and its tests, as a Makefile builds them (kaldi's cudamatrix): this file holds
// a kernel and the launcher the library calls with the dims it computes (groups.cpp);
// test_sums.cpp and test_sizes.cpp each define main. The launcher's grid and block are the
// library's: one of the halvings of 256 wide, so groups wider than a warp race with the
// next round's loads; where the library halves from 32, nothing races.
#include <cuda_runtime.h>

__global__ void group_sums(float *y, const float *x, int group_size) {
  __shared__ float partial[256];
  int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int round = 0; round < 4; round++) {
    int group = round * blockDim.y + threadIdx.y;
    partial[tid] = x[group * group_size + threadIdx.x % group_size];  // the group's values
    __syncthreads();
    for (int shift = blockDim.x / 2; shift > 0; shift >>= 1) {
      if (threadIdx.x < shift) partial[tid] += partial[tid + shift];
      __syncwarp();  // orders one warp: a group wider than a warp races with the next round's
    }
    if (threadIdx.x == 0) y[group] = partial[tid];
  }
}

void launch_group_sums(dim3 grid, dim3 block, float *y, const float *x, int group_size) {
  group_sums<<<grid, block>>>(y, x, group_size);
}
