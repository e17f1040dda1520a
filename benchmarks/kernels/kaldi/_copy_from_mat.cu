// project: kaldi (table 3)
// bug: _copy_from_mat: a grid-stride copy that strides by the block size instead of the
// grid's thread count, so block b's second element is block b+1's first: blocks write the
// same output elements.
// expect: _copy_from_mat data-race 8/8
// fixed: _copy_from_mat_fixed
__global__ void _copy_from_mat(float *out, const double *in, int n) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += blockDim.x) out[k] = (float)in[k];
}

__global__ void _copy_from_mat_fixed(float *out, const double *in, int n) {
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += blockDim.x * gridDim.x) out[k] = (float)in[k];
}
