/* Stub for the CUDA SDK header <sm_32_atomic_functions.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
