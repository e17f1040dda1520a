// The host mixes argc into a hash whose every step reads the last one twice: as an
// expression tree the launch's `seed` doubles at each of the 48 steps. `n` is a constant.
__global__ void stir(unsigned *out, int n, unsigned seed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = seed ^ i;
}

int main(int argc, char **argv) {
  unsigned *out, seed = argc;
  int n = 1 << 10;
#define STEP seed = (seed << 3) ^ (seed >> 5) ^ seed;
#define STEP8 STEP STEP STEP STEP STEP STEP STEP STEP
  STEP8 STEP8 STEP8 STEP8 STEP8 STEP8
  cudaMalloc(&out, n * sizeof(unsigned));
  stir<<<(n + 255) / 256, 256>>>(out, n, seed);
  cudaDeviceSynchronize();
  return 0;
}
