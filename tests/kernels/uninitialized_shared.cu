// Reads of shared memory no thread of the block wrote before, and their fixed twins.
// kernel: histogram_unzeroed(const int *values, int *bins, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 64
// kernel: histogram_zeroed(const int *values, int *bins, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 64
// kernel: neighbour_past_loaded(const float *in, float *out, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 260
// kernel: neighbour_within_loaded(const float *in, float *out, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 260
// kernel: own_write_then_read(float *out)
//   reads: tid.x
//   shared: 256

__global__ void histogram_unzeroed(const int *values, int *bins, int n) {
  __shared__ int local[16];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&local[values[i] & 15], 1);  // bins never zeroed
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

__global__ void histogram_zeroed(const int *values, int *bins, int n) {
  __shared__ int local[16];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 16) local[threadIdx.x] = 0;
  __syncthreads();
  if (i < n) atomicAdd(&local[values[i] & 15], 1);
  __syncthreads();
  if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

__global__ void neighbour_past_loaded(const float *in, float *out, int n) {
  __shared__ float tile[65];
  if (blockDim.x > 64) return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) tile[threadIdx.x] = in[i];
  __syncthreads();
  if (i < n) out[i] = tile[threadIdx.x] + tile[threadIdx.x + 1];  // the last thread's neighbour: never loaded
}

__global__ void neighbour_within_loaded(const float *in, float *out, int n) {
  __shared__ float tile[65];
  if (blockDim.x > 64) return;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;  // past the end: zero
  if (threadIdx.x == 0) tile[blockDim.x] = i + blockDim.x < n ? in[i + blockDim.x] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = tile[threadIdx.x] + tile[threadIdx.x + 1];
}

__global__ void own_write_then_read(float *out) {
  __shared__ float scratch[64];
  scratch[threadIdx.x] = threadIdx.x;
  out[threadIdx.x] = scratch[threadIdx.x] * 2.0f;  // its own write, no barrier needed
}
