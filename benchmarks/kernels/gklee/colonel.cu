// project: GKLEE tests (table 2)
// bug: colonel: every thread writes elements 0 and 1 of a shared array, then thread 0 reads
// them back: on each of the two elements a write-write race between the threads' stores and
// a read-write race between a store and thread 0's read.
// expect: colonel data-race 12/12
// expect: colonel data-race 12/14
// expect: colonel data-race 13/13
// expect: colonel data-race 13/14
// fixed: colonel_fixed
__global__ void colonel(int *out) {
  __shared__ int s[2];
  s[0] = threadIdx.x;
  s[1] = threadIdx.x + 1;
  if (threadIdx.x == 0) out[blockIdx.x] = s[0] + s[1];
}

__global__ void colonel_fixed(int *out) {
  __shared__ int s[2];
  if (threadIdx.x == 0) s[0] = 7;
  if (threadIdx.x == 1) s[1] = 8;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = s[0] + s[1];
}
