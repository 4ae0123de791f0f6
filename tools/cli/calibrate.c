/*
 * calibrate.c - `aiworkload calibrate FILE`: fit the serving iteration
 * model's coefficients to a measured table (aiw_profile_*), print them with
 * their standard errors and the fit's error on every row, and write them as
 * a scenario snippet: an [inference NAME] section (--component, default
 * chat) with timing = iteration, the GPU and the twelve coefficients at full
 * precision, which layered on a scenario gives the times that
 * `profile = FILE` (with profile_gpu the rows fitted) gives.
 */
#define _XOPEN_SOURCE 700 /* realpath, fchmod */
#include "common.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define NT 6

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void calibrate_usage(FILE *f)
{
	fprintf(f,
	        "usage: aiworkload calibrate FILE.csv [options]\n"
	        "\n"
	        "Fit the serving iteration model's coefficients to a measured table\n"
	        "(Splitwise's perf_model.csv as it is, or the library's layout) per GPU and\n"
	        "phase; print them with their standard errors, the datasheet's and the fit's\n"
	        "error on every row.\n"
	        "\n"
	        "options:\n"
	        "  --gpu G              one GPU's rows: the table's name for it (h100-80gb) or\n"
	        "                       the catalog's (H100-SXM: the rows a fleet with\n"
	        "                       gpu = H100-SXM and profile = FILE.csv fits)\n"
	        "  --out SNIPPET.ini    write one GPU's coefficients as an [inference NAME]\n"
	        "                       section with timing = iteration: layered on a\n"
	        "                       scenario it gives the times profile = FILE.csv gives\n"
	        "                       (written whole or not at all)\n"
	        "  --component NAME     the section's NAME (default chat)\n"
	        "  --set NAME=VALUE     the model's shape or overhead (model_params, layers,\n"
	        "                       hidden, kv_bytes_per_token, weight_bits, act_bits,\n"
	        "                       overhead, tp_link_pcie; repeatable)\n"
	        "  --hold PHASE.TERM    hold a term at its datasheet value (repeatable)\n"
	        "\n"
	        "Exit status: 0 success, 2 bad usage or invalid table, 1 other failure.\n"
	        "See aiworkload(1) and aiw_profile_create(3).\n");
}

/* The group of the table that --gpu selects, as a fleet's `gpu` selects
 * its rows (aiw_profile_fit): the table's own name first, else the first
 * group whose catalog GPU it names; -1 when none. */
static long select_group(aiw_profile *p, size_t ng, const char *gpu)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t g = 0; g < ng; g++) {
			const char *name, *cat;
			if (aiw_profile_group_name(p, g, &name, &cat) == AIW_OK &&
			    strcasecmp(gpu, pass ? cat : name) == 0)
				return (long)g;
		}
	return -1;
}

/* A temporary file beside path (DIR/.NAME.XXXXXX), created and open for
 * writing; NULL with the message printed. */
static FILE *temp_beside(const char *path, char **tmp)
{
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
	size_t len = strlen(path) + sizeof ".XXXXXX" + 1;
	char *t = malloc(len);
	if (!t) {
		cli_errorf("out of memory");
		return NULL;
	}
	snprintf(t, len, "%.*s.%s.XXXXXX", (int)dl, path, path + dl);
	int fd = mkstemp(t);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		cli_errorf("calibrate: cannot write %s: %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(t);
		}
		free(t);
		return NULL;
	}
	/* the permissions a new file gets (mkstemp's are 0600) */
	mode_t um = umask(0);
	umask(um);
	fchmod(fd, 0666 & ~um);
	*tmp = t;
	return f;
}

int cli_calibrate(int argc, char **argv)
{
	const char *gpu = NULL, *outp = NULL, *comp = NULL;
	size_t room = argc > 0 ? (size_t)argc : 1, nsets = 0, nholds = 0, nops = 0;
	const char **sets = calloc(room, sizeof *sets), **holds = calloc(room, sizeof *holds);
	const char **ops = calloc(room, sizeof *ops);
	char *tmp = NULL, *target = NULL, *mem = NULL;
	size_t memlen = 0;
	bool mem_out = false; /* the snippet goes to standard output after the fit */
	FILE *snip = NULL;
	aiw_profile *p = NULL;
	int rc = 0;
	if (!sets || !holds || !ops || aiw_profile_create(&p) != AIW_OK) {
		cli_errorf("out of memory");
		rc = EXIT_FAIL;
		goto done;
	}
	const cli_opt opts[] = {
		{"--gpu", CLI_OPT_ONE, &gpu, NULL, NULL},
		{"--out", CLI_OPT_ONE, &outp, NULL, NULL},
		{"--component", CLI_OPT_ONE, &comp, NULL, NULL},
		{"--set", CLI_OPT_MANY, NULL, sets, &nsets},
		{"--hold", CLI_OPT_MANY, NULL, holds, &nholds},
	};
	const cli_cmd who = {cli_prog, "calibrate", false};
	bool help = false;
	rc = cli_parse_options(&who, argc, argv, 2, opts, sizeof opts / sizeof *opts, ops, &nops,
	                       &help);
	if (rc)
		goto done;
	if (help) {
		calibrate_usage(stdout);
		rc = cli_flush_stdout();
		goto done;
	}
	if (nops == 0) {
		rc = cli_cmd_usage_error(&who, "which measured table? (aiworkload calibrate FILE.csv)");
		goto done;
	}
	if (nops > 1) {
		rc = cli_cmd_usage_error(&who, "one measured table only ('%s' and '%s')", ops[0],
		                         ops[1]);
		goto done;
	}
	const char *file = ops[0];
	if (comp && !outp) {
		rc = cli_cmd_usage_error(&who, "--component names the section --out writes: give "
		                         "--out SNIPPET.ini");
		goto done;
	}
	if (!comp)
		comp = "chat";
	{
		/* the section's name, as a scenario reads it */
		aiw_sim *sim = NULL;
		aiw_status st = aiw_sim_create(&sim, 1);
		if (st == AIW_OK)
			st = aiw_sim_add_component(sim, "inference", comp);
		if (st != AIW_OK) {
			if (sim)
				rc = cli_cmd_usage_error(&who, "--component %s: %s", comp, aiw_sim_errmsg(sim));
			else
				cli_errorf("out of memory"), rc = EXIT_FAIL;
			aiw_sim_free(sim);
			goto done;
		}
		aiw_sim_free(sim);
	}
	if (outp) {
		cli_files out = {0}, in = {0};
		rc = cli_files_add(&out, "--out", outp) || cli_files_add(&in, "the measured table", file)
		         ? EXIT_FAIL : cli_check_outputs(&who, &out, &in);
		cli_files_free(&out);
		cli_files_free(&in);
		if (rc)
			goto done;
	}
	for (size_t k = 0; k < nsets + nholds; k++) {
		bool hold = k >= nsets;
		const char *v = hold ? holds[k - nsets] : sets[k];
		char key[128];
		double x = 1;
		const char *eq = strchr(v, '=');
		if (hold) {
			if (strlen(v) + 6 > sizeof key) {
				rc = cli_cmd_usage_error(&who, "--hold %s: not a PHASE.TERM", v);
				goto done;
			}
			snprintf(key, sizeof key, "hold.%s", v);
		} else {
			if (!eq || (size_t)(eq - v) >= sizeof key) {
				rc = cli_cmd_usage_error(&who, "--set expects NAME=VALUE, got '%s'", v);
				goto done;
			}
			memcpy(key, v, (size_t)(eq - v));
			key[eq - v] = '\0';
			char *end;
			x = strtod(eq + 1, &end);
			if (end == eq + 1 || *end) {
				rc = cli_cmd_usage_error(&who, "--set %s: '%s' is not a number", key, eq + 1);
				goto done;
			}
		}
		aiw_status st = aiw_profile_set(p, key, x);
		if (st != AIW_OK) {
			cli_errorf("calibrate: %s", aiw_profile_errmsg(p));
			rc = cli_exit_code(st);
			goto done;
		}
	}
	aiw_status st = aiw_profile_read(p, file);
	if (st != AIW_OK) {
		cli_errorf("%s", aiw_profile_errmsg(p));
		rc = cli_exit_code(st);
		goto done;
	}
	size_t ng = 0, nr = 0;
	aiw_profile_group_count(p, &ng);
	aiw_profile_row_count(p, &nr);
	/* --gpu: one group, the one a fleet's gpu selects; else every group (a
	 * snippet is one component's: one GPU's coefficients) */
	long sel = gpu ? select_group(p, ng, gpu) : -1;
	if (gpu && sel < 0) {
		rc = cli_cmd_usage_error(&who, "%s has no rows for GPU %s", file, gpu);
		goto done;
	}
	if (outp && !gpu && ng != 1) {
		char names[512] = "";
		for (size_t g = 0, len = 0; g < ng && len < sizeof names; g++) {
			const char *name, *cat;
			aiw_profile_group_name(p, g, &name, &cat);
			len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
			                        name);
		}
		rc = cli_cmd_usage_error(&who, "--out writes one GPU's coefficients and %s has %zu (%s): "
		                         "choose one with --gpu", file, ng, names);
		goto done;
	}
	struct stat sb, so;
	bool exists = outp && stat(outp, &sb) == 0;
	if (exists && fstat(STDOUT_FILENO, &so) == 0 && sb.st_dev == so.st_dev &&
	    sb.st_ino == so.st_ino) {
		/* standard output (--out /dev/stdout, whatever it points to): the
		 * snippet follows the fit on the stream, which `>>` and pipes keep */
		mem_out = true;
		if (!(snip = open_memstream(&mem, &memlen))) {
			cli_errorf("out of memory");
			rc = EXIT_FAIL;
			goto done;
		}
	} else if (exists && !S_ISREG(sb.st_mode)) {
		/* a pipe, a terminal, /dev/null: written as it is, nothing to replace */
		if (!(snip = fopen(outp, "w"))) {
			cli_errorf("calibrate: cannot write %s: %s", outp, strerror(errno));
			rc = EXIT_FAIL;
			goto done;
		}
	} else if (outp) {
		/* a symbolic link: its target is replaced, the link stays */
		if (lstat(outp, &sb) == 0 && S_ISLNK(sb.st_mode) && !(target = realpath(outp, NULL))) {
			cli_errorf("calibrate: cannot write %s: %s", outp, strerror(errno));
			rc = EXIT_FAIL;
			goto done;
		}
		if (!(snip = temp_beside(target ? target : outp, &tmp))) {
			rc = EXIT_FAIL;
			goto done;
		}
	}
	if (snip)
		fprintf(snip, "; aiworkload calibrate %s: coefficients of the serving iteration model\n"
		              "; (overhead in s per iteration, seq in s per sequence; the others\n"
		              "; multiply their datasheet terms)\n",
		        file);
	double *err = malloc((nr ? nr : 1) * sizeof *err);
	for (size_t g = 0; g < ng && err; g++) {
		const char *name, *cat;
		aiw_profile_group_name(p, g, &name, &cat);
		if (sel >= 0 && g != (size_t)sel)
			continue;
		if (snip)
			fprintf(snip, "; rows of %s\n[inference %s]\ntiming = iteration\ngpu = %s\n", name,
			        comp, cat);
		for (int ph = 0; ph < 2; ph++) {
			const char *phase = ph ? "decode" : "prefill";
			double c[NT], se[NT], ds[NT];
			st = aiw_profile_fit(p, name, phase, c, se, NT);
			if (st != AIW_OK) {
				cli_errorf("calibrate: %s", aiw_profile_errmsg(p));
				rc = cli_exit_code(st);
				break;
			}
			aiw_profile_datasheet(p, name, phase, ds, NT);
			printf("%s (%s), %s\n  %-10s %12s %12s %12s\n", name, cat, phase, "term", "fitted",
			       "std. error", "datasheet");
			for (size_t j = 0; j < NT; j++) {
				const char *t;
				aiw_profile_term_name(j, &t);
				if (se[j] > 0)
					printf("  %-10s %12.4g %12.3g %12.4g\n", t, c[j], se[j], ds[j]);
				else /* held at the datasheet, or at its bound by the fit */
					printf("  %-10s %12.4g %12s %12.4g\n", t, c[j],
					       c[j] == ds[j] ? "(held)" : "(bound)", ds[j]);
				if (snip)
					fprintf(snip, "%s.%s = %.17g\n", phase, t, c[j]);
			}
			printf("  %-6s %-5s %-7s %-8s %11s %11s %8s\n", "tp", "batch", "prompt", "context",
			       "measured", "fitted", "error");
			size_t k = 0;
			for (size_t i = 0; i < nr; i++) {
				const char *rg, *rp;
				double tp, b, pr, cx, y, pred;
				aiw_profile_row(p, i, &rg, &rp, &tp, &b, &pr, &cx, &y);
				if (strcmp(rg, name) || strcmp(rp, phase))
					continue;
				aiw_profile_predict(p, i, c, NT, &pred);
				err[k++] = fabs(pred / y - 1);
				printf("  %-6g %-5g %-7g %-8g %9.2f ms %8.2f ms %+7.1f%%\n", tp, b, pr, cx,
				       y * 1e3, pred * 1e3, 100 * (pred / y - 1));
			}
			qsort(err, k, sizeof *err, cmpd);
			double med = k ? (k % 2 ? err[k / 2] : 0.5 * (err[k / 2 - 1] + err[k / 2])) : NAN;
			printf("  %zu rows: median |error| %.1f%%, worst %.1f%% (in-sample)\n\n", k,
			       100 * med, k ? 100 * err[k - 1] : NAN);
		}
		if (rc)
			break;
	}
	if (!err) {
		cli_errorf("out of memory");
		rc = EXIT_FAIL;
	}
	free(err);
	if (mem_out) {
		fclose(snip); /* sets mem and memlen */
		snip = NULL;
		if (!rc && mem)
			fwrite(mem, 1, memlen, stdout);
		int frc = cli_flush_stdout();
		if (!rc)
			rc = frc;
	} else if (snip) {
		/* the old file stays until the new one is whole */
		int crc = cli_close_output(snip, outp);
		snip = NULL;
		if (!rc)
			rc = crc;
		if (!rc && tmp && rename(tmp, target ? target : outp) != 0) {
			cli_errorf("calibrate: cannot write %s: %s", outp, strerror(errno));
			rc = EXIT_FAIL;
		}
		if (rc && tmp)
			unlink(tmp);
	}
done:
	if (snip) {
		fclose(snip);
		if (tmp)
			unlink(tmp);
	}
	free(tmp);
	free(target);
	free(mem);
	free(sets);
	free(holds);
	free(ops);
	aiw_profile_free(p);
	return rc;
}
