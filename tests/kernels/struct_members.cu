// Structs passed by value whose members decide every access (as kaldi passes MatrixDim):
// the search varies the members like scalar parameters.
// kernel: copy_next(float *m, MatrixDim d)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: copy_next_fixed(float *out, const float *in, MatrixDim d)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: window(float *out, Window w)
//   reads: tid.x
//   shared: 0

struct MatrixDim {
  int rows;
  int cols;
  int stride;
};

// Row i writes its first element and reads the one after it: with a stride of 1 that is
// the element row i + 1 writes.
__global__ void copy_next(float *m, MatrixDim d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < d.rows) m[i * d.stride] = m[i * d.stride + 1];
}

// Fixed: reads and writes go to different buffers.
__global__ void copy_next_fixed(float *out, const float *in, MatrixDim d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < d.rows) out[i * d.stride] = in[i * d.stride + 1];
}

struct Range {
  int lo;
  int hi;
};

// Nested structs, an array member and a bool: every member is a value the search can set.
struct Window {
  Range range;
  float taps[3];
  bool flip;
  unsigned char shift;
};

__global__ void window(float *out, Window w) {
  int t = threadIdx.x;
  if (t >= w.range.lo && t < w.range.hi)
    out[w.flip ? w.range.hi - 1 - t : t] = w.taps[0] + w.taps[1] + w.taps[2] + w.shift;
}
