/* Stub for the CUDA SDK header <cuda_runtime.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
