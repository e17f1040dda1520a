// A program whose first launch reads one element past its input: on a GPU without a
// checker it goes on (the read gives what lies there, the launch succeeds), and so must its
// later launches, the last of which races.
#include <cstdio>

__global__ void sum_next(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + in[i + 1];  // reads one past the end
}

__global__ void scale(float *v, int n, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= s;
}

__global__ void total(const float *v, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) *sum += v[i];  // every thread adds into one float
}

int main() {
  const int n = 64;
  float h[n], *in, *out, *sum;
  for (int i = 0; i < n; i++) h[i] = i;
  cudaMalloc(&in, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&sum, sizeof(float));
  cudaMemset(sum, 0, sizeof(float));
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  sum_next<<<1, n>>>(in, out, n);
  printf("sum_next: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  scale<<<1, n>>>(out, n, 2.0f);
  scale<<<1, n>>>(out, n, 1.5f);
  total<<<1, n>>>(out, sum, n);
  cudaError_t copied = cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("copy: %s, out[0] = %g, out[63] = %g\n", cudaGetErrorString(copied), h[0], h[63]);
  return 0;
}
