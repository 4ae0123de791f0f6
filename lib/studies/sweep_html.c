/*
 * sweep_html.c - aiw_sweep_write_html: a sweep's report as one
 * self-contained HTML page, with the run report's head (html.c: the
 * Content-Security-Policy, the error recorder, the embedded uPlot).  The
 * sweep's identity (scenario, axes, point file, replications, base seed,
 * version), a table of every point (its parameter values, each metric's
 * mean and 95% confidence half-width as aiw_sweep_result gives them, its
 * status), the refused points with their messages, and one chart per
 * metric against the first parameter, one line per value of the others,
 * the confidence interval drawn as a band around the mean.
 *
 * It reads the sweep's internals (sweep/sweep.h) and writes with the
 * export's helpers (export/html.h): a study, above both.
 */
#include "sweep/sweep.h"
#include "export/html.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Charts: for each metric, x the first parameter (its numbers, or the
 * order of its values when one is not a number), a series per value of
 * the other parameters, the mean line and a band from mean - ci to
 * mean + ci. */
static const char *const SWEEP_JS =
	"(function(){\n"
	"var D=JSON.parse(document.getElementById('aiw-data').textContent);\n"
	"var box=document.getElementById('charts');\n"
	"var COL=['#1f77b4','#ff7f0e','#2ca02c','#d62728','#9467bd','#8c564b','#e377c2',"
	"'#17becf','#bcbd22','#7f7f7f'];\n"
	"function rgba(c,a){return 'rgba('+parseInt(c.substr(1,2),16)+','+parseInt(c.substr(3,2),16)"
	"+','+parseInt(c.substr(5,2),16)+','+a+')';}\n"
	"var P=D.points.filter(function(p){return p.ok;});\n"
	"var num=P.every(function(p){return p.v[0]!==''&&isFinite(Number(p.v[0]));});\n"
	"var cats=[];P.forEach(function(p){if(cats.indexOf(p.v[0])<0)cats.push(p.v[0]);});\n"
	"function xof(p){return num?Number(p.v[0]):cats.indexOf(p.v[0]);}\n"
	"var xs=[];P.forEach(function(p){var x=xof(p);if(xs.indexOf(x)<0)xs.push(x);});\n"
	"xs.sort(function(a,b){return a-b;});\n"
	"var G=[],gk=[];P.forEach(function(p){var k=JSON.stringify(p.v.slice(1));"
	"var i=gk.indexOf(k);if(i<0){var l=[];for(var j=1;j<p.v.length;j++)"
	"l.push(D.params[j]+'='+p.v[j]);gk.push(k);G.push({label:l.join(', ')||'mean',pts:[]});"
	"i=G.length-1;}"
	"G[i].pts.push(p);});\n"
	"var W=Math.min(960,Math.max(480,box.clientWidth||960)),n=0;\n"
	"D.metrics.forEach(function(m,j){\n"
	" var div=document.createElement('div');div.className='chart';div.id='chart-'+j;\n"
	" div.setAttribute('data-metric',m);box.appendChild(div);\n"
	" var data=[xs],series=[{label:D.params[0],value:function(u,v){return v==null?'-':"
	"num?String(v):cats[v];}}],bands=[];\n"
	" G.forEach(function(g,i){var c=COL[i%10],mu=[],lo=[],hi=[];\n"
	"  xs.forEach(function(x){var q=null;g.pts.forEach(function(p){if(xof(p)===x&&q==null)q=p;});\n"
	"   var a=q?q.m[j]:null,e=q?q.ci[j]:null;mu.push(a);\n"
	"   lo.push(a!=null&&e!=null?a-e:a);hi.push(a!=null&&e!=null?a+e:a);});\n"
	"  var b=data.length;data.push(mu,hi,lo);\n"
	"  series.push({label:g.label,stroke:c,width:1.5,points:{show:true}},"
	"{label:'+ci95',stroke:rgba(c,0.25),width:1,show:true},"
	"{label:'-ci95',stroke:rgba(c,0.25),width:1,show:true});\n"
	"  bands.push({series:[b+1,b+2],fill:rgba(c,0.15)});});\n"
	" var ax={label:D.params[0]};if(!num)ax.values=function(u,vs){var r=[];"
	"for(var k=0;k<vs.length;k++)r.push(cats[vs[k]]==null?'':cats[vs[k]]);return r;};\n"
	" new uPlot({title:m,width:W,height:240,scales:{x:{time:false}},series:series,bands:bands,\n"
	"  axes:[ax,{size:72}]},data,div);\n"
	" n++;\n"
	"});\n"
	"document.documentElement.setAttribute('data-charts',String(n));\n"
	"document.documentElement.setAttribute('data-ready','1');\n"
	"})();\n";

static void write_identity(FILE *f, const aiw_sweep *sw)
{
	fputs("<h2 id=\"identity\">Sweep</h2>\n<table id=\"identity-table\">\n"
	      "<tr><td>Library</td><td>libaiworkload ",
	      f);
	aiwi_html_text(f, aiw_version_string());
	fputs("</td></tr>\n<tr><td>Scenario</td><td>", f);
	aiwi_html_text(f, sw->path ? sw->path : "(scenario text)");
	fputs("</td></tr>\n", f);
	for (size_t a = 0; a < sw->naxes; a++) {
		fputs("<tr><td>Axis</td><td><code>", f);
		aiwi_html_text(f, sw->axes[a].name);
		fputs("</code> = ", f);
		for (size_t k = 0; k < sw->axes[a].n; k++) {
			fputs(k ? ", " : "", f);
			aiwi_html_text(f, sw->axes[a].vals[k]);
		}
		fputs("</td></tr>\n", f);
	}
	if (sw->pf_path) {
		fputs("<tr><td>Point file</td><td>", f);
		aiwi_html_text(f, sw->pf_path);
		fprintf(f, " (%zu rows)</td></tr>\n", sw->pf_nrows);
	}
	fprintf(f,
	        "<tr><td>Points</td><td>%zu</td></tr>\n"
	        "<tr><td>Replications</td><td>%zu</td></tr>\n"
	        "<tr><td>Seed</td><td>%llu</td></tr>\n"
	        "<tr><td>Keep going</td><td>%s</td></tr>\n"
	        "<tr><td>Confidence interval</td><td>95%%, Student t(0.975, n-1) s / sqrt(n) over the "
	        "replications</td></tr>\n"
	        "<tr><td>Charts</td><td>uPlot %.*s (MIT), embedded</td></tr>\n</table>\n",
	        sw->npoints, sw->R, (unsigned long long)sw->base, sw->keep_going ? "yes" : "no",
	        aiwi_html_uplot_version_len(), aiwi_html_uplot_version());
}

/* status: 0 complete, 1 refused, 2 not run */
static int point_state(const aiw_sweep *sw, size_t p, const char **why)
{
	*why = "";
	if (aiwi_sweep_point_refusal(sw, p, why) != AIW_OK)
		return 1;
	if (!aiwi_sweep_point_complete(sw, p)) {
		*why = "not run";
		return 2;
	}
	return 0;
}

static void write_table(FILE *f, const aiw_sweep *sw)
{
	fputs("<h2 id=\"points\">Points</h2>\n<p class=\"note\">Each metric's mean over the "
	      "replications &plusmn; the half-width of its 95% confidence interval (n/a with fewer "
	      "than two finite replications).</p>\n<table id=\"points-table\">\n<tr><th>point</th>",
	      f);
	for (size_t i = 0; i < sw->nparams; i++) {
		fputs("<th><code>", f);
		aiwi_html_text(f, sw->pnames[i]);
		fputs("</code></th>", f);
	}
	for (size_t j = 0; j < sw->nmetrics; j++) {
		fputs("<th><code>", f);
		aiwi_html_text(f, sw->mnames[j]);
		fputs("</code></th>", f);
	}
	fputs("<th>status</th></tr>\n", f);
	for (size_t p = 0; p < sw->npoints; p++) {
		const char *why;
		int state = point_state(sw, p, &why);
		fprintf(f, "<tr class=\"point\" data-point=\"%zu\" data-status=\"%s\"><td class=\"num\">%zu</td>",
		        p, state == 0 ? "ok" : state == 1 ? "refused" : "not-run", p);
		for (size_t i = 0; i < sw->nparams; i++) {
			fputs("<td>", f);
			aiwi_html_text(f, aiwi_sweep_value(sw, p, i));
			fputs("</td>", f);
		}
		for (size_t j = 0; j < sw->nmetrics; j++) {
			if (state != 0) {
				fputs("<td class=\"num\"></td>", f);
				continue;
			}
			double mean, sd, ci;
			size_t n;
			aiwi_sweep_point_stats(sw, p, j, &mean, &sd, &ci, &n);
			fputs("<td class=\"num\">", f);
			aiwi_html_num(f, mean);
			fputs(" &plusmn; ", f);
			aiwi_html_num(f, ci);
			fputs("</td>", f);
		}
		fputs(state == 0 ? "<td>ok</td>" : state == 1 ? "<td>refused</td>" : "<td>not run</td>", f);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	bool head = false;
	for (size_t p = 0; p < sw->npoints; p++) {
		const char *why;
		if (point_state(sw, p, &why) != 1)
			continue;
		if (!head)
			fputs("<h2 id=\"refused\">Refused points</h2>\n<ul id=\"refused-list\">\n", f);
		head = true;
		fprintf(f, "<li data-point=\"%zu\">point %zu (", p, p);
		for (size_t i = 0; i < sw->nparams; i++) {
			fputs(i ? ", " : "", f);
			aiwi_html_text(f, sw->pnames[i]);
			fputc('=', f);
			aiwi_html_text(f, aiwi_sweep_value(sw, p, i));
		}
		fputs("): ", f);
		aiwi_html_text(f, why);
		fputs("</li>\n", f);
	}
	if (head)
		fputs("</ul>\n", f);
}

static void write_data(FILE *f, const aiw_sweep *sw)
{
	fputs("<script type=\"application/json\" id=\"aiw-data\">{\"params\":[", f);
	for (size_t i = 0; i < sw->nparams; i++) {
		fputs(i ? "," : "", f);
		aiwi_html_js_str(f, sw->pnames[i]);
	}
	fputs("],\"metrics\":[", f);
	for (size_t j = 0; j < sw->nmetrics; j++) {
		fputs(j ? "," : "", f);
		aiwi_html_js_str(f, sw->mnames[j]);
	}
	fputs("],\"points\":[", f);
	for (size_t p = 0; p < sw->npoints; p++) {
		const char *why;
		int state = point_state(sw, p, &why);
		fputs(p ? ",\n{\"v\":[" : "\n{\"v\":[", f);
		for (size_t i = 0; i < sw->nparams; i++) {
			fputs(i ? "," : "", f);
			aiwi_html_js_str(f, aiwi_sweep_value(sw, p, i));
		}
		fprintf(f, "],\"ok\":%s,\"m\":[", state == 0 ? "true" : "false");
		for (int pass = 0; pass < 2; pass++) {
			if (pass)
				fputs("],\"ci\":[", f);
			for (size_t j = 0; j < sw->nmetrics; j++) {
				double mean = NAN, sd, ci = NAN;
				size_t n;
				if (state == 0)
					aiwi_sweep_point_stats(sw, p, j, &mean, &sd, &ci, &n);
				fputs(j ? "," : "", f);
				aiwi_html_js_num(f, pass ? ci : mean);
			}
		}
		fputs("]}", f);
	}
	fputs("]}</script>\n", f);
}

AIW_EXPORT aiw_status aiw_sweep_write_html(const aiw_sweep *sw, const char *path)
{
	if (!sw)
		return AIW_EINVAL;
	if (!path)
		return aiwi_sweep_err(sw, AIW_EINVAL, "aiw_sweep_write_html: path is NULL");
	if (!path[0])
		return aiwi_sweep_err(sw, AIW_EINVAL, "aiw_sweep_write_html: path is empty");
	if (!sw->prepared)
		return aiwi_sweep_err(sw, AIW_ESTATE,
		                      "aiw_sweep_write_html: the sweep has not run (call aiw_sweep_run "
		                      "first)");
	FILE *f = fopen(path, "w");
	if (!f)
		return aiwi_sweep_err(sw, AIW_EIO, "aiw_sweep_write_html: cannot write '%s': %s", path,
		                      strerror(errno));
	aiwi_html_head(f, "libaiworkload sweep report");
	fputs("<h1>libaiworkload sweep report</h1>\n"
	      "<nav><a href=\"#identity\">Sweep</a><a href=\"#points\">Points</a>"
	      "<a href=\"#charts-title\">Charts</a></nav>\n",
	      f);
	write_identity(f, sw);
	write_table(f, sw);
	fputs("<h2 id=\"charts-title\">Charts</h2>\n<p class=\"note\">Each metric against <code>",
	      f);
	aiwi_html_text(f, sw->nparams ? sw->pnames[0] : "");
	fprintf(f,
	        "</code>, one line per value of the other parameters: the mean, the band its 95%% "
	        "confidence interval; refused points are left out.  Hover for values; drag to zoom, "
	        "double-click to reset.</p>\n<div id=\"charts\" data-expected=\"%zu\"></div>\n",
	        sw->nmetrics);
	write_data(f, sw);
	fputs("<script>\n", f);
	fputs(SWEEP_JS, f);
	fputs("</script>\n</body>\n</html>\n", f);
	int e = ferror(f) ? (errno ? errno : EIO) : 0;
	if (fclose(f) != 0 && !e)
		e = errno ? errno : EIO;
	if (e)
		return aiwi_sweep_err(sw, AIW_EIO, "error writing '%s': %s", path, strerror(e));
	return AIW_OK;
}
