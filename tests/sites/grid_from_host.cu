// Two kernels that trust every thread to have an index below n. The host sizes the grid of
// the first from one value it reads and passes n from another: whether they agree is not
// in the code Simulee sees, so its race is a warning naming both. The second's grid is
// computed from n itself: rounded up to whole blocks, it has threads past n, an error.
#include <cuda_runtime.h>

__global__ void wrap_unrelated(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i % n] = i;  // threads past n land on the first ones
}

__global__ void wrap_rounded(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i % n] = i;  // the last block's threads past n land on the first ones
}

struct Sizes {
  int blocks, n;
};

void launch_unrelated(const Sizes *sizes, int *out) { wrap_unrelated<<<sizes->blocks, 64>>>(out, sizes->n); }

void launch_rounded(int *out, int n) { wrap_rounded<<<(n + 63) / 64, 64>>>(out, n); }
