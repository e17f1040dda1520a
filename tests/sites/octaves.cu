// A pass per octave over the points found in it (as SIFT's descriptor pass runs): where each
// octave's points start lives in device memory the host fills. The two warps of a block
// leave their partial sums for thread 0, and no barrier ends the loop: a warp writes the
// next point's sum while thread 0 may still read this one's (a race on every octave with
// points, whatever their number).
__device__ unsigned int point_counter[2 * 8 + 1];

__global__ void describe(float *out, const float *in, int octave) {
  __shared__ float sums[2];
  int first = point_counter[octave], total = point_counter[octave + 1];
  for (int p = blockIdx.x + first; p < total; p += gridDim.x) {
    float v = in[p * 64 + threadIdx.x];
    if (threadIdx.x % 32 == 0)
      sums[threadIdx.x / 32] = v;  // the partial sum
    __syncthreads();
    if (threadIdx.x == 0)
      out[p] = sums[0] + sums[1];  // the total
  }  // the loop's end
}

void describe_octave(float *out, const float *in, const unsigned int *counts, int octave) {
  cudaMemcpyToSymbol(point_counter, counts, sizeof(point_counter));
  describe<<<16, 64>>>(out, in, octave);
}
