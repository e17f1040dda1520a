// Structs by value (a kernel parameter of 24 bytes, and one holding pointers) and by pointer.
// kernel: apply(Params params, Body *bodies)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: gather(Arrays arrays)
//   reads: tid.x
//   shared: 0
// kernel: through_global(float *out)
//   reads: tid.x
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

// Pointers inside a struct passed by value (a struct of arrays): each gets a buffer of its own.
struct Arrays {
  int *keys;
  float *values[2];
};

__global__ void gather(Arrays arrays) {
  int i = threadIdx.x;
  arrays.values[1][i] = arrays.values[0][arrays.keys[i]];
}

// A global pointer the host would set (cudaMemcpyToSymbol): it gets a buffer of its own too.
__device__ float *table;

__global__ void through_global(float *out) { out[threadIdx.x] = table[threadIdx.x] + 1.0f; }
