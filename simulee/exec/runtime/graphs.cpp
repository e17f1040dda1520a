/* CUDA graphs: built node by node or captured from streams, instantiated, and launched.

   A launch runs the graph's nodes one after another in an order that respects their
   dependencies. For the device's stream-race detector, each node runs in a stream of its own
   that waits for the nodes it depends on (by events), so two nodes with no path between them
   are unordered, as on a GPU, where they may run at once; the launching stream's earlier work
   comes before every node and its later work after all of them.

   Memory that a graph allocates (allocation nodes, cudaMallocAsync while capturing) is
   allocated when the node is made and lives as long as the program: every launch finds it at
   the same address, as CUDA promises, and freeing it does nothing. Conditional nodes keep
   their condition in 4 bytes of device memory, which cudaGraphSetConditional (in device
   code: the prelude) writes. */

#include "runtime.h"

#include <pthread.h>

#include <map>
#include <set>
#include <vector>

extern "C" int __simulee_unsupported(const char *name);

struct CUgraphNode_st {
    cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
    cudaGraph_t graph = nullptr;
    std::vector<cudaGraphNode_t> dependencies;
    // a kernel: its stub, configuration, argument bytes and where each argument starts
    const void *stub = nullptr;
    dim3 grid, block;
    size_t shared = 0;
    uint64_t site = 0;  // where the program made (or captured) it
    std::vector<char> arguments;
    std::vector<size_t> offsets;
    simulee::Copy copy{};
    cudaMemsetParams fill{};
    cudaHostNodeParams host{};
    cudaGraph_t child = nullptr;  // a child graph; a conditional node's bodies are `bodies`
    cudaEvent_t event = nullptr;
    void *memory = nullptr;  // what an allocation node allocated, or a free node frees
    size_t bytes = 0;
    cudaGraphConditionalHandle handle = 0;
    cudaGraphConditionalNodeType condition = cudaGraphCondTypeIf;
    std::vector<cudaGraph_t> bodies;
};

struct Conditional {
    cudaGraphConditionalHandle handle;  // the device address of its value
    unsigned int initial;
    bool assign;  // set to `initial` at each launch
};

struct CUgraph_st {
    std::vector<cudaGraphNode_t> nodes;
    std::vector<Conditional> conditionals;
};

struct CUgraphExec_st {
    cudaGraph_t graph;  // a clone of the instantiated graph
    cudaGraph_t original;
};

namespace simulee {
namespace {

pthread_mutex_t graph_lock = PTHREAD_MUTEX_INITIALIZER;  // captures, events and graph memory

struct GraphLocked {
    GraphLocked() { pthread_mutex_lock(&graph_lock); }
    ~GraphLocked() { pthread_mutex_unlock(&graph_lock); }
};

/* A stream being captured: the graph and the nodes its next work depends on. */
struct Capture {
    cudaGraph_t graph;
    std::vector<cudaGraphNode_t> tips;
};

std::map<cudaStream_t, Capture> captures;
std::map<cudaEvent_t, Capture> captured_events;  // recorded while capturing: the nodes they stand for
std::set<const void *> graph_allocations;

/* cudaGraphAddNode calls the functions of each node type: the node's site is its caller's. */
thread_local bool forwarding = false;
#define NODE_SITE() \
    do {            \
        if (!forwarding) CALLED(); \
    } while (0)

cudaGraphNode_t add(cudaGraph_t graph, const cudaGraphNode_t *dependencies, size_t count, cudaGraphNodeType type) {
    cudaGraphNode_t node = new CUgraphNode_st();
    node->type = type;
    node->graph = graph;
    node->dependencies.assign(dependencies, dependencies + count);
    node->site = call_site;
    graph->nodes.push_back(node);
    return node;
}

bool set_kernel(cudaGraphNode_t node, const void *stub, dim3 grid, dim3 block, size_t shared, void **args) {
    uint32_t count;
    const uint32_t *sizes;
    if (!kernel_parameters(stub, &count, &sizes)) return false;
    node->stub = stub, node->grid = grid, node->block = block, node->shared = shared;
    node->arguments.clear();
    node->offsets.clear();
    for (uint32_t i = 0; i < count; ++i) {
        node->offsets.push_back(node->arguments.size());
        const char *value = static_cast<const char *>(args[i]);
        node->arguments.insert(node->arguments.end(), value, value + sizes[i]);
    }
    return true;
}

cudaGraph_t clone(cudaGraph_t graph, std::map<cudaGraphNode_t, cudaGraphNode_t> *map = nullptr) {
    cudaGraph_t made = new CUgraph_st();
    made->conditionals = graph->conditionals;
    std::map<cudaGraphNode_t, cudaGraphNode_t> local;
    std::map<cudaGraphNode_t, cudaGraphNode_t> &copies = map ? *map : local;
    for (cudaGraphNode_t node : graph->nodes) {
        cudaGraphNode_t copy = new CUgraphNode_st(*node);
        copy->graph = made;
        if (node->child) copy->child = clone(node->child);
        for (cudaGraph_t &body : copy->bodies) body = clone(body);
        for (cudaGraphNode_t &dependency : copy->dependencies) dependency = copies[dependency];
        copies[node] = copy;
        made->nodes.push_back(copy);
    }
    return made;
}

void destroy(cudaGraph_t graph) {
    if (!graph) return;
    for (cudaGraphNode_t node : graph->nodes) {
        destroy(node->child);
        for (cudaGraph_t body : node->bodies) destroy(body);
        delete node;
    }
    delete graph;
}

/* ------------------------------------------------------------------ running */

uint64_t stream_of(cudaGraphNode_t node) { return reinterpret_cast<uint64_t>(node) | SIMULEE_GRAPH_NODE_STREAM; }

uint64_t event_of(cudaGraphNode_t node) { return (reinterpret_cast<uint64_t>(node) + 1) | SIMULEE_GRAPH_NODE_STREAM; }

cudaError_t run_graph(cudaGraph_t graph, const std::vector<uint64_t> &after, uint64_t then);

cudaError_t fill_elements(const cudaMemsetParams &p, cudaStream_t stream) {
    size_t height = p.height ? p.height : 1, row_bytes = p.width * p.elementSize;
    if (p.elementSize != 1 && p.elementSize != 2 && p.elementSize != 4) return fail(cudaErrorInvalidValue);
    for (size_t row = 0; row < height; ++row) {
        char *start = static_cast<char *>(p.dst) + row * p.pitch;
        char *to = reach(start, row_bytes);
        if (!to) return fail(cudaErrorInvalidValue);
        for (size_t i = 0; i < p.width; ++i) memcpy(to + i * p.elementSize, &p.value, p.elementSize);
        note_transfer(start, nullptr, row_bytes, stream, false);
    }
    return cudaSuccess;
}

unsigned int condition_value(cudaGraphConditionalHandle handle) {
    unsigned int value = 0;
    const char *at = reach(reinterpret_cast<void *>(handle), sizeof value);
    if (at) memcpy(&value, at, sizeof value);
    return value;
}

cudaError_t run_node(cudaGraphNode_t node) {
    cudaStream_t stream = reinterpret_cast<cudaStream_t>(stream_of(node));
    call_site = node->site;
    switch (node->type) {
    case cudaGraphNodeTypeKernel: {
        std::vector<void *> pointers;
        for (size_t offset : node->offsets) pointers.push_back(node->arguments.data() + offset);
        return launch(node->stub, node->grid, node->block, pointers.data(), node->shared, stream, node->site);
    }
    case cudaGraphNodeTypeMemcpy:
        return copy(node->copy, stream, false);
    case cudaGraphNodeTypeMemset:
        return fill_elements(node->fill, stream);
    case cudaGraphNodeTypeHost:
        node->host.fn(node->host.userData);
        return status();
    case cudaGraphNodeTypeGraph:  // the child's nodes come after this node's dependencies
        note_order(SIMULEE_EVENT_RECORD, event_of(node), stream_of(node));
        return run_graph(node->child, {event_of(node)}, stream_of(node));
    case cudaGraphNodeTypeWaitEvent:
        note_order(SIMULEE_STREAM_WAIT, stream_of(node), reinterpret_cast<uint64_t>(node->event));
        return status();
    case cudaGraphNodeTypeEventRecord:
        return cudaEventRecord(node->event, stream);
    case cudaGraphNodeTypeConditional: {  // the body's nodes come after this node's dependencies
        note_order(SIMULEE_EVENT_RECORD, event_of(node), stream_of(node));
        unsigned int value = condition_value(node->handle);
        if (node->condition == cudaGraphCondTypeWhile) {
            for (uint64_t round = 0; value; ++round, value = condition_value(node->handle)) {
                cudaError_t error = run_graph(node->bodies[0], {event_of(node)}, stream_of(node));
                if (error) return error;
                note_order(SIMULEE_EVENT_RECORD, event_of(node), stream_of(node));
            }
            return status();
        }
        size_t body = node->condition == cudaGraphCondTypeSwitch ? value : value ? 0 : 1;
        if (body >= node->bodies.size()) return status();
        return run_graph(node->bodies[body], {event_of(node)}, stream_of(node));
    }
    default:  // empty nodes; allocation and free nodes (graph memory lives on)
        return status();
    }
}

/* Run a graph's nodes after the events `after`; the stream `then` waits for all of them. */
cudaError_t run_graph(cudaGraph_t graph, const std::vector<uint64_t> &after, uint64_t then) {
    for (const Conditional &conditional : graph->conditionals)
        if (conditional.assign) {
            char *at = reach(reinterpret_cast<void *>(conditional.handle), sizeof conditional.initial);
            if (at) memcpy(at, &conditional.initial, sizeof conditional.initial);
        }
    std::set<cudaGraphNode_t> done;
    std::vector<cudaGraphNode_t> order;
    while (order.size() < graph->nodes.size()) {  // the nodes in an order their dependencies allow
        size_t before = order.size();
        for (cudaGraphNode_t node : graph->nodes) {
            if (done.count(node)) continue;
            bool ready = true;
            for (cudaGraphNode_t dependency : node->dependencies) ready = ready && done.count(dependency);
            if (ready) done.insert(node), order.push_back(node);
        }
        if (order.size() == before) return fail(cudaErrorInvalidValue);  // a cycle
    }
    for (cudaGraphNode_t node : order) {
        if (node->dependencies.empty())
            for (uint64_t event : after) note_order(SIMULEE_STREAM_WAIT, stream_of(node), event);
        for (cudaGraphNode_t dependency : node->dependencies)
            note_order(SIMULEE_STREAM_WAIT, stream_of(node), event_of(dependency));
        cudaError_t error = run_node(node);
        if (error) return error;
        note_order(SIMULEE_EVENT_RECORD, event_of(node), stream_of(node));
    }
    for (cudaGraphNode_t node : order) note_order(SIMULEE_STREAM_WAIT, then, event_of(node));
    return status();
}

/* ------------------------------------------------------------------ capturing */

Capture *capture_of(cudaStream_t stream) {
    auto found = captures.find(stream);
    return found == captures.end() ? nullptr : &found->second;
}

cudaGraphNode_t capture_node(cudaStream_t stream, cudaGraphNodeType type) {
    Capture *capture = capture_of(stream);
    if (!capture) return nullptr;
    cudaGraphNode_t node = add(capture->graph, capture->tips.data(), capture->tips.size(), type);
    capture->tips.assign(1, node);
    return node;
}

}  // namespace

bool capture_kernel(cudaStream_t stream, const void *stub, dim3 grid, dim3 block, void **args, size_t shared,
                    uint64_t site) {
    GraphLocked locked;
    cudaGraphNode_t node = capture_node(stream, cudaGraphNodeTypeKernel);
    if (!node) return false;
    set_kernel(node, stub, grid, block, shared, args);
    node->site = site;
    return true;
}

bool capture_copy(cudaStream_t stream, const Copy &copy) {
    GraphLocked locked;
    cudaGraphNode_t node = capture_node(stream, cudaGraphNodeTypeMemcpy);
    if (node) node->copy = copy;
    return node != nullptr;
}

bool capture_fill(cudaStream_t stream, void *destination, int value, size_t count) {
    GraphLocked locked;
    cudaGraphNode_t node = capture_node(stream, cudaGraphNodeTypeMemset);
    if (node) node->fill = cudaMemsetParams{destination, count, (unsigned char)value, 1, count, 1};
    return node != nullptr;
}

bool capture_host(cudaStream_t stream, cudaHostFn_t function, void *data) {
    GraphLocked locked;
    cudaGraphNode_t node = capture_node(stream, cudaGraphNodeTypeHost);
    if (node) node->host = cudaHostNodeParams{function, data};
    return node != nullptr;
}

bool capture_record(cudaEvent_t event, cudaStream_t stream) {
    GraphLocked locked;
    Capture *capture = capture_of(stream);
    if (!capture) return false;
    captured_events[event] = *capture;
    return true;
}

/* Waiting for an event recorded in a capture joins the capture (a fork), or adds the event's
   nodes to what the stream's next work depends on (a join). */
bool capture_wait(cudaStream_t stream, cudaEvent_t event) {
    GraphLocked locked;
    auto found = captured_events.find(event);
    if (found == captured_events.end()) return false;
    Capture *capture = capture_of(stream);
    if (!capture) {
        captures[stream] = found->second;
        return true;
    }
    for (cudaGraphNode_t node : found->second.tips) {
        bool known = false;
        for (cudaGraphNode_t tip : capture->tips) known = known || tip == node;
        if (!known) capture->tips.push_back(node);
    }
    return true;
}

bool capture_allocation(cudaStream_t stream, void *pointer, size_t size) {
    GraphLocked locked;
    cudaGraphNode_t node = capture_node(stream, cudaGraphNodeTypeMemAlloc);
    if (!node) return false;
    node->memory = pointer, node->bytes = size;
    graph_allocations.insert(pointer);
    return true;
}

bool capture_free(cudaStream_t stream, void *pointer) {
    GraphLocked locked;
    cudaGraphNode_t node = capture_node(stream, cudaGraphNodeTypeMemFree);
    if (node) node->memory = pointer;
    return node != nullptr;
}

bool graph_memory(const void *pointer) {
    GraphLocked locked;
    return graph_allocations.count(pointer) != 0;
}

}  // namespace simulee

using namespace simulee;

extern "C" {

/* ------------------------------------------------------------------ graphs and nodes */

cudaError_t cudaGraphCreate(cudaGraph_t *graph, unsigned int) {
    if (!graph) return fail(cudaErrorInvalidValue);
    *graph = new CUgraph_st();
    return status();
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    destroy(graph);
    return status();
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                   size_t count, const cudaKernelNodeParams *p) {
    NODE_SITE();
    if (!node || !graph || !p) return fail(cudaErrorInvalidValue);
    cudaGraphNode_t made = add(graph, dependencies, count, cudaGraphNodeTypeKernel);
    if (!set_kernel(made, p->func, p->gridDim, p->blockDim, p->sharedMemBytes, p->kernelParams))
        return fail(cudaErrorInvalidDeviceFunction);
    *node = made;
    return status();
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams *p) {
    if (!node || !p || node->type != cudaGraphNodeTypeKernel) return fail(cudaErrorInvalidValue);
    static thread_local std::vector<void *> pointers;
    pointers.clear();
    for (size_t offset : node->offsets) pointers.push_back(node->arguments.data() + offset);
    *p = cudaKernelNodeParams{const_cast<void *>(node->stub), node->grid, node->block, unsigned(node->shared),
                              pointers.data(), nullptr};
    return status();
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams *p) {
    if (!node || !p || node->type != cudaGraphNodeTypeKernel) return fail(cudaErrorInvalidValue);
    if (!set_kernel(node, p->func, p->gridDim, p->blockDim, p->sharedMemBytes, p->kernelParams))
        return fail(cudaErrorInvalidDeviceFunction);
    return status();
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                   size_t count, const cudaMemcpy3DParms *p) {
    NODE_SITE();
    if (!node || !graph || !p) return fail(cudaErrorInvalidValue);
    Copy geometry = copy_geometry(p);
    if (!geometry.to || !geometry.from) return fail(cudaErrorInvalidValue);
    *node = add(graph, dependencies, count, cudaGraphNodeTypeMemcpy);
    (*node)->copy = geometry;
    return status();
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                     size_t count, void *dst, const void *src, size_t bytes, cudaMemcpyKind) {
    NODE_SITE();
    if (!node || !graph) return fail(cudaErrorInvalidValue);
    *node = add(graph, dependencies, count, cudaGraphNodeTypeMemcpy);
    (*node)->copy = Copy{dst, bytes, bytes, src, bytes, bytes, bytes, 1, 1};
    return status();
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const cudaMemcpy3DParms *p) {
    if (!node || !p || node->type != cudaGraphNodeTypeMemcpy) return fail(cudaErrorInvalidValue);
    node->copy = copy_geometry(p);
    return status();
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                   size_t count, const cudaMemsetParams *p) {
    NODE_SITE();
    if (!node || !graph || !p) return fail(cudaErrorInvalidValue);
    *node = add(graph, dependencies, count, cudaGraphNodeTypeMemset);
    (*node)->fill = *p;
    return status();
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const cudaMemsetParams *p) {
    if (!node || !p || node->type != cudaGraphNodeTypeMemset) return fail(cudaErrorInvalidValue);
    node->fill = *p;
    return status();
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                 size_t count, const cudaHostNodeParams *p) {
    NODE_SITE();
    if (!node || !graph || !p || !p->fn) return fail(cudaErrorInvalidValue);
    *node = add(graph, dependencies, count, cudaGraphNodeTypeHost);
    (*node)->host = *p;
    return status();
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams *p) {
    if (!node || !p || node->type != cudaGraphNodeTypeHost) return fail(cudaErrorInvalidValue);
    node->host = *p;
    return status();
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                       size_t count, cudaGraph_t child) {
    NODE_SITE();
    if (!node || !graph || !child) return fail(cudaErrorInvalidValue);
    *node = add(graph, dependencies, count, cudaGraphNodeTypeGraph);
    (*node)->child = clone(child);
    return status();
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *graph) {
    if (!node || !graph || node->type != cudaGraphNodeTypeGraph) return fail(cudaErrorInvalidValue);
    *graph = node->child;
    return status();
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                  size_t count) {
    NODE_SITE();
    if (!node || !graph) return fail(cudaErrorInvalidValue);
    *node = add(graph, dependencies, count, cudaGraphNodeTypeEmpty);
    return status();
}

static cudaError_t add_event_node(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                  size_t count, cudaEvent_t event, cudaGraphNodeType type) {
    if (!node || !graph || !event) return fail(cudaErrorInvalidValue);
    *node = add(graph, dependencies, count, type);
    (*node)->event = event;
    return status();
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                        size_t count, cudaEvent_t event) {
    NODE_SITE();
    return add_event_node(node, graph, dependencies, count, event, cudaGraphNodeTypeEventRecord);
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                      size_t count, cudaEvent_t event) {
    NODE_SITE();
    return add_event_node(node, graph, dependencies, count, event, cudaGraphNodeTypeWaitEvent);
}

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                     size_t count, cudaMemAllocNodeParams *p) {
    NODE_SITE();
    if (!node || !graph || !p) return fail(cudaErrorInvalidValue);
    void *memory = nullptr;
    cudaError_t error = allocate(&memory, p->bytesize, SIMULEE_DEVICE_MEMORY);
    if (error) return error;
    *node = add(graph, dependencies, count, cudaGraphNodeTypeMemAlloc);
    (*node)->memory = p->dptr = memory;
    (*node)->bytes = p->bytesize;
    GraphLocked locked;
    graph_allocations.insert(memory);
    return status();
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams *p) {
    if (!node || !p || node->type != cudaGraphNodeTypeMemAlloc) return fail(cudaErrorInvalidValue);
    memset(p, 0, sizeof *p);
    p->bytesize = node->bytes;
    p->dptr = node->memory;
    return status();
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                    size_t count, void *pointer) {
    NODE_SITE();
    if (!node || !graph) return fail(cudaErrorInvalidValue);
    *node = add(graph, dependencies, count, cudaGraphNodeTypeMemFree);
    (*node)->memory = pointer;
    return status();
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *pointer) {
    if (!node || !pointer || node->type != cudaGraphNodeTypeMemFree) return fail(cudaErrorInvalidValue);
    memcpy(pointer, &node->memory, sizeof node->memory);
    return status();
}

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *handle, cudaGraph_t graph,
                                             unsigned int initial, unsigned int flags) {
    if (!handle || !graph) return fail(cudaErrorInvalidValue);
    void *memory = nullptr;
    cudaError_t error = allocate(&memory, sizeof(unsigned int), SIMULEE_DEVICE_MEMORY);
    if (error) return error;
    char *at = reach(memory, sizeof initial);
    if (at) memcpy(at, &initial, sizeof initial);
    *handle = reinterpret_cast<cudaGraphConditionalHandle>(memory);
    graph->conditionals.push_back(Conditional{*handle, initial, (flags & cudaGraphCondAssignDefault) != 0});
    return status();
}

static cudaError_t add_node(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                            size_t count, cudaGraphNodeParams *p);
static cudaError_t add_node_of_caller(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                      size_t count, cudaGraphNodeParams *p);

/* Edge data (programmatic launches, ports) is not modelled: every edge is a full dependency. */
cudaError_t cudaGraphAddNode_v2(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                const cudaGraphEdgeData *, size_t count, cudaGraphNodeParams *p) {
    CALLED();
    return add_node_of_caller(node, graph, dependencies, count, p);
}

/* The generic form: kernel, copy, fill, host, child, empty, event, allocation, free and
   conditional nodes. */
cudaError_t cudaGraphAddNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                             size_t count, cudaGraphNodeParams *p) {
    CALLED();
    return add_node_of_caller(node, graph, dependencies, count, p);
}

/* add_node, the node's site the caller's (CALLED() by it), not the node type's function's. */
static cudaError_t add_node_of_caller(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                      size_t count, cudaGraphNodeParams *p) {
    forwarding = true;
    cudaError_t error = add_node(node, graph, dependencies, count, p);
    forwarding = false;
    return error;
}

static cudaError_t add_node(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                            size_t count, cudaGraphNodeParams *p) {
    if (!node || !graph || !p) return fail(cudaErrorInvalidValue);
    switch (p->type) {
    case cudaGraphNodeTypeKernel: {
        const cudaKernelNodeParamsV2 &k = p->kernel;
        cudaKernelNodeParams kernel{k.func, k.gridDim, k.blockDim, k.sharedMemBytes, k.kernelParams, k.extra};
        return cudaGraphAddKernelNode(node, graph, dependencies, count, &kernel);
    }
    case cudaGraphNodeTypeMemcpy:
        return cudaGraphAddMemcpyNode(node, graph, dependencies, count, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
        const cudaMemsetParamsV2 &m = p->memset;
        cudaMemsetParams fill{m.dst, m.pitch, m.value, m.elementSize, m.width, m.height};
        return cudaGraphAddMemsetNode(node, graph, dependencies, count, &fill);
    }
    case cudaGraphNodeTypeHost: {
        cudaHostNodeParams host{p->host.fn, p->host.userData};
        return cudaGraphAddHostNode(node, graph, dependencies, count, &host);
    }
    case cudaGraphNodeTypeGraph:
        return cudaGraphAddChildGraphNode(node, graph, dependencies, count, p->graph.graph);
    case cudaGraphNodeTypeEmpty:
        return cudaGraphAddEmptyNode(node, graph, dependencies, count);
    case cudaGraphNodeTypeWaitEvent:
        return cudaGraphAddEventWaitNode(node, graph, dependencies, count, p->eventWait.event);
    case cudaGraphNodeTypeEventRecord:
        return cudaGraphAddEventRecordNode(node, graph, dependencies, count, p->eventRecord.event);
    case cudaGraphNodeTypeMemAlloc: {
        cudaMemAllocNodeParams allocation{};
        allocation.bytesize = p->alloc.bytesize;
        cudaError_t error = cudaGraphAddMemAllocNode(node, graph, dependencies, count, &allocation);
        p->alloc.dptr = allocation.dptr;
        return error;
    }
    case cudaGraphNodeTypeMemFree:
        return cudaGraphAddMemFreeNode(node, graph, dependencies, count, p->free.dptr);
    case cudaGraphNodeTypeConditional: {
        cudaConditionalNodeParams &c = p->conditional;
        size_t bodies = c.type == cudaGraphCondTypeWhile ? 1 : c.size;
        if (!bodies || (c.type == cudaGraphCondTypeIf && bodies > 2)) return fail(cudaErrorInvalidValue);
        cudaGraphNode_t made = add(graph, dependencies, count, cudaGraphNodeTypeConditional);
        made->handle = c.handle;
        made->condition = c.type;
        for (size_t i = 0; i < bodies; ++i) made->bodies.push_back(new CUgraph_st());
        c.phGraph_out = made->bodies.data();
        *node = made;
        return status();
    }
    default:
        return cudaError_t(__simulee_unsupported("cudaGraphAddNode of an external semaphore node"));
    }
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     size_t count) {
    if (!graph || (count && (!from || !to))) return fail(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; ++i) to[i]->dependencies.push_back(from[i]);
    return status();
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *type) {
    if (!node || !type) return fail(cudaErrorInvalidValue);
    *type = node->type;
    return status();
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count) {
    if (!graph || !count) return fail(cudaErrorInvalidValue);
    if (nodes)
        for (size_t i = 0; i < *count && i < graph->nodes.size(); ++i) nodes[i] = graph->nodes[i];
    else
        *count = graph->nodes.size();
    return status();
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *roots, size_t *count) {
    if (!graph || !count) return fail(cudaErrorInvalidValue);
    size_t found = 0;
    for (cudaGraphNode_t node : graph->nodes)
        if (node->dependencies.empty()) {
            if (roots && found < *count) roots[found] = node;
            ++found;
        }
    if (!roots) *count = found;
    return status();
}

cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *dependencies, size_t *count) {
    if (!node || !count) return fail(cudaErrorInvalidValue);
    if (dependencies)
        for (size_t i = 0; i < *count && i < node->dependencies.size(); ++i) dependencies[i] = node->dependencies[i];
    else
        *count = node->dependencies.size();
    return status();
}

cudaError_t cudaGraphClone(cudaGraph_t *made, cudaGraph_t graph) {
    if (!made || !graph) return fail(cudaErrorInvalidValue);
    *made = clone(graph);
    return status();
}

/* ------------------------------------------------------------------ executable graphs */

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long) {
    if (!exec || !graph) return fail(cudaErrorInvalidValue);
    *exec = new CUgraphExec_st{clone(graph), graph};
    return status();
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags) {
    return cudaGraphInstantiate(exec, graph, flags);
}

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *exec, cudaGraph_t graph, cudaGraphInstantiateParams *p) {
    cudaError_t error = cudaGraphInstantiate(exec, graph, p ? p->flags : 0);
    if (p) p->result_out = error ? cudaGraphInstantiateError : cudaGraphInstantiateSuccess;
    return error;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
    if (exec) destroy(exec->graph);
    delete exec;
    return status();
}

cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t) { return exec ? status() : fail(cudaErrorInvalidValue); }

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
    if (!exec) return fail(cudaErrorInvalidValue);
    if (status()) return status();
    uint64_t start = reinterpret_cast<uint64_t>(exec) + 1;  // an event: the stream's work before the launch
    note_order(SIMULEE_EVENT_RECORD, start, reinterpret_cast<uint64_t>(stream));
    return run_graph(exec->graph, {start}, reinterpret_cast<uint64_t>(stream));
}

/* The node of the executable graph that was `node` of the graph it was made from. */
static cudaGraphNode_t in_exec(cudaGraphExec_t exec, cudaGraphNode_t node) {
    if (!exec || !node) return nullptr;
    const std::vector<cudaGraphNode_t> &original = exec->original->nodes;
    for (size_t i = 0; i < original.size() && i < exec->graph->nodes.size(); ++i)
        if (original[i] == node) return exec->graph->nodes[i];
    return nullptr;
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node, const cudaKernelNodeParams *p) {
    return cudaGraphKernelNodeSetParams(in_exec(exec, node), p);
}

cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node, const cudaMemcpy3DParms *p) {
    return cudaGraphMemcpyNodeSetParams(in_exec(exec, node), p);
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node, const cudaMemsetParams *p) {
    return cudaGraphMemsetNodeSetParams(in_exec(exec, node), p);
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node, const cudaHostNodeParams *p) {
    return cudaGraphHostNodeSetParams(in_exec(exec, node), p);
}

/* The executable graph takes the graph's nodes and parameters (the topology may differ: a
   graph's launch does not depend on it here). */
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphExecUpdateResultInfo *info) {
    if (!exec || !graph) return fail(cudaErrorInvalidValue);
    destroy(exec->graph);
    exec->graph = clone(graph);
    exec->original = graph;
    if (info) *info = cudaGraphExecUpdateResultInfo{cudaGraphExecUpdateSuccess, nullptr, nullptr};
    return status();
}

/* ------------------------------------------------------------------ stream capture */

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode) {
    GraphLocked locked;
    if (captures.count(stream)) return fail(cudaErrorIllegalState);
    captures[stream] = Capture{new CUgraph_st(), {}};
    return status();
}

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
                                          const cudaGraphEdgeData *, size_t count, cudaStreamCaptureMode) {
    GraphLocked locked;
    if (!graph) return fail(cudaErrorInvalidValue);
    if (captures.count(stream)) return fail(cudaErrorIllegalState);
    captures[stream] = Capture{graph, std::vector<cudaGraphNode_t>(dependencies, dependencies + count)};
    return status();
}

/* The capture ends for the stream and every stream that joined it. */
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph) {
    GraphLocked locked;
    Capture *capture = capture_of(stream);
    if (!capture) return fail(cudaErrorIllegalState);
    cudaGraph_t made = capture->graph;
    for (auto it = captures.begin(); it != captures.end();)
        it = it->second.graph == made ? captures.erase(it) : std::next(it);
    for (auto it = captured_events.begin(); it != captured_events.end();)
        it = it->second.graph == made ? captured_events.erase(it) : std::next(it);
    if (graph) *graph = made;
    return status();
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *state) {
    if (!state) return fail(cudaErrorInvalidValue);
    GraphLocked locked;
    *state = captures.count(stream) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    return status();
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus *state, unsigned long long *id,
                                     cudaGraph_t *graph, const cudaGraphNode_t **dependencies, size_t *count) {
    GraphLocked locked;
    Capture *capture = capture_of(stream);
    if (state) *state = capture ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    if (id) *id = capture ? reinterpret_cast<unsigned long long>(capture->graph) : 0;
    if (graph) *graph = capture ? capture->graph : nullptr;
    if (dependencies) *dependencies = capture ? capture->tips.data() : nullptr;
    if (count) *count = capture ? capture->tips.size() : 0;
    return status();
}

cudaError_t cudaStreamGetCaptureInfo_v3(cudaStream_t stream, cudaStreamCaptureStatus *state, unsigned long long *id,
                                        cudaGraph_t *graph, const cudaGraphNode_t **dependencies,
                                        const cudaGraphEdgeData **edges, size_t *count) {
    if (edges) *edges = nullptr;
    return cudaStreamGetCaptureInfo(stream, state, id, graph, dependencies, count);
}

/* What the capture's next work depends on: these nodes (cudaStreamSetCaptureDependencies),
   or these as well (cudaStreamAddCaptureDependencies). */
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies, size_t count,
                                                unsigned int flags) {
    GraphLocked locked;
    Capture *capture = capture_of(stream);
    if (!capture) return fail(cudaErrorIllegalState);
    if (count && !dependencies) return fail(cudaErrorInvalidValue);
    if (flags == cudaStreamSetCaptureDependencies) capture->tips.clear();
    capture->tips.insert(capture->tips.end(), dependencies, dependencies + count);
    return status();
}

cudaError_t cudaStreamUpdateCaptureDependencies_v2(cudaStream_t stream, cudaGraphNode_t *dependencies,
                                                   const cudaGraphEdgeData *, size_t count, unsigned int flags) {
    return cudaStreamUpdateCaptureDependencies(stream, dependencies, count, flags);
}

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode) {
    return mode ? status() : fail(cudaErrorInvalidValue);
}

/* Graph memory is ordinary device memory here: no pool of its own to trim or measure. */
cudaError_t cudaDeviceGraphMemTrim(int) { return status(); }

cudaError_t cudaDeviceGetGraphMemAttribute(int, cudaGraphMemAttributeType, void *value) {
    if (!value) return fail(cudaErrorInvalidValue);
    memset(value, 0, sizeof(uint64_t));
    return status();
}

cudaError_t cudaDeviceSetGraphMemAttribute(int, cudaGraphMemAttributeType, void *) { return status(); }

}  // extern "C"
