// project: arrayfire (table 2)
// bug: warp_reduce: the last warp finishes a shared-memory reduction warp-synchronously
// (no __syncwarp between steps: a race under independent warp scheduling), and the code
// that publishes the result waits at a barrier that only the first warp reaches.
// expect: warp_reduce warp-synchronous-race 20/20
// expect: warp_reduce barrier-divergence 24
// fixed: warp_reduce_fixed
__global__ void warp_reduce(const int *in, int *out) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  if (blockDim.x != 64) return;
  s[tid] = in[blockIdx.x * 64 + tid];
  __syncthreads();
  if (tid < 32) {
    s[tid] += s[tid + 32];
  }
  __syncthreads();
  if (tid < 16) {
    for (int offset = 8; offset > 0; offset /= 2) {
      s[tid] += s[tid + offset];
    }
  }
  if (tid < 32) {
    __syncthreads();
    if (tid == 0) out[blockIdx.x] = s[0] + s[1];
  }
}

__global__ void warp_reduce_fixed(const int *in, int *out) {
  __shared__ int s[64];
  int tid = threadIdx.x;
  if (blockDim.x != 64) return;
  s[tid] = in[blockIdx.x * 64 + tid];
  __syncthreads();
  if (tid < 32) {
    s[tid] += s[tid + 32];
  }
  __syncthreads();
  if (tid < 32) {
    for (int offset = 16; offset > 0; offset /= 2) {
      int value = tid < offset ? s[tid + offset] : 0;
      __syncwarp();
      if (tid < offset) s[tid] += value;
      __syncwarp();
    }
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}
