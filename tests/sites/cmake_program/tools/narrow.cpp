// Another program of the build (its own target) with a narrow layer: not the application's.
#include "net.h"

int main() {
  Net net(4);
  net.adjust(64);
  return 0;
}
