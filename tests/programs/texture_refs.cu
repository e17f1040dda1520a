// Texture references, the API CUDA 12 removed and older code is full of: a texture bound to
// linear memory (tex1Dfetch), one to pitched memory read as normalized floats, and one to a
// CUDA array sampled with linear filtering.
#include <cstdio>

texture<float, 1, cudaReadModeElementType> values;
texture<unsigned char, 2, cudaReadModeNormalizedFloat> image;
texture<float, 2> table;

__global__ void gather(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch(values, n - 1 - i);
}

__global__ void sample(float *out) {
  out[0] = tex2D(image, 2.5f, 1.5f);  // byte (2, 1) as a fraction of 255
  out[1] = tex2D(table, 1.0f, 0.5f);  // halfway between texels (0, 0) and (1, 0)
}

int main() {
  const int n = 64;
  float h[n], *in, *out;
  for (int i = 0; i < n; i++) h[i] = i;
  cudaMalloc(&in, sizeof h);
  cudaMalloc(&out, sizeof h);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  cudaBindTexture(0, values, in, sizeof h);
  gather<<<1, n>>>(out, n);
  cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("gathered %g %g\n", h[0], h[63]);

  unsigned char bytes[2][4] = {{0, 10, 20, 30}, {40, 51, 102, 255}};
  unsigned char *pixels;
  size_t pitch;
  cudaMallocPitch((void **)&pixels, &pitch, 4, 2);
  cudaMemcpy2D(pixels, pitch, bytes, 4, 4, 2, cudaMemcpyHostToDevice);
  cudaBindTexture2D(0, image, pixels, cudaCreateChannelDesc<unsigned char>(), 4, 2, pitch);

  float grid[16];
  for (int i = 0; i < 16; i++) grid[i] = 100.0f * i;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray *array;
  cudaMallocArray(&array, &desc, 4, 4);
  cudaMemcpy2DToArray(array, 0, 0, grid, 4 * sizeof(float), 4 * sizeof(float), 4, cudaMemcpyHostToDevice);
  table.filterMode = cudaFilterModeLinear;
  cudaBindTextureToArray(table, array, desc);
  sample<<<1, 1>>>(out);
  cudaMemcpy(h, out, 2 * sizeof(float), cudaMemcpyDeviceToHost);
  printf("sampled %.1f %g\n", h[0] * 255, h[1]);
  cudaUnbindTexture(values);
  cudaUnbindTexture(image);
  cudaUnbindTexture(table);
  return 0;
}
