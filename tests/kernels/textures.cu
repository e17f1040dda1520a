// A texture reference and a texture object, read in the same kernel (also at a level of detail, and as a layered texture).
// kernel: sample(float *out, cudaTextureObject_t image, int width)
//   reads: tid.x tid.y
//   shared: 0
#include <cuda_runtime.h>

texture<float, 1, cudaReadModeElementType> lookup;

__global__ void sample(float *out, cudaTextureObject_t image, int width) {
  int x = threadIdx.x, y = threadIdx.y;
  out[y * width + x] = tex1Dfetch(lookup, x) + tex2D<float>(image, x + 0.5f, y + 0.5f) +
                       tex2DLod<float>(image, x + 0.5f, y + 0.5f, 2.0f) +  // no mipmaps: the base level
                       tex1DLayered<float>(image, x + 0.5f, y);  // layer y of rows
}

void bind(float *device_data, size_t bytes) { cudaBindTexture(0, lookup, device_data, bytes); }
