// Bugs that only some launches show: the input search has to find those launches.
// Each buggy kernel comes with a fixed twin that no launch can make fail.
// kernel: quotient_write(int *a, int d)
//   reads: tid.x
//   shared: 0
// kernel: quotient_write_fixed(int *a, int d)
//   reads: tid.x
//   shared: 0
// kernel: warp_slots(int *out)
//   reads: tid.x
//   shared: 128
// kernel: warp_slots_fixed(int *out)
//   reads: tid.x ntid.x
//   shared: 4096
// kernel: block_flag(int *flag)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: block_flag_fixed(int *flag)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: early_exit(const float *in, float *out, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 4096
// kernel: early_exit_fixed(const float *in, float *out, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 4096
// kernel: diagonal(int *a)
//   reads: tid.x tid.y
//   shared: 0
// kernel: diagonal_fixed(int *a)
//   reads: tid.x tid.y ntid.x
//   shared: 0
// kernel: strided_runs(int *a, int stride)
//   reads: tid.x
//   shared: 0
// kernel: strided_runs_fixed(int *a, int stride)
//   reads: tid.x
//   shared: 0

// Threads t and t + 1 write the same element once d >= 2 (write-write).
__global__ void quotient_write(int *a, int d) {
  a[threadIdx.x / d] = threadIdx.x;
}

__global__ void quotient_write_fixed(int *a, int d) {
  a[threadIdx.x * d] = threadIdx.x;
}

// One slot per lane, shared by the warps of a block: with two warps or more, lane l of
// warp 0 and lane l of warp 1 write the same slot (write-write, inter-warp).
__global__ void warp_slots(int *out) {
  __shared__ int slot[32];
  slot[threadIdx.x % 32] = threadIdx.x;
  __syncwarp();
  out[threadIdx.x] = slot[threadIdx.x % 32];
}

__global__ void warp_slots_fixed(int *out) {
  __shared__ int slot[1024];
  slot[threadIdx.x] = threadIdx.x;
  __syncwarp();
  out[threadIdx.x] = slot[threadIdx.x ^ 1 < blockDim.x ? threadIdx.x ^ 1 : threadIdx.x];
}

// Thread 0 of every block writes the one flag: a race once there are two blocks.
__global__ void block_flag(int *flag) {
  if (threadIdx.x == 0) flag[0] = blockIdx.x;
}

__global__ void block_flag_fixed(int *flag) {
  if (threadIdx.x == 0) flag[blockIdx.x] = blockIdx.x;
}

// Threads past n leave before the barrier; the others wait at it: barrier divergence in
// the block that holds element n, unless n is a multiple of the block size.
__global__ void early_exit(const float *in, float *out, int n) {
  __shared__ float tile[1024];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  tile[threadIdx.x] = in[i];
  __syncthreads();
  out[i] = tile[blockDim.x - 1 - threadIdx.x];
}

__global__ void early_exit_fixed(const float *in, float *out, int n) {
  __shared__ float tile[1024];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = tile[blockDim.x - 1 - threadIdx.x];
}

// Thread (x, y) writes element x + y: (1, 0) and (0, 1) collide, but only in a block
// with two rows or more.
__global__ void diagonal(int *a) {
  a[threadIdx.x + threadIdx.y] = threadIdx.y;
}

__global__ void diagonal_fixed(int *a) {
  a[threadIdx.x + threadIdx.y * blockDim.x] = threadIdx.y;
}

// Each thread writes a run of 4 elements starting at t * stride: runs overlap when the
// stride is below 4.
__global__ void strided_runs(int *a, int stride) {
  for (int k = 0; k < 4; ++k) a[threadIdx.x * stride + k] = threadIdx.x;
}

__global__ void strided_runs_fixed(int *a, int stride) {
  for (int k = 0; k < 4; ++k) a[threadIdx.x * (stride < 4 ? 4 : stride) + k] = threadIdx.x;
}
