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
