// Non-type template arguments of unsigned type: clang names the instances with casts
// (block_sum<(unsigned int)128, true>); -k finds them as the source writes them too.
// kernel: block_sum<(unsigned int)128, true>(const float *in, float *out)
//   reads: tid.x ctaid.x
//   shared: 512
// kernel: block_sum<(unsigned int)64, false>(const float *in, float *out)
//   reads: tid.x ctaid.x
//   shared: 256
#include <cuda_runtime.h>

template <unsigned int Block, bool Twice> __global__ void block_sum(const float *in, float *out) {
  __shared__ float s[Block];
  s[threadIdx.x] = in[blockIdx.x * Block + threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0;
    for (unsigned int i = 0; i < Block; ++i) total += s[i];
    out[blockIdx.x] = Twice ? 2 * total : total;
  }
}

void launch(const float *in, float *out) {
  block_sum<128, true><<<4, 128>>>(in, out);
  block_sum<64, false><<<4, 64>>>(in, out);
}
