// project: kaldi (table 3)
// bug: _softmax_reduce: between writing each exponential to the output row and reading it
// back for the sum, a barrier orders elements that only their own thread touches.
// expect: _softmax_reduce redundant-barrier 19
// fixed: _softmax_reduce_fixed
#define THREADS 256

__global__ void _softmax_reduce(float *y, const float *x, int cols) {
  __shared__ float aux[THREADS];
  int tid = threadIdx.x, row = blockIdx.x;
  if (blockDim.x > THREADS) return;
  float mine = -1e30f;
  for (int j = tid; j < cols; j += blockDim.x) mine = fmaxf(mine, x[row * cols + j]);
  aux[tid] = mine;
  __syncthreads();
  float max = aux[0];
  for (int k = 1; k < blockDim.x; ++k) max = fmaxf(max, aux[k]);
  for (int j = tid; j < cols; j += blockDim.x) y[row * cols + j] = expf(x[row * cols + j] - max);
  __syncthreads();
  float sum = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x) sum += y[row * cols + j];
  __syncthreads();
  aux[tid] = sum;
  __syncthreads();
  float total = 0.0f;
  for (int k = 0; k < blockDim.x; ++k) total += aux[k];
  for (int j = tid; j < cols; j += blockDim.x) y[row * cols + j] /= total;
}

__global__ void _softmax_reduce_fixed(float *y, const float *x, int cols) {
  __shared__ float aux[THREADS];
  int tid = threadIdx.x, row = blockIdx.x;
  if (blockDim.x > THREADS) return;
  float mine = -1e30f;
  for (int j = tid; j < cols; j += blockDim.x) mine = fmaxf(mine, x[row * cols + j]);
  aux[tid] = mine;
  __syncthreads();
  float max = aux[0];
  for (int k = 1; k < blockDim.x; ++k) max = fmaxf(max, aux[k]);
  float sum = 0.0f;
  for (int j = tid; j < cols; j += blockDim.x) {
    y[row * cols + j] = expf(x[row * cols + j] - max);
    sum += y[row * cols + j];
  }
  __syncthreads();
  aux[tid] = sum;
  __syncthreads();
  float total = 0.0f;
  for (int k = 0; k < blockDim.x; ++k) total += aux[k];
  for (int j = tid; j < cols; j += blockDim.x) y[row * cols + j] /= total;
}
