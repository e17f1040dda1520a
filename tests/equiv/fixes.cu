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

// the cuda-samples' transpose with its barrier left out: the barrier goes between the two
// guarded blocks, where every thread passes, not inside the second guard
__global__ void transpose_unsynced(const float *in, float *out, int width, int height) {
  __shared__ float tile[16][17];
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  if (x < width && y < height) {
    tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  }
  x = blockIdx.y * 16 + threadIdx.x;
  y = blockIdx.x * 16 + threadIdx.y;
  if (x < height && y < width) {
    int index = y * height + x;
    out[index] = tile[threadIdx.x][threadIdx.y];
  }
}

// a warp folds its partial sums in shared memory with no barrier at all, and each lane
// copies the total: a barrier is missing at each step of the fold, one after it
__global__ void fold_unsynced(const int *in, int *out, int n) {
  __shared__ int part[32];
  int mine = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) mine += in[i];
  part[threadIdx.x] = mine;
  for (int width = 16; width > 0; width /= 2) {
    if (threadIdx.x < width) {
      int other = part[threadIdx.x + width];
      part[threadIdx.x] += other;
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = part[0];
}

// each step reads its neighbour's cell, which the neighbour's next step overwrites: the
// race runs from one iteration to the next, and the barrier goes after the read
__global__ void rolling(const int *in, int *out, int steps) {
  __shared__ int cell[64];
  int carried = 0;
  for (int s = 0; s < steps; s++) {
    cell[threadIdx.x] = in[s * blockDim.x + threadIdx.x] + carried;
    __syncthreads();
    carried = cell[(threadIdx.x + 1) % blockDim.x];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = carried;
}
