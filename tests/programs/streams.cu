#include <cstdio>
__global__ void produce(float *data, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) data[i] = i; }
__global__ void consume(const float *data, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * data[i]; }
int main() {
  const int n = 256;
  float *data, *out;
  cudaMalloc(&data, n * sizeof(float)); cudaMalloc(&out, n * sizeof(float));
  cudaStream_t a, b; cudaStreamCreate(&a); cudaStreamCreate(&b);
  cudaEvent_t done; cudaEventCreate(&done);
  produce<<<1, n, 0, a>>>(data, n);
#ifdef ORDERED
  cudaEventRecord(done, a);
  cudaStreamWaitEvent(b, done, 0);
#endif
  consume<<<1, n, 0, b>>>(data, out, n);
  cudaDeviceSynchronize();
  float h[n]; cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("out[10] = %g\n", h[10]);
  return 0;
}
