// Thread 0 waits for a flag nobody sets (a device variable, zero as the program starts): a
// deadlock (a step-limit finding, or a timeout when the step limit is beyond the kernel timeout).
__device__ volatile int flag;

__global__ void spin(int *out) {
  if (threadIdx.x == 0) {
    while (flag == 0) {
    }
  }
  out[threadIdx.x] = 1;
}
