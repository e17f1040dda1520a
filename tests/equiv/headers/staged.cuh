// A device function whose race lies in this header: fix, given the .cu file, must not edit it.
__device__ int neighbour_of(int *tile, int value) {
  tile[threadIdx.x] = value;
  return tile[(threadIdx.x + 1) % blockDim.x];
}
