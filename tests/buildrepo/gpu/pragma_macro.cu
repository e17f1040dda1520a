// A template library's unrolling macro written as nvcc accepts it: a macro whose body is a
// #pragma (clang expands it into tokens it refuses; nvcc into the pragma).
#ifdef __CUDA_ARCH__
#define UNROLL #pragma unroll
#else
#define UNROLL
#endif

template <int count, typename op_t>
__host__ __device__ void repeat(op_t op) {
  UNROLL
  for (int i = 0; i < count; ++i) op(i);
}

__global__ void sum_rows(const float *rows, float *sums) {
  float total = 0;
  repeat<4>([&](int i) { total += rows[4 * threadIdx.x + i]; });
  sums[threadIdx.x] = total;
}
