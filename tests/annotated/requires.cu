// GPUVerify-style annotations: preconditions, a loop invariant and an assertion.
// Needs --gpuverify-annotations.
// kernel: scaled_copy(float *out, const float *in, int n, int scale)
//   reads: tid.x ntid.x

__global__ void scaled_copy(float *out, const float *in, int n, int scale) {
  __requires(n > 0);
  __requires(__is_pow2(scale));
  __requires(__implies(__enabled(), __write_offset_bytes(out) == 0));
  for (int i = threadIdx.x; __invariant(__uniform_int(n)), __invariant(__no_read(out)), i < n; i += blockDim.x) {
    __assert(i >= 0);
    out[i] = in[i] * scale;
  }
}
