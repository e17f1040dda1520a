// The block size is the program's argument (256 without one), the grid computed from it.
// Each block sums its slice in place, its first warp ending without a barrier: at any block
// of 64 threads or more the lanes of that warp race on the tail's reads and writes (lockstep
// only before Volta; -D SYNCED orders them); below 64 the tail reads the next block's slice
// while it writes there.
#include <cstdlib>

__global__ void tails(int *data, int *sums, unsigned n) {
  unsigned tid = threadIdx.x;
  int *slice = data + blockIdx.x * blockDim.x;
  if (blockDim.x >= 128 && tid < 64) slice[tid] += slice[tid + 64];
  __syncthreads();
  if (tid < 32) {
#ifdef SYNCED
    int sum = slice[tid] + slice[tid + 32];
    __syncwarp();
    slice[tid] = sum;  // the tail
    __syncwarp();
    sum += slice[tid + 16];
    __syncwarp();
    slice[tid] = sum;
#else
    volatile int *tail = slice;
    tail[tid] += tail[tid + 32];  // the tail
    tail[tid] += tail[tid + 16];
#endif
  }
  if (tid == 0) sums[blockIdx.x] = slice[0];
}

int main(int argc, char **argv) {
  const unsigned n = 1 << 14;
  int threads = argc > 1 ? atoi(argv[1]) : 256;
  int *data, *sums;
  cudaMalloc(&data, n * sizeof(int));
  cudaMalloc(&sums, n * sizeof(int));  // a sum per block, whatever the block size
  tails<<<(n + threads - 1) / threads, threads>>>(data, sums, n);
  cudaDeviceSynchronize();
  return 0;
}
