// A kernel right only for blocks of at most 64 threads, which is how its host code launches
// it: proved under its launch site, racy without it (a block of 65 writes the next row).
__global__ void rows(int *x, int n) {
  int i = blockIdx.x * 64 + threadIdx.x;
  if (i < n) x[i] = threadIdx.x;
}

int main() {
  int n = 1000, *x;
  cudaMalloc(&x, n * sizeof(int));
  rows<<<(n + 63) / 64, 64>>>(x, n);
  cudaDeviceSynchronize();
  return 0;
}
