// Each lane stores its warp's reduced sum in the warp's slot, as llm.c's bias kernels do: in
// whole warps every lane stores one value (benign); in a partial warp the sums the lanes hold
// differ. The launcher passes the block size as it gets it.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void row_sums(float *out, const float *in) {
  __shared__ float warp_sums[32];
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  float sum = cg::reduce(warp, in[blockIdx.x * blockDim.x + threadIdx.x], cg::plus<float>{});
  warp_sums[threadIdx.x / 32] = sum;  // every lane stores its warp's sum
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = warp_sums[0];
}

void sum_rows(float *out, const float *in, int rows, int block) { row_sums<<<rows, block>>>(out, in); }
