/* CUDA 13's forms of runtime functions that the CUDA 12.9 headers declare with other
   parameters (the cuda-samples' main branch is written for CUDA 13): overloads that call
   the 12.9 functions of the same meaning. */
#ifndef SIMULEE_CUDA13_H
#define SIMULEE_CUDA13_H
#if defined(CUDART_VERSION) && CUDART_VERSION < 13000  /* a build's own CUDA 13 headers declare them */

static inline __host__ cudaError_t cudaGraphAddNode(cudaGraphNode_t *node, cudaGraph_t graph,
                                                    const cudaGraphNode_t *dependencies,
                                                    const cudaGraphEdgeData *edges, size_t count,
                                                    cudaGraphNodeParams *params) {
  return cudaGraphAddNode_v2(node, graph, dependencies, edges, count, params);
}

static inline __host__ cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus *status,
                                                            unsigned long long *id, cudaGraph_t *graph,
                                                            const cudaGraphNode_t **dependencies,
                                                            const cudaGraphEdgeData **edges, size_t *count) {
  if (edges) *edges = nullptr;  // no edge data: every edge is a plain dependency
  return cudaStreamGetCaptureInfo_v3(stream, status, id, graph, dependencies, edges, count);
}

static inline __host__ cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
                                                                       cudaGraphNode_t *dependencies,
                                                                       const cudaGraphEdgeData *edges, size_t count,
                                                                       unsigned int flags) {
  return cudaStreamUpdateCaptureDependencies_v2(stream, dependencies, edges, count, flags);
}

#endif
#endif
