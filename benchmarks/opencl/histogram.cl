// OpenCL twin of tests/kernels/histogram.cu: a per-work-group histogram in local memory
// with local atomics, merged into the global bins with global atomics.
__kernel void histogram256(__global const uchar *data, __global uint *bins, int n) {
  __local uint local_bins[256];
  for (int b = get_local_id(0); b < 256; b += get_local_size(0)) local_bins[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = get_global_id(0); i < n; i += get_global_size(0))
    atomic_inc(&local_bins[data[i]]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int b = get_local_id(0); b < 256; b += get_local_size(0)) atomic_add(&bins[b], local_bins[b]);
}
