// Two streams: consume (stream b) reads what produce (stream a) writes. Without ORDERED
// nothing makes b wait for a; with COPY_RACE a copy in stream a reads what consume writes.
// With LEGACY consume runs in the legacy default stream, which waits for a, unless a is
// made with NON_BLOCKING.
#include <cstdio>
__global__ void produce(float *data, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) data[i] = i; }
__global__ void consume(const float *data, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * data[i]; }
int main() {
  const int n = 256;
  float *data, *out;
  cudaMalloc(&data, n * sizeof(float)); cudaMalloc(&out, n * sizeof(float));
  cudaStream_t a, b;
#ifdef NON_BLOCKING
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
#else
  cudaStreamCreate(&a);
#endif
  cudaStreamCreate(&b);
#ifdef LEGACY
  b = 0;
#endif
  cudaEvent_t done; cudaEventCreate(&done);
  produce<<<1, n, 0, a>>>(data, n);
#ifdef ORDERED
  cudaEventRecord(done, a);
  cudaStreamWaitEvent(b, done, 0);
#endif
  consume<<<1, n, 0, b>>>(data, out, n);
#ifdef COPY_RACE
  float early[n];
  cudaMemcpyAsync(early, out, sizeof early, cudaMemcpyDeviceToHost, a);  // stream a has not waited for consume
#endif
  cudaDeviceSynchronize();
  float h[n]; cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("out[10] = %g\n", h[10]);
  return 0;
}
