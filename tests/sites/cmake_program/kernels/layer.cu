// Each thread of a 16 x 16 block updates w[(width + 1) * (row + 1) + col + 1]: rows of
// width + 1 weights never overlap when width >= 15, and overlap (a race) when it is less.
#include "net.h"
#define SIDE 16

__global__ void adjust_weights(float *w, int width) {
  int col = threadIdx.x, row = blockIdx.y * SIDE + threadIdx.y;
  int index = (width + 1) * (row + 1) + col + 1;
  w[index] += 0.5f * w[index];  // the update
}

Net::Net(int width) : width(width) { cudaMalloc(&weights, sizeof(float) * (width + 1) * 1024); }

void Net::adjust(int rows) {
  dim3 grid(1, rows / SIDE), block(SIDE, SIDE);
  adjust_weights<<<grid, block>>>(weights, width);
}
