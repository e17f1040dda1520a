// A block stages the weights and then a row in shared memory as float4s, the row's region
// starting where n floats of weights end (llm.c's layernorm does this): the two regions meet
// only when n is no multiple of 4, and the launcher passes n as it gets it, so such a race
// rests on the n Simulee chose. Starting the row one vector early, they meet for every n.
#include <cuda_runtime.h>

template <bool Early>
__global__ void stage_rows(float *out, const float4 *weights, const float4 *in, int n) {
  extern __shared__ float4 staged[];
  float4 *row = staged + (Early ? (n - 1) / 4 : n / 4);  // after the weights
  for (int i = threadIdx.x; i < (n + 3) / 4; i += blockDim.x) {
    staged[i] = weights[i];
    row[i] = in[blockIdx.x * ((n + 3) / 4) + i];  // the row's vectors
  }
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = row[0].x * staged[0].x;
}

template <bool Early>
void stage(float *out, const float4 *weights, const float4 *in, int rows, int n) {
  stage_rows<Early><<<rows, 64, (n / 2 + 2) * sizeof(float4)>>>(out, weights, in, n);
}

template void stage<false>(float *, const float4 *, const float4 *, int, int);  // meets only off 4
template void stage<true>(float *, const float4 *, const float4 *, int, int);   // meets for every n
