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

size_t aiwi_kind_metric_count(const aiwi_kind *k)
{
	size_t n = 0;
	while (k->metrics && k->metrics[n].key)
		n++;
	return n;
}

size_t aiwi_kind_curve_count(const aiwi_kind *k)
{
	size_t n = 0;
	while (k->curves && k->curves[n].key)
		n++;
	return n;
}

const aiwi_metric_def *aiwi_metric_def_find(const aiwi_kind *k, const char *key)
{
	for (size_t i = 0; k && k->metrics && k->metrics[i].key; i++)
		if (strcmp(k->metrics[i].key, key) == 0)
			return &k->metrics[i];
	return NULL;
}

/* component: the curve belongs to a named component (not a singleton), so
 * the standard curves of the accounting apply */
const aiwi_curve_def *aiwi_curve_def_find(const aiwi_kind *k, bool component, const char *key)
{
	for (size_t i = 0; k && k->curves && k->curves[i].key; i++)
		if (strcmp(k->curves[i].key, key) == 0)
			return &k->curves[i];
	for (size_t i = 0; component && aiwi_component_curves[i].key; i++)
		if (strcmp(aiwi_component_curves[i].key, key) == 0)
			return &aiwi_component_curves[i];
	return NULL;
}
