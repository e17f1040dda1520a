/* Stub for the CUDA SDK header <cuda_texture_types.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
