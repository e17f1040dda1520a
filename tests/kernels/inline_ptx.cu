// Inline PTX: integer, float, memory, warp and asynchronous-copy instructions in asm().
// kernel: int_ops(const unsigned int *a, const unsigned int *b, unsigned int *out)
//   reads: tid.x
//   shared: 0
// kernel: float_ops(const float *x, float *out)
//   reads: tid.x
//   shared: 0
// kernel: memory_ops(const int *in, int *out, int *counter)
//   reads: tid.x
//   shared: 256
// kernel: shared_race(int *out, int sync)
//   reads: tid.x ntid.x
//   shared: 256
// kernel: warp_ops(const int *in, int *out)
//   reads: tid.x
//   shared: 0
// kernel: async_copy(const int4 *in, int *out)
//   reads: tid.x
//   shared: 1024
// kernel: wide_ops(const unsigned long long *a, const unsigned long long *b, unsigned long long *out)
//   reads: tid.x
//   shared: 0

#define INT_RESULTS 16

__global__ void int_ops(const unsigned int *a, const unsigned int *b, unsigned int *out) {
  unsigned int i = threadIdx.x, x = a[i], y = b[i], r;
  unsigned int *o = out + i * INT_RESULTS;
  unsigned int lo, hi;
  // 64-bit addition from 32-bit halves through the carry flag
  asm("add.cc.u32 %0, %2, %3;\n\taddc.u32 %1, %2, %3;" : "=r"(lo), "=r"(hi) : "r"(x), "r"(y));
  o[0] = lo; o[1] = hi;
  asm("mul.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y)); o[2] = r;
  unsigned long long wide;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(wide) : "r"(x), "r"(y)); o[3] = (unsigned int)(wide >> 32);
  asm("mad.lo.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(7)); o[4] = r;
  asm("bfe.u32 %0, %1, 4, 8;" : "=r"(r) : "r"(x)); o[5] = r;
  asm("bfe.s32 %0, %1, 28, 4;" : "=r"(r) : "r"(x)); o[6] = r;
  asm("bfi.b32 %0, %1, %2, 8, 4;" : "=r"(r) : "r"(y), "r"(x)); o[7] = r;
  asm("prmt.b32 %0, %1, %2, 0x5140;" : "=r"(r) : "r"(x), "r"(y)); o[8] = r;
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(x), "r"(y), "r"(i)); o[9] = r;
  asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(y), "r"(x), "r"(i)); o[10] = r;
  asm("popc.b32 %0, %1;" : "=r"(r) : "r"(x)); o[11] = r;
  asm("{ .reg .u32 t; clz.b32 t, %1; brev.b32 %0, t; }" : "=r"(r) : "r"(x)); o[12] = r;
  asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(y)); o[13] = r;
  asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(i + 20)); o[14] = r;
  // a loop with a label, a predicated branch and a predicate register: bits set in x
  asm("{\n"
      "  .reg .pred p, q;\n"
      "  .reg .u32 v, n;\n"
      "  mov.u32 v, %1;\n"
      "  mov.u32 n, 0;\n"
      "LOOP:\n"
      "  setp.eq.u32 p, v, 0;\n"
      "  @p bra DONE;\n"
      "  and.b32 %0, v, 1;\n"
      "  setp.ne.u32 q, %0, 0;\n"
      "  @q add.u32 n, n, 1;\n"
      "  shr.u32 v, v, 1;\n"
      "  bra LOOP;\n"
      "DONE:\n"
      "  mov.u32 %0, n;\n"
      "}" : "=r"(r) : "r"(x));
  o[15] = r;
}

#define FLOAT_RESULTS 8

__global__ void float_ops(const float *x, float *out) {
  unsigned int i = threadIdx.x;
  float v = x[i], r;
  float *o = out + i * FLOAT_RESULTS;
  asm("fma.rn.f32 %0, %1, %1, 0f3F800000;" : "=f"(r) : "f"(v)); o[0] = r;
  int k;
  asm("cvt.rni.s32.f32 %0, %1;" : "=r"(k) : "f"(v)); o[1] = (float)k;
  asm("cvt.rzi.f32.f32 %0, %1;" : "=f"(r) : "f"(v)); o[2] = r;
  asm("cvt.sat.f32.f32 %0, %1;" : "=f"(r) : "f"(v)); o[3] = r;
  asm("{ .reg .f32 t; abs.f32 t, %1; sqrt.rn.f32 %0, t; }" : "=f"(r) : "f"(v)); o[4] = r;
  asm("max.f32 %0, %1, 0f40000000;" : "=f"(r) : "f"(v)); o[5] = r;
  asm("neg.f32 %0, %1;" : "=f"(r) : "f"(v)); o[6] = r;
  double d;
  asm("cvt.f64.f32 %0, %1;" : "=d"(d) : "f"(v));
  asm("mul.f64 %0, %0, 0d4000000000000000;" : "+d"(d)); o[7] = (float)d;
}

__global__ void memory_ops(const int *in, int *out, int *counter) {
  __shared__ int tile[64];
  unsigned int i = threadIdx.x;
  int v, w, old;
  asm volatile("ld.global.nc.s32 %0, [%1+4];" : "=r"(v) : "l"(in + i));
  unsigned int slot = (unsigned int)__cvta_generic_to_shared(tile + i);
  asm volatile("st.shared.u32 [%0], %1;" :: "r"(slot), "r"(v) : "memory");
  asm volatile("bar.sync 0;" ::: "memory");
  unsigned int next = (unsigned int)__cvta_generic_to_shared(tile + (i + 1) % 64);
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(w) : "r"(next) : "memory");
  asm volatile("atom.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(counter) : "memory");
  asm volatile("red.global.max.s32 [%0], %1;" :: "l"(counter + 1), "r"(v) : "memory");
  asm volatile("st.global.v2.s32 [%0], {%1, %2};" :: "l"(out + 2 * i), "r"(v), "r"(w) : "memory");
}

// Neighbours exchange through shared memory with st/ld.shared; the barrier is bar.sync in
// PTX, skipped when sync is 0.
__global__ void shared_race(int *out, int sync) {
  __shared__ int cell[64];
  unsigned int i = threadIdx.x;
  unsigned int mine = (unsigned int)__cvta_generic_to_shared(cell + i);
  unsigned int theirs = (unsigned int)__cvta_generic_to_shared(cell + (i + 1) % blockDim.x);
  int v;
  asm volatile("st.shared.s32 [%0], %1;" :: "r"(mine), "r"((int)i) : "memory");
  if (sync) asm volatile("bar.sync 0;" ::: "memory");
  asm volatile("ld.shared.s32 %0, [%1];" : "=r"(v) : "r"(theirs) : "memory");
  out[i] = v;
}

__global__ void warp_ops(const int *in, int *out) {
  unsigned int i = threadIdx.x;
  int v = in[i], swapped, ballot, lane;
  asm volatile("shfl.sync.bfly.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=r"(swapped) : "r"(v));
  asm volatile("{ .reg .pred p; setp.gt.s32 p, %1, 50; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
               : "=r"(ballot) : "r"(v));
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  out[3 * i] = swapped;
  out[3 * i + 1] = ballot;
  out[3 * i + 2] = lane;
}

__global__ void async_copy(const int4 *in, int *out) {
  __shared__ int4 staged[64];
  unsigned int i = threadIdx.x;
  unsigned int slot = (unsigned int)__cvta_generic_to_shared(staged + i);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(slot), "l"(in + i) : "memory");
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  __syncthreads();
  int4 other = staged[63 - i];
  out[i] = other.x + other.y + other.z + other.w;
}

// 128-bit addition and subtraction from 64-bit halves through the carry flag (no 128-bit
// integers in the lifted code), and a 64-bit add under a predicate (CUB's 64-bit warp scan).
__global__ void wide_ops(const unsigned long long *a, const unsigned long long *b, unsigned long long *out) {
  unsigned int i = threadIdx.x;
  unsigned long long x = a[i], y = b[i], lo, hi, r;
  asm("add.cc.u64 %0, %2, %3;\n\taddc.u64 %1, %2, %3;" : "=l"(lo), "=l"(hi) : "l"(x), "l"(y));
  out[4 * i] = lo;
  out[4 * i + 1] = hi;
  asm("sub.cc.u64 %0, %2, %3;\n\tsubc.u64 %1, %2, %3;" : "=l"(lo), "=l"(hi) : "l"(x), "l"(y));
  out[4 * i + 2] = hi;
  asm("{ .reg .pred p; setp.ne.u64 p, %1, 0; mov.u64 %0, %1; @p add.u64 %0, %0, %2; }" : "=l"(r) : "l"(x), "l"(y));
  out[4 * i + 3] = r;
}
