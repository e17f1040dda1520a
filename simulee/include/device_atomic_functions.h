/* Stub for the CUDA SDK header <device_atomic_functions.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
