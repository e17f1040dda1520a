// OpenCL twin of tests/kernels/matmul.cu: C = A * B through 16x16 local tiles.
#define TILE 16

__kernel void matmul(__global const float *a, __global const float *b, __global float *c, int m, int k, int n) {
  __local float ta[TILE][TILE], tb[TILE][TILE];
  int tx = get_local_id(0), ty = get_local_id(1);
  int row = get_group_id(1) * TILE + ty, col = get_group_id(0) * TILE + tx;
  float sum = 0.0f;
  for (int start = 0; start < k; start += TILE) {
    ta[ty][tx] = row < m && start + tx < k ? a[row * k + start + tx] : 0.0f;
    tb[ty][tx] = col < n && start + ty < k ? b[(start + ty) * n + col] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < TILE; ++i) sum += ta[ty][i] * tb[i][tx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < m && col < n) c[row * n + col] = sum;
}
