// Structs by value (a kernel parameter of 24 bytes) and by pointer.
// kernel: apply(Params params, Body *bodies)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0

struct Params {
  float dt;
  int count;
  double damping;
  int steps;
};

struct Body {
  float3 position;
  float3 velocity;
};

__global__ void apply(Params params, Body *bodies) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= params.count) return;
  Body b = bodies[i];
  for (int s = 0; s < params.steps; ++s) {
    b.position.x += b.velocity.x * params.dt;
    b.velocity.x *= (float)params.damping;
  }
  bodies[i] = b;
}
