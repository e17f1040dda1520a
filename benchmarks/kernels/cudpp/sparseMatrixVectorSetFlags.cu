// project: cudpp (table 3)
// bug: sparseMatrixVectorSetFlags: each thread marks the first element of its row and then
// clears the row's other flags; the barrier between the two orders only its own row.
// expect: sparseMatrixVectorSetFlags redundant-barrier 10
// fixed: sparseMatrixVectorSetFlags_fixed
__global__ void sparseMatrixVectorSetFlags(unsigned *flags, int rows, int row_length) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  bool inside = row < rows && row_length > 0 && row_length <= 8;
  if (inside) flags[row * row_length] = 1;
  __syncthreads();
  if (inside)
    for (int k = 1; k < row_length; ++k) flags[row * row_length + k] = 0;
}

__global__ void sparseMatrixVectorSetFlags_fixed(unsigned *flags, int rows, int row_length) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows || row_length <= 0 || row_length > 8) return;
  flags[row * row_length] = 1;
  for (int k = 1; k < row_length; ++k) flags[row * row_length + k] = 0;
}
