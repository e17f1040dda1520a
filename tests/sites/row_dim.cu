// A matrix's size as kaldi passes it: a by-value struct of three ints that a function defined
// in another program's file returns, so Simulee chooses each member; `row_sum`'s grid comes
// from another such function, `row_copy`'s from d.rows. `row_sum`'s warp steps read what a
// lane wrote in the step before them with no __syncwarp between, whatever the size is (an
// error); `row_copy`'s rows overlap only when d.stride < d.cols, which no allocation makes
// and the stride Simulee chooses never is (clean).
#include <cuda_runtime.h>

struct MatrixDim { int rows, cols, stride; };

__global__ void row_sum(const float *m, float *sums, MatrixDim d) {
  __shared__ float s[64];
  int tid = threadIdx.x;
  float v = 0;
  for (int c = tid; c < d.cols; c += 64) v += m[blockIdx.x * d.stride + c];
  s[tid] = v;
  __syncthreads();
  if (tid < 32) s[tid] += s[tid + 32];  // no __syncwarp before the warp steps read it
  for (int k = 16; k > 0; k >>= 1) {
    if (tid < 16) s[tid] += s[tid + k];
    __syncwarp();
  }
  if (tid == 0) sums[blockIdx.x] = s[0];
}

__global__ void row_copy(const float *m, float *out, MatrixDim d) {
  for (int c = threadIdx.x; c < d.cols; c += blockDim.x)
    out[blockIdx.x * d.stride + c] = m[blockIdx.x * d.cols + c];  // rows overlap when stride < cols
}

MatrixDim read_dim(const char *path);  // defined in another program's file
int count_rows(const char *path);  // this one too

void sums_of(int rows, const float *m, float *sums, float *out, MatrixDim d) {
  row_sum<<<rows, 64>>>(m, sums, d);
  row_copy<<<d.rows, 64>>>(m, out, d);
}

int main(int argc, char **argv) {
  MatrixDim d = read_dim(argv[1]);
  float *m, *sums, *out;
  cudaMalloc(&m, d.rows * d.cols * sizeof(float));
  cudaMalloc(&sums, d.rows * sizeof(float));
  cudaMalloc(&out, d.rows * d.stride * sizeof(float));
  sums_of(count_rows(argv[1]), m, sums, out, d);
  cudaDeviceSynchronize();
  return 0;
}
