// Includes a header that does not exist.
#include "helpers/none.cuh"

__global__ void k(int *p) { p[0] = 1; }
