// Each thread adds its right neighbour's element, which that neighbour overwrites: a data
// race (read-write, global) between the read and the write of line 6, across warps and
// blocks.
__global__ void add_right(float *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n) data[i] = data[i] + data[i + 1];
}
