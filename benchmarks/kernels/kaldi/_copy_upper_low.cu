// project: kaldi (table 3)
// bug: _copy_upper_low: block i copies column i into row i of the same matrix to make it
// symmetric, for every column index rather than only those past the diagonal: block i reads
// element (j, i) while block j writes it.
// expect: _copy_upper_low data-race 10/10
// fixed: _copy_upper_low_fixed
__global__ void _copy_upper_low(float *a, int dim) {
  int i = blockIdx.x;
  if (i >= dim) return;
  for (int j = threadIdx.x; j < dim; j += blockDim.x) a[i * dim + j] = a[j * dim + i];
}

__global__ void _copy_upper_low_fixed(float *a, int dim) {
  int i = blockIdx.x;
  if (i >= dim) return;
  for (int j = i + 1 + threadIdx.x; j < dim; j += blockDim.x) a[i * dim + j] = a[j * dim + i];
}
