// Locks, spins and look-back between threads that wait for each other through memory
// (DESIGN.md, "Bug semantics" and "Forward progress"): each correct kernel beside its
// broken twins.
// kernel: locked(int *total, int *count)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: unfenced_lock(int *total, int *count)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: block_lock_across_blocks(int *total, int *count)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: wait_for_last(int *data, volatile int *ready, int *out)
//   reads: tid.x ctaid.x nctaid.x
//   shared: 0
// kernel: wait_plain(int *data, int *ready, int *out)
//   reads: tid.x ctaid.x nctaid.x
//   shared: 0
// kernel: never_set(volatile int *ready, int *out)
//   reads: tid.x
//   shared: 0
// kernel: warp_turns(int *out)
//   reads: tid.x ctaid.x
//   shared: 8
// kernel: unfenced_warp_turns(int *out)
//   reads: tid.x ctaid.x
//   shared: 8
// kernel: warp_lock(int *total)
//   reads: tid.x
//   shared: 0
// kernel: unsynced_warp_lock(int *total)
//   reads: tid.x
//   shared: 0
// kernel: lookback_scan(const int *in, int *out, int *value, volatile int *status)
//   reads: tid.x ctaid.x ntid.x
//   shared: 260
// kernel: unfenced_lookback_scan(const int *in, int *out, int *value, volatile int *status)
//   reads: tid.x ctaid.x ntid.x
//   shared: 260
// kernel: counted_neighbours(int *out, unsigned int *count)
//   reads: tid.x ctaid.x ntid.x
//   shared: 256

// A global spin lock: atomicCAS acquires, a fence and atomicExch release. Without the
// release fence the next holder may not see the sums; a block-scoped CAS locks nothing
// for other blocks.
__device__ int lock = 0;
__device__ int block_lock = 0;
template <int Variant>
__device__ void locked_add(int *total, int *count) {
  if (threadIdx.x == 0) {
    if (Variant == 2) {
      while (atomicCAS_block(&block_lock, 0, 1) != 0) {
      }
    } else {
      while (atomicCAS(&lock, 0, 1) != 0) {
      }
    }
    __threadfence();
    *total += blockIdx.x;
    *count += 1;
    if (Variant != 1) __threadfence();
    if (Variant == 2)
      atomicExch_block(&block_lock, 0);
    else
      atomicExch(&lock, 0);
  }
}
__global__ void locked(int *total, int *count) { locked_add<0>(total, count); }
__global__ void unfenced_lock(int *total, int *count) { locked_add<1>(total, count); }
__global__ void block_lock_across_blocks(int *total, int *count) { locked_add<2>(total, count); }

// Block 0 waits for a value the last block produces: it ends only if blocks interleave.
// Through a plain flag, the flag and the value race.
template <typename Flag>
__device__ void wait_for(int *data, Flag *ready, int *out) {
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) {
    data[0] = 7;
    __threadfence();
    *ready = 1;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    while (*ready == 0) {
    }
    out[0] = data[0];
  }
}
__global__ void wait_for_last(int *data, volatile int *ready, int *out) { wait_for(data, ready, out); }
__global__ void wait_plain(int *data, int *ready, int *out) { wait_for(data, ready, out); }

// Waits for a flag nobody sets: a deadlock.
__global__ void never_set(volatile int *ready, int *out) {
  if (threadIdx.x == 0) {
    while (*ready == 0) {
    }
  }
  out[threadIdx.x] = 1;
}

// The first lane of each warp adds to a block's sum under a shared-memory lock.
template <bool Fence>
__device__ void take_turns(int *out) {
  __shared__ int mutex;
  __shared__ int sum;
  if (threadIdx.x == 0) {
    mutex = 0;
    sum = 0;
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0) {
    while (atomicCAS_block(&mutex, 0, 1) != 0) {
    }
    __threadfence_block();
    sum += threadIdx.x;
    if (Fence) __threadfence_block();
    atomicExch_block(&mutex, 0);
  }
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}
__global__ void warp_turns(int *out) { take_turns<true>(out); }
__global__ void unfenced_warp_turns(int *out) { take_turns<false>(out); }

// One lane takes a global lock for its warp; __syncwarp hands it to the other lanes and
// back. Without the first __syncwarp the other lanes do not hold the lock.
__device__ int warp_lock_word = 0;
template <bool Synced>
__device__ void warp_locked(int *total) {
  int lane = threadIdx.x % 32;
  if (lane == 0) {
    while (atomicCAS(&warp_lock_word, 0, 1) != 0) {
    }
  }
  if (Synced) __syncwarp();
  total[lane] += 1;
  __syncwarp();
  if (lane == 0) {
    __threadfence();
    atomicExch(&warp_lock_word, 0);
  }
}
__global__ void warp_lock(int *total) { warp_locked<true>(total); }
__global__ void unsynced_warp_lock(int *total) { warp_locked<false>(total); }

// Decoupled look-back (a single-pass prefix scan): each tile publishes its aggregate and
// its inclusive prefix behind a status flag (1: aggregate, 2: prefix) and adds up its
// predecessors' until one has its prefix.
template <bool Fence>
__device__ void look_back(const int *in, int *out, int *value, volatile int *status) {
  __shared__ int s[64];
  __shared__ int exclusive;
  int tile = blockIdx.x, t = threadIdx.x, i = tile * blockDim.x + t;
  s[t] = in[i];
  __syncthreads();
  for (int offset = 1; offset < blockDim.x; offset *= 2) {
    int v = t >= offset ? s[t - offset] : 0;
    __syncthreads();
    s[t] += v;
    __syncthreads();
  }
  if (t == 0) {
    int aggregate = s[blockDim.x - 1], prefix = 0;
    value[2 * tile] = aggregate;
    if (Fence) __threadfence();
    status[tile] = 1;
    for (int p = tile - 1; p >= 0; p--) {
      int flag;
      while ((flag = status[p]) == 0) {
      }
      prefix += value[2 * p + flag - 1];
      if (flag == 2) break;
    }
    value[2 * tile + 1] = prefix + aggregate;
    if (Fence) __threadfence();
    status[tile] = 2;
    exclusive = prefix;
  }
  __syncthreads();
  out[i] = s[t] + exclusive;
}
__global__ void lookback_scan(const int *in, int *out, int *value, volatile int *status) {
  look_back<true>(in, out, value, status);
}
__global__ void unfenced_lookback_scan(const int *in, int *out, int *value, volatile int *status) {
  look_back<false>(in, out, value, status);
}

// A barrier missing beside an atomic counter: a plain race between warps, which the counter
// (no flag anyone waits on) has nothing to do with.
__global__ void counted_neighbours(int *out, unsigned int *count) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  atomicAdd(count, 1);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 32) % blockDim.x];
}
