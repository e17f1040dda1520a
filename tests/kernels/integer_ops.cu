// Integer semantics on negative values and at every width: C division and remainder
// (truncation toward zero), arithmetic and logical shifts, and two's-complement wrap.
// kernel: divide_and_shift(const int *a, const int *b, int *out)
//   reads: tid.x
//   shared: 0
// kernel: wrap_widths(const long long *in, long long *out)
//   reads: tid.x
//   shared: 0

__global__ void divide_and_shift(const int *a, const int *b, int *out) {
  int t = threadIdx.x, x = a[t], y = b[t];
  unsigned int ux = (unsigned int)x, uy = (unsigned int)y;
  out[8 * t + 0] = x / y;
  out[8 * t + 1] = x % y;
  out[8 * t + 2] = (int)(ux / uy);
  out[8 * t + 3] = (int)(ux % uy);
  out[8 * t + 4] = x >> 3;
  out[8 * t + 5] = (int)(ux >> 3);
  out[8 * t + 6] = x << 5;
  out[8 * t + 7] = (y & 31) ? (int)(ux >> (y & 31)) : -7;
}

__global__ void wrap_widths(const long long *in, long long *out) {
  int t = threadIdx.x;
  long long v = in[t];
  signed char c = (signed char)v;
  unsigned char uc = (unsigned char)v;
  short s = (short)v;
  unsigned short us = (unsigned short)v;
  int i = (int)v;
  c = c * 3 + 100;
  uc = uc * 3 + 200;
  s = s * 7 + 30000;
  us = us * 7 + 60000;
  i = i * 1000003 + 2000000000;
  unsigned long long u = (unsigned long long)v * 6364136223846793005ull + 1442695040888963407ull;
  out[6 * t + 0] = c;
  out[6 * t + 1] = uc;
  out[6 * t + 2] = s;
  out[6 * t + 3] = us;
  out[6 * t + 4] = i;
  out[6 * t + 5] = (long long)u;
}
