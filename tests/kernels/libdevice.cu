// Device functions the interpreter does not implement natively come from NVIDIA's libdevice.
// kernel: byte_swaps(const unsigned int *in, unsigned int *out32, unsigned long long *out64)
//   reads: tid.x
//   shared: 0
extern "C" __device__ unsigned int __nv_bswap32(unsigned int);
extern "C" __device__ unsigned long long __nv_bswap64(unsigned long long);

__global__ void byte_swaps(const unsigned int *in, unsigned int *out32, unsigned long long *out64) {
  int i = threadIdx.x;
  out32[i] = __nv_bswap32(in[i]);
  out64[i] = __nv_bswap64(((unsigned long long)in[i] << 32) | i);
}
