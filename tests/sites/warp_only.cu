// Kernels no host code launches that synchronize with __syncwarp and never with a block's
// barrier: each is written for one warp per block. A race only two warps of a block make
// is a warning naming that; one within a warp, or in a kernel with __syncthreads, is an error.

__global__ void warp_sum(float *s) {
  unsigned t = threadIdx.x;
  float v = s[t + 16];
  __syncwarp();
  s[t] = v;  // the warp's tail, a warp apart
  __syncwarp();
}

__global__ void warp_sum_unsynchronized(float *s) {
  unsigned t = threadIdx.x;
  float v = s[t + 1];
  s[t] = v;  // no __syncwarp between the read and the write
  __syncwarp();
}

__global__ void block_sum(float *s) {
  unsigned t = threadIdx.x;
  float v = s[t + 16];
  __syncwarp();
  s[t] = v;  // a block barrier elsewhere: written for blocks of many warps
  __syncthreads();
}
