// A caller that gives colsum a second row of threads: their sums collide.
#include <cuda_runtime.h>

void launch_colsum(dim3 grid, dim3 block, float *sums, const float *m, int rows, int cols);

void column_sums_fast(float *sums, const float *m, int rows, int cols) {
  launch_colsum(dim3((cols + 127) / 128), dim3(128, 2), sums, m, rows, cols);
}
