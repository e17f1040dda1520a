// project: arrayfire (table 2)
// bug: computeDescriptor: threads walk the sample window in strides and meet at a barrier
// inside the loop, but how many samples a thread walks depends on its index, so threads
// with fewer iterations leave the loop while the others wait at the barrier.
// expect: computeDescriptor barrier-divergence 17
// fixed: computeDescriptor_fixed
#define BINS 8

__global__ void computeDescriptor(const float *image, float *desc, int radius) {
  __shared__ float hist[BINS];
  int tid = threadIdx.x;
  if (tid < BINS) hist[tid] = 0.0f;
  __syncthreads();
  for (int y = tid; y < radius * radius; y += blockDim.x) {
    float g = image[blockIdx.x * radius * radius + y];
    atomicAdd(&hist[y % BINS], g);
    __syncthreads();
  }
  if (tid < BINS) desc[blockIdx.x * BINS + tid] = hist[tid];
}

__global__ void computeDescriptor_fixed(const float *image, float *desc, int radius) {
  __shared__ float hist[BINS];
  int tid = threadIdx.x;
  if (tid < BINS) hist[tid] = 0.0f;
  __syncthreads();
  for (int y0 = 0; y0 < radius * radius; y0 += blockDim.x) {
    int y = y0 + tid;
    if (y < radius * radius) atomicAdd(&hist[y % BINS], image[blockIdx.x * radius * radius + y]);
    __syncthreads();
  }
  if (tid < BINS) desc[blockIdx.x * BINS + tid] = hist[tid];
}
