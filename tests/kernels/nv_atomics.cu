// CUDA 12.8's built-in atomics (__nv_atomic_*) and their orders and scopes: a hand-off
// through a flag released and acquired at device scope is ordered; at block scope between
// blocks it is a scoped race; relaxed it orders nothing; a counter of thread scope races.
// kernel: release_acquire(int *data, int *ready, int *out)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: release_acquire_in_block_scope(int *data, int *ready, int *out)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: relaxed_hand_off(int *data, int *ready, int *out)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: count_every_scope(int *counts, unsigned long long *wide, float *total, int *peak)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: count_in_thread_scope(int *count)
//   reads: ctaid.x
//   shared: 0

template <int Store, int Load, int Scope>
__device__ void hand_off(int *data, int *ready, int *out) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    data[0] = 42;  // the value handed off
    __nv_atomic_store_n(ready, 1, Store, Scope);
  }
  if (blockIdx.x == 1 && threadIdx.x == 0) {  // after the producer, as the threads reconverge
    if (__nv_atomic_load_n(ready, Load, Scope))
      out[0] = data[0];  // the value read
  }
}

__global__ void release_acquire(int *data, int *ready, int *out) {
  hand_off<__NV_ATOMIC_RELEASE, __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_DEVICE>(data, ready, out);
}
__global__ void release_acquire_in_block_scope(int *data, int *ready, int *out) {
  hand_off<__NV_ATOMIC_RELEASE, __NV_ATOMIC_ACQUIRE, __NV_THREAD_SCOPE_BLOCK>(data, ready, out);
}
__global__ void relaxed_hand_off(int *data, int *ready, int *out) {
  hand_off<__NV_ATOMIC_RELAXED, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE>(data, ready, out);
}

// Every operation at each scope that holds all the threads it is shared by: no race, and the
// values CUDA's atomics leave.
__global__ void count_every_scope(int *counts, unsigned long long *wide, float *total, int *peak) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  __nv_atomic_fetch_add(&counts[0], 1, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_add(&counts[1], 2, __NV_ATOMIC_SEQ_CST);  // system scope by default
  __nv_atomic_fetch_sub(&counts[2 + blockIdx.x], 1, __NV_ATOMIC_ACQ_REL, __NV_THREAD_SCOPE_BLOCK);
  __nv_atomic_fetch_or(&counts[8], 1 << (t % 31), __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_xor(&counts[9], 1, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_and(&counts[10], ~(1 << (t % 31)), __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_max(&peak[0], t, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_min(&peak[1 + blockIdx.x], -t, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_CLUSTER);
  __nv_atomic_fetch_add(&wide[0], 1ull << 33, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_SYSTEM);
  __nv_atomic_fetch_add(&total[0], 0.5f, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  int expected = 0;
  if (__nv_atomic_compare_exchange_n(&counts[11], &expected, t + 1, false, __NV_ATOMIC_ACQ_REL,
                                     __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE))
    __nv_atomic_exchange_n(&counts[12], t, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);  // the CAS's winner
  __nv_atomic_thread_fence(__NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_DEVICE);
}

// Thread scope holds the calling thread alone: two threads' adds race.
__global__ void count_in_thread_scope(int *count) {
  __nv_atomic_fetch_add(&count[blockIdx.x], 1, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_THREAD);  // a thread's own add
}
