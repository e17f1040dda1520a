// Barrier divergence three ways, and a fixed twin that is clean.
// kernel: early_return(float *data, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 1024
// kernel: loop_barrier(int *data)
//   reads: tid.x
//   shared: 0
// kernel: two_barriers(int *data)
//   reads: tid.x
//   shared: 0
// kernel: fixed_early_return(float *data, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 1024

__global__ void early_return(float *data, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tile[threadIdx.x] = data[i];
  __syncthreads();
  data[i] = tile[(threadIdx.x + 1) % blockDim.x];
}

__global__ void loop_barrier(int *data) {
  for (int k = 0; k < (int)threadIdx.x % 3; ++k) {
    data[threadIdx.x] += k;
    __syncthreads();
  }
}

__global__ void two_barriers(int *data) {
  if (threadIdx.x % 2) {
    data[threadIdx.x] = 1;
    __syncthreads();
  } else {
    data[threadIdx.x] = 2;
    __syncthreads();
  }
}

__global__ void fixed_early_return(float *data, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float value = i < n ? data[i] : 0.0f;
  tile[threadIdx.x] = value;
  __syncthreads();
  if (i < n) data[i] = tile[(threadIdx.x + 1) % blockDim.x];
}
