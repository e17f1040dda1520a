// A dispatcher picks the tile width from the block it is given, as kaldi's cudaF_* wrappers
// do: tile<16> is only launched with 16-thread rows and tile<32> with 32-thread rows, and
// both are correct there. A size guard bounds n. fold<true> is right for even sizes only,
// and the host launches it for powers of two. `unused` is launched by no host code.
#include <cuda_runtime.h>

template <int Width>
__global__ void tile(float *v) {
  __shared__ float row[Width];
  int t = threadIdx.x;
  row[t % Width] = v[blockIdx.x * Width + t];  // two threads share a slot when blockDim.x > Width
  __syncthreads();
  v[blockIdx.x * Width + t] = row[Width - 1 - t % Width];
}

__global__ void fill(int *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (n > 4096) a[0] = i;  // every thread writes a[0], but the host code never passes n > 4096
  else if (i < n) a[i] = n;
}

template <bool Pow2>
__global__ void fold(int *a, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (Pow2) {
    if (i < (n + 1) / 2) a[i] += a[i + n / 2];  // for an odd n the middle element is read and written
  } else if (i < n / 2) {
    a[i] += a[n - 1 - i];
  }
}

__global__ void unused(int *a) {
  a[threadIdx.x / 2] = threadIdx.x;  // neighbours race, in a kernel nothing launches
}

void launch_tiles(dim3 grid, dim3 block, float *v) {
  if (block.x == 16) {
    tile<16><<<grid, block>>>(v);
  } else if (block.x == 32) {
    tile<32><<<grid, block>>>(v);
  }
}

void fill_all(int *a, int n) {
  if (n > 4096) return;
  fill<<<(n + 255) / 256, 256>>>(a, n);
}

bool is_pow2(unsigned int x) { return (x & (x - 1)) == 0; }

void fold_all(int *a, unsigned int n) {
  if (is_pow2(n))
    fold<true><<<(n + 255) / 256, 256>>>(a, n);
  else
    fold<false><<<(n + 255) / 256, 256>>>(a, n);
}
