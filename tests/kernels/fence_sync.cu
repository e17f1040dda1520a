// Synchronization through memory between blocks (DESIGN.md, "Bug semantics"): each
// correct kernel has broken twins that the race detector must report.
// kernel: fenced_sum(const float *in, float *partial, float *total)
//   reads: tid.x ctaid.x ntid.x nctaid.x
//   shared: 260
// kernel: unfenced_sum(const float *in, float *partial, float *total)
//   reads: tid.x ctaid.x ntid.x nctaid.x
//   shared: 260
// kernel: block_fenced_sum(const float *in, float *partial, float *total)
//   reads: tid.x ctaid.x ntid.x nctaid.x
//   shared: 260
// kernel: flag_handoff(int *data, volatile int *ready, int *out)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: plain_flag_handoff(int *data, int *ready, int *out)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: block_scoped_counter(int *count)
//   reads: tid.x ctaid.x
//   shared: 0

__device__ unsigned int retired = 0;

// The last block to finish adds every block's partial sum (NVIDIA's threadFenceReduction):
// the fence before the ticket makes the partial visible to whichever block comes last.
template <int Fence>
__device__ void last_block_sum(const float *in, float *partial, float *total) {
  __shared__ bool last;
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  if (t == 0) {
    float acc = 0;
    for (int i = 0; i < blockDim.x; i++) acc += s[i];
    partial[blockIdx.x] = acc;
    if (Fence == 1) __threadfence();
    if (Fence == 2) __threadfence_block();  // orders nothing for the other blocks
    unsigned int ticket = atomicInc(&retired, gridDim.x);
    last = (ticket == gridDim.x - 1);
  }
  __syncthreads();
  if (last && t == 0) {
    float acc = 0;
    for (int i = 0; i < gridDim.x; i++) acc += partial[i];
    *total = acc;
    retired = 0;
  }
}

__global__ void fenced_sum(const float *in, float *partial, float *total) { last_block_sum<1>(in, partial, total); }
__global__ void unfenced_sum(const float *in, float *partial, float *total) { last_block_sum<0>(in, partial, total); }
__global__ void block_fenced_sum(const float *in, float *partial, float *total) {
  last_block_sum<2>(in, partial, total);
}

// Block 0 hands a value to block 1 through a ready flag: a fence, then a store of the
// flag; the consumer reads the flag once and the value only if it is set. A volatile flag
// orders the value; with a plain one neither the flag nor the value is ordered.
template <typename Flag>
__device__ void hand_off(int *data, Flag *ready, int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    *ready = 1;
  }
  if (blockIdx.x == 1 && threadIdx.x == 0) {  // after the producer, as the threads reconverge
    if (*ready)
      out[0] = data[0];
  }
}
__global__ void flag_handoff(int *data, volatile int *ready, int *out) { hand_off(data, ready, out); }
__global__ void plain_flag_handoff(int *data, int *ready, int *out) { hand_off(data, ready, out); }

// Every block adds to a counter with a block-scoped atomic while thread 0 of block 0 also
// writes it plainly: block scope does not make two blocks' atomics safe against that.
__global__ void block_scoped_counter(int *count) {
  atomicAdd_block(count, 1);
  if (blockIdx.x == 0 && threadIdx.x == 0) *count = 0;
}
