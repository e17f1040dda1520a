// project: arrayfire (table 2)
// bug: computeMedian: each thread sorts a private window in its own slice of shared memory;
// the barrier between filling and reading the slice orders nothing another thread touches.
// expect: computeMedian redundant-barrier 18
// fixed: computeMedian_fixed
#define WINDOW 5

__global__ void computeMedian(const float *in, float *out, int n) {
  __shared__ float window[256 * WINDOW];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  if (blockDim.x > 256) return;
  float *mine = window + tid * WINDOW;
  for (int k = 0; k < WINDOW; ++k) {
    int j = i + k - WINDOW / 2;
    mine[k] = in[j < 0 ? 0 : (j >= n ? n - 1 : j)];
  }
  __syncthreads();
  for (int a = 0; a < WINDOW; ++a)
    for (int b = a + 1; b < WINDOW; ++b)
      if (mine[b] < mine[a]) { float t = mine[a]; mine[a] = mine[b]; mine[b] = t; }
  if (i < n) out[i] = mine[WINDOW / 2];
}

__global__ void computeMedian_fixed(const float *in, float *out, int n) {
  __shared__ float window[256 * WINDOW];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  if (blockDim.x > 256) return;
  float *mine = window + tid * WINDOW;
  for (int k = 0; k < WINDOW; ++k) {
    int j = i + k - WINDOW / 2;
    mine[k] = in[j < 0 ? 0 : (j >= n ? n - 1 : j)];
  }
  for (int a = 0; a < WINDOW; ++a)
    for (int b = a + 1; b < WINDOW; ++b)
      if (mine[b] < mine[a]) { float t = mine[a]; mine[a] = mine[b]; mine[b] = t; }
  if (i < n) out[i] = mine[WINDOW / 2];
}
