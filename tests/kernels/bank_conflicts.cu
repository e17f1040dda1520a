// Shared-memory access patterns with known bank-conflict degrees (a warp of 32 lanes, 32
// banks of 4-byte words). Each kernel reads its pattern once; launched with 32 threads.
// kernel: unit_stride(float *out)
//   reads: tid.x
//   shared: 256
// kernel: stride_two(float *out)
//   reads: tid.x
//   shared: 256
// kernel: column_of_tile(float *out)
//   reads: tid.x
//   shared: 4096
// kernel: column_of_padded_tile(float *out)
//   reads: tid.x
//   shared: 4224
// kernel: broadcast(float *out)
//   reads: tid.x
//   shared: 128
// kernel: doubles(double *out)
//   reads: tid.x
//   shared: 256

__global__ void unit_stride(float *out) {
  __shared__ float s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];  // consecutive words: one pass
}

__global__ void stride_two(float *out) {
  __shared__ float s[64];
  s[threadIdx.x] = threadIdx.x;
  s[threadIdx.x + 32] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[2 * threadIdx.x];  // stride 2: two words per bank
}

__global__ void column_of_tile(float *out) {
  __shared__ float tile[32][32];
  for (int r = 0; r < 32; r++) tile[r][threadIdx.x] = r;
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][0];  // a column: every lane in bank 0
}

__global__ void column_of_padded_tile(float *out) {
  __shared__ float tile[32][33];
  for (int r = 0; r < 32; r++) tile[r][threadIdx.x] = r;
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][0];  // padded by one word: 32 banks
}

__global__ void broadcast(float *out) {
  __shared__ float s[32];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[0];  // one word for all: a broadcast
}

__global__ void doubles(double *out) {
  __shared__ double s[32];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];  // 8 bytes a lane: two phases of 16 lanes, no conflict
}
