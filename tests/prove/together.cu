// Kernels for the prover and the check together (tests/test_verdicts.py).

// Each thread scales its own element: proved race-free, so the check runs it for faults only.
__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

// Races for one size only, which no constant of the kernel names: the solver computes it
// (n = 1337) and the search, started from the solver's launch, shows the race.
__global__ void one_size(int *x, int n) {
  if (n * 7 == 9359) x[0] = threadIdx.x;  // every thread writes x[0]
  else x[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

// Race-free, and still a fault: thread 5 divides by zero.
__global__ void divide(int *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 1000 / (i - 5);
}

// Threads write where a table they read says: the model cannot know the table, no proof.
__global__ void through_table(int *x, const int *where) {
  x[where[threadIdx.x]] = 1;
}

// Race-free through a function the compiler keeps out of line: the model does not follow
// calls, so no proof (the reason names the call), and no run shows a race.
__device__ __noinline__ void store(int *p, int v) { *p = v; }

__global__ void through_call(int *x) {
  store(&x[blockIdx.x * blockDim.x + threadIdx.x], 1);
}

// Right for n of at most 64, which a simulee.toml can state: threads past 64 would write the
// next block's row.
__global__ void first_n(int *x, int n) {
  if (threadIdx.x < n) x[(size_t)blockIdx.x * 64 + threadIdx.x] = 1;
}
