#include "project_config.h"   // written by CMake at build time
#include <fancylib/matrix.hpp>  // a library that is not installed

__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

void launch_scale(fancy_handle_t handle, float *x, int n) {
  fancy_synchronize(handle);
  scale<<<(n + 255) / 256, 256>>>(x, 2.0f, n);
}

static int rows_of(fancy_matrix_t matrix) { return matrix->rows; }  // a member of a type nobody declared
