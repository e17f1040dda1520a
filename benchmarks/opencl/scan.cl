// OpenCL twin of scan_nonfinal_kernel_fixed (benchmarks/kernels/arrayfire): a block-wide
// inclusive Hillis-Steele scan in local memory, one block total per work-group.
#define THREADS 256

__kernel void scan_nonfinal_kernel_fixed(__global const float *in, __global float *out,
                                         __global float *block_sums, int n) {
  __local float s[THREADS];
  int tid = get_local_id(0);
  int i = get_group_id(0) * get_local_size(0) + tid;
  if (get_local_size(0) > THREADS) return;
  s[tid] = i < n ? in[i] : 0.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int offset = 1; offset < (int)get_local_size(0); offset *= 2) {
    float partner = 0.0f;
    if (tid >= offset) partner = s[tid - offset];
    barrier(CLK_LOCAL_MEM_FENCE);
    s[tid] += partner;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (i < n) out[i] = s[tid];
  if (tid == (int)get_local_size(0) - 1) block_sums[get_group_id(0)] = s[tid];
}
