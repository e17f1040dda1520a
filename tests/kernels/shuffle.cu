// Every shuffle mode for every shuffled type, with and without a width, and the legacy
// forms without _sync.
// kernel: shuffles(int *i, unsigned int *u, float *f, long long *ll, double *d)
//   reads: tid.x
//   shared: 0

__global__ void shuffles(int *i, unsigned int *u, float *f, long long *ll, double *d) {
  unsigned int lane = threadIdx.x % 32;
  i[threadIdx.x] = __shfl_sync(0xffffffff, i[threadIdx.x], 0) + __shfl_up_sync(0xffffffff, i[lane], 1) +
                   __shfl_down_sync(0xffffffff, i[lane], 2, 16) + __shfl_xor_sync(0xffffffff, i[lane], 4, 8);
  u[threadIdx.x] = __shfl_down_sync(0xffffffff, u[lane], 1);
  f[threadIdx.x] = __shfl_xor_sync(0xffffffff, f[lane], 1) + __shfl_up_sync(0xffffffff, f[lane], 3);
  ll[threadIdx.x] = __shfl_sync(0xffffffff, ll[lane], 5);
  d[threadIdx.x] = __shfl_down_sync(0xffffffff, d[lane], 16);
  i[32 + threadIdx.x] = __shfl(i[lane], 1) + __shfl_up(i[lane], 1) + __shfl_down(i[lane], 1) + __shfl_xor(i[lane], 1);
}
