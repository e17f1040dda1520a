// What a GPU reports: an invalid launch configuration, a kernel that faults (with
// --stop-on-fault, illegal address at the next synchronization, and after), more dynamic
// shared memory than the kernel opted in to, and a function Simulee lacks.
#include <cstdio>

__global__ void fill(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = i;
}

__global__ void past_the_end(int *data) { data[threadIdx.x * 1000] = 1; }

__global__ void staged(int *data) {
  extern __shared__ int stage[];
  stage[threadIdx.x] = threadIdx.x;
  __syncthreads();
  data[threadIdx.x] = stage[63 - threadIdx.x];
}

int main() {
  int *data;
  cudaMalloc(&data, 64 * sizeof(int));
  fill<<<1, 2048>>>(data, 64);
  cudaError_t error = cudaGetLastError();
  printf("launch with 2048 threads: %s (%s)\n", cudaGetErrorString(error), cudaGetErrorName(error));
  printf("then: %s\n", cudaGetErrorString(cudaGetLastError()));
  staged<<<1, 64, 64 * 1024>>>(data);  // more than 48 KiB of dynamic shared memory needs the kernel's opt-in
  printf("64 KiB of shared memory: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaFuncSetAttribute(staged, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);
  staged<<<1, 64, 64 * 1024>>>(data);
  printf("after the opt-in: %s\n", cudaGetErrorName(cudaGetLastError()));
  cudaIpcMemHandle_t handle;
  printf("cudaIpcGetMemHandle: %s\n", cudaGetErrorName(cudaIpcGetMemHandle(&handle, nullptr)));
  cudaGetLastError();
  past_the_end<<<1, 32>>>(data);
  printf("launch: %s\n", cudaGetErrorString(cudaGetLastError()));
  printf("synchronize: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  printf("copy after: %s\n", cudaGetErrorName(cudaMemcpy(&error, data, 4, cudaMemcpyDeviceToHost)));
  return 0;
}
