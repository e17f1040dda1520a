// Loops for the equivalence proof: loops without a barrier, each store of a loop to a byte
// in one iteration (simulee equiv proves these equal for every launch, or finds where not).

// a grid-stride loop: every element, whatever the grid's size
__global__ void scale_strided(const int *in, int *out, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = 2 * in[i];
}

// the same loop as a while, its stride and sum in another order
__global__ void scale_while(const int *in, int *out, unsigned n) {
  unsigned stride = gridDim.x * blockDim.x;
  unsigned i = threadIdx.x + blockDim.x * blockIdx.x;
  while (i < n) {
    out[i] = in[i] + in[i];
    i += stride;
  }
}

// one element a thread: the elements past the grid are left alone
__global__ void scale_once(const int *in, int *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2 * in[i];
}

// a stride of one block: the blocks overwrite each other's elements (a race)
__global__ void scale_block_strided(const int *in, int *out, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x)
    out[i] = 2 * in[i];
}

// a thread walks down its column, top to bottom or bottom to top
__global__ void column_down(const float *in, float *out, unsigned width, unsigned rows) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (unsigned r = 0; r < rows; r++) out[(size_t)r * width + x] = in[(size_t)r * width + x] * 0.5f;
}

__global__ void column_up(const float *in, float *out, unsigned width, unsigned rows) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (unsigned r = rows; r-- > 0;) out[(size_t)r * width + x] = 0.5f * in[(size_t)r * width + x];
}

// one row too many
__global__ void column_over(const float *in, float *out, unsigned width, unsigned rows) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (unsigned r = 0; r <= rows; r++) out[(size_t)r * width + x] = in[(size_t)r * width + x] * 0.5f;
}

// a running sum down the column, in place: the loop reads what it stored
__global__ void column_prefix(float *data, unsigned width, unsigned rows) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (unsigned r = 1; r < rows; r++) data[(size_t)r * width + x] += data[(size_t)(r - 1) * width + x];
}

// a total a thread carries through its loop
__global__ void column_total(const float *in, float *out, unsigned width, unsigned rows) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  float total = 0.0f;
  for (unsigned r = 0; r < rows; r++) total += in[(size_t)r * width + x];
  out[x] = total;
}

// a loop that stops at the first zero: it leaves from two places
__global__ void column_until_zero(const float *in, float *out, unsigned width, unsigned rows) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= width) return;
  for (unsigned r = 0; r < rows; r++) {
    if (in[(size_t)r * width + x] == 0.0f) break;
    out[(size_t)r * width + x] = in[(size_t)r * width + x] * 0.5f;
  }
}

// Loops holding a barrier: a block reverses tile after tile of 256 ints, through shared
// memory or straight from the input; each iteration reads only what it staged.
#define TILE_INTS 256

__global__ void reverse_direct(const int *in, int *out, unsigned tiles) {
  if (blockDim.x != TILE_INTS) return;
  for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x)
    out[(size_t)t * TILE_INTS + threadIdx.x] = in[(size_t)t * TILE_INTS + TILE_INTS - 1 - threadIdx.x];
}

__global__ void reverse_staged(const int *in, int *out, unsigned tiles) {
  __shared__ int stage[TILE_INTS];
  if (blockDim.x != TILE_INTS) return;
  for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
    stage[threadIdx.x] = in[(size_t)t * TILE_INTS + threadIdx.x];
    __syncthreads();
    out[(size_t)t * TILE_INTS + threadIdx.x] = stage[TILE_INTS - 1 - threadIdx.x];
    __syncthreads();
  }
}

// the last tile's element 0 comes from the neighbour's slot: differs
__global__ void reverse_staged_shifted(const int *in, int *out, unsigned tiles) {
  __shared__ int stage[TILE_INTS];
  if (blockDim.x != TILE_INTS) return;
  for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
    stage[threadIdx.x] = in[(size_t)t * TILE_INTS + threadIdx.x];
    __syncthreads();
    unsigned from = t + 1 == tiles && threadIdx.x == 0 ? TILE_INTS - 2 : TILE_INTS - 1 - threadIdx.x;
    out[(size_t)t * TILE_INTS + threadIdx.x] = stage[from];
    __syncthreads();
  }
}

// each iteration reads what the previous one staged (the first reads what was there): differs
__global__ void reverse_staged_late(const int *in, int *out, unsigned tiles) {
  __shared__ int stage[TILE_INTS];
  if (blockDim.x != TILE_INTS) return;
  for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
    out[(size_t)t * TILE_INTS + threadIdx.x] = stage[TILE_INTS - 1 - threadIdx.x];
    __syncthreads();
    stage[threadIdx.x] = in[(size_t)t * TILE_INTS + threadIdx.x];
    __syncthreads();
  }
}

// no barrier after the read: the next iteration's stage overwrites what a neighbour reads (a race)
__global__ void reverse_staged_racy(const int *in, int *out, unsigned tiles) {
  __shared__ int stage[TILE_INTS];
  if (blockDim.x != TILE_INTS) return;
  for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
    stage[threadIdx.x] = in[(size_t)t * TILE_INTS + threadIdx.x];
    __syncthreads();
    out[(size_t)t * TILE_INTS + threadIdx.x] = stage[TILE_INTS - 1 - threadIdx.x];
  }
}

// a block reverses tile after tile through shared memory; the barrier opening each tile
// follows the one closing the last (redundant, its removal proved with the grid fixed)
__global__ void reverse_tiles(const int *in, int *out, unsigned tiles) {
  __shared__ int stage[TILE_INTS];
  if (blockDim.x != TILE_INTS) return;
  for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
    __syncthreads();
    stage[threadIdx.x] = in[(size_t)t * TILE_INTS + threadIdx.x];
    __syncthreads();
    out[(size_t)t * TILE_INTS + threadIdx.x] = stage[TILE_INTS - 1 - threadIdx.x];
    __syncthreads();
  }
}
