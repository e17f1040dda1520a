// project: cudaSift (table 3)
// bug: FindMaxCorr2: thread 0 combines the shared scores into slot 0, waits at a barrier,
// and then alone reads slot 0 back: the barrier orders only thread 0 with itself.
// expect: FindMaxCorr2 redundant-barrier 18
// fixed: FindMaxCorr2_fixed
#define THREADS 64

__global__ void FindMaxCorr2(const float *corr, float *best_score, int candidates) {
  __shared__ float score[THREADS];
  int tid = threadIdx.x;
  if (blockDim.x > THREADS) return;
  float best = -1.0f;
  for (int j = tid; j < candidates; j += blockDim.x) best = fmaxf(best, corr[blockIdx.x * candidates + j]);
  score[tid] = best;
  __syncthreads();
  if (tid == 0)
    for (int k = 1; k < blockDim.x; ++k) score[0] = fmaxf(score[0], score[k]);
  __syncthreads();
  if (tid == 0) best_score[blockIdx.x] = score[0];
}

__global__ void FindMaxCorr2_fixed(const float *corr, float *best_score, int candidates) {
  __shared__ float score[THREADS];
  int tid = threadIdx.x;
  if (blockDim.x > THREADS) return;
  float best = -1.0f;
  for (int j = tid; j < candidates; j += blockDim.x) best = fmaxf(best, corr[blockIdx.x * candidates + j]);
  score[tid] = best;
  __syncthreads();
  if (tid == 0) {
    for (int k = 1; k < blockDim.x; ++k) score[0] = fmaxf(score[0], score[k]);
    best_score[blockIdx.x] = score[0];
  }
}
