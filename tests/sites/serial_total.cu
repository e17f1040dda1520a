// Weights normalized by every thread, then a running total computed by one thread over all
// of them: the host launches ceil(n / 256.0) blocks, so any n over 256 makes the other
// blocks' writes race with block 0's thread 0 reading them.
#include <math.h>

__global__ void normalize_then_total(double *weights, double *totals, int n, double sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) weights[i] = weights[i] / sum;
  __syncthreads();
  if (i == 0) {
    totals[0] = weights[0];
    for (int x = 1; x < n; x++) totals[x] = totals[x - 1] + weights[x];  // every block's weights
  }
}

// The same, each block totalling only the weights its own threads wrote.
__global__ void normalize_then_block_total(double *weights, double *totals, int n, double sum) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) weights[i] = weights[i] / sum;
  __syncthreads();
  if (threadIdx.x == 0 && i < n) {
    int end = min(n, i + (int) blockDim.x);
    totals[i] = weights[i];
    for (int x = i + 1; x < end; x++) totals[x] = totals[x - 1] + weights[x];
  }
}

void run(double *weights, double *totals, int n) {
  int blocks = ceil((double) n / 256.0);
  normalize_then_total<<<blocks, 256>>>(weights, totals, n, 2.0);
  normalize_then_block_total<<<blocks, 256>>>(weights, totals, n, 2.0);
}
