/* Texture references (texture<T, dim, mode>) and texture objects. A fetch is a call of
   __simulee_texture_fetch naming the texture variable (or object) and the coordinates; the
   interpreter serves it from the buffer bound to that texture. */
#ifndef SIMULEE_TEXTURES_H
#define SIMULEE_TEXTURES_H

enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
enum cudaTextureAddressMode {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3,
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaChannelFormatKind {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
  cudaChannelFormatKindNone = 3,
};
enum cudaResourceType {
  cudaResourceTypeArray = 0,
  cudaResourceTypeMipmappedArray = 1,
  cudaResourceTypeLinear = 2,
  cudaResourceTypePitch2D = 3,
};
#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2

struct cudaChannelFormatDesc {
  int x, y, z, w;
  enum cudaChannelFormatKind f;
};
struct textureReference {
  int normalized;
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureAddressMode addressMode[3];
  struct cudaChannelFormatDesc channelDesc;
  int sRGB;
  unsigned int maxAnisotropy;
};
struct cudaTextureDesc {
  enum cudaTextureAddressMode addressMode[3];
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
};
struct cudaResourceDesc {
  enum cudaResourceType resType;
  union {
    struct { cudaArray_t array; } array;
    struct { void *devPtr; struct cudaChannelFormatDesc desc; size_t sizeInBytes; } linear;
    struct { void *devPtr; struct cudaChannelFormatDesc desc; size_t width, height, pitchInBytes; } pitch2D;
  } res;
};
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

/* clang makes namespace-scope variables of this class template device variables. */
template <class T, int dim = 1, enum cudaTextureReadMode mode = cudaReadModeElementType>
struct __attribute__((device_builtin_texture_type)) texture : public textureReference {};

extern "C" __device__ void __simulee_texture_fetch(const void *texture, int dims, float x, float y, float z,
                                                   void *out, unsigned int size);
extern "C" __device__ void __simulee_texture_object_fetch(cudaTextureObject_t texture, int dims, float x,
                                                          float y, float z, void *out, unsigned int size);

#define __SIMULEE_TEX_FETCH(TEX, DIMS, X, Y, Z) \
  T value; \
  __simulee_texture_fetch(&(TEX), DIMS, X, Y, Z, &value, sizeof(T)); \
  return value;
template <class T, int dim, enum cudaTextureReadMode mode>
__SIMULEE_DEVICE T tex1Dfetch(const texture<T, dim, mode> &t, int x) { __SIMULEE_TEX_FETCH(t, 1, (float)x, 0.0f, 0.0f) }
template <class T, int dim, enum cudaTextureReadMode mode>
__SIMULEE_DEVICE T tex1D(const texture<T, dim, mode> &t, float x) { __SIMULEE_TEX_FETCH(t, 1, x, 0.0f, 0.0f) }
template <class T, int dim, enum cudaTextureReadMode mode>
__SIMULEE_DEVICE T tex2D(const texture<T, dim, mode> &t, float x, float y) { __SIMULEE_TEX_FETCH(t, 2, x, y, 0.0f) }
template <class T, int dim, enum cudaTextureReadMode mode>
__SIMULEE_DEVICE T tex3D(const texture<T, dim, mode> &t, float x, float y, float z) {
  __SIMULEE_TEX_FETCH(t, 3, x, y, z)
}
#undef __SIMULEE_TEX_FETCH

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
#undef __SIMULEE_TEXOBJ_FETCH

/* Host binding API. */
extern "C" __host__ cudaError_t cudaBindTexture(size_t *offset, const struct textureReference *tex,
                                                const void *ptr, const struct cudaChannelFormatDesc *desc,
                                                size_t size = ~(size_t)0);
extern "C" __host__ cudaError_t cudaBindTexture2D(size_t *offset, const struct textureReference *tex,
                                                  const void *ptr, const struct cudaChannelFormatDesc *desc,
                                                  size_t width, size_t height, size_t pitch);
extern "C" __host__ cudaError_t cudaBindTextureToArray(const struct textureReference *tex, cudaArray_const_t array,
                                                       const struct cudaChannelFormatDesc *desc);
extern "C" __host__ cudaError_t cudaUnbindTexture(const struct textureReference *tex);
extern "C" __host__ cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                                size_t width, size_t height = 0, unsigned int flags = 0);
extern "C" __host__ cudaError_t cudaCreateTextureObject(cudaTextureObject_t *obj, const struct cudaResourceDesc *res,
                                                        const struct cudaTextureDesc *tex, const void *view);
extern "C" __host__ cudaError_t cudaDestroyTextureObject(cudaTextureObject_t obj);
extern "C" __host__ struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                                      enum cudaChannelFormatKind f);
template <class T> __host__ inline struct cudaChannelFormatDesc cudaCreateChannelDesc(void) {
  return cudaCreateChannelDesc(8 * (int)sizeof(T), 0, 0, 0, cudaChannelFormatKindFloat);
}
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
__host__ inline cudaError_t cudaUnbindTexture(const texture<T, dim, mode> &tex) {
  return cudaUnbindTexture(&tex);
}

#endif
