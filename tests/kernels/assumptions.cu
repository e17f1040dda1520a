// A kernel that states its precondition: launches that break it report only that.
// kernel: fixed_block(int *out)
//   reads: tid.x ntid.x
//   shared: 0

__global__ void fixed_block(int *out) {
  __assume(blockDim.x == 64);
  out[threadIdx.x % 64] = threadIdx.x;  // blocks of 128 would race here
}
