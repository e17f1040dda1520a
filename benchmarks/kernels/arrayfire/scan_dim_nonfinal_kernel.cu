// project: arrayfire (table 2)
// bug: scan_dim_nonfinal_kernel: a scan down the columns of a tile, carried from tile to tile;
// each thread reads the tile's last row into its carry, and the next tile's load overwrites
// that row with no barrier in between.
// expect: scan_dim_nonfinal_kernel data-race 18/24
// fixed: scan_dim_nonfinal_kernel_fixed
#define TX 32
#define TY 8

__global__ void scan_dim_nonfinal_kernel(const float *in, float *out, int width, int height) {
  __shared__ float s[TY][TX];
  int tx = threadIdx.x, ty = threadIdx.y;
  if (blockDim.x > TX || blockDim.y > TY) return;
  int col = blockIdx.x * blockDim.x + tx;
  float carry = 0.0f;
  for (int row0 = 0; row0 < height; row0 += blockDim.y) {
    int row = row0 + ty;
    s[ty][tx] = (row < height && col < width) ? in[row * width + col] : 0.0f;
    __syncthreads();
    if (ty == 0)
      for (int k = 1; k < blockDim.y; ++k) s[k][tx] += s[k - 1][tx];
    __syncthreads();
    if (row < height && col < width) out[row * width + col] = s[ty][tx] + carry;
    carry += s[blockDim.y - 1][tx];
    // missing __syncthreads(): the next tile's load races with the read of the last row
  }
}

__global__ void scan_dim_nonfinal_kernel_fixed(const float *in, float *out, int width, int height) {
  __shared__ float s[TY][TX];
  int tx = threadIdx.x, ty = threadIdx.y;
  if (blockDim.x > TX || blockDim.y > TY) return;
  int col = blockIdx.x * blockDim.x + tx;
  float carry = 0.0f;
  for (int row0 = 0; row0 < height; row0 += blockDim.y) {
    int row = row0 + ty;
    s[ty][tx] = (row < height && col < width) ? in[row * width + col] : 0.0f;
    __syncthreads();
    if (ty == 0)
      for (int k = 1; k < blockDim.y; ++k) s[k][tx] += s[k - 1][tx];
    __syncthreads();
    if (row < height && col < width) out[row * width + col] = s[ty][tx] + carry;
    carry += s[blockDim.y - 1][tx];
    __syncthreads();
  }
}
