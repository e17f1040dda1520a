// project: thundersvm (table 3)
// bug: c_smo_solve_kernel: the block-minimum reduction has no barrier between its steps,
// every thread tied at the minimum publishes its index to one shared variable, and thread 0
// updates the last working-set alpha in shared memory while its owner reads it: three races.
// expect: c_smo_solve_kernel warp-synchronous-race 22/22
// expect: c_smo_solve_kernel data-race 25/25
// expect: c_smo_solve_kernel data-race 27/28
// fixed: c_smo_solve_kernel_fixed
#define THREADS 64

__global__ void c_smo_solve_kernel(const float *y, const float *f, float *alpha, int *selected, int ws_size) {
  __shared__ float f_val[THREADS], s_alpha[THREADS];
  __shared__ int up;
  int tid = threadIdx.x;
  if (blockDim.x > THREADS) return;
  bool inside = tid < ws_size;
  float v = inside ? -y[tid] * f[tid] : 1e30f;
  s_alpha[tid] = inside ? alpha[blockIdx.x * blockDim.x + tid] : 0.0f;
  f_val[tid] = v;
  __syncthreads();
  for (int offset = blockDim.x / 2; offset > 0; offset /= 2) {
    if (tid < offset) f_val[tid] = fminf(f_val[tid], f_val[tid + offset]);
  }
  __syncthreads();
  if (v == f_val[0]) up = tid;
  __syncthreads();
  if (tid == 0) s_alpha[blockDim.x - 1] += 0.5f;
  if (inside) alpha[blockIdx.x * blockDim.x + tid] = s_alpha[tid];
  if (tid == 0) selected[blockIdx.x] = up;
}

__global__ void c_smo_solve_kernel_fixed(const float *y, const float *f, float *alpha, int *selected, int ws_size) {
  __shared__ float f_val[THREADS], s_alpha[THREADS];
  __shared__ int up;
  int tid = threadIdx.x;
  if (blockDim.x > THREADS) return;
  bool inside = tid < ws_size;
  float v = inside ? -y[tid] * f[tid] : 1e30f;
  s_alpha[tid] = inside ? alpha[blockIdx.x * blockDim.x + tid] : 0.0f;
  f_val[tid] = v;
  if (tid == 0) up = THREADS;
  __syncthreads();
  for (int offset = blockDim.x / 2; offset > 0; offset /= 2) {
    if (tid < offset) f_val[tid] = fminf(f_val[tid], f_val[tid + offset]);
    __syncthreads();
  }
  if (v == f_val[0]) atomicMin(&up, tid);
  if (tid == 0) s_alpha[blockDim.x - 1] += 0.5f;
  __syncthreads();
  if (inside) alpha[blockIdx.x * blockDim.x + tid] = s_alpha[tid];
  if (tid == 0) selected[blockIdx.x] = up;
}
