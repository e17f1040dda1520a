// A program that ends while its device runs a long launch, in the way its first argument
// says: "exit" (a short launch, then a normal exit), "abort" (another thread aborts it), or
// "wait" (it waits for its launch until a signal kills it). tests/test_nvcc.py checks that its
// device reports what it checked and is gone soon after, whichever way it ended.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>

__global__ void spin(float *out, int n) {
  float acc = 0;
  for (int k = 0; k < n; ++k) acc = acc * 0.999f + k;
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "exit";
  float *out;
  cudaMalloc(&out, 64 * 256 * sizeof(float));
  if (strcmp(how, "abort") == 0)
    std::thread([] { sleep(1); abort(); }).detach();
  printf("launching\n");
  fflush(stdout);
  spin<<<64, 256>>>(out, strcmp(how, "exit") == 0 ? 4 : 1 << 30);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
