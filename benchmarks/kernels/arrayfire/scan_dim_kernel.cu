// project: arrayfire (table 2)
// bug: scan_dim_kernel: an inclusive scan down the columns of a tile in shared memory; each
// pass reads the slot `offset` rows up and adds it to its own with no barrier between the
// read phase and the write phase.
// expect: scan_dim_kernel data-race 20/19
// fixed: scan_dim_kernel_fixed
#define TX 32
#define TY 8

__global__ void scan_dim_kernel(const int *in, int *out, int width, int height) {
  __shared__ int s[TY][TX];
  int tx = threadIdx.x, ty = threadIdx.y;
  if (blockDim.x > TX || blockDim.y > TY) return;
  int col = blockIdx.x * blockDim.x + tx, row = blockIdx.y * blockDim.y + ty;
  bool inside = col < width && row < height;
  s[ty][tx] = inside ? in[row * width + col] : 0;
  __syncthreads();
  for (int offset = 1; offset < blockDim.y; offset *= 2) {
    int above = ty >= offset ? s[ty - offset][tx] : 0;
    s[ty][tx] += above;
    __syncthreads();
  }
  if (inside) out[row * width + col] = s[ty][tx];
}

__global__ void scan_dim_kernel_fixed(const int *in, int *out, int width, int height) {
  __shared__ int s[TY][TX];
  int tx = threadIdx.x, ty = threadIdx.y;
  if (blockDim.x > TX || blockDim.y > TY) return;
  int col = blockIdx.x * blockDim.x + tx, row = blockIdx.y * blockDim.y + ty;
  bool inside = col < width && row < height;
  s[ty][tx] = inside ? in[row * width + col] : 0;
  __syncthreads();
  for (int offset = 1; offset < blockDim.y; offset *= 2) {
    int above = ty >= offset ? s[ty - offset][tx] : 0;
    __syncthreads();
    s[ty][tx] += above;
    __syncthreads();
  }
  if (inside) out[row * width + col] = s[ty][tx];
}
