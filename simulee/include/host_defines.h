/* Stub for the CUDA SDK header <host_defines.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
