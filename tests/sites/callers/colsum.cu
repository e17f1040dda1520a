// Column sums of a rows x cols matrix: one thread per column, so it is right only on a
// one-dimensional grid of one-dimensional blocks (a second row of threads or of blocks adds
// into the same sums). The launcher leaves the grid and block to its callers (main.cpp).
__global__ void colsum(float *sums, const float *m, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float total = 0;
  for (int i = threadIdx.y + blockIdx.y * blockDim.y; i < rows; i += blockDim.y * gridDim.y)
    total += m[i * cols + j];
  sums[j] += total;
}

void launch_colsum(dim3 grid, dim3 block, float *sums, const float *m, int rows, int cols) {
  colsum<<<grid, block>>>(sums, m, rows, cols);
}
