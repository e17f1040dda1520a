// Loops that run long, loops that never end, and stacks that overflow.
// kernel: count_to(int *out, int n)
//   reads: tid.x
//   shared: 0
// kernel: count_to_constant(int *out)
//   reads: tid.x
//   shared: 0
// kernel: count_forever(unsigned int *out)
//   reads: tid.x
//   shared: 0
// kernel: wait_for_flag(volatile int *flag, int *out)
//   reads: tid.x
//   shared: 0
// kernel: hand_over(volatile int *flags, int *out)
//   reads: tid.x
//   shared: 0
// kernel: big_stack(int *out, int n)
//   reads: tid.x
//   shared: 0
// kernel: sum_table(const float *table, float *out, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0

// As many iterations as n says: long, but finite.
__global__ void count_to(int *out, int n) {
  int sum = 0;
  for (int i = 0; i < n; i++) {
    sum += i & threadIdx.x;
  }
  out[threadIdx.x] = sum;
}

// 300,000 iterations, as the source says.
__global__ void count_to_constant(int *out) {
  int sum = 0;
  for (int i = 0; i < 300000; i++) {
    sum += i & threadIdx.x;
  }
  out[threadIdx.x] = sum;
}

// Never ends, yet every iteration differs: only a limit stops it.
__global__ void count_forever(unsigned *out) {
  unsigned i = threadIdx.x;
  while (i != 1u) {
    i += 2;
    out[threadIdx.x] = i;
  }
}

// Waits for a flag nobody sets: every iteration is the same as the one before.
__global__ void wait_for_flag(volatile int *flag, int *out) {
  while (flag[0] == 0) {
  }
  out[threadIdx.x] = 1;
}

// Warp 1 waits for the flag warp 0 sets: it ends, as warps make progress on a GPU.
__global__ void hand_over(volatile int *flags, int *out) {
  if (threadIdx.x == 0) {
    flags[0] = 1;
  }
  if (threadIdx.x == 32) {
    while (flags[0] == 0) {
    }
  }
  out[threadIdx.x] = flags[0];
}

__device__ int deep_table(int n) {
  int table[300000];  // 1.2 MB of local memory: more than a thread may have
  for (int i = 0; i < 4; i++) table[i] = n + i;
  return table[n & 3];
}

// Each thread's stack overflows in deep_table: the threads stop there.
__global__ void big_stack(int *out, int n) {
  out[threadIdx.x] = deep_table(n + threadIdx.x);
}

// n + 1 accesses a thread, every block alike: a long table makes a trace too long to keep.
__global__ void sum_table(const float *table, float *out, int n) {
  float sum = 0.0f;
  for (int i = 0; i < n; i++) sum += table[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
