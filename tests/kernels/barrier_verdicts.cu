// Barriers to judge: one needed and one redundant in the same kernel; an early return that
// is divergent only when n is not a multiple of the block size; barriers in both arms of an
// if/else on threadIdx. Each with its fixed twin.
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
// kernel: both_arms_fixed(int *data)
//   reads: tid.x
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

__global__ void both_arms_fixed(int *data) {
  __shared__ int cell[64];
  if (threadIdx.x < 16)
    cell[threadIdx.x] = 1;
  else
    cell[threadIdx.x] = 2;
  __syncthreads();
  data[threadIdx.x] = cell[(threadIdx.x + 1) % 64];
}
