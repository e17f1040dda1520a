// Scatters values to the positions an index file names: out[index[i]] = value[i]. Two
// threads write one element when the file names a position twice: a race only some inputs
// show.
#include <cstdio>
#include <cstdlib>

__global__ void scatter(const int *index, const float *value, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[index[i]] = value[i];
}

int main(int argc, char **argv) {
  if (argc < 2) { fprintf(stderr, "usage: scatter INDEX-FILE\n"); return 2; }
  FILE *file = fopen(argv[1], "r");
  if (!file) { perror(argv[1]); return 2; }
  int n = 0, index[1024];
  while (n < 1024 && fscanf(file, "%d", &index[n]) == 1) ++n;
  fclose(file);
  float value[1024];
  for (int i = 0; i < n; ++i) value[i] = float(i);
  int *d_index; float *d_value, *d_out;
  cudaMalloc(&d_index, n * sizeof(int));
  cudaMalloc(&d_value, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMemcpy(d_index, index, n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(d_value, value, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(d_out, 0, n * sizeof(float));
  scatter<<<(n + 63) / 64, 64>>>(d_index, d_value, d_out, n);
  float out[1024];
  cudaMemcpy(out, d_out, n * sizeof(float), cudaMemcpyDeviceToHost);
  double total = 0;
  for (int i = 0; i < n; ++i) total += out[i];
  printf("scattered %d values, total %.0f\n", n, total);
  return 0;
}
