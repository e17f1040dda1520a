// cuRAND's device API: each thread draws from its own XORWOW sequence.
#include <cstdio>
#include <curand_kernel.h>

__global__ void draw(unsigned long long seed, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curandState state;
  curand_init(seed, i, 0, &state);
  out[i] = curand_uniform(&state);
}

int main() {
  float *d, h[256];
  cudaMalloc(&d, sizeof h);
  draw<<<2, 128>>>(1234ULL, d);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  double mean = 0;
  int distinct = 0;
  for (int i = 0; i < 256; ++i) {
    mean += h[i] / 256;
    distinct += i == 0 || h[i] != h[i - 1];
  }
  printf("mean %.1f, %d distinct, all in (0, 1]: %s\n", mean, distinct, h[0] > 0 && h[0] <= 1 ? "yes" : "no");
  return 0;
}
