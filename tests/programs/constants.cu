// Constant and device variables: the host writes coefficients with cudaMemcpyToSymbol and
// reads a device counter back with cudaMemcpyFromSymbol.
#include <cstdio>

__constant__ float coefficients[4];
__device__ unsigned int evaluated;

__global__ void polynomial(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  y[i] = coefficients[0] + v * (coefficients[1] + v * (coefficients[2] + v * coefficients[3]));
  atomicAdd(&evaluated, 1u);
}

int main() {
  const int n = 200;
  float c[4] = {1, 2, 3, 4}, x[n], y[n];
  for (int i = 0; i < n; ++i) x[i] = i * 0.5f;
  cudaMemcpyToSymbol(coefficients, c, sizeof c);
  float *dx, *dy;
  cudaMalloc(&dx, sizeof x); cudaMalloc(&dy, sizeof y);
  cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
  polynomial<<<(n + 127) / 128, 128>>>(dx, dy, n);
  cudaMemcpy(y, dy, sizeof y, cudaMemcpyDeviceToHost);
  unsigned int count = 0;
  cudaMemcpyFromSymbol(&count, evaluated, sizeof count);
  printf("y[2] = %g, y[199] = %g, evaluated %u\n", y[2], y[199], count);
  cudaDeviceProp properties;
  cudaGetDeviceProperties(&properties, 0);
  int count_of_devices = 0, warp = 0;
  cudaGetDeviceCount(&count_of_devices);
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0);
  printf("%d device: %s, compute capability %d.%d, warp %d\n", count_of_devices, properties.name, properties.major,
         properties.minor, warp);
  cudaEvent_t start, stop;
  cudaEventCreate(&start); cudaEventCreate(&stop);
  cudaEventRecord(start);
  polynomial<<<1, 32>>>(dx, dy, 32);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float milliseconds = -1;
  printf("elapsed: %s\n", cudaEventElapsedTime(&milliseconds, start, stop) == cudaSuccess && milliseconds >= 0
                               ? "measured" : "failed");
  return 0;
}
