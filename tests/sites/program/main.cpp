#include <cstdlib>
#include "net.h"

int main(int argc, char **argv) {
  Net net(16);  // the width the kernel's rows are laid out for
  net.adjust(argc > 1 ? atoi(argv[1]) : 64);
  return 0;
}
