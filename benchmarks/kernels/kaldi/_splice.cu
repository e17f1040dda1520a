// project: kaldi (table 3)
// bug: _splice: the output row is computed from threadIdx.x instead of threadIdx.y, so the
// threads of a block column write the same spliced element.
// expect: _splice data-race 11/11
// fixed: _splice_fixed
__global__ void _splice(float *out, const float *in, const int *offsets, int rows, int in_cols, int out_cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.x;
  if (r >= rows || c >= out_cols || in_cols <= 0) return;
  int src = r + offsets[c / in_cols];
  src = src < 0 ? 0 : (src >= rows ? rows - 1 : src);
  out[r * out_cols + c] = in[src * in_cols + c % in_cols];
}

__global__ void _splice_fixed(float *out, const float *in, const int *offsets, int rows, int in_cols, int out_cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= rows || c >= out_cols || in_cols <= 0) return;
  int src = r + offsets[c / in_cols];
  src = src < 0 ? 0 : (src >= rows ? rows - 1 : src);
  out[r * out_cols + c] = in[src * in_cols + c % in_cols];
}
