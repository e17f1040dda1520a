// One program of a folder of programs (each source its own main, as a Makefile builds them):
// main hands the launcher to a timing template by pointer, with the step the kernel reads. The
// kernel takes an empty tag, which the host's ABI passes in no register.
#include <type_traits>
#include <utility>

template <bool Add>
__global__ void spread(float *a, std::bool_constant<Add>, int n, int step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i * step % n] += Add ? 1.0f : 0.0f;  // the update
}

void launch(float *a, int n, int step) { spread<<<(n + 255) / 256, 256>>>(a, std::true_type{}, n, step); }

template <class Launcher, class... Args>
void timed(Launcher launcher, Args &&...args) {
  for (int repeat = 0; repeat < 3; repeat++) launcher(std::forward<Args>(args)...);
}

int main() {
  float *a;
  cudaMalloc(&a, 4096 * sizeof(float));
  int n = 1024, step = 1;
  timed(launch, a, n, step);
}
