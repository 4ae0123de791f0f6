/* sweep.c - see the issue that builds it. */
#include "internal.h"
typedef int aiw_sweep_unused_;
