// Races between the lanes of one warp, and their fixes.
// kernel: warp_tail(const int *in, int *out)
//   reads: tid.x
//   shared: 256
// kernel: warp_tail_fixed(const int *in, int *out)
//   reads: tid.x
//   shared: 256
// kernel: same_store(int *out)
//   reads: tid.x
//   shared: 128
// kernel: same_store_fixed(int *out)
//   reads: tid.x
//   shared: 128
// kernel: syncwarp_missing(int *out)
//   reads: tid.x
//   shared: 128
// kernel: syncwarp_placed(int *out)
//   reads: tid.x
//   shared: 128
// kernel: shuffle_sum(const int *in, int *out)
//   reads: tid.x
//   shared: 0
// kernel: tagged_histogram(const unsigned char *data, unsigned int *out)
//   reads: tid.x ntid.x
//   shared: 1024

// The warp-synchronous tail of a reduction: correct on pre-Volta lockstep warps, a race on
// independently scheduled ones (line 40 reads what line 40 of another lane writes).
__global__ void warp_tail(const int *in, int *out) {
  __shared__ volatile int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  s[t + 32] = 0;
  if (t < 32) {
    for (int offset = 16; offset > 0; offset /= 2) s[t] += s[t + offset];
  }
  if (t == 0) out[0] = s[0];
}

__global__ void warp_tail_fixed(const int *in, int *out) {
  __shared__ volatile int s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  s[t + 32] = 0;
  __syncwarp();
  for (int offset = 16; offset > 0; offset /= 2) {
    int other = s[t + offset];
    __syncwarp();
    s[t] += other;
    __syncwarp();
  }
  if (t == 0) out[0] = s[0];
}

// Two lanes store to the same word in one store instruction: a race under both models. (The
// barrier is needed: 64 threads read what the other warp wrote.)
__global__ void same_store(int *out) {
  __shared__ int half[32];
  half[threadIdx.x / 2] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = half[31 - threadIdx.x / 2];
}

__global__ void same_store_fixed(int *out) {
  __shared__ int half[32];
  if (threadIdx.x % 2 == 0) half[threadIdx.x / 2] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = half[31 - threadIdx.x / 2];
}

// A lane reads its neighbour's slot with no __syncwarp between the write and the read.
__global__ void syncwarp_missing(int *out) {
  __shared__ int slot[32];
  slot[threadIdx.x] = threadIdx.x * 3;
  out[threadIdx.x] = slot[(threadIdx.x + 1) % 32];
}

__global__ void syncwarp_placed(int *out) {
  __shared__ int slot[32];
  slot[threadIdx.x] = threadIdx.x * 3;
  __syncwarp();
  out[threadIdx.x] = slot[(threadIdx.x + 1) % 32];
}

// A warp sum by shuffles needs no shared memory at all: clean.
__global__ void shuffle_sum(const int *in, int *out) {
  int v = in[threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if (threadIdx.x == 0) out[0] = v;
}

// A pre-Volta histogram without atomics: each lane tags its count with its lane and writes
// it; the lanes of a warp that wrote one bin together read it back and retry until their
// own write survived. Correct in lockstep warps, a warp-synchronous race from Volta on (its
// writes of one store are part of the idiom: each lane checks them).
__device__ void add_tagged(volatile unsigned int *bins, unsigned int bin, unsigned int tag) {
  unsigned int count;
  do {
    count = bins[bin] & 0x07FFFFFFU;
    count = tag | (count + 1);
    bins[bin] = count;  // lanes of one bin write together, then check
  } while (bins[bin] != count);
}

__global__ void tagged_histogram(const unsigned char *data, unsigned int *out) {
  __shared__ unsigned int bins[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) bins[i] = 0;
  __syncthreads();
  add_tagged(bins, data[threadIdx.x], threadIdx.x << 27);
  __syncthreads();
  for (int i = threadIdx.x; i < 256; i += blockDim.x) out[i] = bins[i] & 0x07FFFFFFU;
}
