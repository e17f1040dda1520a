// project: cudaSift (table 3)
// bug: FindMaxCorr: each thread stores its best score and then its best index in its own
// shared slots with a barrier between the two stores; only the barrier after both is needed.
// expect: FindMaxCorr redundant-barrier 20
// fixed: FindMaxCorr_fixed
#define THREADS 64

__global__ void FindMaxCorr(const float *corr, float *best_score, int *best_index, int candidates) {
  __shared__ float score[THREADS];
  __shared__ int index[THREADS];
  int tid = threadIdx.x;
  if (blockDim.x > THREADS) return;
  float best = -1.0f;
  int where = -1;
  for (int j = tid; j < candidates; j += blockDim.x) {
    float c = corr[blockIdx.x * candidates + j];
    if (c > best) { best = c; where = j; }
  }
  score[tid] = best;
  __syncthreads();
  index[tid] = where;
  __syncthreads();
  if (tid == 0) {
    for (int k = 1; k < blockDim.x; ++k)
      if (score[k] > best) { best = score[k]; where = index[k]; }
    best_score[blockIdx.x] = best;
    best_index[blockIdx.x] = where;
  }
}

__global__ void FindMaxCorr_fixed(const float *corr, float *best_score, int *best_index, int candidates) {
  __shared__ float score[THREADS];
  __shared__ int index[THREADS];
  int tid = threadIdx.x;
  if (blockDim.x > THREADS) return;
  float best = -1.0f;
  int where = -1;
  for (int j = tid; j < candidates; j += blockDim.x) {
    float c = corr[blockIdx.x * candidates + j];
    if (c > best) { best = c; where = j; }
  }
  score[tid] = best;
  index[tid] = where;
  __syncthreads();
  if (tid == 0) {
    for (int k = 1; k < blockDim.x; ++k)
      if (score[k] > best) { best = score[k]; where = index[k]; }
    best_score[blockIdx.x] = best;
    best_index[blockIdx.x] = where;
  }
}
