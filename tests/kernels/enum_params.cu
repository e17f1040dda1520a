// An enum parameter takes only its enumerators: the search tries kShift (racy) but never 5,
// which no enumerator has.
// kernel: apply_op(float *x, enum Op op)
//   reads: tid.x
//   shared: 0

enum Op { kCopy = 3, kShift = 7, kKeep = 11 };

__global__ void apply_op(float *x, Op op) {
  int t = threadIdx.x;
  if (op == kShift)
    x[t] = x[t + 1];  // neighbours race
  else if ((int)op == 5)
    x[t + 1] = x[t];  // no enumerator is 5: never runs
  else
    x[t] = 2.0f * x[t];
}
