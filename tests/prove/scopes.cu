#include <cuda/atomic>

// Scoped synchronization for `simulee prove` and `simulee check` (tests/test_prove.py): an
// atomic or fence orders only the threads inside its scope. Racy kernels are never proved.

// Block 0 and block 1 each exchange the same word with a block-scoped atomic: nothing orders
// the two blocks (a scoped race).
__global__ void exchange_across_blocks(int *data) {
  if (threadIdx.x == 0) {
    if (blockIdx.x == 0)
      atomicExch_block(&data[0], 1);  // block 0's exchange
    else if (blockIdx.x == 1)
      atomicExch_block(&data[0], 2);  // block 1's exchange
  }
}

// Every block counts into a word of its own: a block scope is wide enough.
__global__ void count_within_blocks(int *counts) {
  atomicAdd_block(&counts[blockIdx.x], 1);
}

// The same in shared memory, which only the block sees.
__global__ void count_in_shared(int *counts) {
  __shared__ int total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  atomicAdd_block(&total, 1);
  __syncthreads();
  if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

// Every thread of every block counts into one word with device- and system-scoped atomics.
__global__ void count_device(int *count, int *other) {
  atomicAdd(&count[0], 1);
  atomicAdd_system(&other[0], 1);
}

// Each word counted by two blocks at block scope: the blocks race.
__global__ void count_across_blocks(int *count) {
  atomicAdd_block(&count[blockIdx.x / 2], 1);  // every block's add
}

// A block-scoped add beside a device-scoped one: the narrower scope decides.
__global__ void mixed_scopes(int *count) {
  if (blockIdx.x == 0)
    atomicAdd(&count[0], 1);
  else
    atomicAdd_block(&count[0], 1);  // orders nothing with block 0's
}

// A plain read beside another thread's atomic: a data race whatever the scope.
__global__ void peek_beside_atomic(int *count, int *seen) {
  if (threadIdx.x == 0)
    atomicAdd(&count[0], 1);  // thread 0's add
  else
    seen[blockIdx.x * blockDim.x + threadIdx.x] = count[0];  // reads what thread 0 adds to
}

// A libcu++ reference of block scope, read and written by different blocks.
__global__ void reference_across_blocks(int *data, int *seen) {
  cuda::atomic_ref<int, cuda::thread_scope_block> word(data[0]);
  if (threadIdx.x == 0 && blockIdx.x == 0)
    word.store(1, cuda::memory_order_relaxed);  // block 0 writes
  if (threadIdx.x == 0 && blockIdx.x == 1)
    seen[0] = word.load(cuda::memory_order_relaxed);  // block 1 reads
}

// Atomic loads of block scope in every block, which nothing writes: two reads never race.
__global__ void loads_across_blocks(int *data, int *seen) {
  cuda::atomic_ref<int, cuda::thread_scope_block> word(data[0]);
  if (threadIdx.x == 0)
    seen[blockIdx.x] = word.load(cuda::memory_order_relaxed);
}

// Block 0 publishes a value through a flag after a device fence; block 1 waits for the flag,
// then reads the value. Race-free, but only through memory: the prover does not follow it.
__global__ void publish(int *data, volatile int *flag) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    data[0] = 42;
    __threadfence();
    *flag = 1;
  }
  if (threadIdx.x == 0 && blockIdx.x == 1) {
    while (*flag == 0) {
    }
    __threadfence();
    data[1] = data[0];
  }
}

// The same with block fences, which cannot order two blocks: a scoped race.
__global__ void publish_in_block_scope(int *data, volatile int *flag) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    data[0] = 42;  // published under a block fence
    __threadfence_block();
    *flag = 1;
  }
  if (threadIdx.x == 0 && blockIdx.x == 1) {
    while (*flag == 0) {
    }
    __threadfence_block();
    data[1] = data[0];  // read under a block fence
  }
}

// A lock of device scope around a plain update: race-free through memory only.
__global__ void locked_total(int *lock, int *total) {
  if (threadIdx.x == 0) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *total += blockIdx.x;
    __threadfence();
    atomicExch(lock, 0);
  }
}

// The same lock at block scope: blocks enter together (a scoped race on the total).
__global__ void locked_total_in_block_scope(int *lock, int *total) {
  if (threadIdx.x == 0) {
    while (atomicCAS_block(lock, 0, 1) != 0) {
    }
    __threadfence_block();
    *total += blockIdx.x;  // two blocks update the total at once
    __threadfence_block();
    atomicExch_block(lock, 0);
  }
}

// A cluster-scoped atomic of inline PTX: a launch without clusters makes every block a cluster
// of its own, so the blocks race.
__global__ void cluster_across_blocks(int *count) {
  int old, *word = count + blockIdx.x / 2;
  asm volatile("atom.relaxed.cluster.global.add.s32 %0, [%1], 1;" : "=r"(old) : "l"(word) : "memory");  // cluster
}

// The same at the scope of the device (.gpu): every block is inside it.
__global__ void gpu_scope_counter(int *count) {
  int old, *word = count + blockIdx.x / 2;
  asm volatile("atom.relaxed.gpu.global.add.s32 %0, [%1], 1;" : "=r"(old) : "l"(word) : "memory");
}
