// Every thread of a block stores one pointer in a __shared__ variable and reads it back
// without a barrier: each read races the other threads' stores, but every store writes the
// value the reader itself stored before, so the read returns it whatever the order (benign).
// A thread storing its own index and reading it back may read another thread's (a race).
// kernel: same_pointer(int *out)
//   reads: tid.x ctaid.x ntid.x
//   shared: 264
// kernel: own_index(int *out)
//   reads: tid.x ctaid.x ntid.x
//   shared: 4

__global__ void same_pointer(int *out) {
  __shared__ int rows[64];
  __shared__ int *row;
  row = rows;  // the shared pointer
  rows[threadIdx.x] = threadIdx.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = row == rows;  // the pointer read back
}

__global__ void own_index(int *out) {
  __shared__ int last;
  last = threadIdx.x;  // the index
  out[blockIdx.x * blockDim.x + threadIdx.x] = last;  // the index read back
}
