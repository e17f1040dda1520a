// Stores the optimizer would delete must survive: a shared-memory store nobody reads, and a
// global store that the same thread overwrites (another thread may read it in between).
// kernel: dead_stores(int *out)
//   reads: tid.x
//   shared: 256

__global__ void dead_stores(int *out) {
  __shared__ int never_read[64];
  never_read[threadIdx.x] = 42;
  out[0] = threadIdx.x;
  out[0] = 7;
}
