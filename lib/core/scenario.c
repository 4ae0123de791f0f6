/*
 * scenario.c - INI scenario files (libinih) mapped onto parameters.
 *
 * [sim], [site] and [KIND NAME] sections ([training pretrain],
 * [inference chat], [gpu MYCHIP]); keys are parameter names without the
 * component prefix.  Loading is all-or-nothing: the text is first applied to
 * a scratch simulation, and only when every line is valid to the real one.
 * Errors carry file:line and, for misspellings, the closest name.
 */
#include "core/internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>

#include <ini.h>

#define MAX_SCENARIO_BYTES (64u << 20)

typedef struct reader {
	const char *p, *end;
	int line;
	bool too_long;
	int long_line;
} reader;

typedef struct loadctx {
	aiw_sim *sim;
	reader *rd;
	const char *origin;
	aiw_status st;
	char msg[1024];
} loadctx;

/* fgets-like reader over memory that counts lines for the messages */
static char *read_line(char *str, int num, void *stream)
{
	reader *r = stream;
	if (r->p >= r->end)
		return NULL;
	const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	size_t len = nl ? (size_t)(nl - r->p) + 1 : (size_t)(r->end - r->p);
	r->line++;
	if (len > (size_t)num - 1) {
		if (!r->too_long) {
			r->too_long = true;
			r->long_line = r->line;
		}
		len = (size_t)num - 2;
		memcpy(str, r->p, len);
		str[len] = '\n';
		str[len + 1] = 0;
		r->p = nl ? nl + 1 : r->end;
		return str;
	}
	memcpy(str, r->p, len);
	str[len] = 0;
	r->p += len;
	return str;
}

static int on_entry(void *user, const char *section, const char *key, const char *value)
{
	loadctx *L = user;
	if (L->st != AIW_OK)
		return 1; /* keep the first error only */
	int line = L->rd->line;
	char kind[128] = "", name[128] = "";
	if (sscanf(section, "%127s %127s", kind, name) < 1) {
		L->st = AIW_ESCENARIO;
		snprintf(L->msg, sizeof L->msg, "%s:%d: '%s = %s' is outside any section", L->origin,
		         line, key, value);
		return 0;
	}
	const aiwi_kind *k = aiwi_kind_find(kind);
	if (!k) {
		aiwi_comp_get(L->sim, kind, name, false, &(aiwi_comp *){NULL});
		L->st = AIW_ESCENARIO;
		snprintf(L->msg, sizeof L->msg, "%s:%d: section [%s]: %s", L->origin, line, section,
		         aiw_sim_errmsg(L->sim));
		return 0;
	}
	if (aiwi_kind_is(k, AIWI_KIND_SINGLETON) && *name) {
		L->st = AIW_ESCENARIO;
		snprintf(L->msg, sizeof L->msg, "%s:%d: section [%s]: [%s] takes no name", L->origin,
		         line, section, kind);
		return 0;
	}
	if (!aiwi_kind_is(k, AIWI_KIND_SINGLETON) && !*name) {
		L->st = AIW_ESCENARIO;
		snprintf(L->msg, sizeof L->msg, "%s:%d: section [%s] needs a name: [%s NAME]",
		         L->origin, line, section, kind);
		return 0;
	}
	size_t i = aiwi_kind_param_index(k, key);
	if (i == SIZE_MAX) {
		const char *s = aiwi_kind_suggest(k, key);
		L->st = AIW_ESCENARIO;
		if (s)
			snprintf(L->msg, sizeof L->msg,
			         "%s:%d: unknown parameter '%s' in [%s]; did you mean '%s'?", L->origin,
			         line, key, section, s);
		else
			snprintf(L->msg, sizeof L->msg,
			         "%s:%d: unknown parameter '%s' in [%s] (see aiworkload params %s)",
			         L->origin, line, key, section, k->name);
		return 0;
	}
	char full[400];
	if (aiwi_kind_is(k, AIWI_KIND_SINGLETON))
		snprintf(full, sizeof full, "%s.%s", kind, key);
	else
		snprintf(full, sizeof full, "%s.%s.%s", kind, name, key);
	aiw_status st = aiw_sim_set(L->sim, full, value);
	if (st != AIW_OK) {
		L->st = AIW_ESCENARIO;
		snprintf(L->msg, sizeof L->msg, "%s:%d: %s", L->origin, line, aiw_sim_errmsg(L->sim));
		return 0;
	}
	return 1;
}

/* Sections with no keys still create their component. */
static aiw_status create_sections(aiw_sim *sim, const char *text, size_t len, const char *origin,
                                  char *msg, size_t msglen)
{
	int line = 0;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		line++;
		const char *q = p;
		while (q < le && isspace((unsigned char)*q))
			q++;
		/* inih would glue an indented line onto the previous value */
		if (q > p && q < le && *q != ';' && *q != '#' && *q != '\r') {
			snprintf(msg, msglen,
			         "%s:%d: indented line: continuation lines are not supported (remove "
			         "the leading spaces)",
			         origin, line);
			return AIW_ESCENARIO;
		}
		if (q < le && *q == '[') {
			const char *rb = memchr(q, ']', (size_t)(le - q));
			if (rb && rb - q < 200) {
				char sec[256];
				memcpy(sec, q + 1, (size_t)(rb - q - 1));
				sec[rb - q - 1] = 0;
				char kind[128] = "", name[128] = "", extra[8] = "";
				int n = sscanf(sec, "%127s %127s %7s", kind, name, extra);
				if (n == 3) {
					snprintf(msg, msglen, "%s:%d: section [%s]: expected [KIND NAME]",
					         origin, line, sec);
					return AIW_ESCENARIO;
				}
				if (n >= 1) {
					const aiwi_kind *k = aiwi_kind_find(kind);
					aiwi_comp *c;
					if (!k) {
						aiwi_comp_get(sim, kind, name, false, &c);
						snprintf(msg, msglen, "%s:%d: section [%s]: %s", origin, line,
						         sec, aiw_sim_errmsg(sim));
						return AIW_ESCENARIO;
					}
					if (aiwi_kind_is(k, AIWI_KIND_SINGLETON) && n == 2) {
						snprintf(msg, msglen, "%s:%d: section [%s]: [%s] takes no name",
						         origin, line, sec, kind);
						return AIW_ESCENARIO;
					}
					if (!aiwi_kind_is(k, AIWI_KIND_SINGLETON) && n == 1) {
						snprintf(msg, msglen,
						         "%s:%d: section [%s] needs a name: [%s NAME]", origin,
						         line, sec, kind);
						return AIW_ESCENARIO;
					}
					if (aiwi_comp_get(sim, kind, aiwi_kind_is(k, AIWI_KIND_SINGLETON) ? "" : name, true, &c) !=
					    AIW_OK) {
						snprintf(msg, msglen, "%s:%d: %s", origin, line,
						         aiw_sim_errmsg(sim));
						return AIW_ESCENARIO;
					}
					/* where it was declared first, for errors found when
					 * the run starts (optional: no memory, no origin) */
					if (!c->origin) {
						int on = snprintf(NULL, 0, "%s:%d", origin, line);
						c->origin = on > 0 ? malloc((size_t)on + 1) : NULL;
						if (c->origin)
							snprintf(c->origin, (size_t)on + 1, "%s:%d", origin, line);
					}
				}
			}
		}
		p = nl ? nl + 1 : end;
	}
	return AIW_OK;
}

static aiw_status apply(aiw_sim *sim, const char *text, size_t len, const char *origin,
                        char *msg, size_t msglen)
{
	aiw_status st = create_sections(sim, text, len, origin, msg, msglen);
	if (st != AIW_OK)
		return st;
	reader rd = {text, text + len, 0, false, 0};
	loadctx L = {sim, &rd, origin, AIW_OK, ""};
	int r = ini_parse_stream(read_line, &rd, on_entry, &L);
	if (rd.too_long) {
		snprintf(msg, msglen, "%s:%d: line longer than %d characters", origin, rd.long_line,
		         INI_MAX_LINE - 2);
		return AIW_ESCENARIO;
	}
	if (L.st != AIW_OK) {
		snprintf(msg, msglen, "%s", L.msg);
		return L.st;
	}
	if (r > 0) {
		snprintf(msg, msglen, "%s:%d: syntax error (expected [section], key = value or a "
		         "comment)", origin, r);
		return AIW_ESCENARIO;
	}
	if (r < 0) {
		snprintf(msg, msglen, "%s: out of memory", origin);
		return AIW_ENOMEM;
	}
	return AIW_OK;
}

void aiwi_set_base_dir(aiw_sim *sim, const char *dir);

aiw_status aiwi_load(aiw_sim *sim, const char *text, size_t len, const char *origin,
                     const char *base_dir)
{
	if (!origin)
		origin = "<string>";
	const char *nul = memchr(text, '\0', len);
	if (nul) {
		int line = 1;
		for (const char *q = text; q < nul; q++)
			line += *q == '\n';
		return aiwi_err(sim, AIW_ESCENARIO, "%s:%d: NUL byte in scenario text", origin, line);
	}
	char msg[1024] = "";
	/* dry run on a scratch simulation: all or nothing */
	aiw_sim *scratch;
	aiw_status st = aiw_sim_create(&scratch, 1);
	if (st != AIW_OK)
		return aiwi_err(sim, st, "out of memory");
	aiwi_set_base_dir(scratch, base_dir);
	st = apply(scratch, text, len, origin, msg, sizeof msg);
	aiw_sim_free(scratch);
	if (st == AIW_OK) {
		aiwi_set_base_dir(sim, base_dir);
		st = apply(sim, text, len, origin, msg, sizeof msg);
		aiwi_set_base_dir(sim, NULL);
	}
	if (st != AIW_OK)
		return aiwi_err(sim, st, "%s", msg);
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_load_string(aiw_sim *sim, const char *text, const char *origin)
{
	if (!sim)
		return AIW_EINVAL;
	if (!text)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_load_string: text is NULL");
	size_t len = strlen(text);
	if (len > MAX_SCENARIO_BYTES)
		return aiwi_err(sim, AIW_ELIMIT, "scenario text of %zu bytes; the limit is %u", len,
		                MAX_SCENARIO_BYTES);
	return aiwi_load(sim, text, len, origin, "");
}

AIW_EXPORT aiw_status aiw_sim_load_file(aiw_sim *sim, const char *path)
{
	if (!sim)
		return AIW_EINVAL;
	if (!path)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_load_file: path is NULL");
	FILE *f = fopen(path, "rb");
	if (!f)
		return aiwi_err(sim, AIW_EIO, "%s: %s", path, strerror(errno));
	/* A regular file too large is refused from its size, unread; a pipe or
	 * a file growing meanwhile still meets the limit in the loop below. */
	struct stat sb;
	if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (uintmax_t)sb.st_size > MAX_SCENARIO_BYTES) {
		fclose(f);
		return aiwi_err(sim, AIW_ELIMIT, "%s: %jd bytes, larger than the limit of %u bytes", path,
		                (intmax_t)sb.st_size, MAX_SCENARIO_BYTES);
	}
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	aiw_status st = buf ? AIW_OK : AIW_ENOMEM;
	while (st == AIW_OK) {
		if (len == cap) {
			if (cap >= MAX_SCENARIO_BYTES) {
				st = aiwi_err(sim, AIW_ELIMIT, "%s: larger than %u bytes", path,
				              MAX_SCENARIO_BYTES);
				break;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				st = aiwi_err(sim, AIW_ENOMEM, "out of memory reading %s", path);
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0) {
			if (ferror(f))
				st = aiwi_err(sim, AIW_EIO, "%s: read error", path);
			break;
		}
	}
	fclose(f);
	if (st == AIW_OK) {
		char dir[4096];
		snprintf(dir, sizeof dir, "%s", path);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		else
			snprintf(dir, sizeof dir, ".");
		st = aiwi_load(sim, buf, len, path, dir);
	}
	free(buf);
	return st;
}
