// project: arrayfire (table 2)
// bug: select_matches: a barrier inside a branch on the thread index, so threads past the
// number of candidates skip it while the others wait.
// expect: select_matches barrier-divergence 12
// fixed: select_matches_fixed
__global__ void select_matches(const float *distances, int *selected, int candidates) {
  __shared__ float best[256];
  int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  if (blockDim.x > 256) return;
  if (tid < candidates) {
    best[tid] = distances[i];
    __syncthreads();
    if (best[tid] < best[(tid + 1) % blockDim.x]) selected[i] = 1;
  }
}

__global__ void select_matches_fixed(const float *distances, int *selected, int candidates) {
  __shared__ float best[256];
  int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  if (blockDim.x > 256) return;
  if (tid < candidates) best[tid] = distances[i];
  __syncthreads();
  if (tid < candidates && best[tid] < best[(tid + 1) % blockDim.x]) selected[i] = 1;
}
