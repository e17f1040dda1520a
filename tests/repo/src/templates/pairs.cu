// A template kernel instantiated twice. Two threads store to each element of out: a
// write-write data race at line 6 in pairs<float> and in pairs<int>.
template <typename T> __global__ void pairs(const T *in, T *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T value = in[i];
  out[i / 2] = value;
}

void launch(const float *f, float *g, const int *a, int *b) {
  pairs<<<4, 128>>>(f, g);
  pairs<<<4, 128>>>(a, b);
}
