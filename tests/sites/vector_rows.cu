// Copies rows of n floats four at a time: a float4 copy (an aggregate copy, a memcpy in the IR)
// from row * n is aligned only when n is a multiple of 4. The launcher passes n as it gets it.
__global__ void copy_rows(float *out, const float *in, int n) {
  int row = blockIdx.x, column = threadIdx.x * 4;
  if (column < n)
    reinterpret_cast<float4 *>(&out[row * 64 + column])[0] =
        reinterpret_cast<const float4 *>(&in[row * n + column])[0];  // the row's vector
}

void copy(float *out, const float *in, int rows, int n) { copy_rows<<<rows, 16>>>(out, in, n); }
