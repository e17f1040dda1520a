// The grid is the device's multiprocessor count, which a set-up function that uses a library
// Simulee does not have (its header is missing) stores in a global.
#include <profiler_library.h>

int multiprocessors = 1;

void setup() {
  profiler_handle handle = profiler_open();
  multiprocessors = profiler_multiprocessors(handle).count;
}

__global__ void accumulate(float *total, const float *x) {
  total[threadIdx.x] += x[blockIdx.x * blockDim.x + threadIdx.x];  // every block's update
}

int main() {
  setup();
  float *total, *x;
  cudaMalloc(&total, 256 * sizeof(float));
  cudaMalloc(&x, 1 << 20);
  accumulate<<<multiprocessors, 256>>>(total, x);
}
