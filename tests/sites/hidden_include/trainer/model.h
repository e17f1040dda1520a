// What trainer.cpp needs to compile: the model it launches rows.cu's kernels for.
struct Model {
  int rows, cols;
  float *weights, *totals, *out;
};
