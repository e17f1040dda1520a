// Accesses narrower and wider than the model's 4-byte memory unit: only common bytes conflict.
// kernel: char_neighbours(char *c)
//   reads: tid.x
//   shared: 0
// kernel: int_over_char(char *c)
//   reads: tid.x
//   shared: 0
// kernel: float4_over_float(float *f)
//   reads: tid.x
//   shared: 0

// Neighbouring threads write neighbouring bytes of one word: clean.
__global__ void char_neighbours(char *c) { c[threadIdx.x] = 1; }

// A 4-byte store and a 1-byte store share byte 3 (different warps): a race.
__global__ void int_over_char(char *c) {
  if (threadIdx.x == 0) *(int *)c = 0;
  else if (threadIdx.x == 33) c[3] = 1;
  else if (threadIdx.x == 34) c[4] = 1;
}

// A 16-byte store covers floats 4 to 7: the store to f[6] races with it, f[8] does not.
__global__ void float4_over_float(float *f) {
  if (threadIdx.x == 0) reinterpret_cast<float4 *>(f)[1] = make_float4(0, 0, 0, 0);
  else if (threadIdx.x == 40) f[6] = 1.0f;
  else if (threadIdx.x == 41) f[8] = 1.0f;
}
