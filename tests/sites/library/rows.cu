// A step of a program that calls a library Simulee does not have (its header is missing)
// around a kernel it launches through a launcher passed by pointer, as benchmark harnesses
// do. Each block writes one row of n elements, in whole blocks of threads and with no bound
// check: rows are disjoint when n is a multiple of the block size, and otherwise a block's
// last threads write the next row's first elements, which another block writes too.
#include <cublas_v2.h>

__global__ void fill_rows(float *out, int n) {
  int steps = (n + blockDim.x - 1) / blockDim.x;
  for (int step = 0; step < steps; step++)
    out[blockIdx.x * n + step * blockDim.x + threadIdx.x] = blockIdx.x;  // the row's element
}

void launch_fill(float *out, int n, int block) {
  fill_rows<<<n, block>>>(out, n);
}

template <class Launcher>
void library_step(cublasHandle_t handle, float *out, int n, Launcher launch, int block) {
  const float one = 1.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, out, n, out, n, &one, out, n);
  if (cublasGetStatus(handle) != CUBLAS_STATUS_SUCCESS)
    return;
  launch(out, n, block);
}

int main() {
  cublasHandle_t handle;
  cublasCreate(&handle);
  float *out;
  cudaMalloc(&out, 1 << 22);
  int n = 256;
  library_step(handle, out, n, launch_fill, 64);
}
