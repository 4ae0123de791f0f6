/* training.c - the training job component (being written; see issue 4). */
#include "internal.h"
const aiw_kind aiw_kind_training = {.name = "training"};
