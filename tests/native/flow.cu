// Loops for native code that goes on through branches (interpreter/native_flow.py): each
// must run as the NumPy interpreter runs it, round after round, and leave to the scheduler
// where the group splits, waits or may spin.

// A uniform loop: a load, a store, integer and float phis; n rounds.
__global__ void rounds(float *out, const float *in, int n) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  float acc = 0.0f;
  bool odd = false;
  for (int k = 0; k < n; k++) {
    acc = acc * 0.5f + in[(i + k) % 64];
    odd = !odd;
    out[i] = acc;
  }
  out[i] += odd ? 1.0f : 0.0f;
}

// Nested uniform loops with different bounds, then a loop each thread leaves at its own
// trip (the exit branch splits the group).
__global__ void nested(int *out, int rows, int cols) {
  int t = threadIdx.x;
  int sum = 0;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++)
      sum += r * cols + c + t;
  for (int k = 0; k < t % 5; k++)
    sum ^= k << 3;
  out[t] = sum;
}

// One warp waits for a flag the other warp of its block sets: it spins (no store, nothing
// changes round its loop) until the setter has run.
__global__ void waits(int *flag, int *out) {
  if (threadIdx.x >= 32) {
    out[threadIdx.x] = 7;
    flag[blockIdx.x] = 1;
    return;
  }
  while (flag[blockIdx.x] == 0) {
  }
  out[threadIdx.x] = flag[blockIdx.x] + 1;
}

// A loop that never ends and never changes anything: an endless loop, found as the
// interpreter finds it.
__global__ void endless(int *out, int n) {
  int k = 0;
  while (k < n) {
    k = k * 1;
  }
  out[threadIdx.x] = k;
}

// A loop whose only change is a store of the same value: never a spin (memory was written),
// so it runs to the step limit.
__global__ void rewrites(int *out, int n) {
  int k = 0;
  while (k < n) {
    out[threadIdx.x] = 5;
  }
  out[threadIdx.x] = k;
}
