// Separate compilation (nvcc -rdc): the device function is defined in rdc_helper.cu.
extern __device__ float smooth_step(float x);

__global__ void apply_smooth_step(float *x) { x[threadIdx.x] = smooth_step(x[threadIdx.x]); }
