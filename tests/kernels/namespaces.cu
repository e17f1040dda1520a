// Kernels in a namespace, in an anonymous namespace, and with C linkage.
// kernel: physics::integrate(float *x, const float *v, float dt)
//   reads: tid.x
//   shared: 0
// kernel: (anonymous namespace)::hidden(int *flag)
//   shared: 0
// kernel: plain_c(int *out)
//   reads: tid.x
//   shared: 0

namespace physics {
__global__ void integrate(float *x, const float *v, float dt) { x[threadIdx.x] += v[threadIdx.x] * dt; }
}  // namespace physics

namespace {
__global__ void hidden(int *flag) { *flag = 1; }
}  // namespace

extern "C" __global__ void plain_c(int *out) { out[threadIdx.x] = 0; }

void launch_all(float *x, float *v, int *flag) {
  physics::integrate<<<1, 32>>>(x, v, 0.1f);
  hidden<<<1, 1>>>(flag);
}
