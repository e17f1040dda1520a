// Volatile is not atomic: a volatile access synchronizes only as the flag of a release and
// an acquire. Volatile data that nothing orders races, and an atomic against a plain or
// volatile access of another thread is a race; each broken kernel beside its correct twin.
// kernel: exchange_vs_volatile(volatile int *slot)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: exchange_vs_exchange(int *slot)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: volatile_counter(volatile int *count)
//   reads:
//   shared: 0
// kernel: locked(volatile int *total)
//   reads: tid.x
//   shared: 0
// kernel: unfenced_unlock(volatile int *total)
//   reads: tid.x
//   shared: 0
// kernel: block_fenced_lock(volatile int *total)
//   reads: tid.x
//   shared: 0
// kernel: block_fenced_acquire(volatile int *total)
//   reads: tid.x
//   shared: 0
// kernel: flagged(volatile int *data, int *out)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: unfenced_flag(volatile int *data, int *out)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: atomic_vs_plain_in_a_warp(int *counter)
//   reads: tid.x
//   shared: 0
// kernel: relayed(volatile int *count)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: relayed_block_first(volatile int *count)
//   reads: tid.x ctaid.x
//   shared: 0

__device__ int lock_word;
__device__ volatile int ready;
__device__ int relay_flag;

// Block 0 exchanges atomically, block 1 stores through a volatile pointer: a race.
__global__ void exchange_vs_volatile(volatile int *slot) {
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0)
      atomicExch((int *)slot, 1);
    else
      *slot = 2;  // a volatile store against another block's atomic
  }
}

__global__ void exchange_vs_exchange(int *slot) {
  if (threadIdx.x == 0) atomicExch(slot, blockIdx.x);
}

// Every thread adds one through a volatile pointer: volatile makes no read-modify-write atomic.
__global__ void volatile_counter(volatile int *count) {
  *count = *count + 1;  // volatile, not atomic
}

// One thread of each block adds to a total under a spin lock. Fence: 1 a device fence
// after taking the lock and before giving it back, 0 none, 2 block fences only, 3 a block
// fence after taking it (it acquires for its block only) and a device fence before giving it back.
template <int Fence>
__device__ void add_locked(volatile int *total) {
  if (threadIdx.x == 0) {
    while (atomicCAS(&lock_word, 0, 1) != 0) {
    }
    if (Fence == 1) __threadfence();
    if (Fence >= 2) __threadfence_block();
    *total = *total + 1;  // the critical section, on volatile data
    if (Fence == 1 || Fence == 3) __threadfence();
    if (Fence == 2) __threadfence_block();
    atomicExch(&lock_word, 0);
  }
}

__global__ void locked(volatile int *total) { add_locked<1>(total); }
__global__ void unfenced_unlock(volatile int *total) { add_locked<0>(total); }
__global__ void block_fenced_lock(volatile int *total) { add_locked<2>(total); }
__global__ void block_fenced_acquire(volatile int *total) { add_locked<3>(total); }

// Block 0 publishes data behind a volatile flag; block 1 spins on the flag, then reads.
template <bool Fence>
__device__ void publish(volatile int *data, int *out) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    data[0] = 42;  // the data, volatile too
    if (Fence) __threadfence();
    ready = 1;
  } else {
    while (ready == 0) {
    }
    out[0] = data[0];
  }
}

__global__ void flagged(volatile int *data, int *out) { publish<true>(data, out); }
__global__ void unfenced_flag(volatile int *data, int *out) { publish<false>(data, out); }

// Lane 0 resets a counter the other lanes of its warp add to: a race whatever the warp model.
__global__ void atomic_vs_plain_in_a_warp(int *counter) {
  if (threadIdx.x == 0) counter[1] = 0;  // a plain write beside the warp's atomics
  atomicAdd(&counter[1], 1);
}

// A count handed along: block 0's thread 0 adds and releases it to block 1's thread 0, which
// takes it (no fence after its spin), adds, and hands it on to thread 32 of its block with a
// block fence: the release of that handover, no bound on the acquire before it. DeviceFirst:
// the first release has a device fence; without, a block fence only: a race across blocks.
template <bool DeviceFirst>
__device__ void relay(volatile int *count) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    *count = *count + 1;  // the first add
    if (DeviceFirst)
      __threadfence();
    else
      __threadfence_block();
    atomicExch(&relay_flag, 1);
  } else if (blockIdx.x == 1 && threadIdx.x == 0) {
    while (atomicAdd(&relay_flag, 0) != 1) {
    }
    *count = *count + 1;  // the second add, after block 0's
    __threadfence_block();
    atomicExch(&relay_flag, 2);
  } else if (blockIdx.x == 1 && threadIdx.x == 32) {
    while (atomicAdd(&relay_flag, 0) != 2) {
    }
    *count = *count + 1;
  }
}

__global__ void relayed(volatile int *count) { relay<true>(count); }
__global__ void relayed_block_first(volatile int *count) { relay<false>(count); }
