// Host code that asks a standard library template for what it cannot do (make_unique of an
// abstract class, as gunrock's experiment hands thrust a device lambda cub cannot copy):
// the error is in the library's header, the line that asked is here.
#include <cstdio>
#include <memory>

struct shape {
  virtual float area() const = 0;
};

__global__ void fill(float *x, float value, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value;
}

void print_area() {
  auto unit = std::make_unique<shape>();
  printf("%f\n", unit->area());
}

int main() {
  float *x;
  cudaMalloc(&x, 1024 * sizeof(float));
  print_area();
  fill<<<4, 256>>>(x, 1.0f, 1024);
  return 0;
}
