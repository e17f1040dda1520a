/* Stub for the CUDA SDK header <device_launch_parameters.h>: the prelude declares all of it. */
#include "simulee_prelude.h"
