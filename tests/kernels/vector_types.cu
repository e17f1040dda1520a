// CUDA vector types, make_* constructors, and dim3/uint3 conversions of the index variables.
// kernel: vectors(float4 *f4, int2 *i2, uchar4 *c4, double2 *d2, uint3 *where)
//   reads: tid.x tid.y tid.z ctaid.x ctaid.y ctaid.z ntid.x ntid.y ntid.z
//   shared: 0

__global__ void vectors(float4 *f4, int2 *i2, uchar4 *c4, double2 *d2, uint3 *where) {
  int i = threadIdx.x;
  float4 v = f4[i];
  f4[i] = make_float4(v.w, v.z, v.y, v.x);
  i2[i] = make_int2(i2[i].y, i2[i].x);
  uchar4 c = c4[i];
  c4[i] = make_uchar4(c.x + 1, c.y, c.z, c.w);
  d2[i] = make_double2(d2[i].x * 2.0, 0.0);
  dim3 block = blockDim;
  uint3 thread = threadIdx;
  where[i] = make_uint3(thread.x + blockIdx.x, thread.y + block.y, thread.z + dim3(blockIdx).z);
}
