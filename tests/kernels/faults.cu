// Kernels that misbehave: the interpreter reports each misbehavior and finishes.
// kernel: out_of_bounds(int *data, int n)
//   reads: tid.x
//   shared: 0
// kernel: divide_by_zero(const int *a, const int *b, int *out)
//   reads: tid.x
//   shared: 0
// kernel: spin_forever(volatile int *flag)
//   reads: tid.x
//   shared: 0
// kernel: null_store(int *unused)
//   shared: 0
// kernel: misaligned(char *bytes)
//   reads: tid.x
//   shared: 0
// kernel: wild_row(const Row *rows, float *out)
//   reads: tid.x
//   shared: 0

__global__ void out_of_bounds(int *data, int n) { data[threadIdx.x + n] = 1; }

__global__ void divide_by_zero(const int *a, const int *b, int *out) {
  out[threadIdx.x] = a[threadIdx.x] / b[threadIdx.x];
}

__global__ void spin_forever(volatile int *flag) {
  while (flag[0] == 0) {
    if (threadIdx.x == 1000) flag[0] = 1;  // no such thread: nobody ever sets it
  }
}

__global__ void null_store(int *unused) {
  int *nowhere = 0;
  *nowhere = 5;
}

__global__ void misaligned(char *bytes) { *(int *)(bytes + 1 + 4 * threadIdx.x) = 7; }

// A row pointer nobody set, read at three lines in a loop: one bug, not three.
struct Row {
  float *values;
  int n;
};

__global__ void wild_row(const Row *rows, float *out) {
  const Row row = rows[0];
  float sum = 0;
  for (int i = 0; i < 4; i++) {
    sum += row.values[threadIdx.x + i];  // the first read through the null row pointer
    sum += row.values[threadIdx.x + i + 1] * 2;
    sum += row.values[threadIdx.x + i + 2] * 3;
  }
  out[threadIdx.x] = sum;
}
