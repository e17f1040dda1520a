// OpenCL twin of tests/kernels/reduction.cu: a shared-memory tree reduction, one partial
// sum per work-group, for timing Oclgrind on the same work.
#define BLOCK 256

__kernel void reduce_sum(__global const float *in, __global float *out, int n) {
  __local float partial[BLOCK];
  unsigned int t = get_local_id(0);
  unsigned int i = get_group_id(0) * get_local_size(0) + t;
  partial[t] = i < n ? in[i] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (unsigned int stride = get_local_size(0) / 2; stride > 0; stride >>= 1) {
    if (t < stride) partial[t] += partial[t + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) out[get_group_id(0)] = partial[0];
}
