// Float <-> integer conversions, negative and out-of-range values included (the GPU
// saturates and maps NaN to 0), and integer -> float rounding.
// kernel: convert(const float *f, const double *d, const long long *l, int *i, unsigned int *u, long long *ll, float *back)
//   reads: tid.x
//   shared: 0

__global__ void convert(const float *f, const double *d, const long long *l, int *i, unsigned int *u, long long *ll,
                        float *back) {
  int t = threadIdx.x;
  i[2 * t] = (int)f[t];
  i[2 * t + 1] = (int)d[t];
  u[t] = (unsigned int)f[t];
  ll[t] = (long long)d[t];
  back[2 * t] = (float)l[t];
  back[2 * t + 1] = (float)(unsigned long long)l[t];
}
