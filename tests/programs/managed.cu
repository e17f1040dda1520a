// Managed memory: the kernel squares in place what the host wrote, the host reads the
// result after synchronizing; a __managed__ variable counts the calls.
#include <cstdio>

__managed__ int calls;

__global__ void square(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= data[i];
  if (i == 0) atomicAdd(&calls, 1);
}

int main() {
  const int n = 100;
  int *data;
  cudaMallocManaged(&data, n * sizeof(int));
  for (int i = 0; i < n; ++i) data[i] = i;
  square<<<2, 64>>>(data, n);
  square<<<2, 64>>>(data, n);
  cudaDeviceSynchronize();
  long total = 0;
  for (int i = 0; i < n; ++i) total += data[i];
  printf("data[3] = %d, sum = %ld, calls = %d\n", data[3], total, calls);
  cudaFree(data);
  return 0;
}
