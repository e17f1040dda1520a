// One barrier of each verdict (simulee audit-barriers):
//   line 11 needed: line 12 reads the slot the next thread wrote at line 10
//   line 13 redundant: each thread reads back only its own slot of mine
//   line 16 not-covered: no block has more than 1024 threads
//   line 19 divergent: only the first 16 threads of a block reach it
__global__ void phases(const float *in, float *out) {
  __shared__ float shared_by_all[1024], mine[1024];
  int t = threadIdx.x;
  float value = in[t];
  shared_by_all[t] = value;
  __syncthreads();
  mine[t] = shared_by_all[(t + 1) % blockDim.x];
  __syncthreads();
  float own = mine[t];
  if (t >= 2048) {
    __syncthreads();
  }
  if (t < 16) {
    __syncthreads();
  }
  out[t] = own;
}
