// project: arrayfire (table 2)
// bug: JacobiSVD: each thread computes its column's norm into a shared array and at once
// reads the norm of the column it is paired with (no barrier after the store); the rotation
// then updates the norms in place while the partner still reads them.
// expect: JacobiSVD warp-synchronous-race 17/18
// expect: JacobiSVD warp-synchronous-race 21/21
// fixed: JacobiSVD_fixed
#define COLS 64

__global__ void JacobiSVD(const float *a, float *out, int rows) {
  __shared__ float norms[COLS];
  int col = threadIdx.x;
  if (blockDim.x > COLS || (blockDim.x & 1)) return;
  const float *column = a + (blockIdx.x * blockDim.x + col) * rows;
  float sum = 0.0f;
  for (int r = 0; r < rows; ++r) sum += column[r] * column[r];
  norms[col] = sum;
  float pair = norms[col ^ 1];
  __syncthreads();
  float c = 0.6f, s = pair > sum ? 0.8f : -0.8f;
  norms[col] = c * norms[col] + s * norms[col ^ 1];
  out[blockIdx.x * blockDim.x + col] = norms[col];
}

__global__ void JacobiSVD_fixed(const float *a, float *out, int rows) {
  __shared__ float norms[COLS];
  int col = threadIdx.x;
  if (blockDim.x > COLS || (blockDim.x & 1)) return;
  const float *column = a + (blockIdx.x * blockDim.x + col) * rows;
  float sum = 0.0f;
  for (int r = 0; r < rows; ++r) sum += column[r] * column[r];
  norms[col] = sum;
  __syncthreads();
  float pair = norms[col ^ 1];
  float c = 0.6f, s = pair > sum ? 0.8f : -0.8f;
  float rotated = c * norms[col] + s * pair;
  __syncthreads();
  norms[col] = rotated;
  out[blockIdx.x * blockDim.x + col] = norms[col];
}
