// Rows of several gates, as kaldi's LSTM kernels index them: row i holds gates of `cells`
// columns each, at i * stride + gate * cells + j. Allocations pad a row to all its gates,
// so the search keeps the stride at (gates) x cells or more: no row overlaps the next.
// kernel: three_gates(float *out, int cells, int stride)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: three_gates_shifted(float *out, int cells, int stride)
//   reads: tid.x ctaid.x
//   shared: 0

__global__ void three_gates(float *out, int cells, int stride) {
  int i = blockIdx.x, j = threadIdx.x;
  if (j < cells) {
    out[i * stride + j] = 1.0f;
    out[i * stride + j + cells] = 2.0f;
    out[i * stride + j + cells * 2] = 3.0f;
  }
}

// The third gate is written one column too far: each thread's write lands on its right
// neighbour's slot of that gate, which the neighbour writes too (within the block).
__global__ void three_gates_shifted(float *out, int cells, int stride) {
  int i = blockIdx.x, j = threadIdx.x;
  if (j < cells) {
    out[i * stride + j] = 1.0f;
    out[i * stride + j + cells] = 2.0f;
    out[i * stride + j + cells * 2] = 3.0f;
    out[i * stride + j + cells * 2 + 1] = 4.0f;  // races with the neighbour's third gate
  }
}
