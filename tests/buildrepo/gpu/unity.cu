#define TILE 64
#include "parts/reduce_part.cu"
