/* Simulee's CUDA prelude, force-included before every CUDA source (as nvcc includes
   cuda_runtime.h). Written on clang's NVPTX builtins; needs no CUDA SDK. */
#ifndef SIMULEE_PRELUDE_H
#define SIMULEE_PRELUDE_H

#include "simulee/qualifiers.h"

/* The C library first, so that the device versions below overload its host functions and a
   later <cmath> brings both into namespace std. */
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <limits.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <assert.h>

#include "simulee/vector_types.h"
#include "simulee/builtin_vars.h"
#include "simulee/device_math.h"
#include "simulee/device_libc.h"
#include "simulee/sync.h"
#include "simulee/warp.h"
#include "simulee/atomics.h"
#include "simulee/intrinsics.h"
#include "simulee/runtime_api.h"
#include "simulee/textures.h"

#endif
