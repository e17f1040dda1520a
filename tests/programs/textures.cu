// Texture objects over CUDA arrays, pitched and linear memory: each part checks what the
// kernel fetched against what CUDA's texture unit gives, and prints "<part>: ok" or the first
// difference.
#include <cstdio>
#include <cmath>
#include <cuda_runtime.h>

#define CHECK(call)                                                                 \
  do {                                                                              \
    cudaError_t e = (call);                                                         \
    if (e != cudaSuccess) {                                                         \
      printf("%s failed: %s\n", #call, cudaGetErrorString(e));                      \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

const int W = 8, H = 4;

__global__ void sample_2d(float *out, cudaTextureObject_t tex, float dx, float dy, float scale_x, float scale_y) {
  int x = threadIdx.x, y = threadIdx.y;
  out[y * blockDim.x + x] = tex2D<float>(tex, (x + dx) * scale_x, (y + dy) * scale_y);
}

__global__ void sample_colour(float4 *out, cudaTextureObject_t tex) {
  int x = threadIdx.x;
  out[x] = tex2D<float4>(tex, x + 0.5f, 0.5f);
}

__global__ void sample_layers(float *out, cudaTextureObject_t tex) {
  int x = threadIdx.x, layer = blockIdx.x;
  out[layer * blockDim.x + x] = tex2DLayered<float>(tex, x + 0.5f, 1.5f, layer);
}

__global__ void sample_cube(float *out, cudaTextureObject_t tex) {
  const float directions[6][3] = {{1, 0.1f, 0.2f}, {-1, 0.2f, 0.1f}, {0.1f, 1, 0.3f},
                                  {0.2f, -1, 0.1f}, {0.3f, 0.1f, 1}, {0.1f, 0.2f, -1}};
  int i = threadIdx.x;
  out[i] = texCubemap<float>(tex, directions[i][0], directions[i][1], directions[i][2]);
}

__global__ void fetch_linear(int *out, cudaTextureObject_t tex) { out[threadIdx.x] = tex1Dfetch<int>(tex, threadIdx.x * 2); }

static float host_image(int x, int y) { return float(10 * y + x); }

static cudaTextureObject_t texture_of(cudaResourceDesc &resource, cudaTextureAddressMode mode,
                                      cudaTextureFilterMode filter, bool normalized,
                                      cudaTextureReadMode read = cudaReadModeElementType) {
  cudaTextureDesc description = {};
  description.addressMode[0] = description.addressMode[1] = description.addressMode[2] = mode;
  description.filterMode = filter;
  description.readMode = read;
  description.normalizedCoords = normalized;
  cudaTextureObject_t tex = 0;
  cudaCreateTextureObject(&tex, &resource, &description, nullptr);
  return tex;
}

static int report(const char *part, const float *got, const float *expected, int n) {
  for (int i = 0; i < n; ++i)
    if (fabsf(got[i] - expected[i]) > 1e-5f) {
      printf("%s: element %d is %g, expected %g\n", part, i, got[i], expected[i]);
      return 1;
    }
  printf("%s: ok\n", part);
  return 0;
}

int main() {
  int failures = 0;
  float image[H][W], got[64], expected[64];
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) image[y][x] = host_image(x, y);
  float *d_out;
  CHECK(cudaMalloc(&d_out, 64 * sizeof(float)));

  // A 2D array read at texel coordinates 2 past each edge: clamped.
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t array;
  CHECK(cudaMallocArray(&array, &desc, W, H));
  CHECK(cudaMemcpy2DToArray(array, 0, 0, image, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
  cudaResourceDesc resource = {};
  resource.resType = cudaResourceTypeArray;
  resource.res.array.array = array;
  cudaTextureObject_t clamped = texture_of(resource, cudaAddressModeClamp, cudaFilterModePoint, false);
  sample_2d<<<1, dim3(W, H)>>>(d_out, clamped, 2.5f, -1.5f, 1.0f, 1.0f);
  CHECK(cudaMemcpy(got, d_out, W * H * sizeof(float), cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) expected[y * W + x] = host_image(x + 2 < W ? x + 2 : W - 1, y - 2 < 0 ? 0 : y - 2);
  failures += report("clamp", got, expected, W * H);

  // The same array, linear filtering half-way between texels: the mean of the four.
  cudaTextureObject_t linear = texture_of(resource, cudaAddressModeClamp, cudaFilterModeLinear, false);
  sample_2d<<<1, dim3(W - 1, H - 1)>>>(d_out, linear, 1.0f, 1.0f, 1.0f, 1.0f);
  CHECK(cudaMemcpy(got, d_out, (W - 1) * (H - 1) * sizeof(float), cudaMemcpyDeviceToHost));
  for (int y = 0; y < H - 1; ++y)
    for (int x = 0; x < W - 1; ++x)
      expected[y * (W - 1) + x] = (image[y][x] + image[y][x + 1] + image[y + 1][x] + image[y + 1][x + 1]) / 4;
  failures += report("linear", got, expected, (W - 1) * (H - 1));

  // Pitched memory with normalized coordinates that wrap: one image width to the right.
  float *pitched;
  size_t pitch;
  CHECK(cudaMallocPitch((void **)&pitched, &pitch, W * sizeof(float), H));
  CHECK(cudaMemcpy2D(pitched, pitch, image, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
  cudaResourceDesc pitched_resource = {};
  pitched_resource.resType = cudaResourceTypePitch2D;
  pitched_resource.res.pitch2D.devPtr = pitched;
  pitched_resource.res.pitch2D.desc = desc;
  pitched_resource.res.pitch2D.width = W;
  pitched_resource.res.pitch2D.height = H;
  pitched_resource.res.pitch2D.pitchInBytes = pitch;
  cudaTextureObject_t wrapped = texture_of(pitched_resource, cudaAddressModeWrap, cudaFilterModePoint, true);
  sample_2d<<<1, dim3(W, H)>>>(d_out, wrapped, W + 0.5f, 0.5f, 1.0f / W, 1.0f / H);
  CHECK(cudaMemcpy(got, d_out, W * H * sizeof(float), cudaMemcpyDeviceToHost));
  failures += report("wrap", got, &image[0][0], W * H);

  // uchar4 texels read as normalized floats.
  uchar4 colours[4] = {{0, 255, 51, 102}, {255, 0, 0, 255}, {1, 2, 3, 4}, {128, 64, 32, 16}};
  cudaChannelFormatDesc colour_desc = cudaCreateChannelDesc<uchar4>();
  cudaArray_t colour_array;
  CHECK(cudaMallocArray(&colour_array, &colour_desc, 4, 1));
  CHECK(cudaMemcpy2DToArray(colour_array, 0, 0, colours, sizeof colours, sizeof colours, 1, cudaMemcpyHostToDevice));
  cudaResourceDesc colour_resource = {};
  colour_resource.resType = cudaResourceTypeArray;
  colour_resource.res.array.array = colour_array;
  cudaTextureObject_t colour = texture_of(colour_resource, cudaAddressModeClamp, cudaFilterModePoint, false,
                                          cudaReadModeNormalizedFloat);
  float4 *d_colours;
  CHECK(cudaMalloc(&d_colours, 4 * sizeof(float4)));
  sample_colour<<<1, 4>>>(d_colours, colour);
  CHECK(cudaMemcpy(got, d_colours, 4 * sizeof(float4), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 4; ++i) {
    expected[4 * i] = colours[i].x / 255.0f, expected[4 * i + 1] = colours[i].y / 255.0f;
    expected[4 * i + 2] = colours[i].z / 255.0f, expected[4 * i + 3] = colours[i].w / 255.0f;
  }
  failures += report("normalized", got, expected, 16);

  // A layered array of 3 layers, filled by cudaMemcpy3D: layer L holds the image plus 100 L.
  float layers[3][H][W];
  for (int l = 0; l < 3; ++l)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) layers[l][y][x] = image[y][x] + 100 * l;
  cudaArray_t layered;
  CHECK(cudaMalloc3DArray(&layered, &desc, make_cudaExtent(W, H, 3), cudaArrayLayered));
  cudaMemcpy3DParms copy = {};
  copy.srcPtr = make_cudaPitchedPtr(layers, W * sizeof(float), W, H);
  copy.dstArray = layered;
  copy.extent = make_cudaExtent(W, H, 3);
  copy.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&copy));
  resource.res.array.array = layered;
  cudaTextureObject_t layer_tex = texture_of(resource, cudaAddressModeClamp, cudaFilterModePoint, false);
  sample_layers<<<3, W>>>(d_out, layer_tex);
  CHECK(cudaMemcpy(got, d_out, 3 * W * sizeof(float), cudaMemcpyDeviceToHost));
  for (int l = 0; l < 3; ++l)
    for (int x = 0; x < W; ++x) expected[l * W + x] = layers[l][1][x];
  failures += report("layered", got, expected, 3 * W);

  // A cubemap whose face F holds F everywhere: each direction picks its face.
  float faces[6][4][4];
  for (int f = 0; f < 6; ++f)
    for (int i = 0; i < 16; ++i) faces[f][i / 4][i % 4] = float(f);
  cudaArray_t cube;
  CHECK(cudaMalloc3DArray(&cube, &desc, make_cudaExtent(4, 4, 6), cudaArrayCubemap));
  copy = {};
  copy.srcPtr = make_cudaPitchedPtr(faces, 4 * sizeof(float), 4, 4);
  copy.dstArray = cube;
  copy.extent = make_cudaExtent(4, 4, 6);
  copy.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&copy));
  resource.res.array.array = cube;
  cudaTextureObject_t cube_tex = texture_of(resource, cudaAddressModeClamp, cudaFilterModePoint, true);
  sample_cube<<<1, 6>>>(d_out, cube_tex);
  CHECK(cudaMemcpy(got, d_out, 6 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int f = 0; f < 6; ++f) expected[f] = float(f);
  failures += report("cubemap", got, expected, 6);

  // Linear memory, fetched by index.
  int numbers[32], fetched[16];
  for (int i = 0; i < 32; ++i) numbers[i] = i * i;
  int *d_numbers, *d_fetched;
  CHECK(cudaMalloc(&d_numbers, sizeof numbers));
  CHECK(cudaMalloc(&d_fetched, sizeof fetched));
  CHECK(cudaMemcpy(d_numbers, numbers, sizeof numbers, cudaMemcpyHostToDevice));
  cudaResourceDesc linear_resource = {};
  linear_resource.resType = cudaResourceTypeLinear;
  linear_resource.res.linear.devPtr = d_numbers;
  linear_resource.res.linear.desc = cudaCreateChannelDesc<int>();
  linear_resource.res.linear.sizeInBytes = sizeof numbers;
  cudaTextureObject_t by_index = texture_of(linear_resource, cudaAddressModeClamp, cudaFilterModePoint, false);
  fetch_linear<<<1, 16>>>(d_fetched, by_index);
  CHECK(cudaMemcpy(fetched, d_fetched, sizeof fetched, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 16; ++i) got[i] = float(fetched[i]), expected[i] = float(numbers[2 * i]);
  failures += report("linear memory", got, expected, 16);

  // The array's bytes come back as they went in.
  float back[H][W];
  CHECK(cudaMemcpy2DFromArray(back, W * sizeof(float), array, 0, 0, W * sizeof(float), H, cudaMemcpyDeviceToHost));
  failures += report("round trip", &back[0][0], &image[0][0], W * H);

  CHECK(cudaDestroyTextureObject(clamped));
  CHECK(cudaFreeArray(array));
  printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures != 0;
}
