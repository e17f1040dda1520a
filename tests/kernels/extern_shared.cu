// Dynamic shared memory sized at launch, plus a static array in the same kernel.
// kernel: dynamic_reverse(int *data, int n)
//   reads: tid.x
//   shared: 64 + dynamic
// kernel: only_dynamic(float *data)
//   reads: tid.x ntid.x
//   shared: dynamic

__global__ void dynamic_reverse(int *data, int n) {
  extern __shared__ int buffer[];
  __shared__ int flags[16];
  int t = threadIdx.x;
  buffer[t] = data[t];
  if (t < 16) flags[t] = 1;
  __syncthreads();
  data[t] = buffer[n - t - 1] * flags[t % 16];
}

__global__ void only_dynamic(float *data) {
  extern __shared__ float scratch[];
  scratch[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = scratch[blockDim.x - 1 - threadIdx.x];
}
