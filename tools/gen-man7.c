/*
 * gen-man7.c - the generated tables of aiworkload(7): the GPU and link
 * catalogs and the parameters of the sim, site and load kinds, printed from
 * the library's own tables (public API only), so the page cannot drift from
 * the code.
 *
 * The page keeps hand-written prose around blocks delimited by
 *   .\" BEGIN GENERATED <name>
 *   .\" END GENERATED <name>
 * and this program rewrites the inside of each block.
 *
 *   gen-man7 PAGE            print PAGE with its blocks regenerated
 *   gen-man7 --check PAGE    exit 1 (with a diff hint) if PAGE is stale
 *   gen-man7                 --check $srcdir/man/man7/aiworkload.7 (the test)
 *
 * Regenerate after changing the catalog or those parameters, from a build
 * directory:
 *   make tools/gen-man7 &&
 *   tools/gen-man7 $srcdir/man/man7/aiworkload.7 > aiworkload.7.new &&
 *   mv aiworkload.7.new $srcdir/man/man7/aiworkload.7
 */
#include "aiworkload.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
	char *s;
	size_t n, cap;
} buf;

static void put(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(buf *b, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
		va_end(ap);
		if (k < 0)
			exit(2);
		if (b->n + (size_t)k < b->cap) {
			b->n += (size_t)k;
			return;
		}
		b->cap = 2 * (b->cap + (size_t)k + 64);
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			exit(2);
	}
}

/* Text safe inside an mdoc line: backslashes escaped. */
static void text(buf *b, const char *s)
{
	for (; *s; s++)
		if (*s == '\\')
			put(b, "\\e");
		else
			put(b, "%c", *s);
}

static double gv(const char *gpu, const char *field)
{
	double v = NAN;
	if (aiw_catalog_gpu_value(gpu, field, &v) != AIW_OK) {
		fprintf(stderr, "gen-man7: %s.%s missing\n", gpu, field);
		exit(2);
	}
	return v;
}

/* A number for a table cell: "\(em" for 0 (unknown / none). */
static void cell(buf *b, double v, double scale, const char *fmt)
{
	if (v == 0)
		put(b, "\\(em");
	else
		put(b, fmt, v / scale);
}

static void gpu_tables(buf *b)
{
	size_t n;
	aiw_catalog_gpu_count(&n);
	put(b, ".Ss Compute and memory\n");
	put(b, ".Bl -column \"A100-80GB\" \"TFLOP/s\" \"TFLOP/s\" \"Memory\" \"Mem BW\" \"NVLink\" \"NIC\" "
	       "-offset indent -compact\n");
	put(b, ".It Em GPU Ta Em BF16 Ta Em FP8 Ta Em Memory Ta Em Mem BW Ta Em NVLink Ta Em NIC\n");
	put(b, ".It Ta TFLOP/s Ta TFLOP/s Ta GB Ta TB/s Ta GB/s Ta GB/s\n");
	for (size_t i = 0; i < n; i++) {
		const char *g;
		aiw_catalog_gpu_name(i, &g);
		put(b, ".It %s Ta ", g);
		cell(b, gv(g, "bf16_flops"), 1e12, "%.0f");
		put(b, " Ta ");
		cell(b, gv(g, "fp8_flops"), 1e12, "%.0f");
		put(b, " Ta ");
		cell(b, gv(g, "mem_bytes"), 1e9, "%.0f");
		put(b, " Ta ");
		cell(b, gv(g, "mem_bw"), 1e12, "%.2f");
		put(b, " Ta ");
		cell(b, gv(g, "nvlink_bw"), 1e9, "%.0f");
		put(b, " Ta ");
		cell(b, gv(g, "nic_bw"), 1e9, "%.1f");
		put(b, "\n");
	}
	put(b, ".El\n");
	put(b, ".Ss Power and price\n");
	put(b, ".Bl -column \"A100-80GB\" \"1000\" \"idle\" \"1000\" \"comm\" \"prefill\" \"decode\" "
	       "\"load\" \"price\" \"USD/h\" -offset indent -compact\n");
	put(b, ".It Em GPU Ta Em TDP Ta Em idle Ta Em comp Ta Em comm Ta Em prefill Ta Em decode "
	       "Ta Em load Ta Em price Ta Em rent\n");
	put(b, ".It Ta W Ta W Ta W Ta W Ta W Ta W Ta W Ta kUSD Ta USD/h\n");
	static const char *const PW[] = {"tdp_w",     "idle_w",   "compute_w", "comm_w",
	                                 "prefill_w", "decode_w", "loading_w"};
	for (size_t i = 0; i < n; i++) {
		const char *g;
		aiw_catalog_gpu_name(i, &g);
		put(b, ".It %s", g);
		for (size_t k = 0; k < sizeof PW / sizeof *PW; k++) {
			put(b, " Ta ");
			cell(b, gv(g, PW[k]), 1, "%.0f");
		}
		put(b, " Ta ");
		cell(b, gv(g, "price_usd"), 1e3, "%.1f");
		put(b, " Ta ");
		cell(b, gv(g, "ondemand_usd_per_h"), 1, "%.2f");
		put(b, "\n");
	}
	put(b, ".El\n");
	put(b, ".Pp\nFields, as named in\n.Xr aiw_catalog_gpu_value 3\nand in\n.Li [gpu NAME]\n"
	       "sections:\n.Bl -tag -width \"ondemand_usd_per_h\" -compact\n");
	for (size_t i = 0;; i++) {
		const char *name, *unit, *doc;
		if (aiw_catalog_gpu_field(i, &name, &unit, &doc) != AIW_OK)
			break;
		put(b, ".It Li %s\n(%s) ", name, unit);
		text(b, doc);
		put(b, "\n");
	}
	put(b, ".El\n");
}

static void link_table(buf *b)
{
	size_t n;
	aiw_catalog_link_count(&n);
	put(b, ".Bl -column \"RoCE-400G\" \"alpha\" \"bandwidth\" -offset indent -compact\n");
	put(b, ".It Em link Ta Em alpha Ta Em bandwidth\n");
	put(b, ".It Ta us Ta GB/s\n");
	for (size_t i = 0; i < n; i++) {
		const char *l;
		double a = NAN, bw = NAN;
		aiw_catalog_link_name(i, &l);
		aiw_catalog_link_value(l, "alpha_s", &a);
		aiw_catalog_link_value(l, "bw", &bw);
		put(b, ".It %s Ta %.1f Ta %.1f\n", l, a * 1e6, bw / 1e9);
	}
	put(b, ".El\n");
}

/* Parameters whose registry name starts with prefix ("site."). */
static void param_table(buf *b, const char *prefix)
{
	size_t n;
	aiw_param_count(&n);
	put(b, ".Bl -tag -width Ds\n");
	for (size_t i = 0; i < n; i++) {
		const char *name, *type, *def, *unit, *choices, *doc;
		double lo, hi;
		aiw_param_info(i, &name, &type, &def, &unit, &lo, &hi, &choices, &doc);
		if (strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		put(b, ".It Li %s Pq %s", name, type);
		put(b, "\n");
		text(b, doc);
		if (*unit && strcmp(unit, "1"))
			put(b, "; unit %s", unit);
		if (*choices)
			put(b, "; one of %s", choices);
		put(b, "; default %s.\n", *def ? def : "none");
	}
	put(b, ".El\n");
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	buf b = {0};
	char chunk[4096];
	size_t k;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		put(&b, "%.*s", (int)k, chunk);
	fclose(f);
	return b.s ? b.s : strdup("");
}

static void generate(buf *b, const char *name)
{
	if (!strcmp(name, "gpus"))
		gpu_tables(b);
	else if (!strcmp(name, "links"))
		link_table(b);
	else if (!strcmp(name, "sim-params"))
		param_table(b, "sim.");
	else if (!strcmp(name, "site-params"))
		param_table(b, "site.");
	else if (!strcmp(name, "load-params"))
		param_table(b, "load.");
	else {
		fprintf(stderr, "gen-man7: unknown block '%s'\n", name);
		exit(2);
	}
}

/* The page with every generated block rebuilt. */
static char *rebuild(const char *in)
{
	static const char BEGIN[] = ".\\\" BEGIN GENERATED ", END[] = ".\\\" END GENERATED ";
	buf b = {0};
	const char *p = in;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p + 1) : strlen(p);
		put(&b, "%.*s", (int)len, p);
		if (!strncmp(p, BEGIN, sizeof BEGIN - 1)) {
			char name[64];
			snprintf(name, sizeof name, "%.*s", (int)(len - (sizeof BEGIN - 1)),
			         p + sizeof BEGIN - 1);
			name[strcspn(name, "\r\n")] = 0;
			generate(&b, name);
			/* skip the old contents up to the END line */
			const char *q = p + len;
			for (;;) {
				if (!*q) {
					fprintf(stderr, "gen-man7: no END GENERATED %s\n", name);
					exit(2);
				}
				if (!strncmp(q, END, sizeof END - 1))
					break;
				const char *e = strchr(q, '\n');
				q = e ? e + 1 : q + strlen(q);
			}
			p = q;
			continue;
		}
		p += len;
	}
	return b.s ? b.s : strdup("");
}

int main(int argc, char **argv)
{
	const char *page = NULL;
	int check = 0;
#ifdef AIW_SRCDIR
	static char def[4096];
	snprintf(def, sizeof def, "%s/man/man7/aiworkload.7", AIW_SRCDIR);
	if (argc == 1) {
		page = def;
		check = 1;
	}
#endif
	if (argc == 3 && !strcmp(argv[1], "--check")) {
		page = argv[2];
		check = 1;
	} else if (argc == 2 && argv[1][0] != '-') {
		page = argv[1];
	} else if (!page) {
		fprintf(stderr, "usage: gen-man7 [--check] PAGE\n");
		return 2;
	}
	char *in = slurp(page);
	char *out = rebuild(in);
	int rc = 0;
	if (check) {
		if (strcmp(in, out) != 0) {
			fprintf(stderr,
			        "FAIL: %s is stale: its generated tables differ from the library's.\n"
			        "Regenerate: tools/gen-man7 %s > new && mv new %s\n",
			        page, page, page);
			rc = 1;
		} else {
			printf("man7: %s matches the library's tables\n", page);
		}
	} else {
		fputs(out, stdout);
	}
	free(in);
	free(out);
	return rc;
}
