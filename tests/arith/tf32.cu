// f32 to TF32: mma.h's __float_to_tf32 (cvt.rna: to nearest, ties away) and PTX's cvt.rn
// (ties to even) and cvt.rz (toward zero), for tests/test_arithmetic.py (built for sm_80).
#include <mma.h>

__global__ void tf32(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned even, zero;
  asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(even) : "f"(x[i]));
  asm("cvt.rz.tf32.f32 %0, %1;" : "=r"(zero) : "f"(x[i]));
  out[i] = nvcuda::wmma::__float_to_tf32(x[i]);
  out[n + i] = __uint_as_float(even);
  out[2 * n + i] = __uint_as_float(zero);
}
