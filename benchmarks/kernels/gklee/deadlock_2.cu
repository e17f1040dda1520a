// project: GKLEE tests (table 2)
// bug: deadlock_2: the two halves of a block wait at two different barriers.
// expect: deadlock_2 barrier-divergence 11/15
// expect: deadlock_2 barrier-divergence 15/11
// fixed: deadlock_2_fixed
__global__ void deadlock_2(int *data) {
  __shared__ int s[1024];
  int tid = threadIdx.x;
  if (tid < blockDim.x / 2) {
    s[tid] = data[tid];
    __syncthreads();
    data[tid] = s[blockDim.x / 2 - 1 - tid];
  } else {
    s[tid] = -data[tid];
    __syncthreads();
    data[tid] = s[blockDim.x - 1 - tid + blockDim.x / 2];
  }
}

__global__ void deadlock_2_fixed(int *data) {
  __shared__ int s[1024];
  int tid = threadIdx.x;
  bool low = tid < blockDim.x / 2;
  s[tid] = low ? data[tid] : -data[tid];
  __syncthreads();
  data[tid] = low ? s[blockDim.x / 2 - 1 - tid] : s[blockDim.x - 1 - tid + blockDim.x / 2];
}
