// Two pointer parameters that a caller may pass the same buffer for: copying from the next
// element races only when `out` and `in` are one buffer (an in-place call).
// kernel: shift_copy(float *out, const float *in, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0

__global__ void shift_copy(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) out[i] = in[i + 1];  // in place, thread i + 1 writes what thread i reads
}
