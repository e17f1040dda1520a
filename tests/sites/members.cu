// A layer object launches its kernel with a grid computed from a member it also passes
// (CUDA-CNN's Conv::getGrad: dim3(outputAmount, kernelSize * kernelSize) and kernelSize):
// the argument and the grid stay related.
#include <cuda_runtime.h>

__global__ void sum_taps(float *w, int taps, int outputs) {
  int tap = blockIdx.y % (taps * taps);
  w[blockIdx.x * taps * taps + tap] += outputs;
}

struct Layer;
void log_layer(Layer *layer);  // defined elsewhere: it might change the layer, so taps is read again

struct Layer {
  float *weights;
  int outputs;
  int taps;

  void update() {
    dim3 grid(outputs, taps * taps);
    log_layer(this);
    sum_taps<<<grid, 1>>>(weights, taps, outputs);
  }
};

void step(Layer &layer) { layer.update(); }
