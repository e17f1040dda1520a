// A kernel that includes a header from a folder next to it.
// kernel: blur(const float *in, float *out, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
#include "include/stencil_helpers.cuh"

__global__ void blur(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (in[clamp_index(i - 1, n)] + in[i] + in[clamp_index(i + 1, n)]) / 3.0f;
}
