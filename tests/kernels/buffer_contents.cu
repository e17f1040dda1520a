// Races that depend on what the buffers hold, on two pointers being one buffer, and a
// scalar that indexes a fixed-size table: what the search's content, alias and contract
// handling are for.
// kernel: threshold(const int *in, int *found)
//   reads: tid.x
//   shared: 0
// kernel: threshold_fixed(const int *in, int *found)
//   reads: tid.x
//   shared: 0
// kernel: negative_first(const int *in, int *out)
//   reads: tid.x
//   shared: 0
// kernel: scatter(const int *index, int *out)
//   reads: tid.x
//   shared: 0
// kernel: scatter_fixed(const int *index, int *out)
//   reads: tid.x
//   shared: 0
// kernel: binned(const int *bin, int *out)
//   reads: tid.x
//   shared: 256
// kernel: counted(unsigned int *count, int *out)
//   reads: tid.x
//   shared: 0
// kernel: shift(int *out, int *in)
//   reads: tid.x
//   shared: 0
// kernel: shift_from_input(int *out, const int *in)
//   reads: tid.x
//   shared: 0
// kernel: two_outputs(int *sums, int *counts)
//   reads: tid.x
//   shared: 0
// kernel: per_level(int *out, int level)
//   reads: tid.x
//   shared: 0
// kernel: add_blocks(const Span *spans, float *data)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: add_shifted(const int *offsets, float *x, float *y)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0

__device__ int level_counts[2 * 8 + 1];

// Only values above 100 make threads write `found`: small random words never are.
__global__ void threshold(const int *in, int *found) {
  int t = threadIdx.x;
  if (in[t] > 100) *found = t;  // threads above the threshold race
}

__global__ void threshold_fixed(const int *in, int *found) {
  int t = threadIdx.x;
  if (in[t] > 100) atomicMax(found, t);
}

// Only negative values make threads write out[0].
__global__ void negative_first(const int *in, int *out) {
  int t = threadIdx.x;
  if (in[t] < 0)
    out[0] = t;  // threads with a negative input race
  else
    out[t + 1] = in[t];
}

// Collides when two indices are equal.
__global__ void scatter(const int *index, int *out) {
  int t = threadIdx.x;
  out[index[t]] = t;  // duplicate indices race
}

__global__ void scatter_fixed(const int *index, int *out) {
  int t = threadIdx.x;
  out[t] = index[t];
}

// A shared histogram of what the buffer holds: a bin past it is the content's, not a bug.
__global__ void binned(const int *bin, int *out) {
  __shared__ int counts[64];
  int t = threadIdx.x;
  counts[t] = 0;
  __syncthreads();
  atomicAdd(&counts[bin[t]], 1);
  __syncthreads();
  out[t] = counts[t];
}

// The slot comes from a counter whatever it holds: threads 0 and 1 add 0 and 1, so they get
// the same slot from any start (GPUVerify's atomics/add_tid).
__global__ void counted(unsigned int *count, int *out) {
  int t = threadIdx.x;
  out[atomicAdd(count, t)] = t;  // threads 0 and 1 share a slot
}

// Races only when called in place (out == in).
__global__ void shift(int *out, int *in) {
  int t = threadIdx.x;
  out[t] = in[t + 1];  // in place, thread t reads what thread t + 1 writes
}

// The same, but `in` is declared an input.
__global__ void shift_from_input(int *out, const int *in) {
  int t = threadIdx.x;
  out[t] = in[t + 1];
}

// Two outputs, only written: no call passes one buffer as both.
__global__ void two_outputs(int *sums, int *counts) {
  int t = threadIdx.x;
  sums[t / 2] = t;  // neighbours race, whatever the buffers
  counts[t] = 1;
}

// Every thread reads the same entry, which exists only for level < 8.
__global__ void per_level(int *out, int level) {
  out[threadIdx.x] = level_counts[2 * level + 1];  // past the table for level >= 8
}

// Each block adds to its span of data: spans the program lays out never overlap, but
// any content of numbers in both members (an index in each, say) makes them overlap.
struct Span {
  int start;
  int length;
};

__global__ void add_blocks(const Span *spans, float *data) {
  Span span = spans[blockIdx.x];
  if (threadIdx.x < span.length)
    data[span.start + threadIdx.x] += 1.0f;  // blocks whose spans overlap race
}

// Each thread adds x to y at its index moved by what offsets holds: threads meet where
// offsets makes i + offsets[i] repeat; the read of x meets the writes only when y == x.
__global__ void add_shifted(const int *offsets, float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int at = i + offsets[i];
  y[at] = x[i] + y[at];  // shifted slots that meet race
}
