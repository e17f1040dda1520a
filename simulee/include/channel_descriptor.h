/* Stub for the CUDA SDK header <channel_descriptor.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
