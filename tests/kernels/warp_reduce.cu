// Warp-level sum by shuffle-down, then one atomic per warp.
// kernel: warp_sum(const float *in, float *total, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0

__device__ float warp_reduce(float value) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffff, value, offset);
  return value;
}

__global__ void warp_sum(const float *in, float *total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = warp_reduce(i < n ? in[i] : 0.0f);
  if ((threadIdx.x & (warpSize - 1)) == 0) atomicAdd(total, sum);
}
