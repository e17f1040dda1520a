// A layer's launcher passes sizes it keeps in members (CUDA-CNN's LocalConnect: dim and
// area = rows * cols of another matrix): how they relate is the host's, and Simulee can
// only guess it. A race that needs area < dim * dim is a warning that says so; the same
// race when the host computes the area from the dim it passes is an error.
#include <cuda_runtime.h>

struct Matrix { int rows, cols; float *data; };
struct Layer { int batch, dim; Matrix *out; };

__device__ void fill_plane(float *out, int dim, int area) {
  int t = threadIdx.x, row = t / dim, col = t % dim;
  if (row < dim) out[blockIdx.x * area + row * dim + col] = blockIdx.x;  // plane b starts area apart
}

// Every element of the plane, however large: planes area = dim * dim - 1 apart always meet.
__device__ void fill_whole_plane(float *out, int dim, int area) {
  for (int t = threadIdx.x; t < dim * dim; t += blockDim.x)
    out[blockIdx.x * area + t] = blockIdx.x;  // the whole plane b, area apart
}

__global__ void planes(float *out, int dim, int area) { fill_plane(out, dim, area); }

__global__ void planes_short(float *out, int dim, int area) { fill_whole_plane(out, dim, area); }

void forward(Layer *l) {
  planes<<<l->batch, 64>>>(l->out->data, l->dim, l->out->rows * l->out->cols);
}

void forward_short(Layer *l) {  // one element short of a plane: planes overlap
  planes_short<<<l->batch, 64>>>(l->out->data, l->dim, l->dim * l->dim - 1);
}
