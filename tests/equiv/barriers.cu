// Barriers the race judgment calls redundant, checked by removing them: the second barrier
// of count_then_publish orders only atomics (which never race), yet without it thread 0
// publishes the count before the later warps added to it (needed); scale_twice's barrier
// orders nothing the outputs depend on (redundant, removal checked).
__global__ void count_then_publish(int *out) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  int sum = 0;
  for (int k = 0; k < threadIdx.x / 32 * 8; ++k) sum += k;  // later warps work longer
  atomicAdd(&count, 1 + (sum & 0));
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = atomicAdd(&count, 0);
}

__global__ void scale_twice(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
  __syncthreads();
  if (i < n) out[i] += 1.0f;
}
