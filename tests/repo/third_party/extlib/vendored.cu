// Skipped by default (third_party/): it would not compile.
__global__ void vendored(float *out) { out[0] = not_declared; }
