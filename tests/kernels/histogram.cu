// Per-block histogram in shared memory with shared-memory atomics, merged globally.
// kernel: histogram256(const unsigned char *data, unsigned int *bins, int n)
//   reads: tid.x ctaid.x ntid.x nctaid.x
//   shared: 1024

__global__ void histogram256(const unsigned char *data, unsigned int *bins, int n) {
  __shared__ unsigned int local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}
