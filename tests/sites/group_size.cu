// A launcher computes the divisor it passes from two sizes (kaldi's MulRowsGroupMat:
// group_size = this->NumCols() / src.NumCols()): the host code never passes 0 for what the
// kernel divides by, so searched sizes that would make it 0 are no launch. A divisor the
// host passes as a literal 0 stays a bug.
#include <cuda_runtime.h>

__global__ void group_of(int *out, const int *in, int cols, int group_size) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < cols) out[col] = in[col / group_size];
}

void groups(int *out, const int *in, int cols, int src_cols) {
  int group_size = cols / src_cols;
  group_of<<<(cols + 63) / 64, 64>>>(out, in, cols, group_size);
}

__global__ void per_group(int *out, int cols, int group_size) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < cols) out[col] = col % group_size;
}

void no_groups(int *out, int cols) { per_group<<<(cols + 63) / 64, 64>>>(out, cols, 0); }
