// Another program of the folder, with a main of its own.
__global__ void fill(float *a) { a[blockIdx.x * blockDim.x + threadIdx.x] = 0.0f; }

int main() {
  float *a;
  cudaMalloc(&a, 1024 * sizeof(float));
  fill<<<4, 256>>>(a);
}
