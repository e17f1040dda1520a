// OpenCL twin of tests/kernels/transpose.cu: a tiled transpose through a padded local tile,
// 32x8 work-items per 32x32 tile.
#define TILE 32
#define ROWS 8

__kernel void transpose(__global float *out, __global const float *in, int width, int height) {
  __local float tile[TILE][TILE + 1];
  int tx = get_local_id(0), ty = get_local_id(1);
  int x = get_group_id(0) * TILE + tx;
  int y = get_group_id(1) * TILE + ty;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < width && y + j < height) tile[ty + j][tx] = in[(y + j) * width + x];
  barrier(CLK_LOCAL_MEM_FENCE);
  x = get_group_id(1) * TILE + tx;
  y = get_group_id(0) * TILE + ty;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < height && y + j < width) out[(y + j) * height + x] = tile[tx][ty + j];
}
