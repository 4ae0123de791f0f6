/*
 * plan_html.c - aiw_plan_write_html: a plan's report as one self-contained
 * HTML page, with the run report's head (export/html.c: the
 * Content-Security-Policy, the error recorder, the embedded uPlot).
 *
 * A serving plan: its identity (scenario, fleet, objective, limits, caps,
 * replications, re-check, the grid's axes and the settings of every
 * candidate), the candidates pruned and simulated, the ranked table (each
 * row's columns as aiw_plan_row gives them, with the 95% half-widths, the
 * Pareto flags, the re-check and the --set lines that reproduce it), the
 * verdict of an empty table, and two Pareto plots: the objective against
 * the P99 TTFT and against the peak power, every row a point and the
 * front a line.  A training plan: the job, the ranked layouts and a plot
 * of tokens/s against memory per GPU.
 *
 * It reads the plan's state (plan.h) and writes with the export's
 * helpers (export/html.h): a study, above both.
 */
#include "studies/plan.h"
#include "export/html.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The charts.  Serving: for each of (P99 TTFT, peak power), the rows
 * with a finite x, sorted by x; a series of every row's objective
 * (points, no line) and one of the rows on that front (a line through
 * them, gaps spanned).  Training: tokens/s against memory per GPU, points
 * only. */
static const char *const PLAN_JS =
	"(function(){\n"
	"var D=JSON.parse(document.getElementById('aiw-data').textContent);\n"
	"var box=document.getElementById('charts');\n"
	"var W=Math.min(960,Math.max(480,box.clientWidth||960)),n=0;\n"
	"function none(){return null;}\n"
	"function chart(id,title,xl,yl,xk,yk,fk){\n"
	" var R=D.rows.filter(function(r){return r[xk]!=null&&r[yk]!=null;});\n"
	" R.sort(function(a,b){return a[xk]-b[xk]||a.rank-b.rank;});\n"
	" var x=[],all=[],front=[],rank=[],blank=[];\n"
	" R.forEach(function(r){x.push(r[xk]);all.push(r[yk]);rank.push(r.rank);blank.push(null);\n"
	"  front.push(fk&&r[fk]?r[yk]:null);});\n"
	" var div=document.createElement('div');div.className='chart';div.id=id;\n"
	" div.setAttribute('data-points',String(R.length));box.appendChild(div);\n"
	" var series=[{label:xl},{label:'rank',show:false,value:function(u,v,si,i){"
	"return i==null?'-':String(rank[i]);}},\n"
	"  {label:'every row: '+yl,stroke:'#1f77b4',paths:none,points:{show:true,size:7,"
	"fill:'#1f77b4'}}];\n"
	" var data=[x,blank,all];\n"
	" if(fk){series.push({label:'Pareto front',stroke:'#d62728',width:1.5,spanGaps:true,"
	"points:{show:true,size:9,fill:'#d62728'}});data.push(front);}\n"
	" new uPlot({title:title,width:W,height:300,scales:{x:{time:false}},series:series,\n"
	"  axes:[{label:xl},{label:yl,size:80}]},data,div);\n"
	" n++;\n"
	"}\n"
	"if(D.training){chart('chart-memory','tokens/s against memory per GPU','memory per GPU (GB)',"
	"'tokens/s','mem','tps',null);}\n"
	"else{chart('chart-ttft',D.objective+' against P99 TTFT','P99 TTFT (s)',D.objective,"
	"'ttft','o','pt');\n"
	" chart('chart-power',D.objective+' against peak power','site peak IT power (W)',"
	"D.objective,'pw','o','pp');}\n"
	"document.documentElement.setAttribute('data-charts',String(n));\n"
	"document.documentElement.setAttribute('data-ready','1');\n"
	"})();\n";

static void limit_text(FILE *f, double v, const char *unit)
{
	if (isfinite(v))
		fprintf(f, "%.6g %s", v, unit);
	else
		fputs("none", f);
}

static void write_identity(FILE *f, const aiw_plan *p)
{
	fputs("<h2 id=\"identity\">Plan</h2>\n<table id=\"identity-table\">\n"
	      "<tr><td>Library</td><td>libaiworkload ",
	      f);
	aiwi_html_text(f, aiw_version_string());
	fputs("</td></tr>\n<tr><td>Scenario</td><td>", f);
	aiwi_html_text(f, p->path ? p->path : "(scenario text)");
	fputs("</td></tr>\n<tr><td>Component</td><td><code>", f);
	aiwi_html_text(f, p->px);
	fputs("</code></td></tr>\n", f);
	if (!p->training) {
		fputs("<tr><td>Objective</td><td>", f);
		aiwi_html_text(f, aiwi_plan_objective[p->objective]);
		fputs(" (minimised)</td></tr>\n<tr><td>P99 TTFT limit</td><td>", f);
		limit_text(f, p->ttft, "s");
		fputs("</td></tr>\n<tr><td>P99 TPOT limit</td><td>", f);
		limit_text(f, p->tpot, "s");
		fputs("</td></tr>\n<tr><td>GPU cap</td><td>", f);
		limit_text(f, p->max_gpus, "GPUs");
		fputs("</td></tr>\n<tr><td>Power budget</td><td>", f);
		limit_text(f, p->power_budget, "W");
		fprintf(f, "</td></tr>\n<tr><td>Replications</td><td>%zu</td></tr>\n", p->reps);
		if (p->recheck)
			fprintf(f,
			        "<tr><td>Re-check</td><td>the ranked rows at %zu further seeds until %zu "
			        "pass (at most %zu examined)</td></tr>\n",
			        p->recheck_reps, p->recheck, 4 * p->recheck);
		if (isfinite(p->attainment))
			fprintf(f,
			        "<tr><td>Attainment</td><td>at least %g of the replications meet both "
			        "limits, at confidence %g (Clopper-Pearson lower bound)</td></tr>\n",
			        p->attainment, p->confidence);
		for (size_t a = 0; a < NAXES; a++) {
			if (a >= AX_PP && a < AX_REPLICAS && !p->ax[a])
				continue; /* the further axes, when given */
			fputs("<tr><td>Axis</td><td><code>", f);
			aiwi_html_text(f, aiwi_plan_axis[a]);
			fputs("</code> = ", f);
			if (!p->ax[a])
				fputs("(the scenario's)", f);
			for (size_t k = 0; p->ax[a] && k < p->nax[a]; k++) {
				fputs(k ? ", " : "", f);
				aiwi_html_text(f, p->ax[a][k]);
			}
			fputs("</td></tr>\n", f);
		}
	} else {
		fputs("<tr><td>Objective</td><td>tokens/s of the layout model's step time "
		      "(maximised)</td></tr>\n",
		      f);
	}
	if (p->seed_set)
		fprintf(f, "<tr><td>Seed</td><td>%llu</td></tr>\n", (unsigned long long)p->seed);
	for (size_t i = 0; i < p->nsets; i++) {
		fputs("<tr><td>Set in every candidate</td><td><code>", f);
		aiwi_html_text(f, p->sets[i]);
		fputs("</code></td></tr>\n", f);
	}
	const size_t *s = p->stats;
	if (!p->training)
		fprintf(f,
		        "<tr><td>Candidates</td><td>%zu: pruned %zu by memory, %zu by the GPU cap, %zu "
		        "by the load bound, %zu by the bisection; simulated %zu (%zu runs); rows "
		        "%zu</td></tr>\n",
		        s[AIW_PLAN_STAT_CANDIDATES], s[AIW_PLAN_STAT_PRUNED_MEMORY],
		        s[AIW_PLAN_STAT_PRUNED_CAP], s[AIW_PLAN_STAT_PRUNED_LOAD],
		        s[AIW_PLAN_STAT_PRUNED_BISECTION], s[AIW_PLAN_STAT_SIMULATED],
		        s[AIW_PLAN_STAT_RUNS], s[AIW_PLAN_STAT_ROWS]);
	else
		fprintf(f,
		        "<tr><td>Layouts</td><td>%zu: %zu refused by the start check, %zu "
		        "feasible</td></tr>\n",
		        s[AIW_PLAN_STAT_CANDIDATES], s[AIW_PLAN_STAT_PRUNED_MEMORY],
		        s[AIW_PLAN_STAT_ROWS]);
	fprintf(f, "<tr><td>Charts</td><td>uPlot %.*s (MIT), embedded</td></tr>\n</table>\n",
	        aiwi_html_uplot_version_len(), aiwi_html_uplot_version());
}

static void put_pm(FILE *f, double m, double ci)
{
	aiwi_html_num(f, m);
	if (isfinite(ci)) {
		fputs(" &plusmn; ", f);
		aiwi_html_num(f, ci);
	}
}

/* the row's --set lines, on a row of their own under it */
static void write_snippet(FILE *f, const char *snip, size_t rank, int ncols)
{
	fprintf(f, "<tr class=\"snippet\" data-rank=\"%zu\"><td></td><td colspan=\"%d\"><code>",
	        rank, ncols - 1);
	for (const char *c = snip; c && *c; c++) {
		if (*c == '\n') {
			if (c[1])
				fputc(' ', f);
			continue;
		}
		char one[2] = {*c, 0};
		aiwi_html_text(f, one);
	}
	fputs("</code></td></tr>\n", f);
}

/* The further axes' columns: shown when the axis is given (the decode
 * pool's replicas with disaggregation too). */
static const struct {
	size_t axis;
	int col;
	const char *head;
} EXTRA[] = {{AX_PP, AIW_PLAN_PP, "pp"},
             {AX_SPOT, AIW_PLAN_SPOT_FRACTION, "spot share"},
             {AX_MNBT, AIW_PLAN_MAX_NUM_BATCHED_TOKENS, "max batched tokens"},
             {AX_TARGET, AIW_PLAN_AUTOSCALER_TARGET, "autoscaler target"},
             {AX_DISAGG, AIW_PLAN_DISAGGREGATED, "disaggregated"},
             {AX_DREPL, AIW_PLAN_DECODE_REPLICAS, "decode replicas"}};
#define NEXTRA (sizeof EXTRA / sizeof *EXTRA)

static bool extra_shown(const aiw_plan *p, size_t e)
{
	return p->ax[EXTRA[e].axis] || (EXTRA[e].axis == AX_DREPL && p->ax[AX_DISAGG]);
}

static void write_rows(FILE *f, const aiw_plan *p)
{
	int nextra = 0;
	for (size_t e = 0; !p->training && e < NEXTRA; e++)
		nextra += extra_shown(p, e);
	bool rechecked = p->stats[AIW_PLAN_STAT_RECHECKED] > 0;
	fputs("<h2 id=\"rows\">Ranked table</h2>\n", f);
	if (p->nrows == 0) {
		fputs("<p id=\"verdict\">No feasible candidate: ", f);
		aiwi_html_text(f, p->verdict);
		fputs("</p>\n", f);
		return;
	}
	if (!p->training) {
		fputs("<p class=\"note\">One row per combination at its smallest feasible replica "
		      "count, by objective.  Latencies: the mean over the replications &plusmn; the "
		      "half-width of its 95% Student interval (none with one replication).  Pareto: T "
		      "on the front of the objective against P99 TTFT, P against peak power.  Under "
		      "each row, the --set lines that reproduce it with aiworkload run.",
		      f);
		if (rechecked)
			fputs("  Re-check: the means over the further seeds meet the limits (ok) or not "
			      "(MISS), with the share of those runs that met both.",
			      f);
		fputs("</p>\n<table id=\"rows-table\">\n<tr><th>rank</th><th>gpu</th><th>tp</th>"
		      "<th>weight bits</th><th>max batch</th><th>replicas</th><th>GPUs</th>",
		      f);
		for (size_t e = 0; e < NEXTRA; e++)
			if (extra_shown(p, e))
				fprintf(f, "<th>%s</th>", EXTRA[e].head);
		fputs("<th>", f);
		aiwi_html_text(f, aiwi_plan_objective[p->objective]);
		fputs("</th><th>P99 TTFT (s)</th><th>P99 TPOT (s)</th><th>peak power (W)</th>"
		      "<th>energy (kWh)</th><th>cost per Mtok (USD)</th><th>Pareto</th>",
		      f);
		if (rechecked)
			fputs("<th>re-check P99 TTFT (s)</th><th>re-check P99 TPOT (s)</th>"
			      "<th>re-check</th>",
			      f);
		fputs("</tr>\n", f);
	} else {
		fputs("<p class=\"note\">Every layout the job's start check accepts, by tokens/s of "
		      "the layout model's step time, each with the --set lines that reproduce it."
		      "</p>\n<table id=\"rows-table\">\n<tr><th>rank</th>"
		      "<th>gpu</th><th>tokens/s</th><th>tp</th><th>pp</th><th>dp</th><th>ZeRO</th>"
		      "<th>micro-batch</th><th>recompute</th><th>step time (s)</th>"
		      "<th>memory per GPU (GB)</th><th>MFU</th></tr>\n",
		      f);
	}
	static const char *const RC[] = {"none", "selective", "full"};
	for (size_t i = 0; i < p->nrows; i++) {
		const plan_row *r = &p->rows[i];
		const double *v = r->v;
		fprintf(f, "<tr class=\"row\" data-rank=\"%zu\"><td class=\"num\">%zu</td><td>", i + 1,
		        i + 1);
		aiwi_html_text(f, r->gpu ? r->gpu : "");
		fputs("</td>", f);
		if (!p->training) {
			static const int C[] = {AIW_PLAN_GPUS_PER_REPLICA, AIW_PLAN_WEIGHT_BITS,
			                        AIW_PLAN_MAX_BATCH, AIW_PLAN_REPLICAS, AIW_PLAN_GPUS,
			                        AIW_PLAN_OBJECTIVE};
			for (size_t k = 0; k < sizeof C / sizeof *C; k++) {
				if (C[k] == AIW_PLAN_OBJECTIVE) /* the further axes before it */
					for (size_t e = 0; e < NEXTRA; e++) {
						if (!extra_shown(p, e))
							continue;
						double x = v[EXTRA[e].col];
						fputs("<td class=\"num\">", f);
						if (EXTRA[e].col == AIW_PLAN_DISAGGREGATED)
							fputs(!isfinite(x) ? "n/a" : x ? "on" : "off", f);
						else if (!isfinite(x))
							fputs("-", f);
						else
							aiwi_html_num(f, x);
						fputs("</td>", f);
					}
				fputs("<td class=\"num\">", f);
				if (C[k] == AIW_PLAN_MAX_BATCH && !isfinite(v[C[k]]))
					fputs("none", f); /* the fleet sets no limit */
				else
					aiwi_html_num(f, v[C[k]]);
				fputs("</td>", f);
			}
			fputs("<td class=\"num\">", f);
			put_pm(f, v[AIW_PLAN_TTFT_P99_S], v[AIW_PLAN_TTFT_P99_CI95]);
			fputs("</td><td class=\"num\">", f);
			put_pm(f, v[AIW_PLAN_TPOT_P99_S], v[AIW_PLAN_TPOT_P99_CI95]);
			fputs("</td><td class=\"num\">", f);
			aiwi_html_num(f, v[AIW_PLAN_POWER_PEAK_W]);
			fputs("</td><td class=\"num\">", f);
			aiwi_html_num(f, v[AIW_PLAN_ENERGY_KWH]);
			fputs("</td><td class=\"num\">", f);
			aiwi_html_num(f, v[AIW_PLAN_COST_PER_MTOK_USD]);
			fprintf(f, "</td><td>%s%s</td>", v[AIW_PLAN_PARETO_TTFT] ? "T" : "-",
			        v[AIW_PLAN_PARETO_POWER] ? "P" : "-");
			if (rechecked) {
				fputs("<td class=\"num\">", f);
				put_pm(f, v[AIW_PLAN_RECHECK_TTFT_P99_S], v[AIW_PLAN_RECHECK_TTFT_P99_CI95]);
				fputs("</td><td class=\"num\">", f);
				put_pm(f, v[AIW_PLAN_RECHECK_TPOT_P99_S], v[AIW_PLAN_RECHECK_TPOT_P99_CI95]);
				fputs("</td><td>", f);
				if (isfinite(v[AIW_PLAN_RECHECK_OK]))
					fprintf(f, "%s %.0f%%", v[AIW_PLAN_RECHECK_OK] ? "ok" : "MISS",
					        100 * v[AIW_PLAN_RECHECK_MET_SHARE]);
				else
					fputs("-", f);
				fputs("</td>", f);
			}
		} else {
			fputs("<td class=\"num\">", f);
			aiwi_html_num(f, v[AIW_PLAN_T_TOKENS_PER_S]);
			fputs("</td>", f);
			static const int C[] = {AIW_PLAN_T_TP, AIW_PLAN_T_PP, AIW_PLAN_T_DP,
			                        AIW_PLAN_T_ZERO_STAGE, AIW_PLAN_T_MICRO_BATCH};
			for (size_t k = 0; k < sizeof C / sizeof *C; k++) {
				fputs("<td class=\"num\">", f);
				aiwi_html_num(f, v[C[k]]);
				fputs("</td>", f);
			}
			double rc = v[AIW_PLAN_T_RECOMPUTE];
			fprintf(f, "<td>%s</td><td class=\"num\">",
			        rc >= 0 && rc <= 2 ? RC[(int)rc] : "n/a");
			aiwi_html_num(f, v[AIW_PLAN_T_STEP_TIME_S]);
			fputs("</td><td class=\"num\">", f);
			aiwi_html_num(f, v[AIW_PLAN_T_MEMORY_PER_GPU_BYTES] / 1e9);
			fputs("</td><td class=\"num\">", f);
			aiwi_html_num(f, v[AIW_PLAN_T_MFU]);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
		write_snippet(f, r->snippet, i + 1, p->training ? 12 : (rechecked ? 17 : 14) + nextra);
	}
	fputs("</table>\n", f);
}

static void write_data(FILE *f, const aiw_plan *p)
{
	fputs("<script type=\"application/json\" id=\"aiw-data\">{\"training\":", f);
	fputs(p->training ? "true" : "false", f);
	fputs(",\"objective\":", f);
	aiwi_html_js_str(f, p->training ? "tokens/s" : aiwi_plan_objective[p->objective]);
	fputs(",\"rows\":[", f);
	for (size_t i = 0; i < p->nrows; i++) {
		const double *v = p->rows[i].v;
		fprintf(f, "%s\n{\"rank\":%zu,", i ? "," : "", i + 1);
		if (p->training) {
			fputs("\"tps\":", f);
			aiwi_html_js_num(f, v[AIW_PLAN_T_TOKENS_PER_S]);
			fputs(",\"mem\":", f);
			aiwi_html_js_num(f, v[AIW_PLAN_T_MEMORY_PER_GPU_BYTES] / 1e9);
		} else {
			fputs("\"o\":", f);
			aiwi_html_js_num(f, v[AIW_PLAN_OBJECTIVE]);
			fputs(",\"ttft\":", f);
			aiwi_html_js_num(f, v[AIW_PLAN_TTFT_P99_S]);
			fputs(",\"pw\":", f);
			aiwi_html_js_num(f, v[AIW_PLAN_POWER_PEAK_W]);
			fprintf(f, ",\"pt\":%d,\"pp\":%d", v[AIW_PLAN_PARETO_TTFT] == 1,
			        v[AIW_PLAN_PARETO_POWER] == 1);
		}
		fputs("}", f);
	}
	fputs("]}</script>\n", f);
}

aiw_status aiw_plan_write_html(aiw_plan *p, const char *path)
{
	if (!p)
		return AIW_EINVAL;
	if (!path)
		return aiwi_plan_err(p, AIW_EINVAL, "aiw_plan_write_html: path is NULL");
	if (!path[0])
		return aiwi_plan_err(p, AIW_EINVAL, "aiw_plan_write_html: path is empty");
	if (!p->ran || p->stopped)
		return aiwi_plan_err(p, AIW_ESTATE,
		            "aiw_plan_write_html: the plan has %s (call aiw_plan_run first)",
		            p->ran ? "been stopped" : "not run");
	FILE *f = fopen(path, "w");
	if (!f)
		return aiwi_plan_err(p, AIW_EIO, "aiw_plan_write_html: cannot write '%s': %s", path,
		            strerror(errno));
	aiwi_html_head(f, "libaiworkload plan report");
	fputs("<h1>libaiworkload plan report</h1>\n"
	      "<nav><a href=\"#identity\">Plan</a><a href=\"#rows\">Ranked table</a>"
	      "<a href=\"#charts-title\">Charts</a></nav>\n",
	      f);
	write_identity(f, p);
	write_rows(f, p);
	fputs("<h2 id=\"charts-title\">Charts</h2>\n<p class=\"note\">", f);
	if (p->training)
		fputs("Every feasible layout: its tokens/s against its memory per GPU.", f);
	else
		fputs("Every row's objective against its P99 TTFT and against the site's peak IT "
		      "power; the red line joins the rows on the Pareto front of each pair.",
		      f);
	fprintf(f,
	        "  Hover for values; drag to zoom, double-click to reset.</p>\n"
	        "<div id=\"charts\" data-expected=\"%d\"></div>\n",
	        p->training ? 1 : 2);
	write_data(f, p);
	fputs("<script>\n", f);
	fputs(PLAN_JS, f);
	fputs("</script>\n</body>\n</html>\n", f);
	int e = ferror(f) ? (errno ? errno : EIO) : 0;
	if (fclose(f) != 0 && !e)
		e = errno ? errno : EIO;
	if (e)
		return aiwi_plan_err(p, AIW_EIO, "aiw_plan_write_html: error writing '%s': %s", path,
		            strerror(e));
	return AIW_OK;
}
