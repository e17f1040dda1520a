// Barriers with predicates and every memory fence.
// kernel: barrier_votes(const int *flags, int *out)
//   reads: tid.x
//   shared: 0

__global__ void barrier_votes(const int *flags, int *out) {
  int flag = flags[threadIdx.x];
  int count = __syncthreads_count(flag);
  int every = __syncthreads_and(flag);
  int some = __syncthreads_or(flag);
  __syncthreads();
  out[threadIdx.x] = count + every + some;
  __threadfence_block();
  __threadfence();
  __threadfence_system();
}
