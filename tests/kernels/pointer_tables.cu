// Tables of pointers (T**, T***): every slot points to a buffer of its own, as the host
// fills them (an array of per-channel or per-layer buffers).
// kernel: bump_rows(float **rows, int cols)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: shift_rows(float **rows, int cols)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: shift_rows_fixed(float **rows, int cols)
//   reads: tid.x ctaid.x
//   shared: 0
// kernel: first_of_layer(int ***layers)
//   reads: ctaid.x ctaid.y
//   shared: 0

// Each block adds one to its own row: clean, since different rows are different buffers.
__global__ void bump_rows(float **rows, int cols) {
  if (threadIdx.x < cols) rows[blockIdx.x][threadIdx.x] += 1.0f;
}

// Each thread reads its right neighbour's element while the neighbour writes it.
__global__ void shift_rows(float **rows, int cols) {
  if (threadIdx.x + 1 < cols) rows[blockIdx.x][threadIdx.x] = rows[blockIdx.x][threadIdx.x + 1];
}

// Fixed: read everything, wait, then write.
__global__ void shift_rows_fixed(float **rows, int cols) {
  float next = threadIdx.x + 1 < cols ? rows[blockIdx.x][threadIdx.x + 1] : 0.0f;
  __syncthreads();
  if (threadIdx.x + 1 < cols) rows[blockIdx.x][threadIdx.x] = next;
}

// Three levels: layer, channel, element; every block of a layer writes element 0 of channel 0.
__global__ void first_of_layer(int ***layers) {
  layers[blockIdx.y][0][0] = blockIdx.x;
}
