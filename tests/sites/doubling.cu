// The host sums with strides 1, 2, 4, ... below size: its first launch is of stride 1, and
// `stride` is the host's, never a row stride padded past size. In place (-D IN_PLACE), a
// thread reads the element the next thread writes; on two buffers nothing is shared.
__global__ void step(float *out, const float *in, int stride, int size) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + stride < size) out[i] += in[i + stride];  // the write
}

void sum(float *out, const float *in, int size) {
  for (int stride = 1; stride < size; stride *= 2) step<<<(size + 255) / 256, 256>>>(out, in, stride, size);
}

int main() {
  float *a, *b;
  int size = 1 << 16;
  cudaMalloc(&a, size * sizeof(float));
  cudaMalloc(&b, size * sizeof(float));
#ifdef IN_PLACE
  sum(a, a, size);
#else
  sum(a, b, size);
#endif
  return 0;
}
