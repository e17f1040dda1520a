// A benchmark and its unit tests written against a benchmark library and a test framework
// CMake fetches at configure time, which are not here: their macros register a benchmark
// and define tests at namespace scope, and a namespace alias names the library.
#include <benchlib/bench.h>
#include <testlib/test.h>

namespace bl = benchlib;

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

void scale_bench(bl::state &state) {
  int n = 1 << 16;
  float *x;
  cudaMalloc(&x, n * sizeof(float));
  scale<<<(n + 127) / 128, 128>>>(x, n);
  state.add_element_count(n);
}

BENCH_REGISTER(scale_bench).set_name("scale").add_int_axis("n", {1024, 4096});

TEST(scale, doubles_each_element) {
  float *x;
  cudaMalloc(&x, 4 * sizeof(float));
  scale<<<1, 4>>>(x, 4);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}
