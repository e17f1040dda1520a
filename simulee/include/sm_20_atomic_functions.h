/* Stub for the CUDA SDK header <sm_20_atomic_functions.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
