/* Warp collectives: __syncwarp, votes, shuffles and matches, on the NVVM *_sync builtins.
   The legacy forms without _sync (pre-Volta) act on the currently active lanes. */
#ifndef SIMULEE_WARP_H
#define SIMULEE_WARP_H

#define __SIMULEE_FULL_MASK 0xffffffffu

__SIMULEE_DEVICE unsigned int __activemask(void) { return __nvvm_activemask(); }
__SIMULEE_DEVICE void __syncwarp(unsigned int mask = __SIMULEE_FULL_MASK) { __nvvm_bar_warp_sync(mask); }

__SIMULEE_DEVICE int __all_sync(unsigned int mask, int predicate) { return __nvvm_vote_all_sync(mask, predicate); }
__SIMULEE_DEVICE int __any_sync(unsigned int mask, int predicate) { return __nvvm_vote_any_sync(mask, predicate); }
__SIMULEE_DEVICE int __uni_sync(unsigned int mask, int predicate) { return __nvvm_vote_uni_sync(mask, predicate); }
__SIMULEE_DEVICE unsigned int __ballot_sync(unsigned int mask, int predicate) {
  return __nvvm_vote_ballot_sync(mask, predicate);
}
__SIMULEE_DEVICE int __all(int predicate) { return __nvvm_vote_all_sync(__nvvm_activemask(), predicate); }
__SIMULEE_DEVICE int __any(int predicate) { return __nvvm_vote_any_sync(__nvvm_activemask(), predicate); }
__SIMULEE_DEVICE unsigned int __ballot(int predicate) { return __nvvm_vote_ballot_sync(__nvvm_activemask(), predicate); }

/* PTX shfl packs the segment width into the clamp operand: bits 8-12 hold 32 - width and
   bits 0-4 the highest lane index (0 for shfl.up, which clamps at the segment start). */
#define __SIMULEE_SHFL_CLAMP(width) (((32 - (width)) << 8) | 0x1f)
#define __SIMULEE_SHFL_UP_CLAMP(width) ((32 - (width)) << 8)

/* One 32-bit shuffle per mode, for int and float; wider types are shuffled as two halves.
   LANE is the type of the lane operand, as NVIDIA declares it (unsigned for up and down). */
#define __SIMULEE_SHFL32(NAME, MODE, CLAMP, LANE) \
  __SIMULEE_DEVICE int NAME(unsigned int mask, int var, LANE lane, int width = 32) { \
    return __nvvm_shfl_sync_##MODE##_i32(mask, var, lane, CLAMP(width)); \
  } \
  __SIMULEE_DEVICE unsigned int NAME(unsigned int mask, unsigned int var, LANE lane, int width = 32) { \
    return (unsigned int)__nvvm_shfl_sync_##MODE##_i32(mask, (int)var, lane, CLAMP(width)); \
  } \
  __SIMULEE_DEVICE float NAME(unsigned int mask, float var, LANE lane, int width = 32) { \
    return __nvvm_shfl_sync_##MODE##_f32(mask, var, lane, CLAMP(width)); \
  } \
  __SIMULEE_DEVICE long long NAME(unsigned int mask, long long var, LANE lane, int width = 32) { \
    int lo = NAME(mask, (int)var, lane, width); \
    int hi = NAME(mask, (int)((unsigned long long)var >> 32), lane, width); \
    return (long long)(((unsigned long long)(unsigned int)hi << 32) | (unsigned int)lo); \
  } \
  __SIMULEE_DEVICE unsigned long long NAME(unsigned int mask, unsigned long long var, LANE lane, int width = 32) { \
    return (unsigned long long)NAME(mask, (long long)var, lane, width); \
  } \
  __SIMULEE_DEVICE long NAME(unsigned int mask, long var, LANE lane, int width = 32) { \
    return (long)NAME(mask, (long long)var, lane, width); \
  } \
  __SIMULEE_DEVICE unsigned long NAME(unsigned int mask, unsigned long var, LANE lane, int width = 32) { \
    return (unsigned long)NAME(mask, (long long)var, lane, width); \
  } \
  __SIMULEE_DEVICE double NAME(unsigned int mask, double var, LANE lane, int width = 32) { \
    return __builtin_bit_cast(double, NAME(mask, __builtin_bit_cast(long long, var), lane, width)); \
  }

__SIMULEE_SHFL32(__shfl_sync, idx, __SIMULEE_SHFL_CLAMP, int)
__SIMULEE_SHFL32(__shfl_up_sync, up, __SIMULEE_SHFL_UP_CLAMP, unsigned int)
__SIMULEE_SHFL32(__shfl_down_sync, down, __SIMULEE_SHFL_CLAMP, unsigned int)
__SIMULEE_SHFL32(__shfl_xor_sync, bfly, __SIMULEE_SHFL_CLAMP, int)
#undef __SIMULEE_SHFL32

/* Legacy shuffles: every active lane takes part. */
#define __SIMULEE_SHFL_LEGACY(NAME, SYNC) \
  template <class T> __SIMULEE_DEVICE T NAME(T var, int lane, int width = 32) { \
    return SYNC(__nvvm_activemask(), var, lane, width); \
  }
__SIMULEE_SHFL_LEGACY(__shfl, __shfl_sync)
__SIMULEE_SHFL_LEGACY(__shfl_up, __shfl_up_sync)
__SIMULEE_SHFL_LEGACY(__shfl_down, __shfl_down_sync)
__SIMULEE_SHFL_LEGACY(__shfl_xor, __shfl_xor_sync)
#undef __SIMULEE_SHFL_LEGACY

/* Lanes of `mask` whose value equals this lane's value. */
__SIMULEE_DEVICE unsigned int __match_any_sync(unsigned int mask, unsigned int value) {
  return __nvvm_match_any_sync_i32(mask, value);
}
__SIMULEE_DEVICE unsigned int __match_any_sync(unsigned int mask, int value) {
  return __nvvm_match_any_sync_i32(mask, (unsigned int)value);
}
__SIMULEE_DEVICE unsigned int __match_any_sync(unsigned int mask, float value) {
  return __nvvm_match_any_sync_i32(mask, __builtin_bit_cast(unsigned int, value));
}
__SIMULEE_DEVICE unsigned int __match_any_sync(unsigned int mask, unsigned long long value) {
  return __nvvm_match_any_sync_i64(mask, (long long)value);
}
__SIMULEE_DEVICE unsigned int __match_any_sync(unsigned int mask, long long value) {
  return __nvvm_match_any_sync_i64(mask, value);
}
__SIMULEE_DEVICE unsigned int __match_any_sync(unsigned int mask, double value) {
  return __nvvm_match_any_sync_i64(mask, __builtin_bit_cast(long long, value));
}
__SIMULEE_DEVICE unsigned int __match_any_sync(unsigned int mask, unsigned long value) {
  return __nvvm_match_any_sync_i64(mask, (long long)value);
}
__SIMULEE_DEVICE unsigned int __match_any_sync(unsigned int mask, long value) {
  return __nvvm_match_any_sync_i64(mask, (long long)value);
}
/* `mask` when every lane of it holds the same value (and *pred = 1), else 0 (and *pred = 0). */
__SIMULEE_DEVICE unsigned int __match_all_sync(unsigned int mask, unsigned int value, int *pred) {
  return __nvvm_match_all_sync_i32p(mask, value, pred);
}
__SIMULEE_DEVICE unsigned int __match_all_sync(unsigned int mask, int value, int *pred) {
  return __nvvm_match_all_sync_i32p(mask, (unsigned int)value, pred);
}
__SIMULEE_DEVICE unsigned int __match_all_sync(unsigned int mask, float value, int *pred) {
  return __nvvm_match_all_sync_i32p(mask, __builtin_bit_cast(unsigned int, value), pred);
}
__SIMULEE_DEVICE unsigned int __match_all_sync(unsigned int mask, unsigned long long value, int *pred) {
  return __nvvm_match_all_sync_i64p(mask, (long long)value, pred);
}
__SIMULEE_DEVICE unsigned int __match_all_sync(unsigned int mask, long long value, int *pred) {
  return __nvvm_match_all_sync_i64p(mask, value, pred);
}
__SIMULEE_DEVICE unsigned int __match_all_sync(unsigned int mask, double value, int *pred) {
  return __nvvm_match_all_sync_i64p(mask, __builtin_bit_cast(long long, value), pred);
}
__SIMULEE_DEVICE unsigned int __match_all_sync(unsigned int mask, unsigned long value, int *pred) {
  return __nvvm_match_all_sync_i64p(mask, (long long)value, pred);
}
__SIMULEE_DEVICE unsigned int __match_all_sync(unsigned int mask, long value, int *pred) {
  return __nvvm_match_all_sync_i64p(mask, (long long)value, pred);
}

/* Lane masks relative to this lane (used by cooperative groups). */
__SIMULEE_DEVICE unsigned int __lanemask_lt(void) { return __nvvm_read_ptx_sreg_lanemask_lt(); }
__SIMULEE_DEVICE unsigned int __lanemask_le(void) { return __nvvm_read_ptx_sreg_lanemask_le(); }
__SIMULEE_DEVICE unsigned int __lanemask_gt(void) { return __nvvm_read_ptx_sreg_lanemask_gt(); }
__SIMULEE_DEVICE unsigned int __lanemask_ge(void) { return __nvvm_read_ptx_sreg_lanemask_ge(); }
__SIMULEE_DEVICE unsigned int __laneid(void) { return __nvvm_read_ptx_sreg_laneid(); }

/* Reductions over the lanes of `mask` (sm_80's redux.sync): every lane of it gets the same
   result; each lane's value is read with a shuffle, so only the lanes of `mask` take part. */
#define __SIMULEE_REDUCE(NAME, T, COMBINE) \
  __SIMULEE_DEVICE T NAME(unsigned int mask, T value) { \
    T result = value; \
    bool first = true; \
    for (int lane = 0; lane < 32; ++lane) { \
      if (!(mask >> lane & 1u)) continue; \
      T other = __shfl_sync(mask, value, lane); \
      result = first ? other : (COMBINE); \
      first = false; \
    } \
    return result; \
  }
__SIMULEE_REDUCE(__reduce_add_sync, unsigned int, result + other)
__SIMULEE_REDUCE(__reduce_add_sync, int, result + other)
__SIMULEE_REDUCE(__reduce_min_sync, unsigned int, other < result ? other : result)
__SIMULEE_REDUCE(__reduce_min_sync, int, other < result ? other : result)
__SIMULEE_REDUCE(__reduce_max_sync, unsigned int, other > result ? other : result)
__SIMULEE_REDUCE(__reduce_max_sync, int, other > result ? other : result)
__SIMULEE_REDUCE(__reduce_and_sync, unsigned int, result & other)
__SIMULEE_REDUCE(__reduce_or_sync, unsigned int, result | other)
__SIMULEE_REDUCE(__reduce_xor_sync, unsigned int, result ^ other)
#undef __SIMULEE_REDUCE

#endif
