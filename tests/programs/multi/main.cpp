// The host half of a program in two files: plain C++ calling a launcher in scale.cu.
#include <cstdio>
#include <cuda_runtime.h>

void scale_on_device(float *data, int n, float factor);

int main() {
  const int n = 50;
  float host[n];
  for (int i = 0; i < n; ++i) host[i] = float(i);
  float *device;
  cudaMalloc(&device, sizeof host);
  cudaMemcpy(device, host, sizeof host, cudaMemcpyHostToDevice);
  scale_on_device(device, n, 3.0f);
  cudaMemcpy(host, device, sizeof host, cudaMemcpyDeviceToHost);
  printf("host[7] = %g, host[49] = %g\n", host[7], host[49]);
  return 0;
}
