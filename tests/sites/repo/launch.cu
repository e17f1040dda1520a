// Launches the kernel of kernels.cu (compiled with -rdc in the real build).
#include <cuda_runtime.h>

__global__ void rotate(int *a);

void rotate_all(int *d, int n) {
  rotate<<<n / 32, 32>>>(d);
}
