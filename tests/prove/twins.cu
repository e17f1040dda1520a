#include <cooperative_groups.h>

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

// Buffers a struct passed by value carries: each thread scales its own element; its twin
// halves the index, so two threads store to one element.
struct Buffers {
  const float *in;
  float *out;
  int n;
};

__global__ void struct_buffers(Buffers b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < b.n) b.out[i] = 2.0f * b.in[i];
}

__global__ void struct_buffers_halved(Buffers b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < b.n) b.out[i / 2] = 2.0f * b.in[i];  // threads 2k and 2k+1 store to one element
}

// __umul24 multiplies the low 24 bits of its operands: exact for grids of fewer than 2^24
// threads, and two blocks share an element when blockIdx.x * blockDim.x reaches 2^24.
__global__ void mul24_index(int *x) {
  x[__umul24(blockIdx.x, blockDim.x) + threadIdx.x] = threadIdx.x;  // wraps past 2^24 threads
}

// A cooperative grid's barrier orders every block's read before any block's write; in its
// twin only the even blocks reach it, and the others never arrive.
__global__ void grid_shift(int *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int next = x[i + 1];
  cooperative_groups::this_grid().sync();
  x[i] = next;
}

__global__ void grid_shift_even_blocks(int *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x % 2 == 0) {
    int next = x[i + 2];
    cooperative_groups::this_grid().sync();  // the odd blocks never arrive
    x[i] = next;
  }
}

// A warp-synchronous scan: right only while a warp runs in lockstep (before Volta), where
// each step's loads all come before its stores; with independent threads, lanes race.
__global__ void warp_scan(int *x) {
  __shared__ int s[1024];
  unsigned tid = threadIdx.x, lane = tid % 32;
  s[tid] = x[blockIdx.x * blockDim.x + tid];
  if (lane >= 1) s[tid] += s[tid - 1];  // lane i reads what lane i - 1 writes in this step
  if (lane >= 2) s[tid] += s[tid - 2];
  if (lane >= 4) s[tid] += s[tid - 4];
  x[blockIdx.x * blockDim.x + tid] = s[tid];
}

// The two sides of a branch a warp's lanes disagree on run one after the other, in either
// order: a race in lockstep warps too.
__global__ void warp_sides(int *out) {
  __shared__ int s[32];
  unsigned lane = threadIdx.x % 32;
  if (lane < 16) s[lane] = lane;  // the lanes below 16 write
  else out[blockIdx.x * blockDim.x + threadIdx.x] = s[lane - 16];  // while the others read
}

// Calls through a function pointer: each function the pointer may name is followed. Both
// functions update the thread's own element; in the twin, one of them writes the first.
__device__ void twice(float *x, int i) { x[i] *= 2.0f; }
__device__ void halve(float *x, int i) { x[i] *= 0.5f; }
__device__ void to_first(float *x, int i) { x[0] = x[i]; }  // every odd thread writes x[0]

__global__ void pointer_calls(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  void (*update)(float *, int) = i % 2 ? twice : halve;
  if (i < n) update(x, i);
}

__global__ void pointer_calls_first(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  void (*update)(float *, int) = i % 2 ? to_first : halve;
  if (i < n) update(x, i);
}

// A grid-stride loop with a 64-bit counter: each element is one thread's (the counter and
// the byte offsets it makes do not wrap); its twin strides by a block only, so the blocks
// meet on the same elements.
__global__ void grid_stride(float *y, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x)
    y[i] = 2.0f * y[i];
}

__global__ void grid_stride_by_block(float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x)
    y[i] = 2.0f * y[i];  // block 1's first element is block 0's second stride
}

// A precondition at the kernel's top holds after its barriers too: rows of 64 staged in
// shared memory, then written back.
__global__ void staged_rows(int *rows, int width) {
  __assume(width == 64);
  __assume(blockDim.x == 64);
  __shared__ int staged[64];
  staged[threadIdx.x] = rows[blockIdx.x * width + threadIdx.x];
  __syncthreads();
  rows[blockIdx.x * width + threadIdx.x % width] = staged[63 - threadIdx.x];  // width 64: a slot a thread
}

// an unsigned counter counting down: iteration k writes row rows-1-k, each thread its own slot
// (countdown_late: from its second iteration on every thread writes the row's first slot)
__global__ void countdown(int *x, unsigned rows) {
  if (blockDim.x != 64 || blockIdx.x != 0) return;
  for (unsigned r = rows; r-- > 0;) x[(size_t)r * 64 + threadIdx.x] = r;
}

__global__ void countdown_late(int *x, unsigned rows) {
  if (blockDim.x != 64 || blockIdx.x != 0 || rows > 64) return;  // a short walk: its confirming run is quick
  for (unsigned r = rows; r-- > 0;) x[r + 1 < rows ? (size_t)r * 64 : (size_t)r * 64 + threadIdx.x] = r;
}
