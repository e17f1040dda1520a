// Two kernels that trust the grid to cover n and no more. The host sizes the grid of the
// first, a block a row of n, from one value it reads and passes n from another: whether
// they agree is not in the code Simulee sees, so its race is a warning naming both. The
// second's grid is computed from n itself: rounded up to whole blocks, it has threads
// past n unless n is a multiple of the block, which hosts' sizes most often are: a
// warning naming n and a multiple it does not race with.
#include <cuda_runtime.h>

__global__ void wrap_unrelated(int *out, int n) {
  out[blockIdx.x % n * blockDim.x + threadIdx.x] = blockIdx.x;  // blocks past n land on the first rows
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

// Block (b, k) copies plane k of batch item b into the k-th rows of a table of buffers,
// whose index forgets b: the blocks of a batch race. The address depends on dim and the
// grid's y, both from the host's layer; the area only reaches the value stored through
// the table, not the address.
__global__ void batch_overwrites(const float *in, float **rows, int dim, int area) {
  const float *plane = in + blockIdx.y * area + blockIdx.x * dim;
  for (int y = threadIdx.x; y < dim; y += blockDim.x)
    rows[blockIdx.y * dim + y][0] = plane[y];  // every item of the batch writes the same rows
}

struct Layer {
  int batch, planes, dim;
};

int area_of(const Layer *layer);

void launch_batch(const Layer *layer, const float *in, float **rows) {
  batch_overwrites<<<dim3(layer->batch, layer->planes), 64>>>(in, rows, layer->dim, area_of(layer));
}
