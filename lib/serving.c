/* serving.c - the inference fleet component (being written; see issue 5). */
#include "internal.h"
const aiw_kind aiw_kind_inference = {.name = "inference"};
