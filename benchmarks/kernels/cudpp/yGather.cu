// project: cudpp (table 3)
// bug: yGather: each thread reads the segmented-scan total at its row's end and writes its
// own element of y; the barrier between the read and the write orders nothing shared.
// expect: yGather redundant-barrier 10
// fixed: yGather_fixed
__global__ void yGather(float *y, const float *prod, int rows, int row_length) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  bool inside = row < rows && row_length > 0;
  float total = inside ? prod[(row + 1) * row_length - 1] : 0.0f;
  __syncthreads();
  if (inside) y[row] += total;
}

__global__ void yGather_fixed(float *y, const float *prod, int rows, int row_length) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < rows && row_length > 0) y[row] += prod[(row + 1) * row_length - 1];
}
