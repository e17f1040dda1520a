// A loop copying a per-thread local array out: its loaded register is rewritten each trip,
// in place by native code, while the trace still holds the values earlier trips stored.
__global__ void copy_out(const double *x, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double r[] = {x[i] * 2, 5.0, -x[i], 7.5};
  for (int k = 0; k < 4; ++k) out[k * n + i] = r[k];
}
