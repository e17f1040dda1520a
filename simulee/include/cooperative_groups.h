/* Cooperative groups on the block barrier, warp collectives and a grid barrier intrinsic:
   thread_block, grid_group, thread_block_tile<N>, coalesced_group, tiled_partition, reduce. */
#ifndef SIMULEE_COOPERATIVE_GROUPS_H
#define SIMULEE_COOPERATIVE_GROUPS_H
#include "simulee_prelude.h"

namespace cooperative_groups {

__SIMULEE_DEVICE unsigned int __block_rank(void) {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
__SIMULEE_DEVICE unsigned int __block_size(void) { return blockDim.x * blockDim.y * blockDim.z; }

/* The threads of one block. */
class thread_block {
 public:
  __device__ void sync() const { __syncthreads(); }
  __device__ unsigned int thread_rank() const { return __block_rank(); }
  __device__ unsigned int size() const { return __block_size(); }
  __device__ unsigned int num_threads() const { return __block_size(); }
  __device__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __device__ dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __device__ dim3 dim_threads() const { return group_dim(); }
  __device__ bool is_valid() const { return true; }
};
__SIMULEE_DEVICE thread_block this_thread_block(void) { return thread_block(); }

/* Every thread of a cooperative launch. */
class grid_group {
 public:
  __device__ void sync() const { __simulee_grid_sync(); }
  __device__ unsigned long long num_blocks() const {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
  }
  __device__ unsigned long long block_rank() const {
    return ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  }
  __device__ unsigned long long thread_rank() const { return block_rank() * __block_size() + __block_rank(); }
  __device__ unsigned long long size() const { return num_blocks() * __block_size(); }
  __device__ unsigned long long num_threads() const { return size(); }
  __device__ dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  __device__ dim3 dim_blocks() const { return group_dim(); }
  __device__ dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ bool is_valid() const { return true; }
};
__SIMULEE_DEVICE grid_group this_grid(void) { return grid_group(); }

/* A group of lanes of one warp, given by its lane mask (lanes in increasing rank order). */
class __warp_group {
 protected:
  unsigned int __mask;

 public:
  __device__ explicit __warp_group(unsigned int mask) : __mask(mask) {}
  __device__ void sync() const { __syncwarp(__mask); }
  __device__ unsigned int thread_rank() const { return __popc(__mask & __lanemask_lt()); }
  __device__ unsigned int size() const { return __popc(__mask); }
  __device__ unsigned int num_threads() const { return size(); }
  __device__ bool is_valid() const { return __mask != 0; }
  __device__ int any(int predicate) const { return __any_sync(__mask, predicate); }
  __device__ int all(int predicate) const { return __all_sync(__mask, predicate); }
  /* Bit i of the ballot is the predicate of the group's lane of rank i. */
  __device__ unsigned int ballot(int predicate) const {
    unsigned int lanes = __ballot_sync(__mask, predicate), result = 0, bit = 0;
    for (unsigned int lane = 0; lane < 32; ++lane)
      if (__mask & (1u << lane)) result |= ((lanes >> lane) & 1u) << bit++;
    return result;
  }
  template <class T> __device__ unsigned int match_any(T value) const { return __match_any_sync(__mask, value); }
  template <class T> __device__ unsigned int match_all(T value, int &pred) const {
    return __match_all_sync(__mask, value, &pred);
  }
};

/* A generic partition of a block into tiles (tiled_partition(parent, size)). */
class thread_group : public __warp_group {
 public:
  __device__ explicit thread_group(unsigned int mask) : __warp_group(mask) {}
};

/* Size consecutive lanes of a warp; Size is a power of two up to 32. */
template <unsigned int Size> class thread_block_tile : public __warp_group {
  static_assert(Size > 0 && Size <= 32 && (Size & (Size - 1)) == 0, "tile size must be a power of two <= 32");

 public:
  __device__ thread_block_tile()
      : __warp_group(Size == 32 ? 0xffffffffu : ((1u << Size) - 1) << (__laneid() & ~(Size - 1))) {}
  __device__ unsigned int thread_rank() const { return __laneid() & (Size - 1); }
  __device__ static constexpr unsigned int size() { return Size; }
  __device__ static constexpr unsigned int num_threads() { return Size; }
  __device__ unsigned int meta_group_rank() const { return __block_rank() / Size; }
  __device__ unsigned int meta_group_size() const { return (__block_size() + Size - 1) / Size; }
  template <class T> __device__ T shfl(T var, int src) const { return __shfl_sync(__mask, var, src, Size); }
  template <class T> __device__ T shfl_up(T var, unsigned int delta) const {
    return __shfl_up_sync(__mask, var, delta, Size);
  }
  template <class T> __device__ T shfl_down(T var, unsigned int delta) const {
    return __shfl_down_sync(__mask, var, delta, Size);
  }
  template <class T> __device__ T shfl_xor(T var, unsigned int lane_mask) const {
    return __shfl_xor_sync(__mask, var, lane_mask, Size);
  }
  __device__ unsigned int ballot(int predicate) const {
    return __ballot_sync(__mask, predicate) >> (__laneid() & ~(Size - 1));
  }
};

template <unsigned int Size, class Parent>
__SIMULEE_DEVICE thread_block_tile<Size> tiled_partition(const Parent &) { return thread_block_tile<Size>(); }
__SIMULEE_DEVICE thread_group tiled_partition(const thread_block &, unsigned int size) {
  unsigned int base = __laneid() & ~(size - 1);
  return thread_group(size >= 32 ? 0xffffffffu : ((1u << size) - 1) << base);
}

/* The lanes of the warp that are active here. */
class coalesced_group : public __warp_group {
 public:
  __device__ coalesced_group() : __warp_group(__activemask()) {}
  template <class T> __device__ T shfl(T var, unsigned int rank) const {
    return __shfl_sync(__mask, var, __fns(__mask, 0, rank + 1));
  }
  template <class T> __device__ T shfl_up(T var, unsigned int delta) const {
    unsigned int rank = thread_rank();
    return rank >= delta ? __shfl_sync(__mask, var, __fns(__mask, 0, rank - delta + 1)) : __shfl_sync(__mask, var, __laneid());
  }
  template <class T> __device__ T shfl_down(T var, unsigned int delta) const {
    unsigned int rank = thread_rank();
    return rank + delta < size() ? __shfl_sync(__mask, var, __fns(__mask, 0, rank + delta + 1))
                                 : __shfl_sync(__mask, var, __laneid());
  }
};
__SIMULEE_DEVICE coalesced_group coalesced_threads(void) { return coalesced_group(); }

template <class Group> __SIMULEE_DEVICE void sync(const Group &group) { group.sync(); }
/* The name sync() had in the CUDA 9 preview. */
template <class Group> __SIMULEE_DEVICE void synchronize(const Group &group) { group.sync(); }
template <class Group> __SIMULEE_DEVICE unsigned long long thread_rank(const Group &group) {
  return group.thread_rank();
}
template <class Group> __SIMULEE_DEVICE unsigned long long group_size(const Group &group) { return group.size(); }

/* Reduction operators and reduce() over a tile, by butterfly shuffles. */
template <class T> struct plus { __device__ T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { __device__ T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { __device__ T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { __device__ T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { __device__ T operator()(T a, T b) const { return a ^ b; } };
template <unsigned int Size, class T, class Op>
__SIMULEE_DEVICE T reduce(const thread_block_tile<Size> &tile, T value, Op op) {
  for (unsigned int offset = Size / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, offset));
  return value;
}

}  // namespace cooperative_groups

#endif
