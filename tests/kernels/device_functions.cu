// Device functions are inlined into the kernel, except a recursive one, which stays a call.
// kernel: call_tree(int *data, int depth)
//   reads: tid.x
//   shared: 0

__device__ int square(int x) { return x * x; }
__device__ int sum_of_squares(int a, int b) { return square(a) + square(b); }
__device__ int fibonacci(int n) { return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2); }

__global__ void call_tree(int *data, int depth) {
  int t = threadIdx.x;
  data[t] = sum_of_squares(t, data[t]) + fibonacci(depth);
}
