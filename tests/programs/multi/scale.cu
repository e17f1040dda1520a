// The device half: the kernel and the launcher main.cpp calls.
__global__ void scale(float *data, int n, float factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

void scale_on_device(float *data, int n, float factor) { scale<<<(n + 31) / 32, 32>>>(data, n, factor); }
