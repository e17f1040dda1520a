/* CUDA arrays, 3D memory, and texture objects.

   A CUDA array is a device allocation of width x height x depth elements, rows packed (no
   pitch) and slices after one another; a layered array's layers, and a cubemap's six faces,
   are its slices. A texture object is the device's: it describes the memory (an array, linear
   memory or pitched 2D memory) and how to sample it, and kernels fetch through its handle. */

#include "runtime.h"

extern "C" int __simulee_unsupported(const char *name);

/* The runtime's definition of the type the CUDA headers leave opaque. */
struct cudaArray {
    void *data;                     // the device allocation
    cudaChannelFormatDesc desc;
    size_t width, height, depth;    // as allocated: 0 for a dimension the array does not have
    unsigned int flags;
};

namespace simulee {
namespace {

size_t element_bytes(const cudaChannelFormatDesc &desc) { return size_t(desc.x + desc.y + desc.z + desc.w) / 8; }

size_t rows(const cudaArray *array) { return array->height ? array->height : 1; }

size_t slices(const cudaArray *array) { return array->depth ? array->depth : 1; }

size_t pitch(const cudaArray *array) { return array->width * element_bytes(array->desc); }

cudaError_t make_array(cudaArray_t *array, const cudaChannelFormatDesc *desc, cudaExtent extent, unsigned int flags) {
    if (status()) return status();
    if (!array || !desc || !extent.width || element_bytes(*desc) == 0) return fail(cudaErrorInvalidValue);
    if ((flags & cudaArrayCubemap) && (extent.width != extent.height || !extent.depth || extent.depth % 6))
        return fail(cudaErrorInvalidValue);
    cudaArray *made = static_cast<cudaArray *>(calloc(1, sizeof(cudaArray)));
    if (!made) return fail(cudaErrorMemoryAllocation);
    *made = cudaArray{nullptr, *desc, extent.width, extent.height, extent.depth, flags};
    cudaError_t error = allocate(&made->data, pitch(made) * rows(made) * slices(made), SIMULEE_DEVICE_MEMORY);
    if (error) {
        free(made);
        return error;
    }
    *array = made;
    return cudaSuccess;
}

/* One side of a 3D copy: where its first byte is, its row and slice pitches, the bytes of an
   element (1 for linear memory, whose x positions and widths are in bytes). */
struct Side {
    char *base;
    size_t pitch, slice, element;
};

Side side_of(cudaArray_const_t array, cudaPitchedPtr pointer, cudaPos position) {
    if (array) {
        size_t element = element_bytes(array->desc);
        size_t slice = pitch(array) * rows(array);
        return Side{static_cast<char *>(array->data) + position.z * slice + position.y * pitch(array) +
                        position.x * element,
                    pitch(array), slice, element};
    }
    size_t slice = pointer.pitch * pointer.ysize;
    return Side{static_cast<char *>(pointer.ptr) + position.z * slice + position.y * pointer.pitch + position.x,
                pointer.pitch, slice, 1};
}

/* The bytes at (x bytes, y rows) of an array, and the pitch of its rows. */
char *at(cudaArray_const_t array, size_t x, size_t y) { return static_cast<char *>(array->data) + y * pitch(array) + x; }

void put_memory(const void *address, const cudaChannelFormatDesc &desc, size_t width, size_t height, size_t depth,
                size_t row_pitch, size_t slice_pitch, unsigned int flags) {
    request.put<uint64_t>(reinterpret_cast<uint64_t>(address));
    request.put<int32_t>(desc.x); request.put<int32_t>(desc.y); request.put<int32_t>(desc.z); request.put<int32_t>(desc.w);
    request.put<uint32_t>(desc.f);
    request.put<uint64_t>(width); request.put<uint64_t>(height); request.put<uint64_t>(depth);
    request.put<uint64_t>(row_pitch); request.put<uint64_t>(slice_pitch);
    request.put<uint32_t>(flags);
}

/* The legacy texture reference as older headers (and Simulee's, include/simulee/textures.h) lay it out. */
struct textureReference {
    int normalized;
    cudaTextureFilterMode filterMode;
    cudaTextureAddressMode addressMode[3];
    cudaChannelFormatDesc channelDesc;
    int sRGB;
    unsigned int maxAnisotropy;
    cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int reserved[14];
};

/* A registered texture reference: its host variable, its address on the device, whether it
   reads normalized floats (its template's cudaReadModeNormalizedFloat), what it is bound to. */
struct Reference {
    const textureReference *host;
    uint64_t address;
    int normalized_float;
    cudaTextureObject_t bound;
};

constexpr int MAX_REFERENCES = 1 << 12;
Reference references[MAX_REFERENCES];
int reference_count = 0;

Reference *reference_of(const textureReference *host) {
    for (int i = 0; i < reference_count; ++i)
        if (references[i].host == host) return &references[i];
    return nullptr;
}

cudaError_t unbind(Reference *reference) {
    if (!reference->bound) return cudaSuccess;
    request.put<uint64_t>(reference->address);
    request.put<uint64_t>(0);
    ask(SIMULEE_TEXTURE_BIND);
    cudaError_t error = cudaDestroyTextureObject(reference->bound);
    reference->bound = 0;
    return error;
}

/* Bind the reference `tex` to `resource`, sampled as its attributes say. */
cudaError_t bind(const textureReference *tex, const cudaResourceDesc &resource) {
    Reference *reference = reference_of(tex);
    if (!reference) return fail(cudaErrorInvalidTexture);
    if (cudaError_t error = unbind(reference)) return error;
    cudaTextureDesc description{};
    for (int axis = 0; axis < 3; ++axis) description.addressMode[axis] = tex->addressMode[axis];
    description.filterMode = tex->filterMode;
    description.readMode = reference->normalized_float ? cudaReadModeNormalizedFloat : cudaReadModeElementType;
    description.normalizedCoords = tex->normalized;
    cudaTextureObject_t object = 0;
    if (cudaError_t error = cudaCreateTextureObject(&object, &resource, &description, nullptr)) return error;
    request.put<uint64_t>(reference->address);
    request.put<uint64_t>(object);
    if (int code = ask(SIMULEE_TEXTURE_BIND)) return fail(cudaError_t(code));
    reference->bound = object;
    return cudaSuccess;
}

}  // namespace

Copy copy_geometry(const cudaMemcpy3DParms *p) {
    if (!p || (!p->srcArray && !p->srcPtr.ptr) || (!p->dstArray && !p->dstPtr.ptr)) return Copy{};
    Side from = side_of(p->srcArray, p->srcPtr, p->srcPos), to = side_of(p->dstArray, p->dstPtr, p->dstPos);
    size_t element = from.element > to.element ? from.element : to.element;  // extent.width counts elements of an array
    return Copy{to.base, to.pitch, to.slice, from.base, from.pitch, from.slice, p->extent.width * element,
                p->extent.height ? p->extent.height : 1, p->extent.depth ? p->extent.depth : 1};
}

}  // namespace simulee

using namespace simulee;

extern "C" {

cudaError_t cudaMallocArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, size_t width, size_t height,
                            unsigned int flags) {
    return make_array(array, desc, cudaExtent{width, height, 0}, flags);
}

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, cudaExtent extent,
                              unsigned int flags) {
    return make_array(array, desc, extent, flags);
}

cudaError_t cudaFreeArray(cudaArray_t array) {
    if (!array) return status();
    cudaError_t error = release(array->data, SIMULEE_DEVICE_MEMORY);
    free(array);
    return error;
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *extent, unsigned int *flags, cudaArray_t array) {
    if (!array) return fail(cudaErrorInvalidValue);
    if (desc) *desc = array->desc;
    if (extent) *extent = cudaExtent{array->width, array->height, array->depth};
    if (flags) *flags = array->flags;
    return status();
}

/* Pitched 3D memory: rows padded to 512 bytes, as cudaMallocPitch pads them. */
cudaError_t cudaMalloc3D(cudaPitchedPtr *pointer, cudaExtent extent) {
    if (!pointer) return fail(cudaErrorInvalidValue);
    size_t row = (extent.width + 511) / 512 * 512;
    *pointer = cudaPitchedPtr{nullptr, row, extent.width, extent.height};
    return allocate(&pointer->ptr, row * extent.height * (extent.depth ? extent.depth : 1), SIMULEE_DEVICE_MEMORY);
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) {
    CALLED();
    Copy geometry = copy_geometry(p);
    if (!geometry.to || !geometry.from) return fail(cudaErrorInvalidValue);
    return copy(geometry, nullptr, true);
}

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t stream) {
    CALLED();
    Copy geometry = copy_geometry(p);
    if (!geometry.to || !geometry.from) return fail(cudaErrorInvalidValue);
    return copy(geometry, stream, false);
}

cudaError_t cudaMemset3D(cudaPitchedPtr pointer, int value, cudaExtent extent) {
    CALLED();
    for (size_t slice = 0; slice < (extent.depth ? extent.depth : 1); ++slice)
        for (size_t row = 0; row < (extent.height ? extent.height : 1); ++row) {
            char *start = static_cast<char *>(pointer.ptr) + (slice * pointer.ysize + row) * pointer.pitch;
            cudaError_t error = fill(start, value, extent.width, nullptr);
            if (error) return error;
        }
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                size_t width, size_t height, cudaMemcpyKind) {
    CALLED();
    if (!dst) return fail(cudaErrorInvalidValue);
    return copy_2d(at(dst, wOffset, hOffset), pitch(dst), src, spitch, width, height, nullptr, true);
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                     size_t width, size_t height, cudaMemcpyKind, cudaStream_t stream) {
    CALLED();
    if (!dst) return fail(cudaErrorInvalidValue);
    return copy_2d(at(dst, wOffset, hOffset), pitch(dst), src, spitch, width, height, stream, false);
}

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                  size_t width, size_t height, cudaMemcpyKind) {
    CALLED();
    if (!src) return fail(cudaErrorInvalidValue);
    return copy_2d(dst, dpitch, at(src, wOffset, hOffset), pitch(src), width, height, nullptr, true);
}

cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t width, size_t height, cudaMemcpyKind,
                                       cudaStream_t stream) {
    CALLED();
    if (!src) return fail(cudaErrorInvalidValue);
    return copy_2d(dst, dpitch, at(src, wOffset, hOffset), pitch(src), width, height, stream, false);
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                              cudaMemcpyKind) {
    CALLED();
    if (!dst) return fail(cudaErrorInvalidValue);
    return copy(at(dst, wOffset, hOffset), src, count, nullptr, true);
}

cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                                   cudaMemcpyKind, cudaStream_t stream) {
    CALLED();
    if (!dst) return fail(cudaErrorInvalidValue);
    return copy(at(dst, wOffset, hOffset), src, count, stream, false);
}

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                cudaMemcpyKind) {
    CALLED();
    if (!src) return fail(cudaErrorInvalidValue);
    return copy(dst, at(src, wOffset, hOffset), count, nullptr, true);
}

cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                     cudaMemcpyKind, cudaStream_t stream) {
    CALLED();
    if (!src) return fail(cudaErrorInvalidValue);
    return copy(dst, at(src, wOffset, hOffset), count, stream, false);
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *texture, const cudaResourceDesc *resource,
                                    const cudaTextureDesc *description, const cudaResourceViewDesc *) {
    if (status()) return status();
    if (!texture || !resource || !description) return fail(cudaErrorInvalidValue);
    switch (resource->resType) {
    case cudaResourceTypeArray: {
        const cudaArray *array = resource->res.array.array;
        if (!array) return fail(cudaErrorInvalidResourceHandle);
        put_memory(array->data, array->desc, array->width, rows(array), slices(array), pitch(array),
                   pitch(array) * rows(array), array->flags);
        break;
    }
    case cudaResourceTypeLinear: {
        const cudaChannelFormatDesc &desc = resource->res.linear.desc;
        if (!element_bytes(desc)) return fail(cudaErrorInvalidChannelDescriptor);
        size_t bytes = resource->res.linear.sizeInBytes;
        put_memory(resource->res.linear.devPtr, desc, bytes / element_bytes(desc), 1, 1, bytes, bytes, 0);
        break;
    }
    case cudaResourceTypePitch2D: {
        const auto &pitched = resource->res.pitch2D;
        if (!element_bytes(pitched.desc)) return fail(cudaErrorInvalidChannelDescriptor);
        put_memory(pitched.devPtr, pitched.desc, pitched.width, pitched.height, 1, pitched.pitchInBytes,
                   pitched.pitchInBytes * pitched.height, 0);
        break;
    }
    default:
        return cudaError_t(__simulee_unsupported("cudaCreateTextureObject of a mipmapped array"));
    }
    for (int axis = 0; axis < 3; ++axis) request.put<uint32_t>(description->addressMode[axis]);
    request.put<uint32_t>(description->filterMode);
    request.put<uint32_t>(description->readMode);
    request.put<uint32_t>(description->normalizedCoords != 0);
    for (int channel = 0; channel < 4; ++channel) request.put<float>(description->borderColor[channel]);
    int code = ask(SIMULEE_TEXTURE);
    if (code) return fail(cudaError_t(code));
    *texture = answered<uint64_t>(0);
    return cudaSuccess;
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texture) {
    if (status()) return status();
    request.put<uint64_t>(texture);
    return fail(cudaError_t(ask(SIMULEE_TEXTURE_DESTROY)));
}

/* Texture references (removed in CUDA 12): a texture<T, dim, mode> variable is a device
   variable clang registers with __cudaRegisterTexture; binding it makes a texture object of
   its attributes over the memory bound, and tells the device that fetches through the
   variable read that object. */

void __cudaRegisterTexture(void **, const textureReference *host, const void **, const char *name, int, int norm,
                           int) {
    if (reference_count == MAX_REFERENCES) return;
    request.put<uint64_t>(sizeof(textureReference));
    request.put_text(name);
    if (ask(SIMULEE_SYMBOL) != 0) return;
    references[reference_count++] = Reference{host, answered<uint64_t>(0), norm, 0};
}

cudaError_t cudaBindTexture(size_t *offset, const textureReference *tex, const void *pointer,
                            const cudaChannelFormatDesc *desc, size_t size) {
    CALLED();
    if (!desc) return fail(cudaErrorInvalidChannelDescriptor);
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = const_cast<void *>(pointer);
    resource.res.linear.desc = *desc;
    resource.res.linear.sizeInBytes = size != ~size_t(0) ? size : allocation_bytes(pointer);
    if (offset) *offset = 0;
    return bind(tex, resource);
}

cudaError_t cudaBindTexture2D(size_t *offset, const textureReference *tex, const void *pointer,
                              const cudaChannelFormatDesc *desc, size_t width, size_t height, size_t pitch) {
    CALLED();
    if (!desc) return fail(cudaErrorInvalidChannelDescriptor);
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypePitch2D;
    resource.res.pitch2D.devPtr = const_cast<void *>(pointer);
    resource.res.pitch2D.desc = *desc;
    resource.res.pitch2D.width = width;
    resource.res.pitch2D.height = height;
    resource.res.pitch2D.pitchInBytes = pitch;
    if (offset) *offset = 0;
    return bind(tex, resource);
}

cudaError_t cudaBindTextureToArray(const textureReference *tex, cudaArray_const_t array,
                                   const cudaChannelFormatDesc *) {
    CALLED();
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = const_cast<cudaArray_t>(array);
    return bind(tex, resource);
}

cudaError_t cudaUnbindTexture(const textureReference *tex) {
    CALLED();
    Reference *reference = reference_of(tex);
    if (!reference) return fail(cudaErrorInvalidTexture);
    return unbind(reference);
}

}  // extern "C"
