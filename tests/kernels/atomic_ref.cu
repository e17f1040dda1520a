// Release and acquire stated by the code itself: libcu++'s cuda::atomic_ref with a memory
// order and a thread scope, and PTX's st.release / ld.acquire / fence at a scope.
// kernel: ref_handoff(int *data, int *ready, int *out)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: ref_block_scope(int *data, int *ready, int *out)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: ref_relaxed(int *data, int *ready, int *out)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: ptx_handoff(int *data, int *ready, int *out)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: ptx_cta_fence(int *data, volatile int *ready, int *out)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: ptx_vector_status(unsigned int *tile, int *out)
//   reads: tid.x ctaid.x
//   shared: 0
#include <cuda/atomic>

// Block 1 publishes data[0] through the flag; block 0 waits for it, then reads the value.
template <cuda::thread_scope Scope, cuda::memory_order Store, cuda::memory_order Load>
__device__ void hand_over(int *data, int *ready, int *out) {
  cuda::atomic_ref<int, Scope> flag(*ready);
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    data[0] = 7;
    flag.store(1, Store);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    while (flag.load(Load) == 0) {
    }
    out[0] = data[0];
  }
}
__global__ void ref_handoff(int *data, int *ready, int *out) {
  hand_over<cuda::thread_scope_device, cuda::memory_order_release, cuda::memory_order_acquire>(data, ready, out);
}
__global__ void ref_block_scope(int *data, int *ready, int *out) {  // the block scope orders no other block
  hand_over<cuda::thread_scope_block, cuda::memory_order_release, cuda::memory_order_acquire>(data, ready, out);
}
__global__ void ref_relaxed(int *data, int *ready, int *out) {  // a relaxed store releases nothing
  hand_over<cuda::thread_scope_device, cuda::memory_order_relaxed, cuda::memory_order_relaxed>(data, ready, out);
}

__device__ void store_release(int *p, int v) {
  asm volatile("st.release.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ int load_acquire(int *p) {
  int v;
  asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__global__ void ptx_handoff(int *data, int *ready, int *out) {
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    data[0] = 7;
    store_release(ready, 1);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    while (load_acquire(ready) == 0) {
    }
    out[0] = data[0];
  }
}
__global__ void ptx_cta_fence(int *data, volatile int *ready, int *out) {  // fence.cta: this block only
  if (blockIdx.x == 1 && threadIdx.x == 0) {
    data[0] = 7;
    asm volatile("fence.acq_rel.cta;" ::: "memory");
    *ready = 1;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    while (*ready == 0) {
    }
    out[0] = data[0];
  }
}
// A status and its value published together by one relaxed vector store, polled by relaxed
// vector loads (CUB's decoupled look-back): each element is a relaxed atomic, no race.
__global__ void ptx_vector_status(unsigned int *tile, int *out) {
  if (blockIdx.x == 1 && threadIdx.x == 0)
    asm volatile("st.relaxed.gpu.v2.u32 [%0], {%1, %2};" ::"l"(tile), "r"(1u), "r"(42u) : "memory");
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    unsigned int status = 0, value = 0;
    while (status == 0)
      asm volatile("ld.relaxed.gpu.v2.u32 {%0, %1}, [%2];" : "=r"(status), "=r"(value) : "l"(tile) : "memory");
    out[0] = value;
  }
}
