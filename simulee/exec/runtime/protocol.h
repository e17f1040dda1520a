/* The requests a program under `simulee exec` makes of the device, and its replies: a
   Header and `size` bytes of payload, answered by a Reply and `size` bytes. The numbers
   are simulee/exec/device.py's too (Request). */
#ifndef SIMULEE_PROTOCOL_H
#define SIMULEE_PROTOCOL_H

#include <stdint.h>

enum {
    SIMULEE_HELLO = 1,              // u64 arena base (the program's address of the arena)
    SIMULEE_KERNEL = 2,             // name -> i32 id, u32 parameters, u32 size of each
    SIMULEE_SYMBOL = 3,             // u64 size, name -> u64 address, u64 arena offset, u64 size, u32 region,
                                    // u32 managed
    SIMULEE_MALLOC = 5,             // u64 size, u32 kind -> u64 address, u64 arena offset, u32 region
    SIMULEE_FREE = 6,               // u64 address, u32 kind -> u32 region
    SIMULEE_LAUNCH = 7,             // i32 kernel, u32 grid[3], u32 block[3], u64 shared, u64 stream, u64 site,
                                    // each parameter's bytes -> the kernel's printf output
    SIMULEE_TRANSFER = 8,           // u64 site, u64 destination, u64 source (0: a fill), u64 bytes, u64 stream,
                                    // u64 blocking
    SIMULEE_SYNCHRONIZE = 9,        // -
    SIMULEE_STREAM_SYNCHRONIZE = 10,// u64 stream
    SIMULEE_STREAM_WAIT = 11,       // u64 stream, u64 event
    SIMULEE_EVENT_RECORD = 12,      // u64 event, u64 stream
    SIMULEE_EVENT_SYNCHRONIZE = 13, // u64 event
    SIMULEE_UNSUPPORTED = 14,       // name of the runtime function called
    SIMULEE_TEXTURE = 15,           // u64 address, i32 channel bits[4], u32 channel kind, u64 width, height,
                                    // depth (elements), u64 row pitch, slice pitch (bytes), u32 flags
                                    // (cudaArrayLayered, cudaArrayCubemap), u32 address modes[3], filter mode,
                                    // read mode, normalized coordinates, f32 border color[4] -> u64 handle
    SIMULEE_TEXTURE_DESTROY = 16,   // u64 handle
    SIMULEE_STREAM_CREATE = 17,     // u64 stream, u64 flags (cudaStreamNonBlocking)
    SIMULEE_TEXTURE_BIND = 18,      // u64 address of a texture reference (a device variable), u64 handle of the
                                    // texture object it now reads (0: none)
    SIMULEE_FINISH = 19,            // - -> u32 errors found (the program is exiting; simulee-nvcc's programs)
};

/* The streams (and events) a graph's nodes run in (runtime/graphs.cpp) have this bit set. */
#define SIMULEE_GRAPH_NODE_STREAM ((uint64_t)1 << 63)

enum { SIMULEE_DEVICE_MEMORY = 0, SIMULEE_MANAGED_MEMORY = 1, SIMULEE_HOST_MEMORY = 2 };

enum { SIMULEE_EXIT_LOST = 197 };  // the program's exit status when the device went away

struct Header {
    uint32_t op;
    uint32_t reserved;
    uint64_t size;
};

struct Reply {
    int32_t status;  // a cudaError_t
    uint32_t reserved;
    uint64_t size;
};

#ifdef __cplusplus
extern "C" {
#endif
struct cudaDeviceProp;
void simulee_virtual_device(struct cudaDeviceProp *properties, uint64_t memory_bytes);
int simulee_device_attribute(const struct cudaDeviceProp *properties, int attribute, int *value);
const char *simulee_error_name(int error);
const char *simulee_error_text(int error);
#ifdef __cplusplus
}
#endif

#endif
