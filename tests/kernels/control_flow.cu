// Branches, an early return, a switch and a loop with break and continue.
// kernel: classify(const int *in, int *out, int n)
//   reads: tid.x
//   shared: 0

__global__ void classify(const int *in, int *out, int n) {
  int t = threadIdx.x;
  if (t >= n) return;
  int value = in[t], score = 0;
  switch (value & 3) {
    case 0: score = 10; break;
    case 1: score = 20; break;
    case 2: score = 30; break;
    default: score = -1;
  }
  for (int k = 0; k < value; ++k) {
    if (k % 2) continue;
    if (score > 100) break;
    score += k;
  }
  out[t] = score;
}
