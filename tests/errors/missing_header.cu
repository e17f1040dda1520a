// Includes a header that does not exist: compiled with an empty stand-in for it, degraded.
#include "helpers/none.cuh"

__global__ void k(int *p) { p[0] = 1; }
