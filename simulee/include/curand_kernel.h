/* cuRAND's device API: XORWOW (curandState), Philox4x32-10 and MTGP32 generators.

   The generators follow the published algorithms and, above all, cuRAND's memory-access
   pattern on the state (every draw reads and writes it; an MTGP32 state is shared by the
   threads of a block, thread t updating word t + N and thread 0 advancing the offset between
   two block barriers), which is what a race detector needs. Seeding and the MTGP32 parameter
   tables are Simulee's own, so the numbers drawn are not the ones cuRAND would draw. */
#ifndef SIMULEE_CURAND_KERNEL_H
#define SIMULEE_CURAND_KERNEL_H
#include "simulee_prelude.h"
#include "curand.h"

#define CURAND_2POW32_INV (2.3283064e-10f)
#define CURAND_2POW32_INV_DOUBLE (2.3283064365386963e-10)
#define CURAND_2POW53_INV_DOUBLE (1.1102230246251565e-16)
#define CURAND_PI_DOUBLE (3.1415926535897932)

/* Shared by the generators: a 64-bit mixing step for seeding (splitmix64). */
__SIMULEE_DEVICE unsigned long long __simulee_mix64(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* Box-Muller on two uniforms in (0, 1]. */
__SIMULEE_DEVICE float2 __simulee_box_muller(unsigned int a, unsigned int b) {
  float u = a * CURAND_2POW32_INV + CURAND_2POW32_INV / 2.0f;
  float v = b * CURAND_2POW32_INV * 6.2831853f;
  float s = sqrtf(-2.0f * logf(u));
  return make_float2(s * sinf(v), s * cosf(v));
}

/* ---------------------------------------------------------------- XORWOW */

struct curandStateXORWOW {
  unsigned int d, v[5];
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

__SIMULEE_DEVICE unsigned int curand(curandStateXORWOW_t *state) {
  unsigned int t = state->v[0] ^ (state->v[0] >> 2);
  state->v[0] = state->v[1];
  state->v[1] = state->v[2];
  state->v[2] = state->v[3];
  state->v[3] = state->v[4];
  state->v[4] = (state->v[4] ^ (state->v[4] << 4)) ^ (t ^ (t << 1));
  state->d += 362437;
  return state->v[4] + state->d;
}

/* Distinct (seed, subsequence, offset) triples give distinct states. */
__SIMULEE_DEVICE void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                                  curandStateXORWOW_t *state) {
  unsigned long long x = __simulee_mix64(seed ^ __simulee_mix64(subsequence) ^ __simulee_mix64(offset + 1));
  state->d = 6615241u + (unsigned int)x;
  for (int i = 0; i < 5; ++i) {
    x = __simulee_mix64(x);
    state->v[i] = (unsigned int)x | (i == 0);  /* never all zero */
  }
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.0f;
  state->boxmuller_extra_double = 0.0;
}

__SIMULEE_DEVICE void skipahead(unsigned long long n, curandStateXORWOW_t *state) {
  for (unsigned long long i = 0; i < n; ++i) curand(state);
}

__SIMULEE_DEVICE float curand_uniform(curandStateXORWOW_t *state) {
  return curand(state) * CURAND_2POW32_INV + CURAND_2POW32_INV / 2.0f;
}
__SIMULEE_DEVICE double curand_uniform_double(curandStateXORWOW_t *state) {
  unsigned long long hi = curand(state), lo = curand(state);
  return ((hi << 21) ^ lo) * CURAND_2POW53_INV_DOUBLE + CURAND_2POW53_INV_DOUBLE / 2.0;
}
__SIMULEE_DEVICE float curand_normal(curandStateXORWOW_t *state) {
  if (state->boxmuller_flag) {
    state->boxmuller_flag = 0;
    return state->boxmuller_extra;
  }
  unsigned int a = curand(state), b = curand(state);
  float2 pair = __simulee_box_muller(a, b);
  state->boxmuller_extra = pair.y;
  state->boxmuller_flag = 1;
  return pair.x;
}
__SIMULEE_DEVICE double curand_normal_double(curandStateXORWOW_t *state) {
  if (state->boxmuller_flag_double) {
    state->boxmuller_flag_double = 0;
    return state->boxmuller_extra_double;
  }
  double u = curand_uniform_double(state), v = curand_uniform_double(state);
  double s = sqrt(-2.0 * log(u));
  state->boxmuller_extra_double = s * cos(2.0 * CURAND_PI_DOUBLE * v);
  state->boxmuller_flag_double = 1;
  return s * sin(2.0 * CURAND_PI_DOUBLE * v);
}
__SIMULEE_DEVICE float2 curand_normal2(curandStateXORWOW_t *state) {
  unsigned int a = curand(state), b = curand(state);
  return __simulee_box_muller(a, b);
}
__SIMULEE_DEVICE float curand_log_normal(curandStateXORWOW_t *state, float mean, float stddev) {
  return expf(mean + stddev * curand_normal(state));
}

/* ---------------------------------------------------------------- Philox4x32-10 */

struct curandStatePhilox4_32_10 {
  uint4 ctr;
  uint4 output;
  uint2 key;
  unsigned int STATE;
  int boxmuller_flag;
  int boxmuller_flag_double;
  float boxmuller_extra;
  double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

/* Ten rounds of the Philox 4x32 bijection of the counter under the key. */
__SIMULEE_DEVICE uint4 __simulee_philox4x32_10(uint4 c, uint2 k) {
  for (int round = 0; round < 10; ++round) {
    unsigned long long p0 = 0xD2511F53ull * c.x, p1 = 0xCD9E8D57ull * c.z;
    c = make_uint4((unsigned int)(p1 >> 32) ^ c.y ^ k.x, (unsigned int)p1, (unsigned int)(p0 >> 32) ^ c.w ^ k.y,
                   (unsigned int)p0);
    k.x += 0x9E3779B9u;
    k.y += 0xBB67AE85u;
  }
  return c;
}
__SIMULEE_DEVICE void __simulee_philox_advance(curandStatePhilox4_32_10_t *state, unsigned long long n) {
  unsigned long long low = ((unsigned long long)state->ctr.y << 32 | state->ctr.x) + n;
  if (low < n) {
    if (++state->ctr.z == 0) ++state->ctr.w;
  }
  state->ctr.x = (unsigned int)low;
  state->ctr.y = (unsigned int)(low >> 32);
}
__SIMULEE_DEVICE void curand_init(unsigned long long seed, unsigned long long subsequence, unsigned long long offset,
                                  curandStatePhilox4_32_10_t *state) {
  state->key = make_uint2((unsigned int)seed, (unsigned int)(seed >> 32));
  state->ctr = make_uint4(0, 0, (unsigned int)subsequence, (unsigned int)(subsequence >> 32));
  __simulee_philox_advance(state, offset / 4);
  state->STATE = (unsigned int)(offset % 4);
  state->output = __simulee_philox4x32_10(state->ctr, state->key);
  state->boxmuller_flag = 0;
  state->boxmuller_flag_double = 0;
  state->boxmuller_extra = 0.0f;
  state->boxmuller_extra_double = 0.0;
}
__SIMULEE_DEVICE unsigned int curand(curandStatePhilox4_32_10_t *state) {
  unsigned int lanes[4] = {state->output.x, state->output.y, state->output.z, state->output.w};
  unsigned int value = lanes[state->STATE];
  if (++state->STATE == 4) {
    state->STATE = 0;
    __simulee_philox_advance(state, 1);
    state->output = __simulee_philox4x32_10(state->ctr, state->key);
  }
  return value;
}
__SIMULEE_DEVICE uint4 curand4(curandStatePhilox4_32_10_t *state) {
  unsigned int a = curand(state), b = curand(state), c = curand(state), d = curand(state);
  return make_uint4(a, b, c, d);
}
__SIMULEE_DEVICE void skipahead(unsigned long long n, curandStatePhilox4_32_10_t *state) {
  unsigned long long position = state->STATE + n;
  __simulee_philox_advance(state, position / 4);
  state->STATE = (unsigned int)(position % 4);
  state->output = __simulee_philox4x32_10(state->ctr, state->key);
}
__SIMULEE_DEVICE float curand_uniform(curandStatePhilox4_32_10_t *state) {
  return curand(state) * CURAND_2POW32_INV + CURAND_2POW32_INV / 2.0f;
}
__SIMULEE_DEVICE float4 curand_uniform4(curandStatePhilox4_32_10_t *state) {
  uint4 v = curand4(state);
  return make_float4(v.x * CURAND_2POW32_INV + CURAND_2POW32_INV / 2.0f, v.y * CURAND_2POW32_INV + CURAND_2POW32_INV / 2.0f,
                     v.z * CURAND_2POW32_INV + CURAND_2POW32_INV / 2.0f, v.w * CURAND_2POW32_INV + CURAND_2POW32_INV / 2.0f);
}
__SIMULEE_DEVICE double curand_uniform_double(curandStatePhilox4_32_10_t *state) {
  unsigned long long hi = curand(state), lo = curand(state);
  return ((hi << 21) ^ lo) * CURAND_2POW53_INV_DOUBLE + CURAND_2POW53_INV_DOUBLE / 2.0;
}
__SIMULEE_DEVICE float curand_normal(curandStatePhilox4_32_10_t *state) {
  if (state->boxmuller_flag) {
    state->boxmuller_flag = 0;
    return state->boxmuller_extra;
  }
  unsigned int a = curand(state), b = curand(state);
  float2 pair = __simulee_box_muller(a, b);
  state->boxmuller_extra = pair.y;
  state->boxmuller_flag = 1;
  return pair.x;
}
__SIMULEE_DEVICE float2 curand_normal2(curandStatePhilox4_32_10_t *state) {
  unsigned int a = curand(state), b = curand(state);
  return __simulee_box_muller(a, b);
}

/* ---------------------------------------------------------------- MTGP32 */

#define MTGPDC_MEXP 11213
#define MTGPDC_N 351
#define MTGPDC_FLOOR_2P 256
#define MTGPDC_CEIL_2P 512
#define MTGPDC_PARAM_TABLE mtgp32dc_params_fast_11213
#define MTGP32_STATE_SIZE 1024
#define MTGP32_STATE_MASK 1023
#define CURAND_NUM_MTGP32_PARAMS 200
#define MEXP 11213
#define THREAD_NUM MTGPDC_FLOOR_2P
#define LARGE_SIZE (THREAD_NUM * 3)
#define TBL_SIZE 16

struct mtgp32_params_fast {
  int mexp, pos, sh1, sh2;
  unsigned int tbl[16], tmp_tbl[16], flt_tmp_tbl[16], mask;
  unsigned char poly_sha1[21];
};
typedef struct mtgp32_params_fast mtgp32_params_fast_t;
struct mtgp32_kernel_params {
  unsigned int pos_tbl[CURAND_NUM_MTGP32_PARAMS];
  unsigned int param_tbl[CURAND_NUM_MTGP32_PARAMS][TBL_SIZE];
  unsigned int temper_tbl[CURAND_NUM_MTGP32_PARAMS][TBL_SIZE];
  unsigned int single_temper_tbl[CURAND_NUM_MTGP32_PARAMS][TBL_SIZE];
  unsigned int sh1_tbl[CURAND_NUM_MTGP32_PARAMS];
  unsigned int sh2_tbl[CURAND_NUM_MTGP32_PARAMS];
  unsigned int mask[1];
};
typedef struct mtgp32_kernel_params mtgp32_kernel_params_t;
struct curandStateMtgp32 {
  unsigned int s[MTGP32_STATE_SIZE];
  int offset;
  int pIdx;
  mtgp32_kernel_params_t *k;
};
typedef struct curandStateMtgp32 curandStateMtgp32_t;
extern mtgp32_params_fast_t mtgp32dc_params_fast_11213[];

/* The MTGP32 recursion and tempering, with fixed parameters. */
#define __SIMULEE_MTGP32_POS 84
__SIMULEE_DEVICE unsigned int __simulee_mtgp32_recursion(unsigned int x1, unsigned int x2, unsigned int y) {
  unsigned int x = (x1 & 0xfff80000u) ^ x2;
  x ^= x << 13;
  y = x ^ (y >> 7);
  return y ^ ((y & 1u) ? 0x8b9cef02u : 0u);
}
__SIMULEE_DEVICE unsigned int __simulee_mtgp32_temper(unsigned int v, unsigned int t) {
  t ^= t >> 16;
  t ^= t >> 8;
  return v ^ ((t & 1u) ? 0x2f1c34a5u : 0u);
}

/* One draw per thread of the block: every thread of the block must call it together (it
   holds two block barriers), and a block may have at most 256 threads. */
__SIMULEE_DEVICE unsigned int curand(curandStateMtgp32_t *state) {
  unsigned int threads = blockDim.x * blockDim.y * blockDim.z;
  unsigned int t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  int offset = state->offset;
  unsigned int r = __simulee_mtgp32_recursion(state->s[(t + offset) & MTGP32_STATE_MASK],
                                              state->s[(t + offset + 1) & MTGP32_STATE_MASK],
                                              state->s[(t + offset + __SIMULEE_MTGP32_POS) & MTGP32_STATE_MASK]);
  state->s[(t + offset + MTGPDC_N) & MTGP32_STATE_MASK] = r;
  unsigned int o = __simulee_mtgp32_temper(r, state->s[(t + offset + __SIMULEE_MTGP32_POS - 1) & MTGP32_STATE_MASK]);
  __syncthreads();
  if (t == 0) state->offset = (offset + threads) & MTGP32_STATE_MASK;
  __syncthreads();
  return o;
}
__SIMULEE_DEVICE float curand_uniform(curandStateMtgp32_t *state) {
  return curand(state) * CURAND_2POW32_INV + CURAND_2POW32_INV / 2.0f;
}
__SIMULEE_DEVICE float curand_normal(curandStateMtgp32_t *state) {
  unsigned int a = curand(state), b = curand(state);
  return __simulee_box_muller(a, b).x;
}

extern "C" __host__ curandStatus_t curandMakeMTGP32Constants(const mtgp32_params_fast_t params[],
                                                             mtgp32_kernel_params_t *p);
extern "C" __host__ curandStatus_t curandMakeMTGP32KernelState(curandStateMtgp32_t *s, mtgp32_params_fast_t params[],
                                                               mtgp32_kernel_params_t *k, int n,
                                                               unsigned long long seed);

#endif
