// Block sums: block b writes out[b], which thread b of block b / 256 reads. The launcher
// passes what its caller gives; sums_main.cpp reduces in place (out == in: a race).
__global__ void block_sums(float *out, const float *in, int size) {
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

void reduce(float *out, const float *in, int size) {
  block_sums<<<(size + 255) / 256, 256>>>(out, in, size);
}
