/* What the runtime's sources share; cudart.cpp defines it: the link to the device (one
   request and its reply at a time), the errors a call returns, and device memory. */
#ifndef SIMULEE_RUNTIME_H
#define SIMULEE_RUNTIME_H

#include <cuda_runtime_api.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

namespace simulee {

/* The device went away (or the host is out of memory): say so and end the program. */
[[noreturn]] void lost(const char *what);

/* A request's payload, or a reply's. */
struct Buffer {
    char *data = nullptr;
    size_t size = 0, capacity = 0;
    void clear() { size = 0; }
    void put(const void *bytes, size_t count) {
        if (size + count > capacity) {
            capacity = (size + count) * 2;
            data = static_cast<char *>(realloc(data, capacity));
            if (!data) lost("out of host memory");
        }
        memcpy(data + size, bytes, count);
        size += count;
    }
    template <typename T> void put(T value) { put(&value, sizeof value); }
    void put_text(const char *text) { put(text, strlen(text) + 1); }
};

extern thread_local Buffer request, answer;

/* Send `request` as an `op` request; returns the reply's status, its payload in `answer`. */
int ask(uint32_t op);

template <typename T> T answered(size_t at) {
    T value;
    memcpy(&value, answer.data + at, sizeof value);
    return value;
}

/* Record `error` as the thread's last error and return it. */
cudaError_t fail(cudaError_t error);

/* The error of a call that synchronizes (or any call after a fault): the sticky one. */
cudaError_t status();

/* The host address of `count` bytes at `pointer` (device or host), or null when they are not
   all inside one live allocation (device) or the pointer is null. */
char *reach(const void *pointer, size_t count);

/* The bytes from a device pointer to the end of its allocation (0 when it is in none). */
size_t allocation_bytes(const void *pointer);

cudaError_t allocate(void **pointer, size_t size, uint32_t kind);
cudaError_t release(void *pointer, uint32_t kind);

/* The return address of the API call being served: where it is in the program. */
extern thread_local uint64_t call_site;
#define CALLED() (simulee::call_site = reinterpret_cast<uint64_t>(__builtin_return_address(0)))

/* Tell the device about a copy or fill in a stream (for races between streams). */
void note_transfer(const void *destination, const void *source, size_t count, cudaStream_t stream, bool blocking);

/* A copy of `depth` slices of `height` rows of `width` bytes, each side with its own row pitch
   and slice pitch. */
struct Copy {
    void *to;
    size_t to_pitch, to_slice;
    const void *from;
    size_t from_pitch, from_slice, width, height, depth;
};

/* A copy in `stream` (the host waits for it when `blocking`, as for cudaMemcpy). */
cudaError_t copy(const Copy &copy, cudaStream_t stream, bool blocking);
/* The copy a cudaMemcpy3DParms describes (textures.cpp: CUDA arrays); all zeros when it names no memory. */
Copy copy_geometry(const cudaMemcpy3DParms *p);
cudaError_t copy(void *destination, const void *source, size_t count, cudaStream_t stream, bool blocking);
cudaError_t copy_2d(void *destination, size_t destination_pitch, const void *source, size_t source_pitch,
                    size_t width, size_t height, cudaStream_t stream, bool blocking);
cudaError_t fill(void *destination, int value, size_t count, cudaStream_t stream);


/* Run a kernel (its stub) in `stream`; `site` is where the program launched it. */
cudaError_t launch(const void *stub, dim3 grid, dim3 block, void **args, size_t shared, cudaStream_t stream,
                   uint64_t site);

/* The number of a kernel's parameters and the bytes of each; false for no kernel. */
bool kernel_parameters(const void *stub, uint32_t *count, const uint32_t **sizes);

void note_order(uint32_t op, uint64_t first, uint64_t second);

/* Stream capture (graphs.cpp): while `stream` is captured into a graph, its work becomes a node
   of the graph instead of running. Each returns whether it took the work. */
bool capture_kernel(cudaStream_t stream, const void *stub, dim3 grid, dim3 block, void **args, size_t shared,
                    uint64_t site);
bool capture_copy(cudaStream_t stream, const Copy &copy);
bool capture_fill(cudaStream_t stream, void *destination, int value, size_t count);
bool capture_host(cudaStream_t stream, cudaHostFn_t function, void *data);
bool capture_record(cudaEvent_t event, cudaStream_t stream);
bool capture_wait(cudaStream_t stream, cudaEvent_t event);
bool capture_allocation(cudaStream_t stream, void *pointer, size_t size);
bool capture_free(cudaStream_t stream, void *pointer);

/* Whether a pointer is memory a graph allocated: it lives as long as the program (freeing it
   does nothing), so every launch of the graph finds it at the same address. */
bool graph_memory(const void *pointer);

}  // namespace simulee

#endif
