/*
 * kinds.c - the list of component kinds (lib/kinds.def) as the core reads
 * it, and lookups in a kind's metric and curve tables.
 */
#include "core/internal.h"

#include <string.h>

const aiwi_kind *const aiwi_kinds[] = {
#define AIWI_KIND(name) &aiwi_kind_##name,
#include "kinds.def"
#undef AIWI_KIND
	NULL};

const aiwi_metric_def *aiwi_metric_def_find(const aiwi_kind *k, const char *key)
{
	for (size_t i = 0; k && i < k->nmetrics; i++)
		if (strcmp(k->metrics[i].key, key) == 0)
			return &k->metrics[i];
	return NULL;
}

/* component: the curve belongs to a named component (not a singleton), so
 * the standard curves of the accounting apply */
const aiwi_curve_def *aiwi_curve_def_find(const aiwi_kind *k, bool component, const char *key)
{
	for (size_t i = 0; k && i < k->ncurves; i++)
		if (strcmp(k->curves[i].key, key) == 0)
			return &k->curves[i];
	for (size_t i = 0; component && i < aiwi_ncomponent_curves; i++)
		if (strcmp(aiwi_component_curves[i].key, key) == 0)
			return &aiwi_component_curves[i];
	return NULL;
}
