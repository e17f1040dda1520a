// Races `simulee fix` repairs and one it must not: shift_left forgot the barrier between
// filling its tile and reading a neighbour's entry; shift_half does the same inside a branch
// only half the block takes (a barrier there would be barrier divergence: not fixable so).
__global__ void shift_left(const int *in, int *out, int n) {
  __shared__ int tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0;
  int next = threadIdx.x + 1 < blockDim.x ? tile[threadIdx.x + 1] : 0;
  if (i < n) out[i] = next;
}

__global__ void shift_half(const int *in, int *out, int n) {
  __shared__ int tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < blockDim.x / 2) {
    tile[threadIdx.x] = i < n ? in[i] : 0;
    int next = threadIdx.x + 1 < blockDim.x / 2 ? tile[threadIdx.x + 1] : 0;
    if (i < n) out[i] = next;
  }
}
