/* Stub for the CUDA SDK header <vector_functions.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
