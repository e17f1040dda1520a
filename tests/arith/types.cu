// Arithmetic of every CUDA number type, each operation on arrays of operands, for
// tests/test_arithmetic.py to hold against references that share no code with Simulee (NumPy,
// ml_dtypes). NVIDIA's headers take other paths on other GPUs (sm_80's bf16 instructions,
// sm_89's FP8 conversions): the test compiles this file for each.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

// out[k * n + i]: the k-th operation on element i
__global__ void half_ops(const __half *a, const __half *b, const __half *c, __half *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half x = a[i], y = b[i], z = c[i];
  __half r[] = {__hadd(x, y), __hsub(x, y), __hmul(x, y), __hfma(x, y, z), __hneg(x), __habs(x), __hmax(x, y),
                __hmin(x, y), x + y, x * y, __hdiv(x, y)};
  for (int k = 0; k < 11; ++k) out[k * n + i] = r[k];
}

__global__ void half2_ops(const __half2 *a, const __half2 *b, const __half2 *c, __half2 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half2 x = a[i], y = b[i], z = c[i];
  __half2 r[] = {__hadd2(x, y), __hsub2(x, y), __hmul2(x, y), __hfma2(x, y, z), __hneg2(x), __habs2(x)};
  for (int k = 0; k < 6; ++k) out[k * n + i] = r[k];
}

__global__ void bf16_ops(const __nv_bfloat16 *a, const __nv_bfloat16 *b, const __nv_bfloat16 *c,
                         __nv_bfloat16 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat16 x = a[i], y = b[i], z = c[i];
  __nv_bfloat16 r[] = {__hadd(x, y), __hsub(x, y), __hmul(x, y), __hfma(x, y, z), __hneg(x), __habs(x),
                       __hmax(x, y), __hmin(x, y), x + y, x * y};
  for (int k = 0; k < 10; ++k) out[k * n + i] = r[k];
}

__global__ void bf162_ops(const __nv_bfloat162 *a, const __nv_bfloat162 *b, const __nv_bfloat162 *c,
                          __nv_bfloat162 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __nv_bfloat162 x = a[i], y = b[i], z = c[i];
  __nv_bfloat162 r[] = {__hadd2(x, y), __hsub2(x, y), __hmul2(x, y), __hfma2(x, y, z), __hneg2(x), __habs2(x)};
  for (int k = 0; k < 6; ++k) out[k * n + i] = r[k];
}

// conversions from float: to half, bfloat16 (round to nearest even), FP8 E4M3 and E5M2
// (saturating to the finite range), and back
__global__ void conversions(const float *f, __half *h, __nv_bfloat16 *bf, unsigned char *e4m3,
                            unsigned char *e5m2, float *back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  h[i] = __float2half(f[i]);
  bf[i] = __float2bfloat16(f[i]);
  __nv_fp8_e4m3 four(f[i]);
  __nv_fp8_e5m2 five(f[i]);
  e4m3[i] = four.__x;
  e5m2[i] = five.__x;
  back[0 * n + i] = __half2float(h[i]);
  back[1 * n + i] = __bfloat162float(bf[i]);
  back[2 * n + i] = float(four);
  back[3 * n + i] = float(five);
}

// integer intrinsics: out[k * n + i]
__global__ void integer_ops(const int *a, const int *b, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  unsigned u = (unsigned)x, v = (unsigned)y;
  unsigned r[] = {(unsigned)__popc(u), (unsigned)__clz(x), (unsigned)__ffs(x), __brev(u), __byte_perm(u, v, v & 0x7777),
                  __funnelshift_l(u, v, y), __funnelshift_r(u, v, y), (unsigned)__mulhi(x, y), __umulhi(u, v),
                  (unsigned)__mul24(x, y), __umul24(u, v), __sad(x, y, 7u), __usad(u, v, 7u), (unsigned)__hadd(x, y),
                  (unsigned)__rhadd(x, y), __uhadd(u, v), __urhadd(u, v), (unsigned)__dp4a(x, y, 3),
                  (unsigned)__popcll((unsigned long long)u << 32 | v), (unsigned)__clzll((long long)x << 32)};
  for (int k = 0; k < 20; ++k) out[k * n + i] = r[k];
}
