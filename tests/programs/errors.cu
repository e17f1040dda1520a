// What a GPU reports: an invalid launch configuration, a kernel that faults (illegal
// address at the next synchronization, and after), and a function Simulee lacks.
#include <cstdio>

__global__ void fill(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = i;
}

__global__ void past_the_end(int *data) { data[threadIdx.x * 1000] = 1; }

int main() {
  int *data;
  cudaMalloc(&data, 64 * sizeof(int));
  fill<<<1, 2048>>>(data, 64);
  cudaError_t error = cudaGetLastError();
  printf("launch with 2048 threads: %s (%s)\n", cudaGetErrorString(error), cudaGetErrorName(error));
  printf("then: %s\n", cudaGetErrorString(cudaGetLastError()));
  cudaGraph_t graph;
  printf("cudaGraphCreate: %s\n", cudaGetErrorName(cudaGraphCreate(&graph, 0)));
  cudaGetLastError();
  past_the_end<<<1, 32>>>(data);
  printf("launch: %s\n", cudaGetErrorString(cudaGetLastError()));
  printf("synchronize: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  printf("copy after: %s\n", cudaGetErrorName(cudaMemcpy(&error, data, 4, cudaMemcpyDeviceToHost)));
  return 0;
}
