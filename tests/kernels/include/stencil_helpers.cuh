// Helpers shared by kernels of this folder, found through the file's own folder.
#pragma once

__device__ inline int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }
