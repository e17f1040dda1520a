/* Stub for the CUDA SDK header <texture_fetch_functions.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
