// Kernels no host code launches. scale_row indexes memory by its x index only and reads threadIdx.y
// only to skip work: it is written for blocks of one row, and the race two rows of a
// searched 2-D block make is a warning (an error for a 2-D block the user states);
// sum_all has every thread meet in one element, however many rows there are: an error.
__global__ void scale_row(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && threadIdx.y < 4) out[i] = in[i] + threadIdx.y;  // indexed by x alone
}

__global__ void sum_all(float *out, const float *in) {
  out[0] += in[threadIdx.x + threadIdx.y];  // every thread at one place
}
