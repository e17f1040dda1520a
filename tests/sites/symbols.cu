// Device variables the host code writes: the kernels loop over the points a counter
// counts, up to a limit, both set with cudaMemcpyToSymbol. Left zero, the loop never runs; with what the host might have written, totals races on `sum` (no barrier
// between the reset and the adds of the previous point), totals_fixed does not.
__constant__ int max_points;
__device__ unsigned int counters[4];

__global__ void totals(const float *points, float *out) {
  __shared__ float sum;
  int last = min(counters[0], max_points);
  for (int p = blockIdx.x; p < last; p += gridDim.x) {
    if (threadIdx.x == 0) sum = 0;
    atomicAdd(&sum, points[p * blockDim.x + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) out[p] = sum;
  }
}

__global__ void totals_fixed(const float *points, float *out) {
  __shared__ float sum;
  int last = min(counters[0], max_points);
  for (int p = blockIdx.x; p < last; p += gridDim.x) {
    if (threadIdx.x == 0) sum = 0;
    __syncthreads();
    atomicAdd(&sum, points[p * blockDim.x + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) out[p] = sum;
  }
}

void run(const float *points, float *out, int n) {
  unsigned int range[4] = {(unsigned)n, 0, 0, 0};
  cudaMemcpyToSymbol(max_points, &n, sizeof(int));
  cudaMemcpyToSymbol(counters, range, sizeof(range));
  totals<<<8, 64>>>(points, out);
  totals_fixed<<<8, 64>>>(points, out);
}

// A table the host fills with the offsets it states (the threads of each offset write their
// own run) and one it fills from its caller's data (made up: they may meet). Every thread of
// `same_slot` writes one slot of a made-up table: they meet whatever the table holds.
__constant__ int stated_offsets[4];
__constant__ int caller_offsets[4];

__global__ void scatter_stated(int *out) {
  out[stated_offsets[threadIdx.x % 4] + threadIdx.x / 4] = threadIdx.x;
}

__global__ void scatter_made_up(int *out) {
  out[caller_offsets[threadIdx.x % 4] + threadIdx.x / 4] = threadIdx.x;  // meets when offsets are close
}

__global__ void same_slot(int *out) {
  out[caller_offsets[0]] = threadIdx.x;  // every thread, one slot
}

void scatter_all(const int *offsets_of_caller, int *out) {
  int offsets[4] = {0, 16, 32, 48};
  cudaMemcpyToSymbol(stated_offsets, offsets, sizeof(offsets));
  cudaMemcpyToSymbol(caller_offsets, offsets_of_caller, 4 * sizeof(int));
  scatter_stated<<<1, 64>>>(out);
  scatter_made_up<<<1, 64>>>(out);
  same_slot<<<1, 64>>>(out);
}
