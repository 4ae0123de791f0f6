/*
 * calibrate.c - `aiworkload calibrate FILE`: fit the serving iteration
 * model's coefficients to a measured table (aiw_profile_*), print them with
 * their standard errors and the fit's error on every row, and write them as
 * a scenario snippet: an [inference NAME] section (--component, default
 * chat) with timing = iteration, the GPU and the twelve coefficients at full
 * precision, which layered on a scenario gives the times that
 * `profile = FILE` (with profile_gpu the rows fitted) gives.
 */
#include "common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NT 6

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int cli_calibrate(int argc, char **argv)
{
	const char *file = NULL, *gpu = NULL, *outp = NULL, *comp = "chat";
	aiw_profile *p = NULL;
	if (aiw_profile_create(&p) != AIW_OK) {
		cli_errorf("out of memory");
		return EXIT_FAIL;
	}
	int rc = 0;
	bool hold;
	for (int i = 2; i < argc; i++) {
		const char *v;
		int err = 0;
		if (cli_opt_value(argc, argv, &i, "--gpu", &v, &err)) {
			if (err)
				goto usage;
			gpu = v;
		} else if (cli_opt_value(argc, argv, &i, "--out", &v, &err)) {
			if (err)
				goto usage;
			outp = v;
		} else if (cli_opt_value(argc, argv, &i, "--component", &v, &err)) {
			if (err)
				goto usage;
			comp = v;
		} else if ((hold = false, cli_opt_value(argc, argv, &i, "--set", &v, &err)) ||
		           (hold = true, cli_opt_value(argc, argv, &i, "--hold", &v, &err))) {
			if (err)
				goto usage;
			char key[128];
			double x = 1;
			const char *eq = strchr(v, '=');
			if (hold) {
				snprintf(key, sizeof key, "hold.%s", v);
			} else {
				if (!eq || (size_t)(eq - v) >= sizeof key) {
					rc = cli_usage_error("calibrate: --set expects NAME=VALUE, got '%s'", v);
					goto done;
				}
				memcpy(key, v, (size_t)(eq - v));
				key[eq - v] = '\0';
				char *end;
				x = strtod(eq + 1, &end);
				if (end == eq + 1 || *end) {
					rc = cli_usage_error("calibrate: --set %s: '%s' is not a number", key,
					                     eq + 1);
					goto done;
				}
			}
			aiw_status st = aiw_profile_set(p, key, x);
			if (st != AIW_OK) {
				cli_errorf("calibrate: %s", aiw_profile_errmsg(p));
				rc = cli_exit_code(st);
				goto done;
			}
		} else if (argv[i][0] == '-') {
			rc = cli_usage_error("calibrate: unknown option '%s'", argv[i]);
			goto done;
		} else if (!file) {
			file = argv[i];
		} else {
			rc = cli_usage_error("calibrate: one measured table only");
			goto done;
		}
	}
	if (!file) {
		rc = cli_usage_error("calibrate: which measured table? (aiworkload calibrate FILE.csv)");
		goto done;
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
	/* the snippet is one component's: one GPU's coefficients */
	size_t nsel = 0;
	char names[512] = "";
	for (size_t g = 0, len = 0; g < ng; g++) {
		const char *name, *cat;
		aiw_profile_group_name(p, g, &name, &cat);
		if (gpu && strcasecmp(gpu, name) && strcasecmp(gpu, cat))
			continue;
		nsel++;
		if (len < sizeof names)
			len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
			                        name);
	}
	if (outp && nsel != 1) {
		rc = nsel ? cli_usage_error("calibrate: --out writes one GPU's coefficients and %s has "
		                            "%zu (%s): choose one with --gpu",
		                            file, nsel, names)
		          : cli_usage_error("calibrate: %s has no rows for GPU %s", file, gpu);
		goto done;
	}
	FILE *snip = NULL;
	if (outp && !(snip = fopen(outp, "w"))) {
		cli_errorf("calibrate: cannot write %s", outp);
		rc = EXIT_FAIL;
		goto done;
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
		if (gpu && strcasecmp(gpu, name) && strcasecmp(gpu, cat))
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
	free(err);
	if (snip && fclose(snip) && !rc) {
		cli_errorf("calibrate: cannot write %s", outp);
		rc = EXIT_FAIL;
	}
	goto done;
usage:
	rc = EXIT_USAGE;
done:
	aiw_profile_free(p);
	return rc;
}
