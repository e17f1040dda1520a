// Passes 1 << 16 to reduce_all (reduce.cu) through `benchmark`, which calls it through a
// function pointer.
#include <cuda_runtime.h>

void reduce_all(float *out, float *in, int threads, int size);

void benchmark(void (*reduce)(float *, float *, int, int), float *out, float *in, int size) {
  reduce(out, in, 256, size);
}

int main() {
  int size = 1 << 16;
  float *in, *out;
  cudaMalloc(&in, size * sizeof(float));
  cudaMalloc(&out, size * sizeof(float));
  benchmark(reduce_all, out, in, size);
  return 0;
}
