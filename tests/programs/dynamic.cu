// Dynamic parallelism: each block of the parent launches a child grid over its own slice,
// which launches a grandchild; a kernel allocates with cudaMalloc in device code and prints a
// string it built on its stack. With -DCHILD_RACE the children of different blocks write
// the same slice: nothing orders them.
#include <cstdio>

const int SLICE = 64;

__global__ void grandchild(int *data, int start) { data[start + threadIdx.x] += 100; }

__global__ void child(int *data, int start, int value) {
  data[start + blockIdx.x * blockDim.x + threadIdx.x] = value;
  if (blockIdx.x == 0 && threadIdx.x == 0) grandchild<<<1, 2>>>(data, start);
}

__global__ void parent(int *data) {
  if (threadIdx.x == 0) {
#ifdef CHILD_RACE
    int start = 0;
#else
    int start = blockIdx.x * SLICE;
#endif
    child<<<SLICE / 32, 32>>>(data, start, blockIdx.x + 1);
  }
}

struct Line { int *points; int count; };

__global__ void allocate(Line *lines) {
  Line &line = lines[threadIdx.x];
  line.count = threadIdx.x + 1;
  cudaMalloc((void **)&line.points, line.count * sizeof(int));
  for (int i = 0; i < line.count; ++i) line.points[i] = i;
}

__global__ void report(Line *lines) {
  char name[8] = {'l', 'i', 'n', 'e', ' ', char('0' + threadIdx.x), 0};
  int sum = 0;
  for (int i = 0; i < lines[threadIdx.x].count; ++i) sum += lines[threadIdx.x].points[i];
  printf("%s: %d\n", name, sum);
  cudaFree(lines[threadIdx.x].points);
}

int main() {
  int *data, host[4 * SLICE];
  cudaMalloc(&data, sizeof host);
  cudaMemset(data, 0, sizeof host);
  parent<<<4, 32>>>(data);
  cudaMemcpy(host, data, sizeof host, cudaMemcpyDeviceToHost);
  printf("data[0] = %d, data[1] = %d, data[2] = %d, data[%d] = %d\n", host[0], host[1], host[2], 3 * SLICE,
         host[3 * SLICE]);
  Line *lines;
  cudaMalloc(&lines, 3 * sizeof(Line));
  allocate<<<1, 3>>>(lines);
  report<<<1, 3>>>(lines);
  printf("%s\n", cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
