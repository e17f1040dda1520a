// Written as GPUVerify's CUDA samples are: a type the C library also names, typedef'd
// differently, and a prototype of a function CUDA's headers define for host and device.
typedef unsigned int clock_t;
__device__ float max(float, float);

__global__ void latest(const clock_t *stamps, float *out) {
  __shared__ clock_t partial[64];
  partial[threadIdx.x] = stamps[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0) {
    float m = 0;
    for (int i = 0; i < 64; i++) m = max(m, (float) partial[i]);
    out[0] = m;
  }
}

__global__ void latest_unsynced(const clock_t *stamps, float *out) {
  __shared__ clock_t partial[64];
  partial[threadIdx.x] = stamps[threadIdx.x];
  if (threadIdx.x == 0) {
    float m = 0;
    for (int i = 0; i < 64; i++) m = max(m, (float) partial[i]);  // before the others wrote
    out[0] = m;
  }
}
