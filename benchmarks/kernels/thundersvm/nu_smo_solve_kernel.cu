// project: thundersvm (table 3)
// bug: nu_smo_solve_kernel: after each block-minimum reduction (one per class), every thread
// whose value equals the minimum publishes its index to the same shared variable instead of
// one thread publishing the reduced index: two write-write races.
// expect: nu_smo_solve_kernel data-race 23/23
// expect: nu_smo_solve_kernel data-race 31/31
// fixed: nu_smo_solve_kernel_fixed
#define THREADS 64

__global__ void nu_smo_solve_kernel(const int *y, const float *f, int *selected, int ws_size) {
  __shared__ float f_val[THREADS];
  __shared__ int up_p, up_n;
  int tid = threadIdx.x;
  if (blockDim.x > THREADS) return;
  bool inside = tid < ws_size;
  float pos = inside && y[tid] >= 0 ? -f[tid] : 1e30f, neg = inside && y[tid] < 0 ? f[tid] : 1e30f;
  f_val[tid] = pos;
  __syncthreads();
  for (int offset = blockDim.x / 2; offset > 0; offset /= 2) {
    if (tid < offset) f_val[tid] = fminf(f_val[tid], f_val[tid + offset]);
    __syncthreads();
  }
  if (pos == f_val[0]) up_p = tid;
  __syncthreads();
  f_val[tid] = neg;
  __syncthreads();
  for (int offset = blockDim.x / 2; offset > 0; offset /= 2) {
    if (tid < offset) f_val[tid] = fminf(f_val[tid], f_val[tid + offset]);
    __syncthreads();
  }
  if (neg == f_val[0]) up_n = tid;
  __syncthreads();
  if (tid == 0) {
    selected[2 * blockIdx.x] = up_p;
    selected[2 * blockIdx.x + 1] = up_n;
  }
}

__global__ void nu_smo_solve_kernel_fixed(const int *y, const float *f, int *selected, int ws_size) {
  __shared__ float f_val[THREADS];
  __shared__ int up_p, up_n;
  int tid = threadIdx.x;
  if (blockDim.x > THREADS) return;
  bool inside = tid < ws_size;
  float pos = inside && y[tid] >= 0 ? -f[tid] : 1e30f, neg = inside && y[tid] < 0 ? f[tid] : 1e30f;
  if (tid == 0) up_p = up_n = THREADS;
  f_val[tid] = pos;
  __syncthreads();
  for (int offset = blockDim.x / 2; offset > 0; offset /= 2) {
    if (tid < offset) f_val[tid] = fminf(f_val[tid], f_val[tid + offset]);
    __syncthreads();
  }
  if (pos == f_val[0]) atomicMin(&up_p, tid);
  __syncthreads();
  f_val[tid] = neg;
  __syncthreads();
  for (int offset = blockDim.x / 2; offset > 0; offset /= 2) {
    if (tid < offset) f_val[tid] = fminf(f_val[tid], f_val[tid + offset]);
    __syncthreads();
  }
  if (neg == f_val[0]) atomicMin(&up_n, tid);
  __syncthreads();
  if (tid == 0) {
    selected[2 * blockIdx.x] = up_p;
    selected[2 * blockIdx.x + 1] = up_n;
  }
}
