/*
 * inputs.c - the files a simulation's parameters name: every set parameter
 * flagged AIW_PF_PATH (a measured profile, a trace) and every distribution
 * empirical(FILE), each with the path the library opens (a relative name
 * resolved against the directory of the scenario file that gave it).  A
 * caller that writes files (the aiworkload command) checks its outputs
 * against them, so that no output replaces an input.  The scenario files
 * themselves are the caller's: it named them.
 */
#include "core/internal.h"

#include <string.h>

/* The path parameter i of component c names, or NULL. */
static const char *input_path(const aiwi_comp *c, size_t i)
{
	const aiwi_param_def *d = &c->kind->params[i];
	const aiwi_value *v = &c->v[i];
	if (!v->set)
		return NULL;
	if (d->type == AIW_PT_STRING && (d->flags & AIW_PF_PATH) && v->s && *v->s)
		return v->s;
	if (d->type == AIW_PT_DIST && v->dist && v->dist->kind == AIW_D_EMPIRICAL)
		return v->dist->path;
	return NULL;
}

/* The i-th input: its component and parameter index; false past the end
 * (*n: the count). */
static bool input_at(const aiw_sim *sim, size_t want, const aiwi_comp **oc, size_t *op,
                     size_t *n)
{
	size_t k = 0;
	for (size_t ci = 0, nc = aiwi_ncomps(sim); ci < nc; ci++) {
		const aiwi_comp *c = aiwi_comp_at(sim, ci);
		for (size_t i = 0; i < c->kind->nparams; i++) {
			if (!input_path(c, i))
				continue;
			if (k == want && oc) {
				*oc = c;
				*op = i;
				return true;
			}
			k++;
		}
	}
	*n = k;
	return false;
}

AIW_EXPORT aiw_status aiw_sim_input_count(aiw_sim *sim, size_t *out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_input_count: out is NULL");
	input_at(sim, SIZE_MAX, NULL, NULL, out);
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_input(aiw_sim *sim, size_t i, const char **component,
                                    const char **key, const char **path)
{
	if (!sim)
		return AIW_EINVAL;
	if (!component || !key || !path)
		return aiwi_err(sim, AIW_EINVAL,
		                "aiw_sim_input: component, key and path must not be NULL");
	const aiwi_comp *c = NULL;
	size_t p = 0, n = 0;
	if (!input_at(sim, i, &c, &p, &n))
		return aiwi_err(sim, AIW_ERANGE, "input index %zu: the parameters name %zu files", i,
		                n);
	*component = c->prefix;
	*key = c->kind->params[p].key;
	*path = input_path(c, p);
	return AIW_OK;
}
