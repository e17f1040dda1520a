// Declaration qualifiers: constant and device variables, managed memory, inlining hints,
// restrict pointers, launch bounds, alignment.
// kernel: qualified(const float *__restrict__ in, float *__restrict__ out)
//   reads: tid.x
//   shared: 64

struct __align__(16) Particle {
  float x, y, z, mass;
};

__constant__ float coefficients[4] = {0.5f, 0.25f, 0.125f, 0.0625f};
__device__ int device_counter;
__managed__ float managed_total;

__forceinline__ __device__ float weigh(float x, int k) { return x * coefficients[k & 3]; }
__noinline__ __device__ float damp(float x) { return x * 0.9f; }

__global__ void __launch_bounds__(256, 2) qualified(const float *__restrict__ in, float *__restrict__ out) {
  __shared__ Particle particles[4];
  if (threadIdx.x < 4) particles[threadIdx.x].mass = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = damp(weigh(in[threadIdx.x], threadIdx.x)) + particles[threadIdx.x % 4].mass;
  atomicAdd(&device_counter, 1);
  managed_total = out[0];
}
