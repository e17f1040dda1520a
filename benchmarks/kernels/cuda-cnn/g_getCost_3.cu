// project: cuda-cnn (table 3)
// bug: g_getCost_3: each thread clears its own shared partial sum, then (after a barrier that
// orders nothing another thread touches) adds its squared weights to it.
// expect: g_getCost_3 redundant-barrier 13
// fixed: g_getCost_3_fixed
#define THREADS 256

__global__ void g_getCost_3(float *cost, const float *weights, float lambda, int wlen) {
  __shared__ float partial[THREADS];
  int tid = threadIdx.x;
  if (blockDim.x > THREADS) return;
  partial[tid] = 0.0f;
  __syncthreads();
  for (int i = tid; i < wlen; i += blockDim.x) partial[tid] += weights[i] * weights[i];
  __syncthreads();
  if (tid == 0) {
    float sum = 0.0f;
    for (int k = 0; k < blockDim.x; ++k) sum += partial[k];
    cost[blockIdx.x] = 0.5f * lambda * sum;
  }
}

__global__ void g_getCost_3_fixed(float *cost, const float *weights, float lambda, int wlen) {
  __shared__ float partial[THREADS];
  int tid = threadIdx.x;
  if (blockDim.x > THREADS) return;
  partial[tid] = 0.0f;
  for (int i = tid; i < wlen; i += blockDim.x) partial[tid] += weights[i] * weights[i];
  __syncthreads();
  if (tid == 0) {
    float sum = 0.0f;
    for (int k = 0; k < blockDim.x; ++k) sum += partial[k];
    cost[blockIdx.x] = 0.5f * lambda * sum;
  }
}
