// Kernels with many parameters of every kind: scalars of each width and signedness, a
// struct by value, a pointer to pointers. With a stride of 1 or more, threads collide in
// `scatter`; `scatter_fixed` writes one element per thread whatever the arguments.
// kernel: scatter(float *out, const float *in, float **rows, Shape shape, int n, unsigned int stride, char tag, short lane, long long offset, float alpha, double beta, bool flip)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: scatter_fixed(float *out, const float *in, float **rows, Shape shape, int n, unsigned int stride, char tag, short lane, long long offset, float alpha, double beta, bool flip)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0

struct Shape {
  int width;
  int height;
  float scale;
};

__global__ void scatter(float *out, const float *in, float **rows, Shape shape, int n, unsigned stride, char tag,
                        short lane, long long offset, float alpha, double beta, bool flip) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int j = flip ? n - 1 - i : i;
  long long k = ((long long)j / (stride + 1) + offset) % n;
  if (k < 0) k += n;
  out[k] = alpha * in[i] + (float)beta + shape.scale + tag + lane + i;
}

__global__ void scatter_fixed(float *out, const float *in, float **rows, Shape shape, int n, unsigned stride,
                              char tag, short lane, long long offset, float alpha, double beta, bool flip) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int j = flip ? n - 1 - i : i;
  out[j] = alpha * in[i] + (float)beta + shape.scale + tag + lane + stride + offset;
}
