/* Stub for <cooperative_groups/reduce.h>: reduce() is in <cooperative_groups.h>. */
#include "../cooperative_groups.h"
