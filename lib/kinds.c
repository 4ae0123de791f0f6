/*
 * kinds.c - the list of component kinds (lib/kinds.def) as the core reads
 * it, lookups in a kind's metric and curve tables, and the default answer
 * of a kind's query hook.  The one file that names the kinds' descriptors
 * (aiwi_kind_NAME, each defined in its model's folder) outside their own
 * folders: the rest of the library reaches a kind through this list, its
 * flags and its query hook.
 */
#include "core/internal.h"

#include <math.h>
#include <string.h>

#define AIWI_KIND(name) extern const aiwi_kind aiwi_kind_##name;
#include "kinds.def"
#undef AIWI_KIND

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

bool aiwi_comp_query(const aiwi_comp *c, aiwi_query q, aiwi_answer *out)
{
	if (!c || !out || !c->kind->query)
		return false; /* the default: unknown */
	aiwi_answer a = {NAN, NULL};
	if (!c->kind->query(c, q, &a))
		return false;
	*out = a;
	return true;
}

bool aiwi_comp_site_cap(aiwi_comp *c, double frac)
{
	if (!c || !c->kind->site_cap)
		return false;
	c->kind->site_cap(c, frac);
	return true;
}
