// CUDA graphs: one built node by node, one captured from two streams that fork and join,
// a conditional while loop, an executable graph whose kernel is given new arguments, and one
// that allocates, runs the first as a child graph, frees and records an event.
// With -DGRAPH_RACE the two branches of the built graph write the same buffer with no
// dependency between them: a race between graph nodes.
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(call)                                                                 \
  do {                                                                              \
    cudaError_t e = (call);                                                         \
    if (e != cudaSuccess) {                                                         \
      printf("%s failed: %s\n", #call, cudaGetErrorString(e));                      \
      return 1;                                                                     \
    }                                                                               \
  } while (0)

const int N = 256;

__global__ void scale(int *data, int factor) { data[threadIdx.x] *= factor; }

__global__ void add(int *out, const int *a, const int *b) { out[threadIdx.x] = a[threadIdx.x] + b[threadIdx.x]; }

__global__ void fill(int *data, int value) { data[threadIdx.x] = value; }

__global__ void count_up(int *counter, cudaGraphConditionalHandle handle) {
  ++*counter;
  cudaGraphSetConditional(handle, *counter < 5);
}

static void CUDART_CB note(void *calls) { ++*static_cast<int *>(calls); }

int main() {
  int host[N], out[N], calls = 0;
  for (int i = 0; i < N; ++i) host[i] = i;
  int *a, *b, *c;
  CHECK(cudaMalloc(&a, N * sizeof(int)));
  CHECK(cudaMalloc(&b, N * sizeof(int)));
  CHECK(cudaMalloc(&c, N * sizeof(int)));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));

  // Built: copy -> scale(a, 3) and, beside it, memset(b, 0) -> fill(b, 7); then add -> host node.
  cudaGraph_t graph;
  CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphNode_t copied, scaled, cleared, filled, added, noted;
  CHECK(cudaGraphAddMemcpyNode1D(&copied, graph, nullptr, 0, a, host, sizeof host, cudaMemcpyHostToDevice));
  int factor = 3, seven = 7;
  void *scale_args[] = {&a, &factor};
  cudaKernelNodeParams kernel = {(void *)scale, dim3(1), dim3(N), 0, scale_args, nullptr};
  CHECK(cudaGraphAddKernelNode(&scaled, graph, &copied, 1, &kernel));
  cudaMemsetParams memset_params = {b, 0, 0, 4, N, 1};
  CHECK(cudaGraphAddMemsetNode(&cleared, graph, nullptr, 0, &memset_params));
#ifdef GRAPH_RACE
  void *fill_args[] = {&a, &seven};  // writes a, which the other branch scales: no order between them
#else
  void *fill_args[] = {&b, &seven};
#endif
  kernel = {(void *)fill, dim3(1), dim3(N), 0, fill_args, nullptr};
  CHECK(cudaGraphAddKernelNode(&filled, graph, &cleared, 1, &kernel));
  void *add_args[] = {&c, &a, &b};
  kernel = {(void *)add, dim3(1), dim3(N), 0, add_args, nullptr};
  cudaGraphNode_t both[] = {scaled, filled};
  CHECK(cudaGraphAddKernelNode(&added, graph, both, 2, &kernel));
  cudaHostNodeParams host_node = {note, &calls};
  CHECK(cudaGraphAddHostNode(&noted, graph, &added, 1, &host_node));
  size_t nodes = 0;
  CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
  cudaGraphExec_t exec;
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int launch = 0; launch < 2; ++launch) CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemcpy(out, c, sizeof out, cudaMemcpyDeviceToHost));
  printf("built: %zu nodes, c[10] = %d, host node ran %d times\n", nodes, out[10], calls);

  // The same executable graph, its scale node given factor 5.
  factor = 5;
  kernel = {(void *)scale, dim3(1), dim3(N), 0, scale_args, nullptr};
  CHECK(cudaGraphExecKernelNodeSetParams(exec, scaled, &kernel));
  CHECK(cudaGraphLaunch(exec, stream));
  CHECK(cudaMemcpyAsync(out, c, sizeof out, cudaMemcpyDeviceToHost, stream));
  CHECK(cudaStreamSynchronize(stream));
  printf("updated: c[10] = %d\n", out[10]);

  // Captured: stream forks to other (fill b) while it fills a; they join before add.
  cudaStream_t other;
  cudaEvent_t forked, joined;
  CHECK(cudaStreamCreate(&other));
  CHECK(cudaEventCreate(&forked));
  CHECK(cudaEventCreate(&joined));
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(forked, stream));
  CHECK(cudaStreamWaitEvent(other, forked, 0));
  fill<<<1, N, 0, stream>>>(a, 40);
  fill<<<1, N, 0, other>>>(b, 2);
  CHECK(cudaEventRecord(joined, other));
  CHECK(cudaStreamWaitEvent(stream, joined, 0));
  add<<<1, N, 0, stream>>>(c, a, b);
  cudaGraph_t captured;
  CHECK(cudaStreamEndCapture(stream, &captured));
  CHECK(cudaGraphGetNodes(captured, nullptr, &nodes));
  cudaGraphExec_t captured_exec;
  CHECK(cudaGraphInstantiate(&captured_exec, captured, 0));
  CHECK(cudaMemset(c, 0, N * sizeof(int)));
  CHECK(cudaGraphLaunch(captured_exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  CHECK(cudaMemcpy(out, c, sizeof out, cudaMemcpyDeviceToHost));
  printf("captured: %zu nodes, c[0] = %d\n", nodes, out[0]);

  // A conditional while node whose body counts to 5.
  cudaGraph_t looping;
  CHECK(cudaGraphCreate(&looping, 0));
  cudaGraphConditionalHandle handle;
  CHECK(cudaGraphConditionalHandleCreate(&handle, looping, 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams conditional = {};
  conditional.type = cudaGraphNodeTypeConditional;
  conditional.conditional.handle = handle;
  conditional.conditional.type = cudaGraphCondTypeWhile;
  conditional.conditional.size = 1;
  cudaGraphNode_t zeroed, loop;  // the loop's body comes after the node that zeroes the counter
  int zero = 0;
  void *zero_args[] = {&a, &zero};
  kernel = {(void *)fill, dim3(1), dim3(1), 0, zero_args, nullptr};
  CHECK(cudaGraphAddKernelNode(&zeroed, looping, nullptr, 0, &kernel));
  CHECK(cudaGraphAddNode(&loop, looping, &zeroed, 1, &conditional));
  cudaGraph_t body = conditional.conditional.phGraph_out[0];
  void *count_args[] = {&a, &handle};
  kernel = {(void *)count_up, dim3(1), dim3(1), 0, count_args, nullptr};
  cudaGraphNode_t counted;
  CHECK(cudaGraphAddKernelNode(&counted, body, nullptr, 0, &kernel));
  cudaGraphExec_t looping_exec;
  CHECK(cudaGraphInstantiate(&looping_exec, looping, 0));
  CHECK(cudaGraphLaunch(looping_exec, stream));
  CHECK(cudaStreamSynchronize(stream));
  int counter = 0;
  CHECK(cudaMemcpy(&counter, a, sizeof counter, cudaMemcpyDeviceToHost));
  printf("conditional: counted to %d\n", counter);

  // Allocation -> fill -> the built graph as a child -> free -> event record.
  cudaGraph_t outer;
  CHECK(cudaGraphCreate(&outer, 0));
  cudaMemAllocNodeParams allocation = {};
  allocation.poolProps.allocType = cudaMemAllocationTypePinned;
  allocation.poolProps.location.type = cudaMemLocationTypeDevice;
  allocation.bytesize = N * sizeof(int);
  cudaGraphNode_t allocated, scratch_filled, child, freed, recorded;
  CHECK(cudaGraphAddMemAllocNode(&allocated, outer, nullptr, 0, &allocation));
  int *scratch = (int *)allocation.dptr;
  void *scratch_args[] = {&scratch, &seven};
  kernel = {(void *)fill, dim3(1), dim3(N), 0, scratch_args, nullptr};
  CHECK(cudaGraphAddKernelNode(&scratch_filled, outer, &allocated, 1, &kernel));
  CHECK(cudaGraphAddChildGraphNode(&child, outer, &scratch_filled, 1, graph));
  CHECK(cudaGraphAddMemFreeNode(&freed, outer, &child, 1, scratch));
  cudaEvent_t marker;
  CHECK(cudaEventCreate(&marker));
  CHECK(cudaGraphAddEventRecordNode(&recorded, outer, &freed, 1, marker));
  cudaGraphExec_t outer_exec;
  CHECK(cudaGraphInstantiate(&outer_exec, outer, 0));
  CHECK(cudaMemset(c, 0, N * sizeof(int)));
  CHECK(cudaGraphLaunch(outer_exec, stream));
  CHECK(cudaEventSynchronize(marker));
  CHECK(cudaMemcpy(out, c, sizeof out, cudaMemcpyDeviceToHost));
  printf("outer: c[10] = %d, host node ran %d times, event %s\n", out[10], calls,
         cudaGetErrorName(cudaEventQuery(marker)));
  CHECK(cudaGraphExecDestroy(outer_exec));
  CHECK(cudaGraphDestroy(outer));

  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphExecDestroy(captured_exec));
  CHECK(cudaGraphExecDestroy(looping_exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaGraphDestroy(captured));
  CHECK(cudaGraphDestroy(looping));
  return 0;
}
