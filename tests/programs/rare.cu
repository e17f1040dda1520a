// A race only one value of n shows (n * 3 == 23331: the search would hardly find n = 7777),
// and a program that launches with it: the input search starts from the program's launch.
#include <cstdio>
#include <cstdlib>

__global__ void rare(int *data, int n) {
  int i = threadIdx.x;
  if (n * 3 == 23331) data[0] = i;  // every thread writes one element
  else data[i] = n;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 7777;
  int *data;
  cudaMalloc(&data, 64 * sizeof(int));
  rare<<<1, 64>>>(data, n);
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
