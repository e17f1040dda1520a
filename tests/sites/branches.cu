// Launches -O1 folds together: one configuration pushed for either kernel of an if/else,
// and a block as wide as the warp the device reports.

__global__ void forward(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 1.0f;
}

__global__ void backward(float *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = 2.0f;
}

void step(dim3 grid, dim3 block, float *p, int n, bool back) {
  if (back)
    backward<<<grid, block>>>(p, n);
  else
    forward<<<grid, block>>>(p, n);
}

// One warp sums 32 values: correct only for blocks of at most 32 threads.
__global__ void warp_sum(float *out, const float *in) {
  __shared__ float s[32];
  s[threadIdx.x] = in[threadIdx.x];
  __syncwarp();
  if (threadIdx.x == 0) {
    float total = 0;
    for (int i = 0; i < 32; i++) total += s[i];
    *out = total;
  }
}

void sum(float *out, const float *in) {
  int warp = 0;
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0);
  warp_sum<<<1, warp>>>(out, in);
}
