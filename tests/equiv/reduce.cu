// Five successive optimizations of a block sum (each block sums 2 * B ints): each computes
// what reduce_interleaved does, except reduce_warp_unsynced, whose last warp reads its
// neighbours' partial sums without __syncwarp() (a warp-synchronous race).
#define B 128

__global__ void reduce_interleaved(const int *in, int *out) {
  __shared__ int s[2 * B];
  unsigned t = threadIdx.x, base = blockIdx.x * 2 * B;
  s[t] = in[base + t];
  s[t + B] = in[base + t + B];
  __syncthreads();
  for (unsigned stride = 1; stride < 2 * B; stride *= 2) {
    unsigned i = 2 * stride * t;
    if (i < 2 * B) s[i] += s[i + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void reduce_sequential(const int *in, int *out) {
  __shared__ int s[2 * B];
  unsigned t = threadIdx.x, base = blockIdx.x * 2 * B;
  s[t] = in[base + t];
  s[t + B] = in[base + t + B];
  __syncthreads();
  for (unsigned stride = B; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void reduce_add_on_load(const int *in, int *out) {
  __shared__ int s[B];
  unsigned t = threadIdx.x, base = blockIdx.x * 2 * B;
  s[t] = in[base + t] + in[base + t + B];
  __syncthreads();
  for (unsigned stride = B / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void reduce_warp_synced(const int *in, int *out) {
  __shared__ int s[B];
  unsigned t = threadIdx.x, base = blockIdx.x * 2 * B;
  s[t] = in[base + t] + in[base + t + B];
  __syncthreads();
  for (unsigned stride = B / 2; stride > 32; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    for (unsigned stride = 32; stride > 0; stride >>= 1) {
      int sum = s[t] + s[t + stride];
      __syncwarp();
      s[t] = sum;
      __syncwarp();
    }
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void reduce_warp_unsynced(const int *in, int *out) {
  __shared__ int s[B];
  unsigned t = threadIdx.x, base = blockIdx.x * 2 * B;
  s[t] = in[base + t] + in[base + t + B];
  __syncthreads();
  for (unsigned stride = B / 2; stride > 32; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t < 32) {
    volatile int *v = s;
    v[t] += v[t + 32];
    v[t] += v[t + 16];
    v[t] += v[t + 8];
    v[t] += v[t + 4];
    v[t] += v[t + 2];
    v[t] += v[t + 1];
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

__global__ void reduce_shuffle(const int *in, int *out) {
  __shared__ int warps[B / 32];
  unsigned t = threadIdx.x, base = blockIdx.x * 2 * B;
  int sum = in[base + t] + in[base + t + B];
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (t % 32 == 0) warps[t / 32] = sum;
  __syncthreads();
  if (t < 32) {
    sum = t < B / 32 ? warps[t] : 0;
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (t == 0) out[blockIdx.x] = sum;
  }
}
