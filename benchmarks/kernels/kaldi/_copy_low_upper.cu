// project: kaldi (table 3)
// bug: _copy_low_upper: mirrors the lower triangle into the upper one, but the guard checks
// only the matrix bounds, not i > j: thread (i, j) and thread (j, i) each read the element
// the other writes.
// expect: _copy_low_upper data-race 10/10
// fixed: _copy_low_upper_fixed
__global__ void _copy_low_upper(float *a, int dim, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= dim || j >= dim || stride < dim) return;
  a[j * stride + i] = a[i * stride + j];
}

__global__ void _copy_low_upper_fixed(float *a, int dim, int stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= dim || j >= i || stride < dim) return;
  a[j * stride + i] = a[i * stride + j];
}
