// Every integer atomic family on int, unsigned int and unsigned long long.
// kernel: int_atomics(int *i, unsigned int *u, unsigned long long *q, long long *l, unsigned short *s)
//   reads: tid.x
//   shared: 0

__global__ void int_atomics(int *i, unsigned int *u, unsigned long long *q, long long *l, unsigned short *s) {
  int t = threadIdx.x;
  atomicAdd(&i[0], t);
  atomicSub(&i[1], t);
  atomicExch(&i[2], t);
  atomicMin(&i[3], t);
  atomicMax(&i[4], t);
  atomicCAS(&i[5], 0, t);
  atomicAnd(&i[6], t);
  atomicOr(&i[7], t);
  atomicXor(&i[8], t);
  atomicAdd(&u[0], 1u);
  atomicInc(&u[1], 16u);
  atomicDec(&u[2], 16u);
  atomicMin(&u[3], (unsigned)t);
  atomicCAS(&u[4], 0u, 1u);
  atomicAdd(&q[0], 1ull);
  atomicExch(&q[1], 2ull);
  atomicCAS(&q[2], 0ull, 3ull);
  atomicMax(&q[3], (unsigned long long)t);
  atomicAnd(&q[4], 7ull);
  atomicMin(&l[0], (long long)t);
  atomicCAS(&s[0], (unsigned short)0, (unsigned short)t);
}
