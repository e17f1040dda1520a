// project: GKLEE tests (table 2)
// bug: deadlock_0: a barrier under a condition on the thread index: the even threads wait
// for odd threads that never come.
// expect: deadlock_0 barrier-divergence 12
// fixed: deadlock_0_fixed
__global__ void deadlock_0(int *data) {
  __shared__ int s[1024];
  int tid = threadIdx.x;
  s[tid] = data[tid];
  if (tid % 2 == 0) {
    s[tid] += 1;
    __syncthreads();
    data[tid] = s[tid ^ 1];
  }
}

__global__ void deadlock_0_fixed(int *data) {
  __shared__ int s[1024];
  int tid = threadIdx.x;
  s[tid] = data[tid];
  if (tid % 2 == 0) s[tid] += 1;
  __syncthreads();
  if (tid % 2 == 0) data[tid] = s[tid ^ 1];
}
