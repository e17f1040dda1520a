// Every stub header of the CUDA SDK that code includes by name, and math_constants.h.
// kernel: circle(float *area, const float *radius)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_runtime_api.h>
#include <device_launch_parameters.h>
#include <device_functions.h>
#include <vector_types.h>
#include <vector_functions.h>
#include <math_constants.h>

__global__ void circle(float *area, const float *radius) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float r = radius[i];
  area[i] = r > 0.0f ? CUDART_PI_F * r * r : CUDART_NAN_F;
}

CUresult driver_init(void) { return cuInit(0); }
