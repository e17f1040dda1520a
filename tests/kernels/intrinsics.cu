// Integer and bit intrinsics, reinterpretations, conversions, read-only loads and min/max.
// kernel: bit_tricks(const unsigned int *in, int *out, float *f)
//   reads: tid.x
//   shared: 0

__global__ void bit_tricks(const unsigned int *in, int *out, float *f) {
  unsigned int x = __ldg(&in[threadIdx.x]);
  int s = (int)x;
  out[0] = __popc(x) + __popcll((unsigned long long)x << 3) + __clz(s) + __clzll(s) + __ffs(s) + __ffsll(s);
  out[1] = (int)__brev(x) + (int)__brevll(x);
  out[2] = __mul24(s, 3) + (int)__umul24(x, 5u) + __mulhi(s, s) + (int)__umulhi(x, x);
  out[3] = (int)__byte_perm(x, 0x01234567u, 0x3210) + (int)__funnelshift_l(x, 7u, 4) + (int)__funnelshift_r(x, 7u, 4);
  out[4] = __float_as_int(f[0]) + __float2int_rn(f[1]) + __float2int_rz(f[1]) + (int)__float2uint_rd(f[2]);
  f[3] = __int_as_float(s) + __uint_as_float(x) + __int2float_rn(s);
  out[5] = min(s, 3) + max(s, 4) + (int)min(x, 5u) + (int)umax(x, 6u) + (int)llmin(7ll, (long long)s);
  f[4] = min(f[0], f[1]) + max(f[2], 1.0f);
  out[6] = __sad(s, 2, 1u) + __hadd(s, 1) + __rhadd(s, 1);
  out[7] = (int)(clock64() & 1);
}
