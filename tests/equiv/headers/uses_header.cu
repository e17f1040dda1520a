#include "staged.cuh"

// the race (the neighbour's slot read before it is written) is in staged.cuh
__global__ void shift_through_header(const int *in, int *out) {
  __shared__ int tile[64];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = neighbour_of(tile, in[i]);
}
