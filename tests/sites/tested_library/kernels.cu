// A library and its tests, as a Makefile builds them (kaldi's cudamatrix): this file holds
// the launcher of a kernel (group_sums.cuh) that the library calls with the dims it
// computes (groups.cpp); test_sums.cpp and test_sizes.cpp each define main. The launcher's grid and block are the
// library's: one of the halvings of 256 wide, so groups wider than a warp race with the
// next round's loads; where the library halves from 32, nothing races.
#include <cuda_runtime.h>

#include "group_sums.cuh"

void launch_group_sums(dim3 grid, dim3 block, float *y, const float *x, int group_size) {
  group_sums<0><<<grid, block>>>(y, x, group_size);
}
