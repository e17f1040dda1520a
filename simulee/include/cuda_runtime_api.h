/* Stub for the CUDA SDK header <cuda_runtime_api.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
