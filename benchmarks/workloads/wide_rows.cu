// A row sum per thread over a buffer of rows `cols` wide, as a loss or a softmax over a
// batch reads it: a grid of 4,096 blocks of 512 threads with 128 columns reads 1 GiB, so a
// check runs a sample of the blocks, spread over the whole buffer.
// benchmarks/sampled_launch.py times the check.
__global__ void row_sums(float *sums, const float *rows, int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = 0.f;
  for (int c = 0; c < cols; c++) sum += rows[row * cols + c];
  sums[row] = sum;
}
