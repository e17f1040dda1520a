// A kernel that only prints: its output comes after what the host printed before the launch.
#include <cstdio>

__global__ void hello() { printf("hello from thread %d\n", threadIdx.x); }

int main() {
  printf("before\n");
  hello<<<1, 3>>>();
  cudaDeviceSynchronize();
  printf("after\n");
  return 0;
}
