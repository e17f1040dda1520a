// Kernels for `simulee prove`, each racy one beside its fixed twin. The racy ones must never
// be proved; the fixed ones are proved for every launch.

// A tree reduction in shared memory: the barrier in the loop orders each level's reads
// before the next level's writes.
__global__ void tree_sum(const float *in, float *out, int n) {
  __shared__ float partial[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) partial[tid] += partial[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

// The same without the barrier in the loop: a level reads what the next one writes.
__global__ void tree_sum_unsynchronized(const float *in, float *out, int n) {
  __shared__ float partial[256];
  unsigned tid = threadIdx.x;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) partial[tid] += partial[tid + stride];  // races with the next level
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

// Each thread updates its own element.
__global__ void scale(float *x, float factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * factor;
}

// Each thread reads the element its neighbour writes.
__global__ void shift_left(int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) x[i] = x[i + 1];  // thread i+1 writes x[i+1]
}

// Races only when n is 1337: every thread then writes the first element.
__global__ void magic_size(int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int slot = n == 1337 ? 0 : i;
  x[slot] = i;  // all threads write x[0] when n == 1337
}

// An index kept in 8 bits wraps: threads 0 and 64 write the same byte of the tile.
__global__ void wrapped_index(unsigned char *tile) {
  unsigned char slot = threadIdx.x * 4;
  tile[slot] = 1;  // threads 64 apart share a slot
}

// Some threads leave before the barrier the others wait at.
__global__ void early_exit(float *x, int n) {
  __shared__ float staged[128];
  if (threadIdx.x >= n) return;
  staged[threadIdx.x] = x[threadIdx.x];
  __syncthreads();  // the threads that returned never arrive
  x[threadIdx.x] = staged[(threadIdx.x + 1) % n];
}

// Plain reads of a counter other threads add to atomically; and its twin, atomics only.
__global__ void peek_counter(int *counter, int *seen) {
  atomicAdd(counter, 1);  // the other threads' add
  seen[blockIdx.x * blockDim.x + threadIdx.x] = *counter;  // races with the other threads' atomicAdd
}

__global__ void count(int *counter) {
  atomicAdd(counter, 1);
}

// Rows of 64 slots, one per block: right only for blocks of at most 64 threads, which its
// precondition states (a launch that breaks it is invalid, as check treats it).
__global__ void rows_of_64(int *rows) {
  __assume(blockDim.x <= 64);
  rows[(size_t)blockIdx.x * 64 + threadIdx.x] = threadIdx.x;  // 64-bit: 2^26 blocks would wrap 32 bits
}

// The same without the precondition: a block of 65 threads or more writes the next block's row.
__global__ void rows_of_64_unstated(int *rows) {
  rows[(size_t)blockIdx.x * 64 + threadIdx.x] = threadIdx.x;  // the next block's first slot for a large block
}
