// Cooperative groups: the block, a tile of 32 with a tile reduction, a tile of 4, the
// coalesced group, and grid-wide syncs.
// kernel: block_and_tiles(const int *in, int *out)
//   reads: tid.x tid.y tid.z ctaid.x ntid.x ntid.y ntid.z
//   shared: 1024
// kernel: grid_sum(int *data, int *total)
//   reads: tid.x tid.y tid.z ctaid.x ctaid.y ctaid.z ntid.x ntid.y ntid.z nctaid.x nctaid.y nctaid.z
//   shared: 0
// kernel: grid_sum_early_exit(int *data, int *total, int n)
//   reads: tid.x tid.y tid.z ctaid.x ctaid.y ctaid.z ntid.x ntid.y ntid.z nctaid.x nctaid.y nctaid.z
//   shared: 0
// kernel: group_sums(const int *in, int *out)
//   reads: tid.x tid.y tid.z ctaid.x ctaid.y ctaid.z ntid.x ntid.y ntid.z nctaid.x nctaid.y nctaid.z
//   shared: 64
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void block_and_tiles(const int *in, int *out) {
  __shared__ int cache[256];
  cg::thread_block block = cg::this_thread_block();
  unsigned int rank = block.thread_rank();
  cache[rank] = in[blockIdx.x * block.size() + rank];
  block.sync();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  int sum = cg::reduce(warp, cache[rank], cg::plus<int>());
  int shifted = warp.shfl_down(sum, 1);
  cg::thread_block_tile<4> quad = cg::tiled_partition<4>(block);
  int neighbour = quad.shfl(shifted, 0);
  quad.sync();
  if (warp.thread_rank() == 0) out[blockIdx.x * 8 + warp.meta_group_rank()] = sum + neighbour;
  cg::coalesced_group active = cg::coalesced_threads();
  if (active.thread_rank() == 0) atomicAdd(&out[0], (int)active.size());
  cg::sync(block);
}

__global__ void grid_sum(int *data, int *total) {
  cg::grid_group grid = cg::this_grid();
  atomicAdd(total, data[grid.thread_rank()]);
  grid.sync();
  data[grid.thread_rank()] = *total;
}

// The grid-wide sum again, but threads past n leave first: the others wait at grid.sync()
// for threads that are gone (grid barrier divergence) unless n covers the whole grid.
__global__ void grid_sum_early_exit(int *data, int *total, int n) {
  cg::grid_group grid = cg::this_grid();
  if (grid.thread_rank() >= n) return;
  atomicAdd(total, data[grid.thread_rank()]);
  grid.sync();
  data[grid.thread_rank()] = *total;
}

// Sums of 16 values in shared memory, synchronized through a generic thread_group: its
// sync() could be a grid's (the grid barrier is reachable), but only tiles of the block call it.
__device__ int tile_sum(int *values, cg::thread_group group) {
  int rank = group.thread_rank();
  for (int step = 8; step > 0; step /= 2) {
    int other = rank < step ? values[rank + step] : 0;
    group.sync();
    values[rank] += other;
    group.sync();
  }
  return values[0];
}

__global__ void group_sums(const int *in, int *out) {
  __shared__ int values[16];
  cg::thread_block block = cg::this_thread_block();
  if (threadIdx.x < 16) {
    values[threadIdx.x] = in[blockIdx.x * 16 + threadIdx.x];
    int sum = tile_sum(values, cg::tiled_partition(block, 16));
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
  }
}
