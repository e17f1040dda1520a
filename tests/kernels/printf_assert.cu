// Device printf, assert, and device-side malloc/free/memcpy/memset.
// kernel: checked_copy(const int *in, int *out, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
#include <assert.h>
#include <stdio.h>

__global__ void checked_copy(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(n > 0);
  if (i >= n) return;
  int *scratch = (int *)malloc(4 * sizeof(int));
  memset(scratch, 0, 4 * sizeof(int));
  memcpy(scratch, &in[i], sizeof(int));
  out[i] = scratch[0];
  free(scratch);
  if (i == 0) printf("copied %d values, first %d\n", n, out[0]);
}
