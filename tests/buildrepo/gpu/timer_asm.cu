// nvcc passes a lone % before a register name through; clang wants %%.
__device__ __forceinline__ unsigned long long elapsed() {
  unsigned long long now;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(now));
  return now;
}

__global__ void stamp(unsigned long long *out) { out[threadIdx.x] = elapsed(); }
