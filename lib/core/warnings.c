/*
 * warnings.c - warnings of a run: results it gives but that should not be
 * taken at face value (a contracted capacity exceeded, a default that
 * misleads).  The library never prints; a caller reads them after a run
 * with aiw_sim_warning_count() and aiw_sim_warning() (the aiworkload CLI
 * prints each to stderr).  A warning never changes a status code.
 *
 * Storage: at most AIWI_WARNINGS_MAX texts of up to WARN_LEN bytes, kept
 * once each (a model that warns at every metric emission adds nothing);
 * past the cap only a count grows, reported by the last entry.  Cleared by
 * aiw_sim_reset, freed with the simulation (sim.c holds the slot).
 */
#include "core/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARN_LEN 512

struct aiwi_warnings {
	char text[AIWI_WARNINGS_MAX][WARN_LEN];
	size_t n;       /* texts kept (<= AIWI_WARNINGS_MAX) */
	size_t dropped; /* distinct warnings past the cap */
};

void aiwi_warn(aiw_sim *sim, const char *fmt, ...)
{
	if (!sim)
		return;
	struct aiwi_warnings **slot = aiwi_sim_warnings(sim);
	if (!*slot && !(*slot = calloc(1, sizeof **slot)))
		return; /* out of memory: the warning is lost, the run goes on */
	struct aiwi_warnings *w = *slot;
	char buf[WARN_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->text[i], buf) == 0)
			return;
	if (w->n < AIWI_WARNINGS_MAX - 1 || (w->n == AIWI_WARNINGS_MAX - 1 && !w->dropped)) {
		snprintf(w->text[w->n++], WARN_LEN, "%s", buf);
		return;
	}
	/* full: the last entry counts what did not fit */
	w->dropped++;
	snprintf(w->text[AIWI_WARNINGS_MAX - 1], WARN_LEN,
	         "%zu more warnings not kept (at most %d are)", w->dropped + 1,
	         AIWI_WARNINGS_MAX - 1);
	w->n = AIWI_WARNINGS_MAX;
}

void aiwi_warnings_clear(aiw_sim *sim)
{
	struct aiwi_warnings **slot = aiwi_sim_warnings(sim);
	free(*slot);
	*slot = NULL;
}

AIW_EXPORT aiw_status aiw_sim_warning_count(aiw_sim *sim, size_t *out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_warning_count: out is NULL");
	struct aiwi_warnings *w = *aiwi_sim_warnings(sim);
	*out = w ? w->n : 0;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_warning(aiw_sim *sim, size_t i, const char **out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_warning: out is NULL");
	struct aiwi_warnings *w = *aiwi_sim_warnings(sim);
	size_t n = w ? w->n : 0;
	if (i >= n)
		return aiwi_err(sim, AIW_ERANGE, "warning index %zu: there are %zu warnings", i, n);
	*out = w->text[i];
	return AIW_OK;
}
