/* Texture references (texture<T, dim, mode>, which CUDA 12 removed but older code and
   GPUVerify's kernels use) and texture objects. A fetch is a call of
   __simulee_texture_fetch naming the texture variable (or object) and the coordinates; the
   interpreter serves it from the buffer bound to that texture. */
#ifndef SIMULEE_TEXTURES_H
#define SIMULEE_TEXTURES_H

/* The legacy texture reference, which CUDA 12 removed from its headers. */
struct textureReference {
  int normalized;
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3];
  struct cudaChannelFormatDesc channelDesc;
  int sRGB;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int __cudaReserved[14];
};

/* clang makes namespace-scope variables of this class template device variables. */
template <class T, int dim = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct __attribute__((device_builtin_texture_type)) texture : public textureReference {};

extern "C" __device__ void __simulee_texture_fetch(const void *texture, int dims, float x, float y, float z,
                                                   void *out, unsigned int size);
extern "C" __device__ void __simulee_texture_object_fetch(cudaTextureObject_t texture, int dims, float x,
                                                          float y, float z, void *out, unsigned int size);

/* What a fetch through texture<T, dim, mode> gives: T, or for a normalized-float read of
   8- and 16-bit integers, float of as many channels. */
template <class T> struct __simulee_normalized { typedef T type; };
#define __SIMULEE_NORMALIZED(INTEGER, FLOAT) \
  template <> struct __simulee_normalized<INTEGER> { typedef FLOAT type; };
#define __SIMULEE_NORMALIZED_VECTORS(INTEGER) \
  __SIMULEE_NORMALIZED(INTEGER##1, float1) __SIMULEE_NORMALIZED(INTEGER##2, float2) \
  __SIMULEE_NORMALIZED(INTEGER##4, float4)
__SIMULEE_NORMALIZED(char, float)
__SIMULEE_NORMALIZED(signed char, float)
__SIMULEE_NORMALIZED(unsigned char, float)
__SIMULEE_NORMALIZED(short, float)
__SIMULEE_NORMALIZED(unsigned short, float)
__SIMULEE_NORMALIZED_VECTORS(char)
__SIMULEE_NORMALIZED_VECTORS(uchar)
__SIMULEE_NORMALIZED_VECTORS(short)
__SIMULEE_NORMALIZED_VECTORS(ushort)
#undef __SIMULEE_NORMALIZED_VECTORS
#undef __SIMULEE_NORMALIZED
template <class T, enum cudaTextureReadMode mode> struct __simulee_fetched { typedef T type; };
template <class T> struct __simulee_fetched<T, cudaReadModeNormalizedFloat> {
  typedef typename __simulee_normalized<T>::type type;
};

#define __SIMULEE_TEX(NAME, PARAMETERS, DIMS, X, Y, Z) \
  template <class T, int dim, enum cudaTextureReadMode mode> \
  __SIMULEE_DEVICE typename __simulee_fetched<T, mode>::type NAME(const texture<T, dim, mode> &t PARAMETERS) { \
    typename __simulee_fetched<T, mode>::type value; \
    __simulee_texture_fetch(&t, DIMS, X, Y, Z, &value, sizeof value); \
    return value; \
  }
#define __SIMULEE_COMMA ,
__SIMULEE_TEX(tex1Dfetch, __SIMULEE_COMMA int x, 1, (float)x, 0.0f, 0.0f)
__SIMULEE_TEX(tex1D, __SIMULEE_COMMA float x, 1, x, 0.0f, 0.0f)
__SIMULEE_TEX(tex2D, __SIMULEE_COMMA float x __SIMULEE_COMMA float y, 2, x, y, 0.0f)
__SIMULEE_TEX(tex3D, __SIMULEE_COMMA float x __SIMULEE_COMMA float y __SIMULEE_COMMA float z, 3, x, y, z)
/* A layered texture is an array of layers: layer L is the slice L of the next dimension. */
__SIMULEE_TEX(tex1DLayered, __SIMULEE_COMMA float x __SIMULEE_COMMA int layer, 2, x, (float)layer, 0.0f)
__SIMULEE_TEX(tex2DLayered, __SIMULEE_COMMA float x __SIMULEE_COMMA float y __SIMULEE_COMMA int layer, 3, x, y,
              (float)layer)
__SIMULEE_TEX(texCubemap, __SIMULEE_COMMA float x __SIMULEE_COMMA float y __SIMULEE_COMMA float z, 4, x, y, z)
/* The ...Lod and ...Grad fetches read the base level: Simulee's textures have no mipmap
   levels, and a texture without mipmaps reads its only level at every level of detail. */
__SIMULEE_TEX(tex1DLod, __SIMULEE_COMMA float x __SIMULEE_COMMA float, 1, x, 0.0f, 0.0f)
__SIMULEE_TEX(tex2DLod, __SIMULEE_COMMA float x __SIMULEE_COMMA float y __SIMULEE_COMMA float, 2, x, y, 0.0f)
__SIMULEE_TEX(tex3DLod, __SIMULEE_COMMA float x __SIMULEE_COMMA float y __SIMULEE_COMMA float z __SIMULEE_COMMA float,
              3, x, y, z)
__SIMULEE_TEX(tex2DLayeredLod, __SIMULEE_COMMA float x __SIMULEE_COMMA float y __SIMULEE_COMMA int layer
              __SIMULEE_COMMA float, 3, x, y, (float)layer)
__SIMULEE_TEX(tex2DGrad, __SIMULEE_COMMA float x __SIMULEE_COMMA float y __SIMULEE_COMMA float2 __SIMULEE_COMMA float2,
              2, x, y, 0.0f)
#undef __SIMULEE_COMMA
#undef __SIMULEE_TEX

#define __SIMULEE_TEXOBJ_FETCH(DIMS, X, Y, Z) \
  T value; \
  __simulee_texture_object_fetch(obj, DIMS, X, Y, Z, &value, sizeof(T)); \
  return value;
template <class T> __SIMULEE_DEVICE T tex1Dfetch(cudaTextureObject_t obj, int x) {
  __SIMULEE_TEXOBJ_FETCH(1, (float)x, 0.0f, 0.0f)
}
template <class T> __SIMULEE_DEVICE T tex1D(cudaTextureObject_t obj, float x) { __SIMULEE_TEXOBJ_FETCH(1, x, 0.0f, 0.0f) }
template <class T> __SIMULEE_DEVICE T tex2D(cudaTextureObject_t obj, float x, float y) {
  __SIMULEE_TEXOBJ_FETCH(2, x, y, 0.0f)
}
template <class T> __SIMULEE_DEVICE T tex3D(cudaTextureObject_t obj, float x, float y, float z) {
  __SIMULEE_TEXOBJ_FETCH(3, x, y, z)
}
/* A layered texture is an array of layers: layer L is the slice L of the next dimension. */
template <class T> __SIMULEE_DEVICE T tex1DLayered(cudaTextureObject_t obj, float x, int layer) {
  __SIMULEE_TEXOBJ_FETCH(2, x, (float)layer, 0.0f)
}
template <class T> __SIMULEE_DEVICE T tex2DLayered(cudaTextureObject_t obj, float x, float y, int layer) {
  __SIMULEE_TEXOBJ_FETCH(3, x, y, (float)layer)
}
/* A cubemap is fetched by a direction (dims 4: interpreter/textures.py picks the face). */
template <class T> __SIMULEE_DEVICE T texCubemap(cudaTextureObject_t obj, float x, float y, float z) {
  __SIMULEE_TEXOBJ_FETCH(4, x, y, z)
}
template <class T> __SIMULEE_DEVICE T tex1DLod(cudaTextureObject_t obj, float x, float) {
  __SIMULEE_TEXOBJ_FETCH(1, x, 0.0f, 0.0f)
}
template <class T> __SIMULEE_DEVICE T tex2DLod(cudaTextureObject_t obj, float x, float y, float) {
  __SIMULEE_TEXOBJ_FETCH(2, x, y, 0.0f)
}
template <class T> __SIMULEE_DEVICE T tex3DLod(cudaTextureObject_t obj, float x, float y, float z, float) {
  __SIMULEE_TEXOBJ_FETCH(3, x, y, z)
}
#undef __SIMULEE_TEXOBJ_FETCH

/* The host binding API of texture references (removed in CUDA 12). */
extern "C" __host__ cudaError_t cudaBindTexture(size_t *offset, const struct textureReference *tex,
                                                const void *ptr, const struct cudaChannelFormatDesc *desc,
                                                size_t size = ~(size_t)0);
extern "C" __host__ cudaError_t cudaBindTexture2D(size_t *offset, const struct textureReference *tex,
                                                  const void *ptr, const struct cudaChannelFormatDesc *desc,
                                                  size_t width, size_t height, size_t pitch);
extern "C" __host__ cudaError_t cudaBindTextureToArray(const struct textureReference *tex, cudaArray_const_t array,
                                                       const struct cudaChannelFormatDesc *desc);
extern "C" __host__ cudaError_t cudaUnbindTexture(const struct textureReference *tex);
template <class T, int dim, enum cudaTextureReadMode mode>
__host__ inline cudaError_t cudaBindTexture(size_t *offset, const texture<T, dim, mode> &tex, const void *ptr,
                                            size_t size = ~(size_t)0) {
  struct cudaChannelFormatDesc desc = cudaCreateChannelDesc<T>();
  return cudaBindTexture(offset, &tex, ptr, &desc, size);
}
template <class T, int dim, enum cudaTextureReadMode mode>
__host__ inline cudaError_t cudaBindTexture(size_t *offset, const texture<T, dim, mode> &tex, const void *ptr,
                                            const struct cudaChannelFormatDesc &desc, size_t size = ~(size_t)0) {
  return cudaBindTexture(offset, &tex, ptr, &desc, size);
}
template <class T, int dim, enum cudaTextureReadMode mode>
__host__ inline cudaError_t cudaBindTexture2D(size_t *offset, const texture<T, dim, mode> &tex, const void *ptr,
                                              const struct cudaChannelFormatDesc &desc, size_t width,
                                              size_t height, size_t pitch) {
  return cudaBindTexture2D(offset, &tex, ptr, &desc, width, height, pitch);
}
template <class T, int dim, enum cudaTextureReadMode mode>
__host__ inline cudaError_t cudaBindTextureToArray(const texture<T, dim, mode> &tex, cudaArray_const_t array) {
  struct cudaChannelFormatDesc desc = cudaCreateChannelDesc<T>();
  return cudaBindTextureToArray(&tex, array, &desc);
}
template <class T, int dim, enum cudaTextureReadMode mode>
__host__ inline cudaError_t cudaBindTextureToArray(const texture<T, dim, mode> &tex, cudaArray_const_t array,
                                                   const struct cudaChannelFormatDesc &desc) {
  return cudaBindTextureToArray(&tex, array, &desc);
}
template <class T, int dim, enum cudaTextureReadMode mode>
__host__ inline cudaError_t cudaUnbindTexture(const texture<T, dim, mode> &tex) {
  return cudaUnbindTexture(&tex);
}

#endif
