// Floating-point atomics and the block/system scoped variants.
// kernel: float_atomics(float *f, double *d, int *i)
//   reads: tid.x
//   shared: 0

__global__ void float_atomics(float *f, double *d, int *i) {
  atomicAdd(&f[0], 1.5f);
  atomicExch(&f[1], (float)threadIdx.x);
  atomicAdd(&d[0], 2.5);
  atomicAdd_block(&i[0], 1);
  atomicAdd_system(&i[1], 1);
  atomicExch_block(&i[2], 3);
  atomicCAS_system(&i[3], 0, 1);
  atomicMax_block(&i[4], (int)threadIdx.x);
}
