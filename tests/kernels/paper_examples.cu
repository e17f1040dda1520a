// The three bug patterns of the Simulee paper, each with its fixed twin.
// kernel: block_min(const int *in, int *out)
//   reads: tid.x ctaid.x ntid.x
//   shared: 1024
// kernel: block_min_fixed(const int *in, int *out)
//   reads: tid.x ctaid.x ntid.x
//   shared: 1024
// kernel: private_slots(const float *in, float *out)
//   reads: tid.x ctaid.x ntid.x
//   shared: 1024
// kernel: private_slots_fixed(const float *in, float *out)
//   reads: tid.x ctaid.x ntid.x
//   shared: 1024
// kernel: loop_trip_barrier(int *data, const int *trips)
//   reads: tid.x ntid.x
//   shared: 1024
// kernel: loop_trip_barrier_fixed(int *data, const int *trips, int most)
//   reads: tid.x ntid.x
//   shared: 1024

// The if/else fills `best`, then the reduction folds the upper half of it onto the lower
// half with no barrier between: line 33 writes best[t - s], which thread t - s also writes at
// line 29 or 31 (write-write), and reads best[t], which thread t may not have written yet.
__global__ void block_min(const int *in, int *out) {
  __shared__ int best[256];
  int t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t];
  if (v < 0)
    best[t] = -v;
  else
    best[t] = v;
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t >= s && t < 2 * s) best[t - s] = min(best[t - s], best[t]);
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = best[0];
}

__global__ void block_min_fixed(const int *in, int *out) {
  __shared__ int best[256];
  int t = threadIdx.x;
  int v = in[blockIdx.x * blockDim.x + t];
  if (v < 0)
    best[t] = -v;
  else
    best[t] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t >= s && t < 2 * s) best[t - s] = min(best[t - s], best[t]);
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = best[0];
}

// Each thread only ever touches its own slot: the barrier orders nothing (redundant).
__global__ void private_slots(const float *in, float *out) {
  __shared__ float slot[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  slot[threadIdx.x] = in[i] * 2.0f;
  __syncthreads();  // redundant
  out[i] = slot[threadIdx.x] + 1.0f;
}

__global__ void private_slots_fixed(const float *in, float *out) {
  __shared__ float slot[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  slot[threadIdx.x] = in[i] * 2.0f;
  out[i] = slot[threadIdx.x] + 1.0f;
}

// Threads loop a different number of times, each iteration with barriers (divergence).
__global__ void loop_trip_barrier(int *data, const int *trips) {
  __shared__ int cell[256];
  int t = threadIdx.x;
  cell[t] = t;
  __syncthreads();
  for (int k = 0; k < trips[t]; ++k) {
    int next = cell[(t + 1) % blockDim.x];
    __syncthreads();
    cell[t] = next + k;
    __syncthreads();
  }
  data[t] = cell[t];
}

// Everyone loops as often as the most: every barrier is reached by all threads every time.
__global__ void loop_trip_barrier_fixed(int *data, const int *trips, int most) {
  __shared__ int cell[256];
  int t = threadIdx.x;
  cell[t] = t;
  __syncthreads();
  for (int k = 0; k < most; ++k) {
    int next = cell[(t + 1) % blockDim.x];
    __syncthreads();
    if (k < trips[t]) cell[t] = next + k;
    __syncthreads();
  }
  data[t] = cell[t];
}
