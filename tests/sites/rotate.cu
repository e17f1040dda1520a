// Each block rotates its own 32 elements through shared memory. Correct for the 32-thread
// blocks its host code launches; with more threads per block two threads write s[t % 32].
#include <cuda_runtime.h>

__global__ void rotate(int *a) {
  __shared__ int s[32];
  int t = threadIdx.x;
  s[t % 32] = a[blockIdx.x * 32 + t];
  __syncthreads();
  a[blockIdx.x * 32 + t] = s[(t + 1) % 32];
}

void rotate_all(int *d, int n) {
  rotate<<<n / 32, 32>>>(d);
}
