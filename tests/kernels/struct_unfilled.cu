// Structs passed by value with members Simulee cannot fill in: a function pointer the host
// sets (Simulee points it at a buffer of its own) and a union (left zero). A fault through
// them holds only for values Simulee made up: a warning. The same faults through a table
// the kernel's own file fills, or a divisor the kernel computes, are the kernel's: errors.
// kernel: bucket(int *out, const int *keys, Buckets b)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: bucket_table(int *out, const int *keys, int count)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: scale(int *out, const int *keys, Scale s)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
// kernel: scale_own(int *out, const int *keys, Scale s)
//   reads: tid.x ctaid.x ntid.x
//   shared: 0
struct Buckets {
  int (*map)(int);  // the host sets it
  int count;
};

struct Scale {
  union { int divisor; float factor; } by;  // the host sets one of them
  int count;
};

__device__ int halve(int key) { return key / 2; }
__device__ int (*const table[2])(int) = {halve, nullptr};

__global__ void bucket(int *out, const int *keys, Buckets b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < b.count) out[i] = b.map(keys[i]);  // the host's map is a function
}

__global__ void bucket_table(int *out, const int *keys, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = table[i % 2](keys[i]);  // odd threads call null
}

__global__ void scale(int *out, const int *keys, Scale s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.count) out[i] = keys[i] / s.by.divisor;  // the host's divisor is never 0
}

__global__ void scale_own(int *out, const int *keys, Scale s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < s.count) out[i] = keys[i] / (i % 4);  // every fourth thread divides by 0
}
