// GPUVerify's axioms: a thread for which one is false is no thread of the launch. Only the
// threads of block 1 store their index to one word: a race between them (the axiom leaves a
// block's worth of threads). With the axiom naming one thread, nothing races.
__axiom(blockIdx.x == 1);
#ifdef ONE_THREAD
__axiom(threadIdx.x == 0);
#endif

__global__ void store_index(int *out) {
  if (blockIdx.x == 1)
    out[0] = threadIdx.x;  // the store
  else
    out[blockIdx.x] = 1;   // elsewhere, if any thread of another block ran
}
