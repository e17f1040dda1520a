// Findings seen across launches and through device functions.
// kernel: quotient_flag(int *flag, int k)
//   reads: tid.x
//   shared: 0
// kernel: store_in_helper(int *out)
//   reads: tid.x
//   shared: 0

// Every thread stores its quotient by k: the same value when k covers the block, else not.
__global__ void quotient_flag(int *flag, int k) { flag[0] = threadIdx.x / k; }

// The racing store sits in a device function: findings and the trace name its line.
__device__ void store(int *where, int value) { *where = value; }

__global__ void store_in_helper(int *out) { store(&out[0], threadIdx.x); }
