// A template whose large instance reads more than a trace holds before its barrier (which it
// needs: warp 0 reads what the other warps wrote), and whose one-warp instance needs no
// barrier (lane 0 reads what it wrote itself): the barrier is one, the template's, used in a
// launch judged in parts cut inside its blocks, so it is not judged redundant (as
// cuda-samples' reduce7).
#include <cstdio>
#include <vector>

template <int B> __global__ void staged(const int *in, int *out, int n) {
  __shared__ int s[B / 32];
  int sum = 0;
  for (int i = threadIdx.x; i < n; i += B) sum += in[i];
  if (threadIdx.x % 32 == 0) s[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < B / 32) out[threadIdx.x] = s[threadIdx.x];
}

int main() {
  const int n = 1024 * 4400;  // 4.5 million reads: past the trace limit
  std::vector<int> host(n, 1);
  int *in, *out, result[2];
  cudaMalloc(&in, n * sizeof(int));
  cudaMalloc(&out, 1024 * sizeof(int));
  cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  staged<1024><<<1, 1024>>>(in, out, n);
  cudaMemcpy(&result[0], out, sizeof(int), cudaMemcpyDeviceToHost);
  staged<32><<<1, 32>>>(in, out, 64);
  cudaMemcpy(&result[1], out, sizeof(int), cudaMemcpyDeviceToHost);
  printf("%d %d\n", result[0], result[1]);
  return 0;
}
