// project: arrayfire (table 2)
// bug: scan_nonfinal_kernel: a block-wide inclusive scan in shared memory whose passes read
// the partner's slot and write their own with no barrier between the read and the write.
// expect: scan_nonfinal_kernel data-race 19/17
// fixed: scan_nonfinal_kernel_fixed
#define THREADS 256

__global__ void scan_nonfinal_kernel(const float *in, float *out, float *block_sums, int n) {
  __shared__ float s[THREADS];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  if (blockDim.x > THREADS) return;
  s[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset *= 2) {
    float partner = 0.0f;
    if (tid >= offset) partner = s[tid - offset];
    // missing __syncthreads(): a faster thread's write below races with the read above
    s[tid] += partner;
    __syncthreads();
  }
  if (i < n) out[i] = s[tid];
  if (tid == blockDim.x - 1) block_sums[blockIdx.x] = s[tid];
}

__global__ void scan_nonfinal_kernel_fixed(const float *in, float *out, float *block_sums, int n) {
  __shared__ float s[THREADS];
  int tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  if (blockDim.x > THREADS) return;
  s[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset *= 2) {
    float partner = 0.0f;
    if (tid >= offset) partner = s[tid - offset];
    __syncthreads();
    s[tid] += partner;
    __syncthreads();
  }
  if (i < n) out[i] = s[tid];
  if (tid == blockDim.x - 1) block_sums[blockIdx.x] = s[tid];
}
