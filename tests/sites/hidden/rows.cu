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

// column_sums adds each column's partial sums (its rows split among the block's rows and the
// grid's rows of blocks) into totals from the block's first 32 threads: right for the
// callers' blocks of 32 x 8 on one row of blocks. Rows of blocks add to one column at once
// (the race the unread callers' grid would make); so would the lanes of a block narrower
// than a warp, a race of another scope at the same place, which is no reason to take the
// grid's rows as the host's.
__global__ void column_sums(float *totals, const float *m, int rows, int cols) {
  __shared__ float sums[1024];
  int j = blockIdx.x * blockDim.x + threadIdx.x, tid = threadIdx.y * blockDim.x + threadIdx.x;
  float partial = 0;
  for (int i = blockIdx.y * blockDim.y + threadIdx.y; j < cols && i < rows; i += gridDim.y * blockDim.y)
    partial += m[i * cols + j];
  sums[tid] = partial;
  __syncthreads();
  if (tid < 32 && j < cols) {
    float total = 0;
    for (int y = 0; y < blockDim.y; y++) total += sums[y * blockDim.x + threadIdx.x];
    totals[j] += total;  // rows of blocks add to one column at once
  }
}

void launch_column_totals(dim3 grid, dim3 block, float *totals, const float *m, int rows, int cols) {
  column_totals<<<grid, block>>>(totals, m, rows, cols);
}

void launch_column_sums(dim3 grid, dim3 block, float *totals, const float *m, int rows, int cols) {
  column_sums<<<grid, block>>>(totals, m, rows, cols);
}

void launch_first_slots(dim3 grid, dim3 block, float *out, const float *in, int n) {
  first_slots<<<grid, block>>>(out, in, n);
}
