// A grid sized to fill the GPU, as llm.c's benchmarks size theirs: the multiprocessor count
// and threads per multiprocessor cudaGetDeviceProperties gives, kept in globals set once at
// start-up. Simulee answers as the device `simulee exec` runs programs on (a V100: 80
// multiprocessors of 2,048 threads), so the grid is the host's 640 blocks of 256. `fill`
// strides over the grid and is clean; `fill_rows` keeps 32 rows of partial sums, which
// blocks 32 apart share: a race on every grid of more than 32 blocks, the host's among them.
#include <cuda_runtime.h>

int num_sms, threads_per_sm;

__global__ void fill(float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = 1.0f;
}

__global__ void fill_rows(float *partial) {
  partial[blockIdx.x % 32 * blockDim.x + threadIdx.x] += 1.0f;  // blocks 32 apart add to one row
}

void setup() {
  cudaDeviceProp properties;
  cudaGetDeviceProperties(&properties, 0);
  num_sms = properties.multiProcessorCount;
  threads_per_sm = properties.maxThreadsPerMultiProcessor;
}

void run(float *out, int n) {
  int grid = num_sms * threads_per_sm / 256;
  fill<<<grid, 256>>>(out, n);
  fill_rows<<<grid, 256>>>(out);
}

int main(int argc, char **argv) {
  setup();
  const int n = 1 << 20;
  float *out;
  cudaMalloc(&out, n * sizeof(float));
  for (int repeat = 0; repeat < argc; repeat++) {
    run(out, n);
    cudaDeviceSynchronize();
  }
  return 0;
}
