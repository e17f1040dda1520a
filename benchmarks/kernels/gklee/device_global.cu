// project: GKLEE tests (table 2)
// bug: device_global: each thread reads its right neighbour's element of a __device__ array
// that the neighbour overwrites; at a block's last thread the neighbour is in the next block,
// which no barrier can order.
// expect: device_global data-race 12/12
// fixed: device_global_fixed
__device__ int values[4096];

__global__ void device_global(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 >= n || i + 1 >= 4096) return;
  values[i] = values[i + 1] + 1;
  out[i] = values[i];
}

// double buffering: read one array, write another
__device__ int values_in[4096], values_out[4096];

__global__ void device_global_fixed(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 >= n || i + 1 >= 4096) return;
  values_out[i] = values_in[i + 1] + 1;
  out[i] = values_out[i];
}
