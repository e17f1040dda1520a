// Matrix transpose: the naive kernel, the shared-memory tiled one (equivalent), and a
// tiled one whose tile is off by one at its edge (differs where a tile ends).
#define TILE 16

__global__ void transpose_naive(const float *in, float *out, int width, int height) {
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < width && y < height) out[x * height + y] = in[y * width + x];
}

__global__ void transpose_tiled(const float *in, float *out, int width, int height) {
  __shared__ float tile[TILE][TILE + 1];  // padded against bank conflicts
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < height && y < width) out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void transpose_tiled_edge(const float *in, float *out, int width, int height) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < height && y < width && threadIdx.x < TILE - 1) out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}
