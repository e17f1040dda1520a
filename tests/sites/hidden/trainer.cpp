// The callers of rows.cu's launchers: one row of blocks, of 256 threads (32 x 8 for
// column_sums). They need the trainer's own header, which lies outside this folder
// (hidden_include, given with -I).
#include <cuda_runtime.h>
#include "trainer/model.h"

void launch_column_totals(dim3 grid, dim3 block, float *totals, const float *m, int rows, int cols);
void launch_first_slots(dim3 grid, dim3 block, float *out, const float *in, int n);
void launch_column_sums(dim3 grid, dim3 block, float *totals, const float *m, int rows, int cols);

void train(Model &model) {
  launch_column_totals(dim3((model.cols + 255) / 256), dim3(256), model.totals, model.weights, model.rows,
                       model.cols);
  launch_first_slots(dim3((model.cols + 255) / 256), dim3(256), model.out, model.weights, model.cols);
  launch_column_sums(dim3((model.cols + 31) / 32), dim3(32, 8), model.totals, model.weights, model.rows, model.cols);
}
