// A benchmark's loop over the block sizes of a constant table (llm.c's dev/cuda programs):
// each size in it is one the host launches with, and no other is. `block_max` keeps a
// maximum per warp in shared memory and lets warp 0 read them with no barrier between: a
// race whenever a block has two warps, which 64 and 128 give (an error, the host's values).
// `block_max_synced` waits at a barrier first and is clean for every size of the table.
#include <cuda_runtime.h>

__device__ float warp_max(float v) {
  for (int k = 16; k > 0; k /= 2) v = fmaxf(v, __shfl_down_sync(0xffffffff, v, k));
  return v;
}

__global__ void block_max(const float *in, float *out) {
  __shared__ float partial[32];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float v = warp_max(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (lane == 0) partial[warp] = v;  // warp 0 reads it with no barrier between
  if (warp == 0) {
    v = warp_max(lane < blockDim.x / 32 ? partial[lane] : -1e30f);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

__global__ void block_max_synced(const float *in, float *out) {
  __shared__ float partial[32];
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float v = warp_max(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = warp_max(lane < blockDim.x / 32 ? partial[lane] : -1e30f);
    if (lane == 0) out[blockIdx.x] = v;
  }
}

int main() {
  const int n = 1 << 12;
  int block_sizes[] = {32, 64, 128};
  float *in, *out;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n / 32 * sizeof(float));
  for (int j = 0; j < sizeof(block_sizes) / sizeof(int); j++) {
    int block_size = block_sizes[j];
    block_max<<<n / block_size, block_size>>>(in, out);
    block_max_synced<<<n / block_size, block_size>>>(in, out);
    cudaDeviceSynchronize();
  }
  return 0;
}
