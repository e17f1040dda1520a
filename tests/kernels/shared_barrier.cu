// A barrier in a device function three kernels share: own_slot and own_slot_again read
// only what their thread wrote (the barrier is redundant there), neighbour_slot reads the
// neighbour's write (it needs the barrier). Over all three, the barrier is needed.
// kernel: own_slot(const float *in, float *out)
//   reads: tid.x ntid.x
//   shared: 256
// kernel: own_slot_again(const float *in, float *out)
//   reads: tid.x ntid.x
//   shared: 256
// kernel: neighbour_slot(const float *in, float *out)
//   reads: tid.x ntid.x
//   shared: 256
__device__ void stage(float *tile, const float *in, float *out, int shift) {
  tile[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = tile[(threadIdx.x + shift) % blockDim.x];
}

__global__ void own_slot(const float *in, float *out) {
  __shared__ float tile[64];
  stage(tile, in, out, 0);
}

__global__ void own_slot_again(const float *in, float *out) {
  __shared__ float tile[64];
  stage(tile, in, out + 64, 0);
}

__global__ void neighbour_slot(const float *in, float *out) {
  __shared__ float tile[64];
  stage(tile, in, out, 1);
}

void run(const float *in, float *out) {
  own_slot<<<1, 64>>>(in, out);
  own_slot_again<<<1, 64>>>(in, out);
  neighbour_slot<<<1, 64>>>(in, out);
}
