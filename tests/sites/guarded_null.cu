// An optional input (llm.c's matmul_backward): the backward step scales by the
// pre-activation only when the caller passes one and the scaling is not fused, and most
// callers take the default NULL. `scale_by` is launched only with a buffer; `scale_all` is
// launched with what the caller passes, NULL included, and reads through it.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static void check(cudaError_t error, int line) {
  if (error != cudaSuccess) {
    printf("[CUDA ERROR] at line %d: %s\n", line, cudaGetErrorString(error));
    exit(EXIT_FAILURE);
  }
}

__global__ void bias_of(float *bias, const float *d, int n) {
  if (threadIdx.x == 0) {
    float sum = 0;
    for (int i = 0; i < n; i++) sum += d[i];
    bias[blockIdx.x] = sum;
  }
}

__global__ void scale_by(float *d, const float *pre, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] *= pre[i];  // pre is never NULL here
}

__global__ void scale_all(float *d, const float *pre, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) d[i] *= pre[i];  // pre is NULL for most callers
}

void backward(float *d, float *bias, int n, const float *pre = NULL, int fused = 1) {
  if (bias) {
    bias_of<<<1, 32>>>(bias, d, n);
    check(cudaGetLastError(), __LINE__);
  }
  if (fused < 2 && pre) {
    scale_by<<<(n + 127) / 128, 128>>>(d, pre, n);
    check(cudaGetLastError(), __LINE__);
  }
}

void forward(float *d, float *bias, int n, const float *pre = NULL) {
  if (bias) {
    bias_of<<<1, 32>>>(bias, d, n);
    check(cudaGetLastError(), __LINE__);
  }
  scale_all<<<(n + 127) / 128, 128>>>(d, pre, n);
  check(cudaGetLastError(), __LINE__);
}

void step(float *d, float *bias, const float **saved, const int *fusion, int n) {
  for (int layer = 0; layer < 4; layer++) {
    backward(d, bias, n);
    backward(d, bias, n, saved[layer], fusion[layer]);
    backward(d + n, NULL, n);
    forward(d, bias, n);
    forward(d, bias, n, saved[layer]);
    forward(d + n, NULL, n);
  }
}
