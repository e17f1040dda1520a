// C = A * B for n x n matrices: the naive kernel and the shared-memory tiled one, which sums
// in another order (equal within a relative tolerance, not bit for bit on every input).
#define TILE 8

__global__ void matmul_naive(const float *a, const float *b, float *c, int n) {
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  if (row >= n || col >= n) return;
  float sum = 0.0f;
  for (int k = 0; k < n; ++k) sum += a[row * n + k] * b[k * n + col];
  c[row * n + col] = sum;
}

__global__ void matmul_tiled(const float *a, const float *b, float *c, int n) {
  __shared__ float ta[TILE][TILE], tb[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float partial[2] = {0.0f, 0.0f};  // even and odd tiles summed apart: another order
  for (int tile = 0; tile * TILE < n; ++tile) {
    int k = tile * TILE;
    ta[threadIdx.y][threadIdx.x] = row < n && k + threadIdx.x < n ? a[row * n + k + threadIdx.x] : 0.0f;
    tb[threadIdx.y][threadIdx.x] = col < n && k + threadIdx.y < n ? b[(k + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
    for (int j = 0; j < TILE; ++j) partial[tile % 2] += ta[threadIdx.y][j] * tb[j][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = partial[0] + partial[1];
}
