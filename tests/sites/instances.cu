// Each thread reads its own slot, or (blocks wider than 64) its neighbour's: the barrier is
// redundant in shift<32> and needed in shift<2048>, whose launch (2048 threads a block)
// cannot be made. Built with -DNARROW_ONLY, only shift<32> exists.
template <int BLOCK>
__global__ void shift(const int *in, int *out) {
  __shared__ int s[BLOCK];
  s[threadIdx.x] = in[blockIdx.x * BLOCK + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * BLOCK + threadIdx.x] = s[BLOCK > 64 ? (threadIdx.x + 1) % BLOCK : threadIdx.x];
}

int main() {
  int *in, *out;
  cudaMalloc(&in, 1 << 20);
  cudaMalloc(&out, 1 << 20);
  shift<32><<<4, 32>>>(in, out);
#ifndef NARROW_ONLY
  shift<2048><<<4, 2048>>>(in, out);
#endif
  return 0;
}
