/* autoscale.c - see the issue that builds it. */
#include "internal.h"
typedef int aiw_autoscale_unused_;
