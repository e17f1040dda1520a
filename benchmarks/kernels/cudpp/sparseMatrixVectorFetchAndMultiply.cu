// project: cudpp (table 3)
// bug: sparseMatrixVectorFetchAndMultiply: each thread stages its matrix entry in its own
// shared slot and multiplies it after a barrier that orders nothing shared.
// expect: sparseMatrixVectorFetchAndMultiply redundant-barrier 13
// fixed: sparseMatrixVectorFetchAndMultiply_fixed
__global__ void sparseMatrixVectorFetchAndMultiply(float *prod, const float *a, const unsigned *index,
                                                   const float *x, int nonzeros) {
  __shared__ float staged[256];
  int tid = threadIdx.x, i = blockIdx.x * blockDim.x + tid;
  if (blockDim.x > 256) return;
  int k = i < nonzeros ? i : nonzeros - 1;
  staged[tid] = a[k];
  __syncthreads();
  if (i < nonzeros) prod[i] = staged[tid] * x[index[i]];
}

__global__ void sparseMatrixVectorFetchAndMultiply_fixed(float *prod, const float *a, const unsigned *index,
                                                         const float *x, int nonzeros) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < nonzeros) prod[i] = a[i] * x[index[i]];
}
