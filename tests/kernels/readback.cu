// Every thread of a block stores one pointer in a __shared__ variable and reads it back
// without a barrier. Where the read's value is used, it races the other threads' stores
// (an error, whatever they store: the memory model orders neither); where nothing uses it,
// the load is dead code a compiler deletes, and only the stores' benign write-write race of
// one value is left. A thread storing its own index and reading it back races too.
// kernel: unused_read(int *out)
//   reads: tid.x ctaid.x ntid.x
//   shared: 264
// kernel: same_pointer(int *out)
//   reads: tid.x ctaid.x ntid.x
//   shared: 264
// kernel: own_index(int *out)
//   reads: tid.x ctaid.x ntid.x
//   shared: 4

__device__ int *same(int *pointer) { return pointer; }

__global__ void unused_read(int *out) {
  __shared__ int rows[64];
  __shared__ int *row;
  row = rows;  // the shared pointer
  rows[threadIdx.x] = threadIdx.x;
  same(row);  // read back, its value unused
  out[blockIdx.x * blockDim.x + threadIdx.x] = rows[threadIdx.x];
}

__global__ void same_pointer(int *out) {
  __shared__ int rows[64];
  __shared__ int *row;
  row = rows;
  rows[threadIdx.x] = threadIdx.x;
  out[blockIdx.x * blockDim.x + threadIdx.x] = row == rows;  // the pointer read back and used
}

__global__ void own_index(int *out) {
  __shared__ int last;
  last = threadIdx.x;  // the index
  out[blockIdx.x * blockDim.x + threadIdx.x] = last;  // the index read back
}
