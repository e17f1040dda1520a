// A column filter whose image pitch the kernel states (__requires(pitch == 3072), as
// GPUVerify's copy of cuda-samples' convolutionSeparable does): the search takes the pitch
// as stated instead of searching values every launch would break. Without the barrier its
// tile's rows race; with -D SYNCED they do not. Needs --gpuverify-annotations.
// kernel: columns(float *dst, const float *src, int pitch)
//   reads: tid.x tid.y ctaid.x ctaid.y
//   shared: 1024

__global__ void columns(float *dst, const float *src, int pitch) {
  __requires(pitch == 3072);
  __shared__ float tile[16][16];
  int x = blockIdx.x * 16 + threadIdx.x, y = blockIdx.y * 16 + threadIdx.y;
  tile[threadIdx.x][threadIdx.y] = src[y * pitch + x];  // the tile's row
#ifdef SYNCED
  __syncthreads();
#endif
  float above = threadIdx.y > 0 ? tile[threadIdx.x][threadIdx.y - 1] : 0.0f;  // the row above
  dst[y * pitch + x] = 0.5f * (tile[threadIdx.x][threadIdx.y] + above);
}
