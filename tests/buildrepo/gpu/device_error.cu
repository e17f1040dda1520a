#include <fancylib/matrix.hpp>  // a library that is not installed

__global__ void uses_the_library(float *x) {
  x[threadIdx.x] = fancy_device_norm(x[threadIdx.x]);
}
