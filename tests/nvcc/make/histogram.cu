// A 16-bin histogram, block-private in shared memory. RACY: the shared bins are counted with
// a plain increment, which threads of a block race on; otherwise with atomicAdd.
#include "histogram.h"

__global__ void count(const unsigned char *data, int n, unsigned *bins) {
    __shared__ unsigned local[16];
    if (threadIdx.x < 16) local[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
#ifdef RACY
        local[data[i] % 16] += 1;
#else
        atomicAdd(&local[data[i] % 16], 1u);
#endif
    }
    __syncthreads();
    if (threadIdx.x < 16) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

int histogram(const unsigned char *data, int n, unsigned *bins) {
    unsigned char *d_data;
    unsigned *d_bins;
    cudaMalloc(&d_data, n);
    cudaMalloc(&d_bins, 16 * sizeof(unsigned));
    cudaMemcpy(d_data, data, n, cudaMemcpyHostToDevice);
    cudaMemset(d_bins, 0, 16 * sizeof(unsigned));
    count<<<4, 128>>>(d_data, n, d_bins);
    cudaMemcpy(bins, d_bins, 16 * sizeof(unsigned), cudaMemcpyDeviceToHost);
    cudaFree(d_data);
    cudaFree(d_bins);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
