// nvcc accepts a sized extern __shared__ array; clang wants it unsized.
__global__ void transpose_tile(const float *in, float *out) {
  extern __shared__ float tile[32][33];
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
