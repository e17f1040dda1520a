// A layer whose width main chooses, passed through a constructor to a kernel in another file.
struct Net {
  int width;
  float *weights;
  explicit Net(int width);
  void adjust(int rows);
};
