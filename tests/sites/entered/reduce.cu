// `reduce_all` launches its reduction until one value is left, the count its loop carries
// starting at its parameter `size`, which main.cpp passes. In place (out as both input and
// output), block b's write of out[b] races with block 0's read of it; -D PING_PONG reads
// from a second buffer.
__global__ void partial_sums(float *out, const float *in, unsigned size) {
  extern __shared__ float cache[];
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  cache[threadIdx.x] = i < size ? in[i] : 0.f;  // the read
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) cache[threadIdx.x] += cache[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = cache[0];  // the write
}

void reduce_all(float *out, float *in, int threads, int size) {
  cudaMemcpy(out, in, size * sizeof(float), cudaMemcpyDeviceToDevice);
  while (size > 1) {
    int blocks = (size + threads - 1) / threads;
#ifdef PING_PONG
    partial_sums<<<blocks, threads, threads * sizeof(float)>>>(in, out, size);
    cudaMemcpy(out, in, blocks * sizeof(float), cudaMemcpyDeviceToDevice);
#else
    partial_sums<<<blocks, threads, threads * sizeof(float)>>>(out, out, size);
#endif
    size = blocks;
  }
}

