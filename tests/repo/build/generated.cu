// Skipped by default (build*/): it would not compile.
__global__ void generated(float *out) { out[0] = not_declared; }
