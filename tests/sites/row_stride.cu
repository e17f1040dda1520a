// Kernels no host code launches whose addresses step by a constant along something other
// than the thread's x index: each is written for at most that many threads along x. A race
// only wider blocks make is a warning naming the stride; one within it is an error.
#define WIDTH 256

__global__ void scale_rows(float *a) {
  a[blockIdx.x * WIDTH + threadIdx.x] *= 2.0f;  // by row
}

__global__ void shift_rows(float *a) {
  int i = blockIdx.x * WIDTH + threadIdx.x;
  a[i + 1] = a[i];  // a neighbour's slot, within any row
}

__global__ void chunks(float *a) {
  for (int k = 0; k < 4; k++)
    a[blockIdx.x * 4 * 128 + k * 128 + threadIdx.x] += 1.0f;  // by chunk
}
