// Which scalar parameters reach addresses or branches (and so are searched).
// kernel: mixed(int *a, int *b, int d, int n, float alpha, int unused, int stride, float scale, int stored)
//   reads: tid.x
//   shared: 0

__device__ int times(int x, int k) { return x * k; }

// d indexes, n bounds a branch, stride steps a loop (address and branch), scale reaches an
// index through a device function, stored is written to memory and read back as an index;
// alpha and unused only become stored values.
__global__ void mixed(int *a, int *b, int d, int n, float alpha, int unused, int stride, float scale, int stored) {
  int t = threadIdx.x;
  if (t < n) a[t / d] = (int)(alpha * 2.0f);
  for (int i = t; i < 100; i += stride) a[i] += 1;
  a[times(t, (int)scale)] = unused;
  b[t] = stored;
  a[b[t]] = 0;
}
