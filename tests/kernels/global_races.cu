// Races through global and shared memory between blocks and warps, and their fixes.
// kernel: atomic_vs_plain(int *counter)
//   reads: tid.x
//   shared: 0
// kernel: atomic_vs_plain_fixed(int *counter)
//   reads: tid.x
//   shared: 0
// kernel: neighbour_blocks(float *a, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: neighbour_blocks_fixed(const float *a, float *b, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: transpose_no_barrier(const float *in, float *out, int width)
//   reads: tid.x tid.y ctaid.x ctaid.y
//   shared: 4224
// kernel: last_block_only(int *out, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: last_block_only_fixed(int *out, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: broadcast(const int *in, int *out)
//   reads: tid.x
//   shared: 4
// kernel: same_flag(int *flag)
//   reads:
//   shared: 0
// kernel: out_of_bounds_store(int *data)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: transpose_with_barrier(const float *in, float *out, int width)
//   reads: tid.x tid.y ctaid.x ctaid.y
//   shared: 4224
// kernel: broadcast_no_barrier(const int *in, int *out)
//   reads: tid.x
//   shared: 4
// kernel: same_flag_fixed(int *flag)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: out_of_bounds_store_fixed(int *data, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0

// One thread resets the counter while the others increment it atomically.
__global__ void atomic_vs_plain(int *counter) {
  if (threadIdx.x == 0) counter[0] = 0;
  else atomicAdd(&counter[0], 1);
}

__global__ void atomic_vs_plain_fixed(int *counter) {
  if (threadIdx.x == 0) atomicExch(&counter[0], 0);
  else atomicAdd(&counter[0], 1);
}

// Each thread writes a[i], then reads a[i + 1], which the next thread (or the first thread of
// the next block) writes: a race inside blocks and across them.
__global__ void neighbour_blocks(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = i;
  if (i + 1 < n) a[i] += a[i + 1];
}

__global__ void neighbour_blocks_fixed(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) b[i] = a[i] + a[i + 1];
}

// The tile is read transposed without waiting for the other threads' writes.
__global__ void transpose_no_barrier(const float *in, float *out, int width) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  out[y * width + x] = tile[threadIdx.x][threadIdx.y];
}

// Only threads past n collide: they all write the last element (the last, partial block).
__global__ void last_block_only(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[min(i, n - 1)] = i;
}

__global__ void last_block_only_fixed(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

// Thread 0 writes, everyone waits at the barrier, then everyone reads: clean.
__global__ void broadcast(const int *in, int *out) {
  __shared__ int value;
  if (threadIdx.x == 0) value = in[0] * 2;
  __syncthreads();
  out[threadIdx.x] = value;
}

// Every thread stores the same 1: a race, but a benign one.
__global__ void same_flag(int *flag) { flag[0] = 1; }

__global__ void out_of_bounds_store(int *data) { data[blockIdx.x * blockDim.x + threadIdx.x + 1] = 1; }

__global__ void transpose_with_barrier(const float *in, float *out, int width) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  out[y * width + x] = tile[threadIdx.x][threadIdx.y];
}

// The same broadcast without the barrier: the others may read before thread 0 wrote.
__global__ void broadcast_no_barrier(const int *in, int *out) {
  __shared__ int value;
  if (threadIdx.x == 0) value = in[0] * 2;
  out[threadIdx.x] = value;
}

__global__ void same_flag_fixed(int *flag) {
  if (threadIdx.x == 0 && blockIdx.x == 0) flag[0] = 1;
}

__global__ void out_of_bounds_store_fixed(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) data[i + 1] = 1;
}
