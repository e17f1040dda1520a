// Warp votes, masks, matches and __syncwarp.
// kernel: votes(const int *in, unsigned int *out)
//   reads: tid.x
//   shared: 0

__global__ void votes(const int *in, unsigned int *out) {
  int value = in[threadIdx.x];
  unsigned int mask = __activemask();
  out[0] = __ballot_sync(mask, value > 0);
  out[1] = __any_sync(0xffffffff, value > 10);
  out[2] = __all_sync(0xffffffff, value != 0);
  out[3] = __uni_sync(0xffffffff, value);
  out[4] = __ballot(value & 1) + __any(value) + __all(value);
  out[5] = __match_any_sync(0xffffffff, value);
  int same;
  out[6] = __match_all_sync(0xffffffff, value, &same) + same;
  __syncwarp();
  __syncwarp(mask);
}
