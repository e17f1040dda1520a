// project: gunrock (table 3)
// bug: Join: threads past the end of the input frontier skip the branch that stages their
// vertex in shared memory, and the branch holds the barrier the others wait at.
// expect: Join barrier-divergence 14
// fixed: Join_fixed
#define THREADS 256

__global__ void Join(const int *frontier, const int *labels, int *out, int frontier_length) {
  __shared__ int staged[THREADS];
  int tid = threadIdx.x, x = blockIdx.x * blockDim.x + tid;
  if (blockDim.x > THREADS) return;
  if (x < frontier_length) {
    staged[tid] = frontier[x];
    __syncthreads();
    int neighbour = staged[tid == 0 ? 0 : tid - 1];
    out[x] = labels[neighbour < 0 ? 0 : neighbour];
  }
}

__global__ void Join_fixed(const int *frontier, const int *labels, int *out, int frontier_length) {
  __shared__ int staged[THREADS];
  int tid = threadIdx.x, x = blockIdx.x * blockDim.x + tid;
  if (blockDim.x > THREADS) return;
  staged[tid] = x < frontier_length ? frontier[x] : 0;
  __syncthreads();
  if (x < frontier_length) {
    int neighbour = staged[tid == 0 ? 0 : tid - 1];
    out[x] = labels[neighbour < 0 ? 0 : neighbour];
  }
}
