// Shared-memory tree reduction, one partial sum per block.
// kernel: reduce_sum(const float *in, float *out, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 1024

#define BLOCK 256

__global__ void reduce_sum(const float *in, float *out, int n) {
  __shared__ float partial[BLOCK];
  unsigned int t = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + t;
  partial[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}
