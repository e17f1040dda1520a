#include "helper_math.h"  // the CUDA samples' vector arithmetic, copied from their Common/ folder: not shipped

__global__ void step(float4 *position, const float4 *velocity, float dt) {
  int i = threadIdx.x;
  float4 p = position[i] + velocity[i] * dt;
  float3 d = normalize(make_float3(p));
  position[i] = make_float4(d, clamp(p.w, 0.0f, 1.0f));
}
