// project: arrayfire (table 2)
// bug: hamming_matcher: the block-wide minimum of the shared best-distance array drops the
// barrier between reduction steps (threads of different warps once a block is wider than
// 64: thread 17 reads at offset 64 what thread 81 wrote at offset 128); and when the train set does not fill the last tile (a
// rarely taken branch), the thread owning the last feature records it in slot 0 of the
// shared best-index array while thread 0 reads that slot.
// expect: hamming_matcher data-race 28/28
// expect: hamming_matcher data-race 33/36
// fixed: hamming_matcher_fixed
#define THREADS 256

__global__ void hamming_matcher(const unsigned *query, const unsigned *train, int *best_idx,
                                unsigned *best_dist, int ntrain) {
  __shared__ unsigned s_dist[THREADS];
  __shared__ int s_idx[THREADS];
  int tid = threadIdx.x;
  if (blockDim.x > THREADS) return;
  unsigned q = query[blockIdx.x], d = 0xffffffffu;
  int idx = -1;
  for (int t = tid; t < ntrain; t += blockDim.x) {
    unsigned dist = __popc(q ^ train[t]);
    if (dist < d) { d = dist; idx = t; }
  }
  s_dist[tid] = d;
  s_idx[tid] = idx;
  __syncthreads();
  for (int offset = blockDim.x / 2; offset > 0; offset /= 2) {
    if (tid < offset) s_dist[tid] = min(s_dist[tid], s_dist[tid + offset]);
    // missing __syncthreads() between steps
  }
  __syncthreads();
  int tail = ntrain % blockDim.x;
  if (tail > 1 && tid == tail - 1 && d == s_dist[0]) s_idx[0] = idx;
  if (tid == 0) {
    best_dist[blockIdx.x] = s_dist[0];
    best_idx[blockIdx.x] = s_idx[0];
  }
}

__global__ void hamming_matcher_fixed(const unsigned *query, const unsigned *train, int *best_idx,
                                      unsigned *best_dist, int ntrain) {
  __shared__ unsigned s_dist[THREADS];
  __shared__ int s_idx[THREADS];
  int tid = threadIdx.x;
  if (blockDim.x > THREADS) return;
  unsigned q = query[blockIdx.x], d = 0xffffffffu;
  int idx = -1;
  for (int t = tid; t < ntrain; t += blockDim.x) {
    unsigned dist = __popc(q ^ train[t]);
    if (dist < d) { d = dist; idx = t; }
  }
  s_dist[tid] = d;
  s_idx[tid] = idx;
  __syncthreads();
  for (int offset = blockDim.x / 2; offset > 0; offset /= 2) {
    if (tid < offset) s_dist[tid] = min(s_dist[tid], s_dist[tid + offset]);
    __syncthreads();
  }
  int tail = ntrain % blockDim.x;
  if (tail > 1 && tid == tail - 1 && d == s_dist[0]) s_idx[0] = idx;
  __syncthreads();
  if (tid == 0) {
    best_dist[blockIdx.x] = s_dist[0];
    best_idx[blockIdx.x] = s_idx[0];
  }
}
