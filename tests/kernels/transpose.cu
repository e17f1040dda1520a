// Tiled matrix transpose through a padded shared tile (no bank conflicts).
// kernel: transpose(float *out, const float *in, int width, int height)
//   reads: tid.x tid.y ctaid.x ctaid.y
//   shared: 4224

#define TILE 32
#define ROWS 8

__global__ void transpose(float *out, const float *in, int width, int height) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
