/* Stub for the CUDA SDK header <driver_types.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
