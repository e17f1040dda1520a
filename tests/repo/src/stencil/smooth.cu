// Uses include/fakelib/tile.cuh. smooth reads its neighbours' tile slots without waiting for
// them to be written: data race (read-write, shared) between the read at line 11 and the
// write at line 10. smooth_fixed waits first: clean.
#include "fakelib/tile.cuh"

__global__ void smooth(const float *in, float *out, int n) {
  __shared__ float tile[TILE];
  int i = blockIdx.x * TILE + threadIdx.x;
  if (threadIdx.x >= TILE) return;
  tile[threadIdx.x] = in[clamp_index(i, n)];
  float left = tile[threadIdx.x > 0 ? threadIdx.x - 1 : 0];
  if (i < n) out[i] = (left + tile[threadIdx.x]) * 0.5f;
}

__global__ void smooth_fixed(const float *in, float *out, int n) {
  __shared__ float tile[TILE];
  int i = blockIdx.x * TILE + threadIdx.x;
  bool inside = threadIdx.x < TILE;
  if (inside) tile[threadIdx.x] = in[clamp_index(i, n)];
  __syncthreads();
  float left = inside ? tile[threadIdx.x > 0 ? threadIdx.x - 1 : 0] : 0.0f;
  if (inside && i < n) out[i] = (left + tile[threadIdx.x]) * 0.5f;
}
