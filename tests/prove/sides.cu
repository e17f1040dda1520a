// Each block takes one side by its parity, and each side ends at a barrier of its own. The
// proof that removing either barrier changes no output chains reads of written memory
// through one another; it once recursed until z3's own calls failed (tests/test_verdicts.py).
__global__ void two_sides(int *a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v;
  if (blockIdx.x % 2 == 0) {
    a[i] = i;
    v = a[i] + 1;
    __syncthreads();  // the even blocks' barrier
  } else {
    a[i] = 2 * i;
    v = a[i] * 2;
    __syncthreads();  // the odd blocks' barrier
  }
  a[i] = v;
}
