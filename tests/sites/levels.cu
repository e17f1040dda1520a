// A pass over one level of a pyramid (as SIFT's descriptor pass runs per octave): past the
// last level a block has nothing to do and returns at once. Thread 0 zeroes the block's
// shared total while the others may already add to it: no barrier between (a race that
// holds on every level that does any work).
__global__ void level_pass(float *out, const float *in, int level) {
  __shared__ float total;
  if (level > 3)
    return;  // past the last level
  if (threadIdx.x == 0)
    total = 0.0f;  // the zeroing
  atomicAdd(&total, in[level * blockDim.x + threadIdx.x]);  // the add
  __syncthreads();
  if (threadIdx.x == 0)
    out[blockIdx.x] = total;
}

void run_level(float *out, const float *in, int level) {
  level_pass<<<4, 64>>>(out, in, level);
}
