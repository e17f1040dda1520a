// A padding change: scale_padded rounds n up to a multiple of 32 and so writes past n
// when n % 32 != 0 (never on the default launch, whose n is the thread count).
__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

__global__ void scale_padded(const float *in, float *out, int n) {
  int padded = (n + 31) / 32 * 32;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < padded) out[i] = 2.0f * in[i];
}

// scale with its parameters in another order: the same kernel under --map
__global__ void scale_reordered(int n, float *out, const float *in) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

// takes one parameter more: not a version of scale
__global__ void scale_offset(const float *in, float *out, int n, int offset) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i + offset];
}
