// A block-wise sum the host adds up and checks; MISSING_BARRIER drops the barrier of the
// tree loop (a race the interpreter's thread order happens to hide from the sum).
#include <cstdio>
#include <cstdlib>
#define N 4096  // elements summed unless the first argument says otherwise
#define THREADS 256
__global__ void block_sum(const int *in, int *out, int n) {
  __shared__ int partial[THREADS];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  partial[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
#ifndef MISSING_BARRIER
    __syncthreads();
#endif
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : N;
  int blocks = (n + THREADS - 1) / THREADS;
  int *host = (int *)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) host[i] = i % 7;
  int *in, *out;
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, blocks * sizeof(int));
  cudaMemcpy(in, host, n * sizeof(int), cudaMemcpyHostToDevice);
  block_sum<<<blocks, THREADS>>>(in, out, n);
  int *sums = (int *)malloc(blocks * sizeof(int));
  cudaMemcpy(sums, out, blocks * sizeof(int), cudaMemcpyDeviceToHost);
  long total = 0, expected = 0;
  for (int b = 0; b < blocks; ++b) total += sums[b];
  for (int i = 0; i < n; ++i) expected += i % 7;
  printf("sum = %ld (expected %ld): %s\n", total, expected, total == expected ? "PASS" : "FAIL");
  cudaFree(in); cudaFree(out);
  return total == expected ? 0 : 1;
}
