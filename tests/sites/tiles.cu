// A tiled copy without bounds checks, as hand-tuned GEMMs are written: each 32 x 32 block
// copies a tile of a matrix whose rows are n wide. For n a multiple of the tile, the tiles
// are disjoint; otherwise a tile's last columns are the next row's first, and two threads
// write one element: a race that only row widths off the tile make.
#define TILE 32

__global__ void tile_copy(float *out, const float *in, int n) {
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  out[row * n + col] = in[row * n + col] + row;  // the tile's element
}

void copy(float *out, const float *in, int n) {
  dim3 grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE), block(TILE, TILE);
  tile_copy<<<grid, block>>>(out, in, n);
}
