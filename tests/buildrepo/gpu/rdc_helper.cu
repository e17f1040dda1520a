__device__ float smooth_step(float x) {
  float t = fminf(fmaxf(x, 0.0f), 1.0f);
  return t * t * (3.0f - 2.0f * t);
}

__global__ void unrelated(int *p) { p[threadIdx.x] = 0; }
