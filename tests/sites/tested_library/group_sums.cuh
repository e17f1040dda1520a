// Sums of groups of x, a group per row of the block and four rounds of rows: a tree
// reduction ordered by __syncwarp alone, so a group wider than a warp races with the next
// round's loads. `Tag` only tells instances apart (halving.cu launches two).
template <int Tag>
__global__ void group_sums(float *y, const float *x, int group_size) {
  __shared__ float partial[256];
  int tid = threadIdx.y * blockDim.x + threadIdx.x;
  for (int round = 0; round < 4; round++) {
    int group = round * blockDim.y + threadIdx.y;
    partial[tid] = x[group * group_size + threadIdx.x % group_size];  // the group's values
    __syncthreads();
    for (int shift = blockDim.x / 2; shift > 0; shift >>= 1) {
      if (threadIdx.x < shift) partial[tid] += partial[tid + shift];
      __syncwarp();  // orders one warp: a group wider than a warp races with the next round's
    }
    if (threadIdx.x == 0) y[group] = partial[tid];
  }
}
