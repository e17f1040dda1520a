// A layer whose width the application's main chooses (its build gives it as -DWIDTH).
struct Net {
  int width;
  float *weights;
  explicit Net(int width);
  void adjust(int rows);
};
