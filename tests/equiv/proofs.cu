// Pairs for the equivalence proof (simulee equiv proves loop-free, race-free versions equal
// for every launch, or finds the launch where they differ).

// the last of two stores wins: stage_twice leaves what stage_once does
__global__ void stage_once(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1;
}

__global__ void stage_twice(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = 7;
    out[i] = in[i] + 1;
  }
}

// the stores in the other order: the first value is left
__global__ void stage_swapped(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = in[i] + 1;
    out[i] = 7;
  }
}

// through shared memory in reverse order, then back: each block's slice comes out unchanged
__global__ void stage_reversed(const int *in, int *out, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockDim.x != 256) return;
  s[255 - threadIdx.x] = in[i] + 1;
  __syncthreads();
  if (i < n) out[i] = s[255 - threadIdx.x];
}

// reads its neighbour's slot: a different value at every element but the block's last
__global__ void stage_neighbour(const int *in, int *out, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockDim.x != 256) return;
  s[threadIdx.x] = in[i] + 1;
  __syncthreads();
  if (i < n) out[i] = s[(threadIdx.x + 1) % 256];
}

// a sum's order changed: equal as reals, not as floats
__global__ void sum_left(const float *a, const float *b, const float *c, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (a[i] + b[i]) + c[i];
}

__global__ void sum_right(const float *a, const float *b, const float *c, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + (b[i] + c[i]);
}

// operands swapped: IEEE addition and multiplication commute
__global__ void sum_swapped(const float *a, const float *b, const float *c, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (c[i] + b[i]) + a[i];
}

// a store only where the input is positive: the other keeps the old contents elsewhere too
__global__ void clamp_select(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0 ? in[i] : 0;
}

__global__ void clamp_branch(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] > 0) out[i] = in[i];
}

// racy: neighbours read and write the same slot with no barrier between (never proved)
__global__ void stage_racy(const int *in, int *out, int n) {
  __shared__ int s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockDim.x != 256) return;
  s[threadIdx.x] = in[i] + 1;
  if (i < n) out[i] = s[(threadIdx.x + 1) % 256] * 0 + s[threadIdx.x];
}

// reads through a null pointer: both versions fault, nothing is proved of them
__global__ void read_null(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int *nowhere = 0;
  if (i < n) out[i] = nowhere[i];
}
