// The scheduler's cost per step on a small group: 64 threads in one loop that never
// ends (n odd), each trip a load, a store and some arithmetic; the launch runs until its
// step limit. benchmarks/throughput.py divides its seconds by its steps.
__global__ void steps(int *out, const int *in, int n) {
  int i = threadIdx.x;
  int acc = 0;
  for (int k = 0; k != n; k += 2) {
    acc += in[(k + i) & 63] * k;
    out[i] = acc;
  }
}
