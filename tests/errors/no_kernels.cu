// Device code but no __global__ function: nothing to analyze.
__device__ int helper(int x) { return x + 1; }
