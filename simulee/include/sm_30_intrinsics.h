/* Stub for the CUDA SDK header <sm_30_intrinsics.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
