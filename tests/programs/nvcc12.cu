// What nvcc 12 builds and runs, checked against the host: bfloat16 arithmetic (the inline PTX
// of sm_80 and later: fma.rn.bf16), CUDA 12.8's __nv_atomic_* built-ins with their orders and
// scopes, and the `register` storage class C++17 removed (nvcc warns).
#include <cstdio>
#include <cuda_bf16.h>

__global__ void multiply_add(const __nv_bfloat16 *a, const __nv_bfloat16 *b, __nv_bfloat16 *c, int n) {
  register int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __nv_bfloat16 av = a[i], bv = b[i];
    c[i] += av * bv;
  }
}

__global__ void count(int *total, int *peak) {
  int old = __nv_atomic_fetch_add(total, 1, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
  __nv_atomic_fetch_max(peak, old, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
}

int main() {
  const int n = 8;
  __nv_bfloat16 a[n], b[n], c[n], expected[n];
  for (int i = 0; i < n; ++i) {
    a[i] = __float2bfloat16(i - 3.0f);
    b[i] = __float2bfloat16(0.5f * i + 1.25f);
    c[i] = __float2bfloat16(1.0f);
    expected[i] = __float2bfloat16(1.0f + __bfloat162float(a[i]) * __bfloat162float(b[i]));
  }
  __nv_bfloat16 *da, *db, *dc;
  cudaMalloc(&da, sizeof a);
  cudaMalloc(&db, sizeof b);
  cudaMalloc(&dc, sizeof c);
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  cudaMemcpy(dc, c, sizeof c, cudaMemcpyHostToDevice);
  multiply_add<<<1, 32>>>(da, db, dc, n);
  cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    printf("%g ", __bfloat162float(c[i]));
    wrong += __bfloat162float(c[i]) != __bfloat162float(expected[i]);
  }
  printf("\nbfloat16: %s\n", wrong ? "FAIL" : "PASS");

  int *total, *peak, counted[2];
  cudaMalloc(&total, sizeof(int));
  cudaMalloc(&peak, sizeof(int));
  cudaMemset(total, 0, sizeof(int));
  cudaMemset(peak, 0, sizeof(int));
  count<<<4, 64>>>(total, peak);
  cudaMemcpy(&counted[0], total, sizeof(int), cudaMemcpyDeviceToHost);
  cudaMemcpy(&counted[1], peak, sizeof(int), cudaMemcpyDeviceToHost);
  printf("atomics: %d %d %s\n", counted[0], counted[1], counted[0] == 256 && counted[1] == 255 ? "PASS" : "FAIL");
  return 0;
}
