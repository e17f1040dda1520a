// A second program of this folder: with two mains here, stamp.cu's launches are read from
// its own code and the repository's calls of `launch`.
#include <cstdio>

int main() {
  std::printf("stamp 1.0\n");
  return 0;
}
