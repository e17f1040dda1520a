// A header found only through the repository's include/ folder.
#pragma once
#define TILE 64

__device__ inline int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }
