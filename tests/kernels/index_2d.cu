// 2-D grid of 2-D blocks over a row-major matrix.
// kernel: matrix_add(const float *a, const float *b, float *c, int width, int height)
//   reads: tid.x tid.y ctaid.x ctaid.y ntid.x ntid.y
//   shared: 0

__global__ void matrix_add(const float *a, const float *b, float *c, int width, int height) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < width && row < height) {
    int i = row * width + col;
    c[i] = a[i] + b[i];
  }
}
