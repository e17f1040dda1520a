#ifndef USE_FAST_PATH
#error "configure with cmake: USE_FAST_PATH comes from the build"
#endif

__global__ void fast_path(int *x) { x[threadIdx.x] = WIDTH; }
