// x[i] = i on the device, from a shared library (tests/nvcc/cmake).
__global__ void identity(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = i;
}

void fill_identity(int *x, int n) { identity<<<(n + 127) / 128, 128>>>(x, n); }
