// new and delete in device code: placement new into shared memory, and new[] on the device heap.
// kernel: construct(int *out)
//   reads: tid.x
//   shared: 512
#include <new>

struct Pair {
  int a, b;
  __device__ Pair(int x) : a(x), b(2 * x) {}
};

__global__ void construct(int *out) {
  __shared__ alignas(Pair) unsigned char raw[64 * sizeof(Pair)];
  Pair *pair = new (raw + threadIdx.x * sizeof(Pair)) Pair(threadIdx.x);
  int *scratch = new int[2];
  scratch[0] = pair->b;
  scratch[1] = 1;
  out[threadIdx.x] = scratch[0] + scratch[1];
  delete[] scratch;
}
