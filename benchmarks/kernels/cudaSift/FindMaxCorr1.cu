// project: cudaSift (table 3)
// bug: FindMaxCorr1: a barrier at the end of every iteration of the loop over candidate
// points, where each thread only updates its registers.
// expect: FindMaxCorr1 redundant-barrier 16
// fixed: FindMaxCorr1_fixed
__global__ void FindMaxCorr1(const float *desc1, const float *desc2, float *best_score, int points) {
  __shared__ float query[32];
  int tid = threadIdx.x;
  if (blockDim.x > 32) return;
  query[tid] = desc1[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  float best = -1.0f;
  for (int p = 0; p < points; ++p) {
    float dot = query[(tid + 1) % blockDim.x] * desc2[p * blockDim.x + tid];
    if (dot > best) best = dot;
    __syncthreads();
  }
  best_score[blockIdx.x * blockDim.x + tid] = best;
}

__global__ void FindMaxCorr1_fixed(const float *desc1, const float *desc2, float *best_score, int points) {
  __shared__ float query[32];
  int tid = threadIdx.x;
  if (blockDim.x > 32) return;
  query[tid] = desc1[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  float best = -1.0f;
  for (int p = 0; p < points; ++p) {
    float dot = query[(tid + 1) % blockDim.x] * desc2[p * blockDim.x + tid];
    if (dot > best) best = dot;
  }
  best_score[blockIdx.x * blockDim.x + tid] = best;
}
