// A launch of many blocks (the grid a command-line argument gives), each summing its
// elements in shared memory. With -D LAST_BLOCK_RACES the last block skips the barrier
// between its tree's steps, and block 0 writes the element the last block reads first.
#include <cstdio>
#include <cstdlib>

#ifndef THREADS
#define THREADS 128  // a block's threads, a power of two
#endif

__global__ void block_sums(const int *in, int *sums, int *scratch) {
    __shared__ int part[THREADS];
    int t = threadIdx.x, gid = blockIdx.x * blockDim.x + t;
    part[t] = in[gid];
    __syncthreads();
    for (int step = THREADS / 2; step > 0; step /= 2) {
        if (t < step) part[t] += part[t + step];
#ifdef LAST_BLOCK_RACES
        if (blockIdx.x != gridDim.x - 1)
#endif
        __syncthreads();
    }
    if (t == 0) sums[blockIdx.x] = part[0];
#ifdef LAST_BLOCK_RACES
    if (blockIdx.x == 0 && t == 0) scratch[gridDim.x - 1] = 1;
    if (blockIdx.x == gridDim.x - 1 && t == 0) sums[0] += scratch[blockIdx.x];
#endif
}

int main(int argc, char **argv) {
    int blocks = argc > 1 ? atoi(argv[1]) : 64, n = blocks * THREADS;
    int *in, *sums, *scratch;
    cudaMallocManaged(&in, n * sizeof(int));
    cudaMallocManaged(&sums, blocks * sizeof(int));
    cudaMallocManaged(&scratch, blocks * sizeof(int));
    for (int i = 0; i < n; i++) in[i] = 1;
    cudaMemset(scratch, 0, blocks * sizeof(int));
    block_sums<<<blocks, THREADS>>>(in, sums, scratch);
    cudaDeviceSynchronize();
    printf("last block: %d\n", sums[blocks - 1]);
    return 0;
}
