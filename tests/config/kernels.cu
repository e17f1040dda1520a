// Kernels whose correct use needs what simulee.toml (beside this file) states.

// Block 0 copies `width` floats to out[0..), block 1 to out[offset..): they overlap unless offset >= width.
__global__ void halves(float *out, const float *in, int width, int offset) {
  int x = threadIdx.x;
  if (blockIdx.x > 1) return;
  int start = blockIdx.x == 0 ? 0 : offset;
  if (x < width) out[start + x] = in[x];  // halves overlap when offset < width
}

// Stream compaction: offsets is the exclusive scan of flags, so kept elements never meet.
__global__ void compact(const int *flags, const int *offsets, const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && flags[i]) out[offsets[i]] = in[i];
}

// The same with an off-by-half slot: kept neighbours meet even with the stated offsets.
__global__ void compact_halved(const int *flags, const int *offsets, const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && flags[i]) out[offsets[i] / 2] = in[i];  // two kept elements share a slot
}

// Tiles of `tile` elements: correct only for tile == blockDim.x.
__global__ void tiled(float *data, int tile) {
  __shared__ float s[1024];
  s[threadIdx.x] = data[blockIdx.x * tile + threadIdx.x];
  __syncthreads();
  data[blockIdx.x * tile + threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];  // tiles overlap when tile < blockDim.x
}

// Mode 3 is a broken mode nobody uses.
__global__ void modes(int *out, int mode) {
  int t = threadIdx.x;
  if (mode == 3)
    out[0] = t;  // every thread writes out[0]
  else
    out[t] = mode;
}

// Runs of 16 threads, each at the row its entry of `rows` says: the host copies the table
// from its caller, where the rows are all different (as the simulee.toml states).
__constant__ int rows[4];

__global__ void runs(int *out) {
  out[rows[threadIdx.x / 16] * 16 + threadIdx.x % 16] = threadIdx.x;  // runs meet when two rows are one
}

void launch_runs(const int *rows_of_caller, int *out) {
  cudaMemcpyToSymbol(rows, rows_of_caller, sizeof(rows));
  runs<<<1, 64>>>(out);
}
