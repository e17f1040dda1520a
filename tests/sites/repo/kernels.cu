// The kernel; its only launch is in launch.cu.
__global__ void rotate(int *a) {
  __shared__ int s[32];
  int t = threadIdx.x;
  s[t % 32] = a[blockIdx.x * 32 + t];
  __syncthreads();
  a[blockIdx.x * 32 + t] = s[(t + 1) % 32];
}
