// The host launches blocks of 16 x 2 threads, and neither kernel reads threadIdx.y: both rows
// of `tally` add to out[threadIdx.x] (a race the host's own launch has); `idle` touches no
// memory, race-free whatever the launch.
__global__ void tally(int *out) {
  out[threadIdx.x] += 1;  // the rows meet
}

__global__ void idle(int rounds) {
  float x = 0.f;
  for (int i = 0; i < rounds; i++) x += 0.5f * i;
}

int main() {
  int *out;
  cudaMalloc(&out, 16 * sizeof(int));
  dim3 block(16, 2);
  tally<<<1, block>>>(out);
  idle<<<1, block>>>(8);
  cudaDeviceSynchronize();
  return 0;
}
