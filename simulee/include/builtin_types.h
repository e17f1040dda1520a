/* Stub for the CUDA SDK header <builtin_types.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
