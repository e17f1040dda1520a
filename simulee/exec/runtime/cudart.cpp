/* Simulee's CUDA runtime: what a program `simulee exec` or simulee-nvcc builds links against
   instead of NVIDIA's libcudart.

   The device is Simulee's Python process: `simulee exec`'s, which starts the program and
   names the device in its environment, or, for a program running on its own (simulee-nvcc's),
   one the program starts at its first CUDA call (start_device), which reports at its exit.
   The device owns device memory, which lives in an arena
   file both processes map; the program copies to and from it directly, and asks the device
   (one request and one reply on a socket, protocol.h) to allocate, free, and run kernels.
   Device pointers are the interpreter's tagged addresses (space << 56 | region << 40 |
   offset), which the host cannot dereference, as on a GPU; managed and page-locked host
   memory is arena memory the host addresses directly and kernels reach through the same
   pointer. Every launch runs to completion before the call returns, so streams and events
   are ordered trivially; the device records them to find races between streams. Host
   threads may call it at once: each has its own request, reply and last error, and one
   request at a time goes to the device. */

#include <cuda_runtime_api.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"

namespace simulee {

/* ------------------------------------------------------------------ the link to the device */

int channel = -1;
char *arena = nullptr;
uint64_t arena_bytes = 0;

void lost(const char *what) {
    fprintf(stderr, "simulee: the device is gone (%s): the program stops\n", what);
    fflush(stderr);
    _exit(SIMULEE_EXIT_LOST);
}

void send_all(const void *data, size_t size) {
    const char *bytes = static_cast<const char *>(data);
    while (size) {
        ssize_t sent = send(channel, bytes, size, MSG_NOSIGNAL);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) lost("send");
        bytes += sent;
        size -= size_t(sent);
    }
}

void receive_all(void *data, size_t size) {
    char *bytes = static_cast<char *>(data);
    while (size) {
        ssize_t got = recv(channel, bytes, size, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) lost("receive");
        bytes += got;
        size -= size_t(got);
    }
}

extern "C" {
// where Python and Simulee are, for a program simulee-nvcc linked (the toolkit's libcudart_static.a defines
// them); absent from what `simulee exec` builds, which its own Python serves
extern const char simulee_python[] __attribute__((weak));
extern const char simulee_pythonpath[] __attribute__((weak));
extern char **environ;
}

char started_arena[4096];  // the arena's path, from a device the program started itself

/* At the program's exit: the device reports what it found; the exit status becomes
   SIMULEE_EXIT_ON_ERROR's when it found errors and that is set. */
void finish() {
    fflush(nullptr);
    ask(SIMULEE_FINISH);
    uint32_t errors = answer.size >= sizeof(uint32_t) ? answered<uint32_t>(0) : 0;
    const char *status = getenv("SIMULEE_EXIT_ON_ERROR");
    if (errors && status && *status) _exit(atoi(status));
}

/* Start the device of a program running on its own (built by simulee-nvcc): Simulee's Python
   on the other end of a socket pair (python -m simulee.server.device FD EXECUTABLE: run by a Simulee server
   when one runs, else simulee.exec.standalone in that process), which first
   says where the arena is. Returns the channel; sets the arena's path and size. */
int start_device(const char **path, uint64_t *bytes) {
    if (!simulee_python) {
        fprintf(stderr, "simulee: this program was built by `simulee exec` and runs only under it\n");
        _exit(SIMULEE_EXIT_LOST);
    }
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) lost("make a socket pair");
    static char executable[4096], fd[16], pythonpath[8192];
    ssize_t length = readlink("/proc/self/exe", executable, sizeof executable - 1);
    if (length <= 0) lost("find the program's executable");
    executable[length] = 0;
    snprintf(fd, sizeof fd, "%d", ends[1]);
    const char *python = getenv("SIMULEE_PYTHON") ? getenv("SIMULEE_PYTHON") : simulee_python;
    const char *before = getenv("PYTHONPATH");
    snprintf(pythonpath, sizeof pythonpath, "PYTHONPATH=%s%s%s", simulee_pythonpath ? simulee_pythonpath : "",
             before && *before ? ":" : "", before ? before : "");
    size_t count = 0;  // the environment the device gets: the program's, Simulee's package found first
    while (environ[count]) ++count;
    char **environment = static_cast<char **>(calloc(count + 2, sizeof(char *)));
    if (!environment) lost("out of host memory");
    size_t kept = 0;
    for (size_t i = 0; i < count; ++i)
        if (strncmp(environ[i], "PYTHONPATH=", 11) != 0) environment[kept++] = environ[i];
    environment[kept++] = pythonpath;
    char *arguments[] = {const_cast<char *>(python), const_cast<char *>("-m"),
                         const_cast<char *>("simulee.server.device"), fd, executable, nullptr};
    pid_t child = fork();
    if (child < 0) lost("start the device");
    if (child == 0) {
        setsid();  // a session of its own: a signal to the program's group (a test's time-out) leaves it to report
        fcntl(ends[1], F_SETFD, 0);  // the device's end survives the exec
        execve(python, arguments, environment);
        fprintf(stderr, "simulee: cannot start the device (%s: %s)\n", python, strerror(errno));
        _exit(127);
    }
    free(environment);
    close(ends[1]);
    channel = ends[0];
    uint64_t greeting[2];
    receive_all(greeting, sizeof greeting);
    if (greeting[1] >= sizeof started_arena) lost("the arena's path is too long");
    receive_all(started_arena, greeting[1]);
    started_arena[greeting[1]] = 0;
    *path = started_arena;
    *bytes = greeting[0];
    return channel;
}

void connect_device() {
    if (channel >= 0) return;
    const char *fd = getenv("SIMULEE_EXEC_FD");
    const char *path = getenv("SIMULEE_EXEC_ARENA");
    const char *bytes = getenv("SIMULEE_EXEC_ARENA_BYTES");
    bool started = !fd || !path || !bytes;
    if (started) {
        start_device(&path, &arena_bytes);
    } else {
        channel = atoi(fd);
        arena_bytes = strtoull(bytes, nullptr, 10);
    }
    int file = open(path, O_RDWR);
    if (file < 0) lost("open the arena");
    void *mapped = mmap(nullptr, arena_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
    close(file);
    if (mapped == MAP_FAILED) lost("map the arena");
    arena = static_cast<char *>(mapped);
    uint64_t base = reinterpret_cast<uint64_t>(arena);
    Header header{SIMULEE_HELLO, 0, sizeof base};
    send_all(&header, sizeof header);
    send_all(&base, sizeof base);
    Reply reply;
    receive_all(&reply, sizeof reply);
    if (started) atexit(finish);
}

thread_local Buffer request, answer;
pthread_mutex_t device_lock = PTHREAD_MUTEX_INITIALIZER;  // one request (and its reply) at a time

struct Locked {
    Locked() { pthread_mutex_lock(&device_lock); }
    ~Locked() { pthread_mutex_unlock(&device_lock); }
};

int ask(uint32_t op) {
    Locked locked;
    connect_device();
    Header header{op, 0, request.size};
    send_all(&header, sizeof header);
    send_all(request.data, request.size);
    Reply reply;
    receive_all(&reply, sizeof reply);
    answer.clear();
    if (reply.size) {
        answer.put(nullptr, 0);
        if (reply.size > answer.capacity) {
            answer.capacity = reply.size;
            answer.data = static_cast<char *>(realloc(answer.data, answer.capacity));
            if (!answer.data) lost("out of host memory");
        }
        receive_all(answer.data, reply.size);
        answer.size = reply.size;
    }
    request.clear();
    return reply.status;
}


/* ------------------------------------------------------------------ errors */

thread_local cudaError_t last_error = cudaSuccess;  // what cudaGetLastError returns (and clears), per thread
cudaError_t sticky_error = cudaSuccess;  // a kernel fault: every later call fails with it

cudaError_t fail(cudaError_t error) {
    if (error != cudaSuccess) last_error = error;
    return error;
}

/* The error of a call that synchronizes (or any call after a fault): the sticky one. */
cudaError_t status() {
    if (sticky_error != cudaSuccess) last_error = sticky_error;
    return sticky_error;
}

/* ------------------------------------------------------------------ memory */

constexpr int SPACE_SHIFT = 56, REGION_SHIFT = 40;
constexpr uint64_t OFFSET_MASK = (uint64_t(1) << REGION_SHIFT) - 1;

struct Allocation {
    uint64_t offset = 0;  // in the arena
    uint64_t size = 0;
    bool live = false;
};

constexpr uint32_t MAX_REGIONS = 1 << 16;
Allocation *regions = nullptr;  // by the interpreter's region number

void note_allocation(uint32_t region, uint64_t offset, uint64_t size) {
    Locked locked;
    if (!regions) regions = static_cast<Allocation *>(calloc(MAX_REGIONS, sizeof(Allocation)));
    if (!regions) lost("out of host memory");
    regions[region] = Allocation{offset, size, true};
}

bool is_device_pointer(const void *pointer) {
    uint64_t value = reinterpret_cast<uint64_t>(pointer);
    return value >> SPACE_SHIFT != 0;
}

/* The host address of `count` bytes at `pointer` (device or host), or null when they are not
   all inside one live allocation (device) or the pointer is null. */
char *reach(const void *pointer, size_t count) {
    if (!pointer) return nullptr;
    uint64_t value = reinterpret_cast<uint64_t>(pointer);
    if (!is_device_pointer(pointer)) return reinterpret_cast<char *>(const_cast<void *>(pointer));
    uint32_t region = uint32_t((value >> REGION_SHIFT) & (MAX_REGIONS - 1));
    uint64_t offset = value & OFFSET_MASK;
    if (!regions || !regions[region].live || offset + count > regions[region].size) return nullptr;
    return arena + regions[region].offset + offset;
}

size_t allocation_bytes(const void *pointer) {
    uint64_t value = reinterpret_cast<uint64_t>(pointer);
    if (!is_device_pointer(pointer)) return 0;
    uint32_t region = uint32_t((value >> REGION_SHIFT) & (MAX_REGIONS - 1));
    uint64_t offset = value & OFFSET_MASK;
    if (!regions || !regions[region].live || offset > regions[region].size) return 0;
    return regions[region].size - offset;
}

cudaError_t allocate(void **pointer, size_t size, uint32_t kind) {
    if (status()) return status();
    if (!pointer) return fail(cudaErrorInvalidValue);
    request.put<uint64_t>(size);
    request.put<uint32_t>(kind);
    int code = ask(SIMULEE_MALLOC);
    if (code) {
        *pointer = nullptr;
        return fail(cudaError_t(code));
    }
    uint64_t address = answered<uint64_t>(0), offset = answered<uint64_t>(8);
    uint32_t region = answered<uint32_t>(16);
    note_allocation(region, offset, size);
    *pointer = kind == SIMULEE_DEVICE_MEMORY ? reinterpret_cast<void *>(address) : arena + offset;
    return cudaSuccess;
}

cudaError_t release(void *pointer, uint32_t kind) {
    if (status()) return status();
    if (!pointer) return cudaSuccess;
    request.put<uint64_t>(reinterpret_cast<uint64_t>(pointer));
    request.put<uint32_t>(kind);
    int code = ask(SIMULEE_FREE);
    if (code) return fail(cudaError_t(code));
    uint32_t region = answered<uint32_t>(0);
    if (regions) regions[region].live = false;
    return cudaSuccess;
}

/* Tell the device about a copy or fill in a stream (for races between streams). */
thread_local uint64_t call_site = 0;  // the return address of the API call being served: where it is in the program

void note_transfer(const void *destination, const void *source, size_t count, cudaStream_t stream, bool blocking) {
    request.put<uint64_t>(call_site);
    request.put<uint64_t>(reinterpret_cast<uint64_t>(destination));
    request.put<uint64_t>(reinterpret_cast<uint64_t>(source));
    request.put<uint64_t>(count);
    request.put<uint64_t>(reinterpret_cast<uint64_t>(stream));
    request.put<uint64_t>(blocking);
    ask(SIMULEE_TRANSFER);
}

cudaError_t copy(const Copy &c, cudaStream_t stream, bool blocking) {
    if (status()) return status();
    if (c.width > c.to_pitch || c.width > c.from_pitch) return fail(cudaErrorInvalidPitchValue);
    if (!c.height || !c.width || !c.depth) return cudaSuccess;
    if (capture_copy(stream, c)) return cudaSuccess;
    size_t to_span = c.to_slice * (c.depth - 1) + c.to_pitch * (c.height - 1) + c.width;
    size_t from_span = c.from_slice * (c.depth - 1) + c.from_pitch * (c.height - 1) + c.width;
    char *to = reach(c.to, to_span);
    const char *from = reach(c.from, from_span);
    if (!to || !from) return fail(cudaErrorInvalidValue);
    for (size_t slice = 0; slice < c.depth; ++slice)
        for (size_t row = 0; row < c.height; ++row)
            memmove(to + slice * c.to_slice + row * c.to_pitch, from + slice * c.from_slice + row * c.from_pitch,
                    c.width);
    note_transfer(c.to, c.from, to_span, stream, blocking);
    return cudaSuccess;
}

cudaError_t copy(void *destination, const void *source, size_t count, cudaStream_t stream, bool blocking) {
    return copy(Copy{destination, count, count, source, count, count, count, 1, 1}, stream, blocking);
}

cudaError_t copy_2d(void *destination, size_t destination_pitch, const void *source, size_t source_pitch,
                    size_t width, size_t height, cudaStream_t stream, bool blocking) {
    return copy(Copy{destination, destination_pitch, destination_pitch * height, source, source_pitch,
                     source_pitch * height, width, height, 1},
                stream, blocking);
}

cudaError_t fill(void *destination, int value, size_t count, cudaStream_t stream) {
    if (status()) return status();
    if (!count) return cudaSuccess;
    if (capture_fill(stream, destination, value, count)) return cudaSuccess;
    char *to = reach(destination, count);
    if (!to) return fail(cudaErrorInvalidValue);
    memset(to, value, count);
    note_transfer(destination, nullptr, count, stream, false);
    return cudaSuccess;
}

cudaError_t fill_2d(void *destination, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream) {
    for (size_t row = 0; row < height; ++row) {
        cudaError_t error = fill(static_cast<char *>(destination) + row * pitch, value, width, stream);
        if (error) return error;
    }
    return cudaSuccess;
}

/* ------------------------------------------------------------------ symbols and kernels */

struct Symbol {
    void *host;         // the host shadow's address, as the program names the symbol
    uint64_t address;   // on the device
    uint64_t size;
    uint64_t offset;    // in the arena
    bool managed;       // a __managed__ variable: the host's copy is the device's
};

constexpr int MAX_SYMBOLS = 1 << 14;
Symbol symbols[MAX_SYMBOLS];
int symbol_count = 0;

const Symbol *symbol_of(const void *host) {
    for (int i = 0; i < symbol_count; ++i)
        if (symbols[i].host == host) return &symbols[i];
    return nullptr;
}

/* Managed variables: the device's copy takes the host's before a launch, and gives it back
   after (launches are synchronous, so the host sees the kernel's writes at once). */
void managed_to_device() {
    for (int i = 0; i < symbol_count; ++i)
        if (symbols[i].managed) memcpy(arena + symbols[i].offset, symbols[i].host, symbols[i].size);
}

void managed_to_host() {
    for (int i = 0; i < symbol_count; ++i)
        if (symbols[i].managed) memcpy(symbols[i].host, arena + symbols[i].offset, symbols[i].size);
}

struct Kernel {
    const void *stub;
    int id;             // the device's number for it (-1: the device has no such kernel)
    uint32_t params;
    uint32_t *sizes;    // of each parameter, in bytes
    int dynamic_shared; // the most dynamic shared memory a launch may ask (cudaFuncAttributeMaxDynamicSharedMemorySize)
};

constexpr int DEFAULT_DYNAMIC_SHARED = 48 * 1024, OPTIN_SHARED = 96 * 1024;  // the virtual device's (device.cpp)

constexpr int MAX_KERNELS = 1 << 14;
Kernel kernels[MAX_KERNELS];
int kernel_count = 0;

const Kernel *kernel_of(const void *stub) {
    for (int i = 0; i < kernel_count; ++i)
        if (kernels[i].stub == stub) return &kernels[i];
    return nullptr;
}

struct Configuration {
    dim3 grid, block;
    size_t shared;
    cudaStream_t stream;
    uint64_t site;  // the return address of the <<<...>>>'s push: where the launch is in the program
};

thread_local Configuration configurations[64];  // <<<...>>> pushes, the stub pops (per host thread)
thread_local int configured = 0;
thread_local uint64_t pending_site = 0;

/* ------------------------------------------------------------------ streams and events */

struct Event {
    double seconds = 0;  // wall clock when recorded
    bool recorded = false;
};

double now() {
    timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return double(time.tv_sec) + double(time.tv_nsec) * 1e-9;
}

void note_order(uint32_t op, uint64_t first, uint64_t second) {
    request.put<uint64_t>(first);
    request.put<uint64_t>(second);
    ask(op);
}

}  // namespace simulee

using namespace simulee;

/* ------------------------------------------------------------------ what clang's code calls */

extern "C" {

void **__cudaRegisterFatBinary(void *) {
    static void *handle = nullptr;
    return &handle;
}

void __cudaRegisterFatBinaryEnd(void **) {}

void __cudaUnregisterFatBinary(void **) {}

void __cudaRegisterFunction(void **, const char *stub, char *, const char *name, int, uint3 *, uint3 *, dim3 *, dim3 *,
                            int *) {
    if (kernel_count == MAX_KERNELS) return;
    request.put_text(name);
    Kernel &kernel = kernels[kernel_count++];
    kernel.stub = stub;
    kernel.id = -1;
    kernel.params = 0;
    kernel.dynamic_shared = DEFAULT_DYNAMIC_SHARED;
    if (ask(SIMULEE_KERNEL) == 0) {
        kernel.id = answered<int32_t>(0);
        kernel.params = answered<uint32_t>(4);
        kernel.sizes = static_cast<uint32_t *>(calloc(kernel.params + 1, sizeof(uint32_t)));
        if (!kernel.sizes) lost("out of host memory");
        for (uint32_t i = 0; i < kernel.params; ++i) kernel.sizes[i] = answered<uint32_t>(8 + 4 * i);
    }
}

void __cudaRegisterVar(void **, char *host, char *, const char *name, int, size_t size, int, int) {
    if (symbol_count == MAX_SYMBOLS) return;
    request.put<uint64_t>(size);
    request.put_text(name);
    if (ask(SIMULEE_SYMBOL) != 0) return;
    uint64_t address = answered<uint64_t>(0), offset = answered<uint64_t>(8), bytes = answered<uint64_t>(16);
    uint32_t region = answered<uint32_t>(24), managed = answered<uint32_t>(28);
    note_allocation(region, offset, bytes);
    symbols[symbol_count++] = Symbol{host, address, bytes, offset, managed != 0};
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, cudaStream_t stream) {
    if (configured < 64)
        configurations[configured++] = Configuration{grid, block, shared, stream,
                                                     reinterpret_cast<uint64_t>(__builtin_return_address(0))};
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared, cudaStream_t *stream) {
    if (!configured) return cudaErrorMissingConfiguration;
    Configuration &configuration = configurations[--configured];
    *grid = configuration.grid;
    *block = configuration.block;
    *shared = configuration.shared;
    *stream = configuration.stream;
    pending_site = configuration.site;
    return cudaSuccess;
}

/* ------------------------------------------------------------------ the runtime API */

cudaError_t cudaLaunchKernel(const void *stub, dim3 grid, dim3 block, void **args, size_t shared, cudaStream_t stream) {
    uint64_t site = pending_site ? pending_site : reinterpret_cast<uint64_t>(__builtin_return_address(0));
    pending_site = 0;
    return launch(stub, grid, block, args, shared, stream, site);
}

cudaError_t cudaLaunchCooperativeKernel(const void *stub, dim3 grid, dim3 block, void **args, size_t shared,
                                        cudaStream_t stream) {
    uint64_t site = pending_site ? pending_site : reinterpret_cast<uint64_t>(__builtin_return_address(0));
    pending_site = 0;
    return launch(stub, grid, block, args, shared, stream, site);
}

}  // extern "C"

cudaError_t simulee::launch(const void *stub, dim3 grid, dim3 block, void **args, size_t shared, cudaStream_t stream,
                            uint64_t site) {
    if (status()) return status();
    const Kernel *kernel = kernel_of(stub);
    if (!kernel || kernel->id < 0) return fail(cudaErrorInvalidDeviceFunction);
    uint64_t threads = uint64_t(block.x) * block.y * block.z;
    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z || threads > 1024 || block.z > 64 ||
        grid.y > 65535 || grid.z > 65535 || grid.x > 2147483647u || shared > size_t(kernel->dynamic_shared))
        return fail(cudaErrorInvalidConfiguration);
    if (capture_kernel(stream, stub, grid, block, args, shared, site)) return cudaSuccess;
    fflush(stdout);  // what the program printed before the launch comes before what the kernel prints
    request.put<int32_t>(kernel->id);
    request.put<uint32_t>(grid.x); request.put<uint32_t>(grid.y); request.put<uint32_t>(grid.z);
    request.put<uint32_t>(block.x); request.put<uint32_t>(block.y); request.put<uint32_t>(block.z);
    request.put<uint64_t>(shared);
    request.put<uint64_t>(reinterpret_cast<uint64_t>(stream));
    request.put<uint64_t>(site);
    for (uint32_t i = 0; i < kernel->params; ++i) request.put(args[i], kernel->sizes[i]);
    managed_to_device();
    int code = ask(SIMULEE_LAUNCH);
    managed_to_host();
    if (answer.size) {  // the kernel's printf output
        fwrite(answer.data, 1, answer.size, stdout);
        fflush(stdout);
    }
    if (code == cudaErrorIllegalAddress || code == cudaErrorLaunchFailure || code == cudaErrorAssert ||
        code == cudaErrorLaunchTimeout) {
        sticky_error = cudaError_t(code);  // reported by the next call, as a GPU's context is lost
        return cudaSuccess;
    }
    return fail(cudaError_t(code));
}

bool simulee::kernel_parameters(const void *stub, uint32_t *count, const uint32_t **sizes) {
    const Kernel *kernel = kernel_of(stub);
    if (!kernel || kernel->id < 0) return false;
    *count = kernel->params;
    *sizes = kernel->sizes;
    return true;
}

extern "C" {

cudaError_t cudaMalloc(void **pointer, size_t size) { return allocate(pointer, size, SIMULEE_DEVICE_MEMORY); }

cudaError_t cudaMallocManaged(void **pointer, size_t size, unsigned int) {
    return allocate(pointer, size, SIMULEE_MANAGED_MEMORY);
}

cudaError_t cudaMallocHost(void **pointer, size_t size) { return allocate(pointer, size, SIMULEE_HOST_MEMORY); }

cudaError_t cudaHostAlloc(void **pointer, size_t size, unsigned int) {
    return allocate(pointer, size, SIMULEE_HOST_MEMORY);
}

cudaError_t cudaMallocPitch(void **pointer, size_t *pitch, size_t width, size_t height) {
    if (!pitch) return fail(cudaErrorInvalidValue);
    *pitch = (width + 511) / 512 * 512;
    return allocate(pointer, *pitch * height, SIMULEE_DEVICE_MEMORY);
}

cudaError_t cudaFree(void *pointer) {
    if (graph_memory(pointer)) return status();
    return release(pointer, is_device_pointer(pointer) ? SIMULEE_DEVICE_MEMORY : SIMULEE_MANAGED_MEMORY);
}

cudaError_t cudaFreeHost(void *pointer) { return release(pointer, SIMULEE_HOST_MEMORY); }

cudaError_t cudaHostGetDevicePointer(void **device, void *host, unsigned int) {
    if (!device) return fail(cudaErrorInvalidValue);
    *device = host;
    return status();
}

cudaError_t cudaMemcpy(void *destination, const void *source, size_t count, cudaMemcpyKind) {
    CALLED();
    return copy(destination, source, count, nullptr, true);
}

cudaError_t cudaMemcpyAsync(void *destination, const void *source, size_t count, cudaMemcpyKind,
                            cudaStream_t stream) {
    CALLED();
    return copy(destination, source, count, stream, false);
}

cudaError_t cudaMemcpy2D(void *destination, size_t destination_pitch, const void *source, size_t source_pitch,
                         size_t width, size_t height, cudaMemcpyKind) {
    CALLED();
    return copy_2d(destination, destination_pitch, source, source_pitch, width, height, nullptr, true);
}

cudaError_t cudaMemcpy2DAsync(void *destination, size_t destination_pitch, const void *source, size_t source_pitch,
                              size_t width, size_t height, cudaMemcpyKind, cudaStream_t stream) {
    CALLED();
    return copy_2d(destination, destination_pitch, source, source_pitch, width, height, stream, false);
}

cudaError_t cudaMemcpyPeer(void *destination, int, const void *source, int, size_t count) {
    CALLED();
    return copy(destination, source, count, nullptr, true);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *source, size_t count, size_t offset, cudaMemcpyKind) {
    CALLED();
    const Symbol *found = symbol_of(symbol);
    if (!found) return fail(cudaErrorInvalidSymbol);
    if (offset + count > found->size) return fail(cudaErrorInvalidValue);
    if (found->managed) return copy(static_cast<char *>(found->host) + offset, source, count, nullptr, true);
    return copy(reinterpret_cast<void *>(found->address + offset), source, count, nullptr, true);
}

cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *source, size_t count, size_t offset,
                                    cudaMemcpyKind, cudaStream_t stream) {
    CALLED();
    const Symbol *found = symbol_of(symbol);
    if (!found) return fail(cudaErrorInvalidSymbol);
    if (offset + count > found->size) return fail(cudaErrorInvalidValue);
    return copy(reinterpret_cast<void *>(found->address + offset), source, count, stream, false);
}

cudaError_t cudaMemcpyFromSymbol(void *destination, const void *symbol, size_t count, size_t offset, cudaMemcpyKind) {
    CALLED();
    const Symbol *found = symbol_of(symbol);
    if (!found) return fail(cudaErrorInvalidSymbol);
    if (offset + count > found->size) return fail(cudaErrorInvalidValue);
    if (found->managed) return copy(destination, static_cast<char *>(found->host) + offset, count, nullptr, true);
    return copy(destination, reinterpret_cast<const void *>(found->address + offset), count, nullptr, true);
}

cudaError_t cudaMemcpyFromSymbolAsync(void *destination, const void *symbol, size_t count, size_t offset,
                                      cudaMemcpyKind, cudaStream_t stream) {
    CALLED();
    const Symbol *found = symbol_of(symbol);
    if (!found) return fail(cudaErrorInvalidSymbol);
    if (offset + count > found->size) return fail(cudaErrorInvalidValue);
    return copy(destination, reinterpret_cast<const void *>(found->address + offset), count, stream, false);
}

cudaError_t cudaGetSymbolAddress(void **pointer, const void *symbol) {
    const Symbol *found = symbol_of(symbol);
    if (!found || !pointer) return fail(cudaErrorInvalidSymbol);
    *pointer = reinterpret_cast<void *>(found->address);
    return status();
}

cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
    const Symbol *found = symbol_of(symbol);
    if (!found || !size) return fail(cudaErrorInvalidSymbol);
    *size = found->size;
    return status();
}

cudaError_t cudaMemset(void *destination, int value, size_t count) {
    CALLED(); return fill(destination, value, count, nullptr); }

cudaError_t cudaMemsetAsync(void *destination, int value, size_t count, cudaStream_t stream) {
    CALLED();
    return fill(destination, value, count, stream);
}

cudaError_t cudaMemset2D(void *destination, size_t pitch, int value, size_t width, size_t height) {
    CALLED();
    return fill_2d(destination, pitch, value, width, height, nullptr);
}

cudaError_t cudaMemset2DAsync(void *destination, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
    CALLED();
    return fill_2d(destination, pitch, value, width, height, stream);
}

cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
    if (free) *free = arena_bytes / 2;
    if (total) *total = arena_bytes;
    return status();
}

/* Placement hints: accepted, without effect (all memory is one memory here). */
cudaError_t cudaMemPrefetchAsync(const void *, size_t, int, cudaStream_t) { return status(); }

cudaError_t cudaMemPrefetchAsync_v2(const void *, size_t, cudaMemLocation, unsigned int, cudaStream_t) {
    return status();
}

cudaError_t cudaMemAdvise(const void *, size_t, cudaMemoryAdvise, int) { return status(); }

cudaError_t cudaMemAdvise_v2(const void *, size_t, cudaMemoryAdvise, cudaMemLocation) { return status(); }

/* Stream-ordered allocation: the stream's earlier work is done when the call returns, so it
   is plain allocation; the default pool's settings are accepted without effect. */
cudaError_t cudaMallocAsync(void **pointer, size_t size, cudaStream_t stream) {
    cudaError_t error = allocate(pointer, size, SIMULEE_DEVICE_MEMORY);
    if (!error) capture_allocation(stream, *pointer, size);
    return error;
}

cudaError_t cudaMallocFromPoolAsync(void **pointer, size_t size, cudaMemPool_t, cudaStream_t stream) {
    return cudaMallocAsync(pointer, size, stream);
}

cudaError_t cudaFreeAsync(void *pointer, cudaStream_t stream) {
    if (capture_free(stream, pointer) || graph_memory(pointer)) return status();
    return release(pointer, SIMULEE_DEVICE_MEMORY);
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int device) {
    static int the_pool;
    if (!pool) return fail(cudaErrorInvalidValue);
    if (device != 0) return fail(cudaErrorInvalidDevice);
    *pool = reinterpret_cast<cudaMemPool_t>(&the_pool);
    return status();
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int device) { return cudaDeviceGetDefaultMemPool(pool, device); }

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t, cudaMemPoolAttr, void *) { return status(); }

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t, cudaMemPoolAttr, void *value) {
    if (value) memset(value, 0, sizeof(uint64_t));
    return status();
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t, size_t) { return status(); }

cudaError_t cudaHostRegister(void *, size_t, unsigned int) { return status(); }

cudaError_t cudaHostUnregister(void *) { return status(); }

/* -- synchronization: every launch and copy has finished when its call returned */

cudaError_t cudaDeviceSynchronize() {
    note_order(SIMULEE_SYNCHRONIZE, 0, 0);
    return status();
}

cudaError_t cudaThreadSynchronize() { return cudaDeviceSynchronize(); }

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    note_order(SIMULEE_STREAM_SYNCHRONIZE, reinterpret_cast<uint64_t>(stream), 0);
    return status();
}

cudaError_t cudaStreamQuery(cudaStream_t) { return status(); }

cudaError_t cudaStreamCreate(cudaStream_t *stream) {
    static uint64_t streams = 0;
    if (!stream) return fail(cudaErrorInvalidValue);
    *stream = reinterpret_cast<cudaStream_t>(__atomic_add_fetch(&streams, 1, __ATOMIC_RELAXED) * 16 + 0x1000);
    return status();
}

/* A non-blocking stream neither waits for the legacy default stream nor makes it wait. */
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags) {
    cudaError_t error = cudaStreamCreate(stream);
    if (!error && flags) note_order(SIMULEE_STREAM_CREATE, reinterpret_cast<uint64_t>(*stream), flags);
    return error;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int) {
    return cudaStreamCreateWithFlags(stream, flags);
}

/* Priorities are accepted and have no effect: launches run one after another. */
cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) {
    if (least) *least = 0;
    if (greatest) *greatest = -5;
    return status();
}

cudaError_t cudaStreamDestroy(cudaStream_t) { return status(); }

/* The work a stream had when the callback was added is done: the callback runs at once. */
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *data, unsigned int) {
    if (!callback) return fail(cudaErrorInvalidValue);
    callback(stream, status(), data);
    return status();
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t function, void *data) {
    if (!function) return fail(cudaErrorInvalidValue);
    if (status()) return status();
    if (capture_host(stream, function, data)) return cudaSuccess;
    function(data);
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
    if (capture_wait(stream, event)) return status();
    note_order(SIMULEE_STREAM_WAIT, reinterpret_cast<uint64_t>(stream), reinterpret_cast<uint64_t>(event));
    return status();
}

cudaError_t cudaEventCreate(cudaEvent_t *event) {
    if (!event) return fail(cudaErrorInvalidValue);
    *event = reinterpret_cast<cudaEvent_t>(new Event());
    return status();
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int) { return cudaEventCreate(event); }

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    if (!event) return fail(cudaErrorInvalidResourceHandle);
    if (capture_record(event, stream)) return status();
    Event *recorded = reinterpret_cast<Event *>(event);
    recorded->seconds = now();
    recorded->recorded = true;
    note_order(SIMULEE_EVENT_RECORD, reinterpret_cast<uint64_t>(event), reinterpret_cast<uint64_t>(stream));
    return status();
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int) {
    return cudaEventRecord(event, stream);
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    if (!event) return fail(cudaErrorInvalidResourceHandle);
    note_order(SIMULEE_EVENT_SYNCHRONIZE, reinterpret_cast<uint64_t>(event), 0);
    return status();
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
    if (!event) return fail(cudaErrorInvalidResourceHandle);
    return status();
}

/* The wall-clock time between the two records, as the simulation took it (not a GPU's). */
cudaError_t cudaEventElapsedTime(float *milliseconds, cudaEvent_t start, cudaEvent_t end) {
    if (!milliseconds || !start || !end) return fail(cudaErrorInvalidValue);
    Event *first = reinterpret_cast<Event *>(start), *second = reinterpret_cast<Event *>(end);
    if (!first->recorded || !second->recorded) return fail(cudaErrorInvalidResourceHandle);
    *milliseconds = float((second->seconds - first->seconds) * 1000.0);
    return status();
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    delete reinterpret_cast<Event *>(event);
    return status();
}

/* -- errors */

cudaError_t cudaGetLastError() {
    cudaError_t error = last_error;
    last_error = sticky_error;
    return error;
}

cudaError_t cudaPeekAtLastError() { return last_error; }

/* -- the virtual device */

int current_device = 0;

cudaError_t cudaGetDeviceCount(int *count) {
    if (!count) return fail(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device) {
    if (!device) return fail(cudaErrorInvalidValue);
    *device = current_device;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
    if (device != 0) return fail(cudaErrorInvalidDevice);
    return status();
}

cudaError_t cudaDeviceReset() { return cudaSuccess; }

cudaError_t cudaThreadExit() { return cudaSuccess; }

cudaError_t cudaSetDeviceFlags(unsigned int) { return status(); }

cudaError_t cudaGetDeviceFlags(unsigned int *flags) {
    if (flags) *flags = 0;
    return status();
}

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return status(); }

cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return status(); }

cudaError_t cudaFuncSetCacheConfig(const void *, cudaFuncCache) { return status(); }

/* Cache and scheduling hints: accepted, without effect (no cache is simulated). */
cudaError_t cudaStreamSetAttribute(cudaStream_t, cudaStreamAttrID, const cudaStreamAttrValue *) { return status(); }

cudaError_t cudaCtxResetPersistingL2Cache() { return status(); }

/* A kernel may opt in to more dynamic shared memory, up to the device's limit; the other
   attributes are hints, accepted without effect. */
cudaError_t cudaFuncSetAttribute(const void *stub, cudaFuncAttribute attribute, int value) {
    if (attribute != cudaFuncAttributeMaxDynamicSharedMemorySize) return status();
    Kernel *kernel = const_cast<Kernel *>(kernel_of(stub));
    if (!kernel || kernel->id < 0) return fail(cudaErrorInvalidDeviceFunction);
    if (value < 0 || value > OPTIN_SHARED) return fail(cudaErrorInvalidValue);
    kernel->dynamic_shared = value;
    return status();
}

cudaError_t cudaDeviceSetLimit(cudaLimit, size_t) { return status(); }

cudaError_t cudaDeviceGetLimit(size_t *value, cudaLimit limit) {
    if (!value) return fail(cudaErrorInvalidValue);
    *value = limit == cudaLimitMallocHeapSize ? 8 << 20 : limit == cudaLimitStackSize ? 1024 : 0;
    return status();
}

cudaError_t cudaDriverGetVersion(int *version) {
    if (!version) return fail(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version) { return cudaDriverGetVersion(version); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *properties, int device) {
    if (!properties) return fail(cudaErrorInvalidValue);
    if (device != 0) return fail(cudaErrorInvalidDevice);
    memset(properties, 0, sizeof *properties);
    simulee_virtual_device(properties, arena_bytes);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attribute, int device) {
    if (!value) return fail(cudaErrorInvalidValue);
    if (device != 0) return fail(cudaErrorInvalidDevice);
    cudaDeviceProp properties;
    cudaGetDeviceProperties(&properties, 0);
    return simulee_device_attribute(&properties, attribute, value) ? cudaSuccess : fail(cudaErrorInvalidValue);
}

cudaError_t cudaChooseDevice(int *device, const cudaDeviceProp *) {
    if (!device) return fail(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attributes, const void *stub) {
    if (!attributes) return fail(cudaErrorInvalidValue);
    memset(attributes, 0, sizeof *attributes);
    const Kernel *kernel = kernel_of(stub);
    attributes->maxDynamicSharedSizeBytes = kernel ? kernel->dynamic_shared : DEFAULT_DYNAMIC_SHARED;
    attributes->maxThreadsPerBlock = 1024;
    attributes->numRegs = 32;
    attributes->ptxVersion = attributes->binaryVersion = 70;
    return status();
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *, int block_size, size_t) {
    if (!blocks || block_size <= 0) return fail(cudaErrorInvalidValue);
    *blocks = 2048 / block_size > 32 ? 32 : 2048 / block_size;
    return status();
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *blocks, const void *kernel, int block_size,
                                                                   size_t shared, unsigned int) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, block_size, shared);
}

cudaError_t cudaProfilerStart() { return cudaSuccess; }

cudaError_t cudaProfilerStop() { return cudaSuccess; }

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind kind) {
    return cudaChannelFormatDesc{x, y, z, w, kind};
}

const char *cudaGetErrorName(cudaError_t error) { return simulee_error_name(error); }

const char *cudaGetErrorString(cudaError_t error) { return simulee_error_text(error); }

/* Say once that `name` is not supported (`result`: what it returns), and tell the device. */
static void tell_unsupported(const char *name, const char *result) {
    static const char *told[256];
    static int told_count = 0;
    for (int i = 0; i < told_count; ++i)
        if (strcmp(told[i], name) == 0) return;
    fprintf(stderr, "simulee: %s is not supported: %s\n", name, result);
    fflush(stderr);
    if (told_count < 256) told[told_count++] = name;
    request.put_text(name);
    ask(SIMULEE_UNSUPPORTED);
}

/* Every other function of the runtime API (stubs.c, generated from its header): one line
   on stderr the first time, and cudaErrorNotSupported. */
int __simulee_unsupported(const char *name) {
    tell_unsupported(name, "it returns cudaErrorNotSupported");
    last_error = cudaErrorNotSupported;
    return cudaErrorNotSupported;
}

/* A function of a toolkit library Simulee does not implement (cuRAND, cuBLAS, ...; the stubs
   simulee-nvcc links): one line on stderr the first time; the stub returns 1, the library's
   failure. */
void __simulee_unsupported_library(const char *name) {
    tell_unsupported(name, "Simulee does not implement its library; it fails (returns 1)");
}

}  // extern "C"
