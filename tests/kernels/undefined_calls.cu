// Kernels calling functions the program declares and never defines, as verification
// suites write them: what such a call returns is made up, per thread and call.
// kernel: slot_from_nondet(int *out)
//   reads: tid.x
//   shared: 0
// kernel: first_slot(int *out)
//   reads: tid.x
//   shared: 0
// kernel: own_count(int *out)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: through_lookup(float *out)
//   reads: tid.x
//   shared: 0
__device__ int nondet(void);
__device__ void record(int value);  // declared only: it changes nothing Simulee can see

// The slot a thread writes is what nondet returns: threads meet only for some values.
__global__ void slot_from_nondet(int *out) {
  out[nondet()] = threadIdx.x;  // slots made up by nondet race
}

// Every thread writes the first slot, whatever nondet returns.
__global__ void first_slot(int *out) {
  record(nondet());
  out[0] = threadIdx.x;  // every thread writes here
}

// Each thread counts its own loop, which ends when nondet returns 0: no race.
__global__ void own_count(int *out) {
  int n = 0;
  while (nondet())
    n++;
  out[blockIdx.x * blockDim.x + threadIdx.x] = n;
}

// A pointer a function never defined returns: reading through it is the made-up value's fault.
__device__ float *lookup(int key);

__global__ void through_lookup(float *out) {
  out[threadIdx.x] = *lookup(threadIdx.x);  // reads where lookup points
}
