/* cost.c - see the issue that builds it. */
#include "internal.h"
typedef int aiw_cost_unused_;
