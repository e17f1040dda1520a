// A row stride the kernel requires to be one value, beside a size it never reads: the
// search keeps the stride as required (rows are padded apart only past the sizes a kernel
// uses). Needs --gpuverify-annotations; launched as --grid 4 --block 32,4.
__global__ void column_sums(unsigned *img, int width, int height) {
  __requires(width == 128);
  __shared__ unsigned partial[4][32];
  int column = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned total = 0;
  for (int step = 0; step < 8; step++) {
    unsigned *cell = img + (threadIdx.y + step * 4) * width + column;
    partial[threadIdx.y][threadIdx.x] = *cell;
    if (threadIdx.y > 0) total += partial[threadIdx.y - 1][threadIdx.x];  // the row above's, unsynchronized: a race
    *cell = total;
  }
}
