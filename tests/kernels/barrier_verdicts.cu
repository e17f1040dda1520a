// Barriers to judge: one needed and one redundant in the same kernel; an early return that
// is divergent only when n is not a multiple of the block size; barriers in both arms of an
// if/else on threadIdx; a barrier inside a branch followed by one every thread reaches;
// two barriers back to back. Each with its fixed twin (back_to_back is its own: one of its
// two barriers is needed).
// kernel: one_of_each(const float *in, float *out)
//   reads: tid.x ntid.x
//   shared: 2048
// kernel: one_of_each_fixed(const float *in, float *out)
//   reads: tid.x ntid.x
//   shared: 2048
// kernel: early_exit(float *data, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 1024
// kernel: early_exit_fixed(float *data, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 1024
// kernel: both_arms(int *data)
//   reads: tid.x
//   shared: 256
// kernel: warp_arms(int *data)
//   reads: tid.x
//   shared: 256
// kernel: both_arms_fixed(int *data)
//   reads: tid.x
//   shared: 256
// kernel: branch_then_uniform(int *data)
//   reads: tid.x
//   shared: 256
// kernel: branch_then_uniform_fixed(int *data)
//   reads: tid.x
//   shared: 256
// kernel: back_to_back(int *data)
//   reads: tid.x ntid.x
//   shared: 256
// kernel: tiled(const float *in, float *out, int tiles)
//   reads: tid.x ctaid.x ntid.x
//   shared: 256

__global__ void one_of_each(const float *in, float *out) {
  __shared__ float mine[256], shared_by_all[256];
  int t = threadIdx.x;
  shared_by_all[t] = in[t];
  __syncthreads();  // needed: line 28 reads what the next thread wrote at line 26
  float next = shared_by_all[(t + 1) % blockDim.x];
  mine[t] = next;
  __syncthreads();  // redundant: each thread reads back only its own slot of mine
  out[t] = mine[t] * 2.0f;
}

__global__ void one_of_each_fixed(const float *in, float *out) {
  __shared__ float mine[256], shared_by_all[256];
  int t = threadIdx.x;
  shared_by_all[t] = in[t];
  __syncthreads();
  float next = shared_by_all[(t + 1) % blockDim.x];
  mine[t] = next;
  out[t] = mine[t] * 2.0f;
}

// Threads past n leave before the barrier the others wait at.
__global__ void early_exit(float *data, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tile[threadIdx.x] = data[i];
  __syncthreads();
  data[i] = tile[blockDim.x - 1 - threadIdx.x] * 2.0f;
}

// Every thread reaches the barrier; only the memory accesses are guarded.
__global__ void early_exit_fixed(float *data, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tile[threadIdx.x] = data[i];
  __syncthreads();
  int j = blockIdx.x * blockDim.x + blockDim.x - 1 - threadIdx.x;
  if (i < n && j < n) data[i] = tile[blockDim.x - 1 - threadIdx.x] * 2.0f;
}

// Each arm has its own barrier: the two halves of the block wait at different barriers.
__global__ void both_arms(int *data) {
  __shared__ int cell[64];
  if (threadIdx.x < 16) {
    cell[threadIdx.x] = 1;
    __syncthreads();
  } else {
    cell[threadIdx.x] = 2;
    __syncthreads();
  }
  data[threadIdx.x] = cell[(threadIdx.x + 1) % 64];
}

// Whole warps in each arm: every __syncthreads() is the hardware's barrier 0, which counts
// arriving warps, so both arms are released together (undefined by the programming guide).
__global__ void warp_arms(int *data) {
  __shared__ int cell[64];
  if (threadIdx.x < 32) {
    cell[threadIdx.x] = 1;
    __syncthreads();  // the first warp's
  } else {
    cell[threadIdx.x] = 2;
    __syncthreads();  // the second warp's
  }
  data[threadIdx.x] = cell[(threadIdx.x + 1) % 64];
}

__global__ void both_arms_fixed(int *data) {
  __shared__ int cell[64];
  if (threadIdx.x < 16)
    cell[threadIdx.x] = 1;
  else
    cell[threadIdx.x] = 2;
  __syncthreads();
  data[threadIdx.x] = cell[(threadIdx.x + 1) % 64];
}

__global__ void branch_then_uniform(int *data) {
  __shared__ int cell[64];
  cell[threadIdx.x] = threadIdx.x;
  if (threadIdx.x < 32) {
    __syncthreads();  // divergent: only the first warp waits here
    cell[threadIdx.x] += cell[threadIdx.x + 32];
  }
  __syncthreads();  // every thread reaches this one
  data[threadIdx.x] = cell[threadIdx.x ^ 1];
}

__global__ void branch_then_uniform_fixed(int *data) {
  __shared__ int cell[64];
  cell[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x < 32) cell[threadIdx.x] += cell[threadIdx.x + 32];
  __syncthreads();
  data[threadIdx.x] = cell[threadIdx.x ^ 1];
}

__global__ void back_to_back(int *data) {
  __shared__ int cell[64];
  cell[threadIdx.x] = data[threadIdx.x];
  __syncthreads();  // first of two: redundant while the second stays
  __syncthreads();  // second: needed once the first is gone
  data[threadIdx.x] = cell[(threadIdx.x + 1) % blockDim.x];
}

// A tiled loop: each tile is staged in shared memory and read by the neighbour; the barrier
// closing a tile keeps the next tile's writes from the neighbour's reads, so one tile never
// tests it.
__global__ void tiled(const float *in, float *out, int tiles) {
  __shared__ float tile[64];
  float sum = 0.0f;
  for (int k = 0; k < tiles; ++k) {
    tile[threadIdx.x] = in[k * blockDim.x + threadIdx.x];
    __syncthreads();
    sum += tile[(threadIdx.x + 1) % blockDim.x];
    __syncthreads();  // closes the tile
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
