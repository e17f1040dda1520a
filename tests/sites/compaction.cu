// Stream compaction writes each kept element to the slot an exclusive scan of the flags
// gives it: the slots never repeat, but Simulee cannot see that the host code computed
// them so. With made-up slots that repeat, the writes meet.
#include <cuda_runtime.h>

__global__ void compact(const int *flags, const int *slots, const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && flags[i]) out[slots[i]] = in[i];  // kept elements with the same slot race
}

void compact_all(const int *flags, const int *slots, const float *in, float *out, int n) {
  compact<<<(n + 127) / 128, 128>>>(flags, slots, in, out, n);
}
