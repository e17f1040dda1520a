// Host code written against libraries CMake fetches at configure time (cxxopts, nlohmann
// json), which are not here: their namespaces' types declare members and parameters.
#include <cxxopts.hpp>
#include <nlohmann/json.hpp>

struct settings_t {
  cxxopts::Options options;
  int runs = 1;

  settings_t(int argc, char **argv)
      : options(argv[0], "scale example") {
    options.add_options()("n,size", "elements", cxxopts::value<int>());
  }

  void report(nlohmann::json *out) const {
    out->push_back(nlohmann::json::object_t::value_type("runs", runs));
  }
};

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

int main(int argc, char **argv) {
  settings_t settings(argc, argv);
  int n = 1 << 20;
  float *x;
  cudaMalloc(&x, n * sizeof(float));
  scale<<<(n + 255) / 256, 256>>>(x, n);
  return 0;
}
