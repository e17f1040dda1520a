// Thread 3 of every block divides by zero: a division-by-zero fault at line 5.
__global__ void divide(int *data) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int d = threadIdx.x - 3;
  data[i] = 1000 / d;
}
