// C++ standard library in host code, and std:: math and algorithms in device code.
// kernel: normalize(float *v, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
#include <algorithm>
#include <cmath>
#include <iostream>
#include <vector>

__global__ void normalize(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = std::sqrt(std::max(v[i], 0.0f)) / std::min(1.0f + std::fabs(v[i]), 2.0f);
}

int main() {
  std::vector<float> host(1024, 2.0f);
  std::sort(host.begin(), host.end());
  float *device;
  cudaMalloc(&device, host.size() * sizeof(float));
  cudaMemcpy(device, host.data(), host.size() * sizeof(float), cudaMemcpyHostToDevice);
  normalize<<<4, 256>>>(device, (int)host.size());
  std::cout << "done" << std::endl;
  return 0;
}
