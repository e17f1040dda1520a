// A matrix's dimensions passed by value, as kaldi's MatrixDim {rows, cols, stride}: the
// host builds the struct from its matrix's fields, so the stride (the struct's second
// eightbyte) is a value Simulee cannot read and picks itself, at least twice the widest
// size of the launch apart, as allocations keep rows. Copying the lower triangle onto the
// upper one is then clean; transposing in place races for any stride.
#include <cuda_runtime.h>

struct Dim {
  int rows, cols, stride;
};

__global__ void copy_low_upp(float *a, Dim d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i <= j || i >= d.rows) return;
  a[j * d.stride + i] = a[i * d.stride + j];  // rows apart: no other thread writes what this reads
}

__global__ void transpose_in_place(float *a, Dim d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= d.rows || j >= d.rows) return;
  a[j * d.stride + i] = a[i * d.stride + j];  // thread (j, i) writes what this reads
}

class Matrix {
 public:
  Dim dim() const {
    Dim d;
    d.rows = rows_;
    d.cols = cols_;
    d.stride = stride_;
    return d;
  }
  void CopyLowerToUpper();
  void Transpose();

  float *data_;
  int rows_, cols_, stride_;
};

void Matrix::CopyLowerToUpper() {
  dim3 block(16, 16);
  dim3 grid((rows_ + 15) / 16, (rows_ + 15) / 16);
  copy_low_upp<<<grid, block>>>(data_, dim());
}

void Matrix::Transpose() {
  dim3 block(16, 16);
  dim3 grid((rows_ + 15) / 16, (rows_ + 15) / 16);
  transpose_in_place<<<grid, block>>>(data_, dim());
}
