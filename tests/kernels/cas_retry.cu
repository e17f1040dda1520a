// A compare-and-swap retry loop seeded by a plain read: other threads' CAS may make what it
// read stale, and then its own CAS fails and it retries with what the word holds, so no
// update is lost (llm.c's bfloat16 accumulation before sm_90 atomics). A plain read whose
// value is kept instead, beside a CAS that expects a constant, races as any read does.
// kernel: cas_add(float *total, const float *x)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: read_then_cas(unsigned int *word, unsigned int *seen)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0

__global__ void cas_add(float *total, const float *x) {
  unsigned int *word = (unsigned int *)total;
  float add = x[blockIdx.x * blockDim.x + threadIdx.x];
  float guess = *total;  // the guess: a plain read another thread's CAS may make stale
  unsigned int expected = __float_as_uint(guess);
  unsigned int old = atomicCAS(word, expected, __float_as_uint(guess + add));
  while (old != expected) {  // stale: retry with what the word holds
    expected = old;
    old = atomicCAS(word, expected, __float_as_uint(__uint_as_float(expected) + add));
  }
}

__global__ void read_then_cas(unsigned int *word, unsigned int *seen) {
  seen[blockIdx.x * blockDim.x + threadIdx.x] = *word;  // kept: what another thread's CAS is doing
  atomicCAS(word, 0u, 1u);
}
