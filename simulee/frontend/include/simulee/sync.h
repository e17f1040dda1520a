/* Block barriers and memory fences. __syncthreads itself is a clang builtin. */
#ifndef SIMULEE_SYNC_H
#define SIMULEE_SYNC_H

/* Barrier with a reduction over the predicate of every thread of the block. */
__SIMULEE_DEVICE int __syncthreads_count(int predicate) { return __nvvm_bar0_popc(predicate); }
__SIMULEE_DEVICE int __syncthreads_and(int predicate) { return __nvvm_bar0_and(predicate); }
__SIMULEE_DEVICE int __syncthreads_or(int predicate) { return __nvvm_bar0_or(predicate); }

__SIMULEE_DEVICE void __threadfence_block(void) { __nvvm_membar_cta(); }
__SIMULEE_DEVICE void __threadfence(void) { __nvvm_membar_gl(); }
__SIMULEE_DEVICE void __threadfence_system(void) { __nvvm_membar_sys(); }

/* Named barriers are modelled as the block's barrier: a partial count (fewer threads than
   the block) is not. */
__SIMULEE_DEVICE void __barrier_sync(unsigned int id) { (void)id; __syncthreads(); }
__SIMULEE_DEVICE void __barrier_sync_count(unsigned int id, unsigned int count) {
  (void)id;
  (void)count;
  __syncthreads();
}

/* A barrier across every block of the grid (cooperative launch); executed by the interpreter. */
extern "C" __device__ void __simulee_grid_sync(void);

#endif
