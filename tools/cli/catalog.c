/*
 * catalog.c - `aiworkload catalog`: the built-in GPUs and links, or every
 * field of one.
 */
#include "common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================== */
/* catalog                                                                   */
/* ======================================================================== */
static double gpu_val(const char *gpu, const char *field)
{
	double v = NAN;
	aiw_catalog_gpu_value(gpu, field, &v);
	return v;
}

int cli_catalog(int argc, char **argv)
{
	const char **ops = calloc(argc > 0 ? (size_t)argc : 1, sizeof *ops);
	if (!ops) {
		cli_errorf("out of memory");
		return EXIT_FAIL;
	}
	const cli_cmd who = {cli_prog, "catalog", false};
	size_t nops = 0;
	bool help = false;
	int rc = cli_parse_options(&who, argc, argv, 2, NULL, 0, ops, &nops, &help);
	const char *one = nops == 1 ? ops[0] : NULL;
	free(ops);
	if (rc)
		return rc;
	if (help) {
		printf("usage: aiworkload catalog [GPU|LINK]\n"
		       "\n"
		       "The built-in GPUs and links, or every field of one with its source (a\n"
		       "scenario's [gpu NAME] and [link NAME] sections add more).  A source marked\n"
		       "\"estimate\" has no published measurement of that GPU behind it.\n");
		return cli_flush_stdout();
	}
	if (nops > 1)
		return cli_cmd_usage_error(&who, "at most one GPU or link name");
	size_t ng = 0, nl = 0;
	aiw_catalog_gpu_count(&ng);
	aiw_catalog_link_count(&nl);
	if (one) {
		double v;
		bool gpu = aiw_catalog_gpu_value(one, "tdp_w", &v) == AIW_OK;
		bool link = !gpu && aiw_catalog_link_value(one, "bw", &v) == AIW_OK;
		if (!gpu && !link) {
			cli_errorf("no GPU or link named '%s' (see `aiworkload catalog`)", one);
			return EXIT_USAGE;
		}
		printf("%s %s\n", gpu ? "GPU" : "link", one);
		for (size_t i = 0;; i++) {
			const char *f, *u, *d;
			aiw_status st = gpu ? aiw_catalog_gpu_field(i, &f, &u, &d)
			                    : aiw_catalog_link_field(i, &f, &u, &d);
			if (st != AIW_OK)
				break;
			double x = NAN;
			if (gpu)
				aiw_catalog_gpu_value(one, f, &x);
			else
				aiw_catalog_link_value(one, f, &x);
			/* a built-in's value is no default: its doc without the
			 * fallback that [gpu NAME] sections without a base take */
			const char *cut = gpu ? strstr(d, " (default without base") : NULL;
			printf("  %-20s %14.6g %-8s %.*s\n", f, x, u, cut ? (int)(cut - d) : (int)strlen(d), d);
			const char *src;
			if (gpu && aiw_catalog_gpu_source(one, f, &src) == AIW_OK)
				printf("  %-20s %14s %-8s source: %s\n", "", "", "", src);
		}
		return cli_flush_stdout();
	}
	printf("GPUs (aiworkload catalog NAME shows every field; [gpu NAME] sections add more)\n");
	printf("  %-10s %7s %8s %9s %9s %6s %6s %9s %8s %8s %7s\n", "NAME", "MEM", "MEM BW",
	       "BF16", "FP8", "TDP", "IDLE", "PRICE", "RENT", "NVLINK", "NIC");
	printf("  %-10s %7s %8s %9s %9s %6s %6s %9s %8s %8s %7s\n", "", "GB", "TB/s", "TFLOP/s",
	       "TFLOP/s", "W", "W", "USD", "USD/h", "GB/s", "GB/s");
	for (size_t i = 0; i < ng; i++) {
		const char *g;
		if (aiw_catalog_gpu_name(i, &g) != AIW_OK)
			continue;
		char price[32];
		double pu = gpu_val(g, "price_usd"), rent = gpu_val(g, "ondemand_usd_per_h");
		if (pu > 0)
			cli_fmt_group(price, sizeof price, pu, 0);
		else
			snprintf(price, sizeof price, "-");
		printf("  %-10s %7.0f %8.2f %9.0f %9.0f %6.0f %6.0f %9s ", g,
		       gpu_val(g, "mem_bytes") / 1e9, gpu_val(g, "mem_bw") / 1e12,
		       gpu_val(g, "bf16_flops") / 1e12, gpu_val(g, "fp8_flops") / 1e12,
		       gpu_val(g, "tdp_w"), gpu_val(g, "idle_w"), price);
		if (rent > 0)
			printf("%8.2f", rent);
		else
			printf("%8s", "-");
		printf(" %8.0f %7.0f\n", gpu_val(g, "nvlink_bw") / 1e9, gpu_val(g, "nic_bw") / 1e9);
	}
	printf("  (bandwidths per GPU and per direction)\n\nLinks (alpha-beta model: a message of m "
	       "bytes takes alpha + m / bw)\n");
	printf("  %-10s %10s %10s\n", "NAME", "ALPHA us", "BW GB/s");
	for (size_t i = 0; i < nl; i++) {
		const char *l;
		double a = NAN, b = NAN;
		if (aiw_catalog_link_name(i, &l) != AIW_OK)
			continue;
		aiw_catalog_link_value(l, "alpha_s", &a);
		aiw_catalog_link_value(l, "bw", &b);
		printf("  %-10s %10.3g %10.4g\n", l, a * 1e6, b / 1e9);
	}
	return cli_flush_stdout();
}

