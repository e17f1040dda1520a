// project: cudaSift (table 3)
// bug: FindMaxCorr3: each thread reads its match's correlation from global memory, waits at
// a barrier, and writes the refined score to its own output element: nothing crosses threads.
// expect: FindMaxCorr3 redundant-barrier 10
// fixed: FindMaxCorr3_fixed
__global__ void FindMaxCorr3(const float *corr, float *score, float *ambiguity, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = i < n ? i : n - 1;
  float first = corr[2 * j], second = corr[2 * j + 1];
  __syncthreads();
  if (i < n) {
    score[i] = first;
    ambiguity[i] = second / (first + 1e-6f);
  }
}

__global__ void FindMaxCorr3_fixed(const float *corr, float *score, float *ambiguity, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float first = corr[2 * i], second = corr[2 * i + 1];
  score[i] = first;
  ambiguity[i] = second / (first + 1e-6f);
}
