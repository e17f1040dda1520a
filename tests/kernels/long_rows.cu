// Every launch is more work than a fitness run does (each thread sums a run of 3,000
// elements): the search measures none, and the check runs the one that reached the most
// branches. Only n == 77 makes thread 0 write its neighbour's slot (a race).
// kernel: long_rows(const int *in, int *out, int n)
//   reads: tid.x ctaid.x ntid.x
//   shared: 256

__global__ void long_rows(const int *in, int *out, int n) {
  __shared__ int slot[64];
  slot[threadIdx.x] = 0;
  if (n == 77 && threadIdx.x == 0) slot[1] = 1;
  __syncthreads();
  int total = slot[threadIdx.x];
  for (int i = 0; i < 3000; i++) total += in[(threadIdx.x * 3000 + i) % 4096];
  out[blockIdx.x * blockDim.x + threadIdx.x] = total;
}
