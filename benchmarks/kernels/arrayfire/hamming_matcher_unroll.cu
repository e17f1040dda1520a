// project: arrayfire (table 2)
// bug: hamming_matcher_unroll: the unrolled minimum over the shared best-distance array
// finishes inside `if (tid < 32)`; that branch holds a barrier the other warps never reach,
// and its last step runs with no barrier, so a thread reads a slot its neighbour writes.
// expect: hamming_matcher_unroll barrier-divergence 19
// expect: hamming_matcher_unroll warp-synchronous-race 20/20
// fixed: hamming_matcher_unroll_fixed
__global__ void hamming_matcher_unroll(const unsigned *query, const unsigned *train,
                                       unsigned *best_dist, int ntrain) {
  __shared__ unsigned s_dist[64];
  int tid = threadIdx.x;
  if (blockDim.x != 64) return;
  unsigned q = query[blockIdx.x], d = 0xffffffffu;
  for (int t = tid; t < ntrain; t += 64) d = min(d, __popc(q ^ train[t]));
  s_dist[tid] = d;
  __syncthreads();
  if (tid < 32) {
    s_dist[tid] = min(s_dist[tid], s_dist[tid + 32]);
    __syncthreads();
    s_dist[tid] = min(s_dist[tid], s_dist[tid + 16]);
  }
  __syncthreads();
  if (tid == 0) best_dist[blockIdx.x] = min(s_dist[0], s_dist[15]);
}

__global__ void hamming_matcher_unroll_fixed(const unsigned *query, const unsigned *train,
                                             unsigned *best_dist, int ntrain) {
  __shared__ unsigned s_dist[64];
  int tid = threadIdx.x;
  if (blockDim.x != 64) return;
  unsigned q = query[blockIdx.x], d = 0xffffffffu;
  for (int t = tid; t < ntrain; t += 64) d = min(d, __popc(q ^ train[t]));
  s_dist[tid] = d;
  __syncthreads();
  if (tid < 32) s_dist[tid] = min(s_dist[tid], s_dist[tid + 32]);
  __syncthreads();
  if (tid < 16) s_dist[tid] = min(s_dist[tid], s_dist[tid + 16]);
  __syncthreads();
  if (tid == 0) best_dist[blockIdx.x] = min(s_dist[0], s_dist[15]);
}
