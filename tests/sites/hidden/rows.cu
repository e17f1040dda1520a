// Two kernels whose launchers take grid and block from callers (trainer.cpp) that need a
// header this folder lacks (hidden_include/trainer/model.h), so that without -I Simulee
// cannot read the launches they make.
// column_totals sums each column over the rows split among rows of blocks: right only on
// a grid of one row of blocks, which is what the callers launch (any block will do).
__global__ void column_totals(float *totals, const float *m, int rows, int cols) {
  int j = (blockIdx.x * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float total = 0;
  for (int i = blockIdx.y; i < rows; i += gridDim.y)
    total += m[i * cols + j];
  totals[j] = total;  // the blocks of a column race when the grid has rows
}

// first_slots has every block write the same slots: a race on any grid of two blocks.
__global__ void first_slots(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[threadIdx.x] = in[i];  // every block writes the same slots
}

void launch_column_totals(dim3 grid, dim3 block, float *totals, const float *m, int rows, int cols) {
  column_totals<<<grid, block>>>(totals, m, rows, cols);
}

void launch_first_slots(dim3 grid, dim3 block, float *out, const float *in, int n) {
  first_slots<<<grid, block>>>(out, in, n);
}
