// A matrix's size passed by value as a struct of two ints (kaldi's MatrixDim) that a function
// defined elsewhere returns, so Simulee guesses it, both members in one 64-bit value: the
// launcher's grid follows d.cols. Threads 2k and 2k + 1 write one element whatever the size
// is (an error); the race of `pair_at` needs d.cols == 33 (a warning that says so).
#include <cuda_runtime.h>

struct Dim { int rows, cols; };

__global__ void pairs(float *out, Dim d) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < d.cols) out[col / 2] = col;  // two threads per element
}

__global__ void pair_at(float *out, Dim d) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col < d.cols) out[d.cols == 33 ? col / 2 : col] = col;  // two per element only when 33 wide
}

void launch(float *out, Dim d) {
  dim3 grid((d.cols + 31) / 32);
  pairs<<<grid, 32>>>(out, d);
  pair_at<<<grid, 32>>>(out, d);
}

Dim read_size(const char *path);  // defined in another program's file

int main(int argc, char **argv) {
  Dim d = read_size(argv[1]);
  float *out;
  cudaMalloc(&out, d.cols * sizeof(float));
  launch(out, d);
  cudaDeviceSynchronize();
  return 0;
}
