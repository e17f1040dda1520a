// One thread loops as often as a value in device memory says: longer than the step budget a
// check gives a kernel, but a program's kernel runs until it ends.
#include <cstdio>

__global__ void count(const int *bound, long long *out) {
  long long total = 0;
  int times = *bound;
  for (int k = 0; k < times; ++k) total += k;
  *out = total;
}

int main() {
  int bound = 150000, *d_bound;
  long long total = 0, *d_out;
  cudaMalloc(&d_bound, sizeof bound);
  cudaMalloc(&d_out, sizeof total);
  cudaMemcpy(d_bound, &bound, sizeof bound, cudaMemcpyHostToDevice);
  count<<<1, 1>>>(d_bound, d_out);
  cudaMemcpy(&total, d_out, sizeof total, cudaMemcpyDeviceToHost);
  printf("total %lld: %s\n", total, total == 150000LL * 149999 / 2 ? "right" : "wrong");
  return 0;
}
