// Does not compile: the scan records clang's first error (an undeclared identifier) and goes on.
__global__ void broken(float *out) { out[threadIdx.x] = missing_value; }
