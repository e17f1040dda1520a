/* Stub for the CUDA SDK header <sm_20_intrinsics.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
