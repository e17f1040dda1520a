// A kernel of 73 parameters: a table of device pointers the host filled, a struct by value and
// 70 numbers (past any fixed limit on the parameters a launch passes).
#include <cstdio>
struct Pair { int a; double b; };
#define P(n) int s##n
__global__ void many(float *out, float **tables, Pair pair, P(0), P(1), P(2), P(3), P(4), P(5), P(6), P(7), P(8), P(9),
  P(10), P(11), P(12), P(13), P(14), P(15), P(16), P(17), P(18), P(19), P(20), P(21), P(22), P(23), P(24), P(25), P(26),
  P(27), P(28), P(29), P(30), P(31), P(32), P(33), P(34), P(35), P(36), P(37), P(38), P(39), P(40), P(41), P(42), P(43),
  P(44), P(45), P(46), P(47), P(48), P(49), P(50), P(51), P(52), P(53), P(54), P(55), P(56), P(57), P(58), P(59), P(60),
  P(61), P(62), P(63), P(64), P(65), P(66), P(67), P(68), P(69)) {
  out[threadIdx.x] = tables[threadIdx.x % 2][threadIdx.x] + pair.a + pair.b + s0 + s69;
}
int main() {
  float *out, *t0, *t1, **tables; float h[32];
  cudaMalloc(&out, 128); cudaMalloc(&t0, 128); cudaMalloc(&t1, 128); cudaMalloc(&tables, 16);
  for (int i = 0; i < 32; ++i) h[i] = i;
  cudaMemcpy(t0, h, 128, cudaMemcpyHostToDevice); cudaMemcpy(t1, h, 128, cudaMemcpyHostToDevice);
  float *both[2] = {t0, t1}; cudaMemcpy(tables, both, 16, cudaMemcpyHostToDevice);
  Pair pair = {100, 0.5};
  many<<<1, 32>>>(out, tables, pair, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70);
  cudaMemcpy(h, out, 128, cudaMemcpyDeviceToHost);
  printf("out[3] = %g (expected %g)\n", h[3], 3 + 100 + 0.5 + 1 + 70);
  return 0;
}
