// project: kaldi (table 3)
// bug: _sum_reduce: the shared tree sum reads its partner's partial before the barrier
// after the loads, finishes the last warp without barriers or __syncwarp (a race under
// independent warp scheduling), and waits at a barrier between two phases that touch only
// the thread's own registers and slot.
// expect: _sum_reduce data-race 17/18
// expect: _sum_reduce warp-synchronous-race 21/21
// expect: _sum_reduce redundant-barrier 16
// fixed: _sum_reduce_fixed
__global__ void _sum_reduce(const float *in, float *out, int n) {
  __shared__ float s[64];
  int tid = threadIdx.x;
  if (blockDim.x != 64) return;
  float mine = 0.0f;
  for (int k = blockIdx.x * 64 + tid; k < n; k += 64 * gridDim.x) mine += in[k];
  __syncthreads();
  s[tid] = mine;
  if (tid < 32) s[tid] += s[tid + 32];
  __syncthreads();
  if (tid < 16) {
    for (int offset = 16; offset > 0; offset /= 2) s[tid] += s[tid + offset];
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

__global__ void _sum_reduce_fixed(const float *in, float *out, int n) {
  __shared__ float s[64];
  int tid = threadIdx.x;
  if (blockDim.x != 64) return;
  float mine = 0.0f;
  for (int k = blockIdx.x * 64 + tid; k < n; k += 64 * gridDim.x) mine += in[k];
  s[tid] = mine;
  __syncthreads();
  for (int offset = 32; offset > 0; offset /= 2) {
    if (tid < offset) s[tid] += s[tid + offset];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}
