// A block-sum reduction whose launcher reduces in place: block b writes out[b], which
// thread b of block b / 256 reads; no order between blocks makes that a race. `size` is
// the launcher's parameter, which no caller in the file fixes (it is searched).
__global__ void block_sums(float *out, const float *in, unsigned int size) {
  extern __shared__ float partial[];
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < size ? in[i] : 0.f;  // the read
  __syncthreads();
  for (unsigned int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];  // the write
}

void reduce_in_place(float *data, int size) {
  while (size > 1) {
    int blocks = (size + 255) / 256;
    block_sums<<<blocks, 256, 256 * sizeof(float)>>>(data, data, size);
    size = blocks;
  }
}
