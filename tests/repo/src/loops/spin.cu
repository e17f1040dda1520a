// Thread 0 waits for a flag nobody sets: a deadlock (a step-limit finding, or a timeout
// when the step limit is beyond the kernel timeout).
__global__ void spin(volatile int *flag, int *out) {
  if (threadIdx.x == 0) {
    while (flag[0] == 0) {
    }
  }
  out[threadIdx.x] = 1;
}
