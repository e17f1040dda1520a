// Tiled matrix multiply C = A * B with shared-memory tiles (any sizes; edges padded with 0).
// kernel: matmul(const float *a, const float *b, float *c, int m, int k, int n)
//   reads: tid.x tid.y ctaid.x ctaid.y
//   shared: 2048

#define TILE 16

__global__ void matmul(const float *a, const float *b, float *c, int m, int k, int n) {
  __shared__ float ta[TILE][TILE], tb[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float sum = 0.0f;
  for (int start = 0; start < k; start += TILE) {
    ta[threadIdx.y][threadIdx.x] = row < m && start + threadIdx.x < k ? a[row * k + start + threadIdx.x] : 0.0f;
    tb[threadIdx.y][threadIdx.x] = col < n && start + threadIdx.y < k ? b[(start + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < TILE; ++i) sum += ta[threadIdx.y][i] * tb[i][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}
