// A complete CUDA program: host code allocates, copies, launches with <<<>>>, times with
// events and checks errors. Only the kernel is device code.
// kernel: vector_add(const float *a, const float *b, float *c, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void vector_add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t err = (call);                                                        \
    if (err != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err));   \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

int main(void) {
  const int n = 1 << 20;
  size_t bytes = n * sizeof(float);
  float *h_a = (float *)malloc(bytes), *h_b = (float *)malloc(bytes), *h_c = (float *)malloc(bytes);
  for (int i = 0; i < n; ++i) { h_a[i] = 1.0f; h_b[i] = 2.0f; }
  float *d_a, *d_b, *d_c;
  CHECK(cudaMalloc(&d_a, bytes));
  CHECK(cudaMalloc((void **)&d_b, bytes));
  CHECK(cudaMalloc(&d_c, bytes));
  CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  int threads = 256, blocks = (n + threads - 1) / threads;
  vector_add<<<blocks, threads>>>(d_a, d_b, d_c, n);
  CHECK(cudaGetLastError());
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));
  CHECK(cudaDeviceSynchronize());
  printf("c[0] = %f in %f ms\n", h_c[0], ms);
  cudaFree(d_a); cudaFree(d_b); cudaFree(d_c);
  free(h_a); free(h_b); free(h_c);
  return 0;
}
