// The application: its build target links kernels/layer.cu and gives WIDTH.
#include "net.h"

int main() {
  Net net(WIDTH);
  net.adjust(64);
  return 0;
}
