// Shift an array one place right. RACY: every thread reads x[i] while its neighbour writes
// it (a data race between warps); otherwise through shared memory with a barrier between.
#include <cstdio>
#include <cstdlib>

void fill_identity(int *x, int n);  // identity.cu, a shared library

__global__ void shift(int *x, int n) {
    int i = threadIdx.x;
#ifdef RACY
    if (i + 1 < n) x[i + 1] = x[i];
#else
    __shared__ int staged[1024];
    if (i < n) staged[i] = x[i];
    __syncthreads();
    if (i + 1 < n) x[i + 1] = staged[i];
#endif
}

__global__ void rotate_scaled(float *x, float by, int n) {  // no test launches it; racy (a neighbour's read)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[(i + 1) % n] * by;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 64;
    int *x;
    cudaMallocManaged(&x, n * sizeof(int));
    fill_identity(x, n);
    shift<<<1, n>>>(x, n);
    cudaDeviceSynchronize();
    printf("x[%d] = %d\n", n - 1, x[n - 1]);
    cudaFree(x);
    return 0;
}
