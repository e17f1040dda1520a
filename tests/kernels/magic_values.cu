// Races behind a comparison with a constant: a random search almost never picks n == 1337
// or mode 42; the constants the code compares against are tried.
// kernel: magic(int *a, int n)
//   reads: tid.x
//   shared: 0
// kernel: magic_fixed(int *a, int n)
//   reads: tid.x
//   shared: 0
// kernel: by_mode(float *x, int mode)
//   reads: tid.x
//   shared: 0
// kernel: two_writers(float *a, int x)
//   reads: tid.x
//   shared: 0

__global__ void magic(int *a, int n) {
  int t = threadIdx.x;
  if (n == 1337)
    a[0] = t;  // every thread writes a[0]
  else
    a[t] = n;
}

__global__ void magic_fixed(int *a, int n) {
  int t = threadIdx.x;
  if (n == 1337)
    a[t] = 0;
  else
    a[t] = n;
}

__global__ void by_mode(float *x, int mode) {
  int t = threadIdx.x;
  switch (mode) {
  case 42:
    x[t] = x[t + 1];  // neighbours race
    break;
  default:
    x[t] = 1.0f;
  }
}

// Threads 15 and 200 write; they meet only at the offset x = 185, the difference of the two
// constants the code compares against.
__global__ void two_writers(float *a, int x) {
  if (threadIdx.x == 15) a[threadIdx.x + x] = 1.0f;  // meets thread 200's write when x == 185
  if (threadIdx.x == 200) a[threadIdx.x] = 2.0f;
}
