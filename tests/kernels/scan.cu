// Inclusive Hillis-Steele scan and exclusive Blelloch (work-efficient) scan of one block.
// kernel: hillis_steele(const int *in, int *out, int n)
//   reads: tid.x
//   shared: 4096
// kernel: blelloch(const int *in, int *out, int n)
//   reads: tid.x
//   shared: 4096

#define MAX 512

__global__ void hillis_steele(const int *in, int *out, int n) {
  __shared__ int buffer[2][MAX];
  int t = threadIdx.x, current = 0;
  buffer[0][t] = t < n ? in[t] : 0;
  __syncthreads();
  for (int offset = 1; offset < n; offset *= 2) {
    int next = 1 - current;
    buffer[next][t] = t >= offset ? buffer[current][t] + buffer[current][t - offset] : buffer[current][t];
    __syncthreads();
    current = next;
  }
  if (t < n) out[t] = buffer[current][t];
}

// One thread per pair of elements; n is a power of two at most 2 * blockDim.x.
__global__ void blelloch(const int *in, int *out, int n) {
  __shared__ int tree[2 * MAX];
  int t = threadIdx.x;
  tree[2 * t] = in[2 * t];
  tree[2 * t + 1] = in[2 * t + 1];
  int offset = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) {
      int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
      tree[b] += tree[a];
    }
    offset *= 2;
  }
  if (t == 0) tree[n - 1] = 0;
  for (int d = 1; d < n; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      int a = offset * (2 * t + 1) - 1, b = offset * (2 * t + 2) - 1;
      int left = tree[a];
      tree[a] = tree[b];
      tree[b] += left;
    }
  }
  __syncthreads();
  out[2 * t] = tree[2 * t];
  out[2 * t + 1] = tree[2 * t + 1];
}
