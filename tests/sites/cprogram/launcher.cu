// A launcher C code calls: rows of width + 1 weights never overlap when width >= 15.
#define SIDE 16

__global__ void scale_rows(float *w, int width) {
  int col = threadIdx.x, row = blockIdx.y * SIDE + threadIdx.y;
  int index = (width + 1) * (row + 1) + col + 1;
  w[index] *= 0.5f;  // the update
}

extern "C" void run(int width, int rows) {
  float *w;
  cudaMalloc(&w, sizeof(float) * (width + 1) * (rows + 1));
  scale_rows<<<dim3(1, rows / SIDE), dim3(SIDE, SIDE)>>>(w, width);
  cudaFree(w);
}
