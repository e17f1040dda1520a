// Bitonic sort of one block's worth of keys in shared memory (blockDim.x a power of two).
// kernel: bitonic_sort(float *keys)
//   reads: tid.x ntid.x
//   shared: 4096

__global__ void bitonic_sort(float *keys) {
  __shared__ float shared[1024];
  unsigned int t = threadIdx.x, n = blockDim.x;
  shared[t] = keys[t];
  __syncthreads();
  for (unsigned int size = 2; size <= n; size <<= 1) {
    for (unsigned int stride = size >> 1; stride > 0; stride >>= 1) {
      unsigned int partner = t ^ stride;
      if (partner > t) {
        bool ascending = (t & size) == 0;
        float mine = shared[t], theirs = shared[partner];
        if ((mine > theirs) == ascending) {
          shared[t] = theirs;
          shared[partner] = mine;
        }
      }
      __syncthreads();
    }
  }
  keys[t] = shared[t];
}
