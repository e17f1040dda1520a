/* SIMD video instructions on the 2 halfwords or 4 bytes of 32-bit words (__vadd2, __vcmpgts4,
   __vsadu2, ...), the DPX min/max functions of CUDA 12 (__vimax3_s32, __viaddmax_s16x2_relu,
   __vibmax_u32, ...) and the dot products __dp4a/__dp2a_lo/__dp2a_hi. Each works lane by lane
   on the lanes' signed (s) or unsigned (u) values, as the CUDA Math API describes them. */
#ifndef SIMULEE_SIMD_H
#define SIMULEE_SIMD_H

/* Lane `i` (of `bits` bits) of x, as a signed and as an unsigned number. */
__SIMULEE_DEVICE int __simulee_lane_s(unsigned int x, int i, int bits) {
  return (int)((x >> (i * bits)) << (32 - bits)) >> (32 - bits);
}
__SIMULEE_DEVICE unsigned int __simulee_lane_u(unsigned int x, int i, int bits) {
  return (x >> (i * bits)) & ((1u << bits) - 1u);
}
__SIMULEE_DEVICE int __simulee_clamp(int x, int lo, int hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* NAME(a, b): each lane of the result is EXPR's low bits, EXPR computed from the lane's
   sa, sb (signed), ua, ub (unsigned), SMIN, SMAX, UMAX (the lane's limits). */
#define __SIMULEE_SIMD(NAME, BITS, EXPR) \
  __SIMULEE_DEVICE unsigned int NAME(unsigned int a, unsigned int b) { \
    const int SMIN = -(1 << (BITS - 1)), SMAX = (1 << (BITS - 1)) - 1, UMAX = (1 << BITS) - 1; \
    unsigned int r = 0; \
    for (int i = 0; i < 32 / BITS; ++i) { \
      int sa = __simulee_lane_s(a, i, BITS), sb = __simulee_lane_s(b, i, BITS); \
      int ua = (int)__simulee_lane_u(a, i, BITS), ub = (int)__simulee_lane_u(b, i, BITS); \
      (void)sa; (void)sb; (void)ua; (void)ub; (void)SMIN; (void)SMAX; (void)UMAX; \
      r |= ((unsigned int)(EXPR) & (unsigned int)UMAX) << (i * BITS); \
    } \
    return r; \
  }
/* Both widths: NAME2 on halfwords, NAME4 on bytes. */
#define __SIMULEE_SIMD24(NAME, EXPR) __SIMULEE_SIMD(NAME##2, 16, EXPR) __SIMULEE_SIMD(NAME##4, 8, EXPR)
/* A unary one, applied to a alone. */
#define __SIMULEE_SIMD24_UNARY(NAME, EXPR) \
  __SIMULEE_SIMD(__simulee_##NAME##2, 16, EXPR) __SIMULEE_SIMD(__simulee_##NAME##4, 8, EXPR) \
  __SIMULEE_DEVICE unsigned int NAME##2(unsigned int a) { return __simulee_##NAME##2(a, 0); } \
  __SIMULEE_DEVICE unsigned int NAME##4(unsigned int a) { return __simulee_##NAME##4(a, 0); }

__SIMULEE_SIMD24_UNARY(__vabs, sa < 0 ? -sa : sa)
__SIMULEE_SIMD24_UNARY(__vabsss, __simulee_clamp(sa < 0 ? -sa : sa, SMIN, SMAX))
__SIMULEE_SIMD24_UNARY(__vneg, -sa)
__SIMULEE_SIMD24_UNARY(__vnegss, __simulee_clamp(-sa, SMIN, SMAX))
__SIMULEE_SIMD24(__vabsdiffs, sa > sb ? sa - sb : sb - sa)
__SIMULEE_SIMD24(__vabsdiffu, ua > ub ? ua - ub : ub - ua)
__SIMULEE_SIMD24(__vadd, ua + ub)
__SIMULEE_SIMD24(__vaddss, __simulee_clamp(sa + sb, SMIN, SMAX))
__SIMULEE_SIMD24(__vaddus, __simulee_clamp(ua + ub, 0, UMAX))
__SIMULEE_SIMD24(__vsub, ua - ub)
__SIMULEE_SIMD24(__vsubss, __simulee_clamp(sa - sb, SMIN, SMAX))
__SIMULEE_SIMD24(__vsubus, __simulee_clamp(ua - ub, 0, UMAX))
__SIMULEE_SIMD24(__vavgs, (sa + sb + 1) >> 1)
__SIMULEE_SIMD24(__vavgu, (ua + ub + 1) >> 1)
__SIMULEE_SIMD24(__vhaddu, (ua + ub) >> 1)
__SIMULEE_SIMD24(__vmaxs, sa > sb ? sa : sb)
__SIMULEE_SIMD24(__vmaxu, ua > ub ? ua : ub)
__SIMULEE_SIMD24(__vmins, sa < sb ? sa : sb)
__SIMULEE_SIMD24(__vminu, ua < ub ? ua : ub)
/* Comparisons: __vcmp* give all ones in a lane where the comparison holds, __vset* give 1. */
#define __SIMULEE_SIMD_COMPARE(NAME, CONDITION) \
  __SIMULEE_SIMD24(__vcmp##NAME, (CONDITION) ? UMAX : 0) __SIMULEE_SIMD24(__vset##NAME, (CONDITION) ? 1 : 0)
__SIMULEE_SIMD_COMPARE(eq, ua == ub)
__SIMULEE_SIMD_COMPARE(ne, ua != ub)
__SIMULEE_SIMD_COMPARE(ges, sa >= sb)
__SIMULEE_SIMD_COMPARE(geu, ua >= ub)
__SIMULEE_SIMD_COMPARE(gts, sa > sb)
__SIMULEE_SIMD_COMPARE(gtu, ua > ub)
__SIMULEE_SIMD_COMPARE(les, sa <= sb)
__SIMULEE_SIMD_COMPARE(leu, ua <= ub)
__SIMULEE_SIMD_COMPARE(lts, sa < sb)
__SIMULEE_SIMD_COMPARE(ltu, ua < ub)
#undef __SIMULEE_SIMD_COMPARE
/* Sums of absolute differences over the lanes. */
__SIMULEE_DEVICE unsigned int __vsads2(unsigned int a, unsigned int b) {
  unsigned int d = __vabsdiffs2(a, b);
  return (d & 0xffffu) + (d >> 16);
}
__SIMULEE_DEVICE unsigned int __vsadu2(unsigned int a, unsigned int b) {
  unsigned int d = __vabsdiffu2(a, b);
  return (d & 0xffffu) + (d >> 16);
}
__SIMULEE_DEVICE unsigned int __vsads4(unsigned int a, unsigned int b) {
  unsigned int d = __vabsdiffs4(a, b);
  return (d & 0xffu) + ((d >> 8) & 0xffu) + ((d >> 16) & 0xffu) + (d >> 24);
}
__SIMULEE_DEVICE unsigned int __vsadu4(unsigned int a, unsigned int b) {
  unsigned int d = __vabsdiffu4(a, b);
  return (d & 0xffu) + ((d >> 8) & 0xffu) + ((d >> 16) & 0xffu) + (d >> 24);
}

/* DPX: max/min of two or three values, of a sum and a value, optionally clamped at zero
   (relu), on 32-bit values or on the halfwords of 32-bit words. */
__SIMULEE_DEVICE int __simulee_max(int a, int b) { return a > b ? a : b; }
__SIMULEE_DEVICE int __simulee_min(int a, int b) { return a < b ? a : b; }
__SIMULEE_DEVICE unsigned int __simulee_umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
__SIMULEE_DEVICE unsigned int __simulee_umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
__SIMULEE_SIMD(__vimax_s16x2_relu, 16, __simulee_max(__simulee_max(sa, sb), 0))
__SIMULEE_SIMD(__vimin_s16x2_relu, 16, __simulee_max(__simulee_min(sa, sb), 0))
__SIMULEE_DEVICE int __vimax_s32_relu(int a, int b) { return __simulee_max(__simulee_max(a, b), 0); }
__SIMULEE_DEVICE int __vimin_s32_relu(int a, int b) { return __simulee_max(__simulee_min(a, b), 0); }
__SIMULEE_DEVICE int __vimax3_s32(int a, int b, int c) { return __simulee_max(__simulee_max(a, b), c); }
__SIMULEE_DEVICE int __vimin3_s32(int a, int b, int c) { return __simulee_min(__simulee_min(a, b), c); }
__SIMULEE_DEVICE int __vimax3_s32_relu(int a, int b, int c) { return __simulee_max(__vimax3_s32(a, b, c), 0); }
__SIMULEE_DEVICE int __vimin3_s32_relu(int a, int b, int c) { return __simulee_max(__vimin3_s32(a, b, c), 0); }
__SIMULEE_DEVICE unsigned int __vimax3_u32(unsigned int a, unsigned int b, unsigned int c) {
  return __simulee_umax(__simulee_umax(a, b), c);
}
__SIMULEE_DEVICE unsigned int __vimin3_u32(unsigned int a, unsigned int b, unsigned int c) {
  return __simulee_umin(__simulee_umin(a, b), c);
}
__SIMULEE_DEVICE unsigned int __vimax3_s16x2(unsigned int a, unsigned int b, unsigned int c) {
  return __vmaxs2(__vmaxs2(a, b), c);
}
__SIMULEE_DEVICE unsigned int __vimin3_s16x2(unsigned int a, unsigned int b, unsigned int c) {
  return __vmins2(__vmins2(a, b), c);
}
__SIMULEE_DEVICE unsigned int __vimax3_u16x2(unsigned int a, unsigned int b, unsigned int c) {
  return __vmaxu2(__vmaxu2(a, b), c);
}
__SIMULEE_DEVICE unsigned int __vimin3_u16x2(unsigned int a, unsigned int b, unsigned int c) {
  return __vminu2(__vminu2(a, b), c);
}
__SIMULEE_DEVICE unsigned int __vimax3_s16x2_relu(unsigned int a, unsigned int b, unsigned int c) {
  return __vimax_s16x2_relu(__vmaxs2(a, b), c);
}
__SIMULEE_DEVICE unsigned int __vimin3_s16x2_relu(unsigned int a, unsigned int b, unsigned int c) {
  return __vimin_s16x2_relu(__vmins2(a, b), c);
}
__SIMULEE_DEVICE int __viaddmax_s32(int a, int b, int c) { return __simulee_max(a + b, c); }
__SIMULEE_DEVICE int __viaddmin_s32(int a, int b, int c) { return __simulee_min(a + b, c); }
__SIMULEE_DEVICE int __viaddmax_s32_relu(int a, int b, int c) { return __simulee_max(__simulee_max(a + b, c), 0); }
__SIMULEE_DEVICE int __viaddmin_s32_relu(int a, int b, int c) { return __simulee_max(__simulee_min(a + b, c), 0); }
__SIMULEE_DEVICE unsigned int __viaddmax_u32(unsigned int a, unsigned int b, unsigned int c) {
  return __simulee_umax(a + b, c);
}
__SIMULEE_DEVICE unsigned int __viaddmin_u32(unsigned int a, unsigned int b, unsigned int c) {
  return __simulee_umin(a + b, c);
}
__SIMULEE_DEVICE unsigned int __viaddmax_s16x2(unsigned int a, unsigned int b, unsigned int c) {
  return __vmaxs2(__vadd2(a, b), c);
}
__SIMULEE_DEVICE unsigned int __viaddmin_s16x2(unsigned int a, unsigned int b, unsigned int c) {
  return __vmins2(__vadd2(a, b), c);
}
__SIMULEE_DEVICE unsigned int __viaddmax_u16x2(unsigned int a, unsigned int b, unsigned int c) {
  return __vmaxu2(__vadd2(a, b), c);
}
__SIMULEE_DEVICE unsigned int __viaddmin_u16x2(unsigned int a, unsigned int b, unsigned int c) {
  return __vminu2(__vadd2(a, b), c);
}
__SIMULEE_DEVICE unsigned int __viaddmax_s16x2_relu(unsigned int a, unsigned int b, unsigned int c) {
  return __vimax_s16x2_relu(__vadd2(a, b), c);
}
__SIMULEE_DEVICE unsigned int __viaddmin_s16x2_relu(unsigned int a, unsigned int b, unsigned int c) {
  return __vimin_s16x2_relu(__vadd2(a, b), c);
}
/* Max/min that also say which argument won: *pred is true when a is the result. */
__SIMULEE_DEVICE int __vibmax_s32(int a, int b, bool *pred) { *pred = a >= b; return a >= b ? a : b; }
__SIMULEE_DEVICE int __vibmin_s32(int a, int b, bool *pred) { *pred = a <= b; return a <= b ? a : b; }
__SIMULEE_DEVICE unsigned int __vibmax_u32(unsigned int a, unsigned int b, bool *pred) {
  *pred = a >= b;
  return a >= b ? a : b;
}
__SIMULEE_DEVICE unsigned int __vibmin_u32(unsigned int a, unsigned int b, bool *pred) {
  *pred = a <= b;
  return a <= b ? a : b;
}
#define __SIMULEE_VIB16(NAME, LANE, OP) \
  __SIMULEE_DEVICE unsigned int NAME(unsigned int a, unsigned int b, bool *pred_hi, bool *pred_lo) { \
    *pred_lo = LANE(a, 0, 16) OP LANE(b, 0, 16); \
    *pred_hi = LANE(a, 1, 16) OP LANE(b, 1, 16); \
    return ((*pred_hi ? a : b) & 0xffff0000u) | ((*pred_lo ? a : b) & 0xffffu); \
  }
__SIMULEE_VIB16(__vibmax_s16x2, __simulee_lane_s, >=)
__SIMULEE_VIB16(__vibmin_s16x2, __simulee_lane_s, <=)
__SIMULEE_VIB16(__vibmax_u16x2, __simulee_lane_u, >=)
__SIMULEE_VIB16(__vibmin_u16x2, __simulee_lane_u, <=)
#undef __SIMULEE_VIB16
#undef __SIMULEE_SIMD24_UNARY
#undef __SIMULEE_SIMD24
#undef __SIMULEE_SIMD

/* Dot products: the 4 bytes of a with the 4 bytes of b (__dp4a), the 2 halfwords of a with
   the low (__dp2a_lo) or high (__dp2a_hi) 2 bytes of b; plus c. */
__SIMULEE_DEVICE int __dp4a(int a, int b, int c) {
  for (int i = 0; i < 4; ++i) c += __simulee_lane_s(a, i, 8) * __simulee_lane_s(b, i, 8);
  return c;
}
__SIMULEE_DEVICE unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c) {
  for (int i = 0; i < 4; ++i) c += __simulee_lane_u(a, i, 8) * __simulee_lane_u(b, i, 8);
  return c;
}
__SIMULEE_DEVICE int __dp4a(char4 a, char4 b, int c) {
  return __dp4a(__builtin_bit_cast(int, a), __builtin_bit_cast(int, b), c);
}
__SIMULEE_DEVICE unsigned int __dp4a(uchar4 a, uchar4 b, unsigned int c) {
  return __dp4a(__builtin_bit_cast(unsigned int, a), __builtin_bit_cast(unsigned int, b), c);
}
#define __SIMULEE_DP2A(NAME, FIRST) \
  __SIMULEE_DEVICE int NAME(int a, int b, int c) { \
    return c + __simulee_lane_s(a, 0, 16) * __simulee_lane_s(b, FIRST, 8) + \
           __simulee_lane_s(a, 1, 16) * __simulee_lane_s(b, FIRST + 1, 8); \
  } \
  __SIMULEE_DEVICE unsigned int NAME(unsigned int a, unsigned int b, unsigned int c) { \
    return c + __simulee_lane_u(a, 0, 16) * __simulee_lane_u(b, FIRST, 8) + \
           __simulee_lane_u(a, 1, 16) * __simulee_lane_u(b, FIRST + 1, 8); \
  } \
  __SIMULEE_DEVICE int NAME(short2 a, char4 b, int c) { \
    return NAME(__builtin_bit_cast(int, a), __builtin_bit_cast(int, b), c); \
  } \
  __SIMULEE_DEVICE unsigned int NAME(ushort2 a, uchar4 b, unsigned int c) { \
    return NAME(__builtin_bit_cast(unsigned int, a), __builtin_bit_cast(unsigned int, b), c); \
  }
__SIMULEE_DP2A(__dp2a_lo, 0)
__SIMULEE_DP2A(__dp2a_hi, 2)
#undef __SIMULEE_DP2A

#endif
