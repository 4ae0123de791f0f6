/*
 * html.c - aiw_sim_write_html: a run's report as one self-contained HTML
 * file.  The run's identity (version, seed, simulated time, the scenario
 * as the parameters given), the summary table, the power hierarchy and
 * diversity factors, latency percentiles and SLO attainment per fleet,
 * the training time breakdown, the costs, with site.grid = on the site
 * as the grid sees it (ramps, steps, drops, the Welch spectrum and the
 * ramp rates, charted), and every curve as an
 * interactive chart (uPlot, embedded: hover values, drag to zoom,
 * double-click to reset).  The page loads nothing from the network: its
 * Content-Security-Policy forbids it, and the charting library's code and
 * style are copied in from the library itself (a C source that
 * vendor/embed.sh generates in the build tree from vendor/uplot/; see
 * Makefile.am).
 *
 * A script at the top of the page records any error, refused resource or
 * console.error into the `data-errors` attribute of <html>; the charts
 * set `data-charts` (how many were drawn) and `data-ready`, so a browser
 * test can read the outcome from the DOM.
 */
#include "core/internal.h"
#include "export/html.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* vendor/embed.sh */
extern const unsigned char aiwi_uplot_js[];
extern const size_t aiwi_uplot_js_len;
extern const unsigned char aiwi_uplot_css[];
extern const size_t aiwi_uplot_css_len;
extern const unsigned char aiwi_uplot_version[];
extern const size_t aiwi_uplot_version_len;

/* Curves longer than this are written as the minimum and maximum of
 * buckets (in the order they occur), HTML_MAX_POINTS / 2 buckets, so a
 * year's report stays the size of a few days' and its peaks and dips
 * stay visible. */
enum { HTML_MAX_POINTS = 8192 };

void aiwi_html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* A JSON string inside <script>: '<', '>' and '&' escaped too, so no text
 * can close the element. */
void aiwi_html_js_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void aiwi_html_js_num(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.7g", x);
	else
		fputs("null", f);
}

static bool metric(aiw_sim *sim, const char *prefix, const char *key, double *v)
{
	char name[512];
	snprintf(name, sizeof name, "%s.%s", prefix, key);
	return aiw_sim_metric(sim, name, v) == AIW_OK;
}

/* A value as the summary shows it: fractions in percent, counts whole,
 * ratios with three decimals, W, B and B/s with an SI prefix. */
static void fmt_value(char *buf, size_t len, double v, const char *unit, unsigned flags)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "%s", isnan(v) ? "n/a" : v > 0 ? "+inf" : "-inf");
		return;
	}
	if (flags & AIW_METRIC_FRACTION) {
		snprintf(buf, len, "%.2f %%", v * 100);
		return;
	}
	if (flags & AIW_METRIC_COUNT) {
		snprintf(buf, len, "%.0f%s%s", v, strcmp(unit, "1") ? " " : "",
		         strcmp(unit, "1") ? unit : "");
		return;
	}
	if (flags & AIW_METRIC_RATIO) {
		snprintf(buf, len, "%.3f", v);
		return;
	}
	if (!strcmp(unit, "W") || !strcmp(unit, "W/s") || !strcmp(unit, "B") || !strcmp(unit, "B/s")) {
		static const char *const P[] = {"", "k", "M", "G", "T", "P"};
		int k = 0;
		double a = fabs(v);
		while (a >= 1000 && k < 5) {
			a /= 1000;
			v /= 1000;
			k++;
		}
		snprintf(buf, len, "%.4g %s%s", v, P[k], unit);
		return;
	}
	if (!strcmp(unit, "USD")) {
		snprintf(buf, len, "%.2f USD", v);
		return;
	}
	snprintf(buf, len, "%.4g%s%s", v, strcmp(unit, "1") ? " " : "", strcmp(unit, "1") ? unit : "");
}

/* The label, unit and flags of a metric "kind.comp.key" or "site.key". */
static const aiwi_metric_def *metric_def(const char *full)
{
	char kind[64];
	const char *d1 = strchr(full, '.');
	if (!d1)
		return NULL;
	snprintf(kind, sizeof kind, "%.*s", (int)(d1 - full), full);
	const aiwi_kind *k = aiwi_kind_find(kind);
	if (!k)
		return NULL;
	const char *key = d1 + 1;
	if (!aiwi_kind_is(k, AIWI_KIND_SINGLETON)) {
		const char *d2 = strchr(key, '.');
		if (!d2)
			return NULL;
		key = d2 + 1;
	}
	return aiwi_metric_def_find(k, key);
}

static void metric_row(FILE *f, aiw_sim *sim, const char *name, const char *label_override)
{
	double v;
	if (aiw_sim_metric(sim, name, &v) != AIW_OK)
		return;
	const aiwi_metric_def *d = metric_def(name);
	char val[96];
	fmt_value(val, sizeof val, v, d ? d->unit : "1", d ? d->flags : 0);
	fputs("<tr><td>", f);
	aiwi_html_text(f, label_override ? label_override : d && d->label ? d->label : name);
	fputs("</td><td class=\"num\">", f);
	aiwi_html_text(f, val);
	fputs("</td><td><code>", f);
	aiwi_html_text(f, name);
	fputs("</code></td></tr>\n", f);
}

static const char *const CSS =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1000px;color:#222;"
	"padding:0 1em}\n"
	"h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:2em}"
	"h3{font-size:1.05em}\n"
	"table{border-collapse:collapse;margin:.5em 0}td,th{padding:2px 10px;border-bottom:1px solid "
	"#eee;text-align:left;vertical-align:top}\n"
	"td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"pre{background:#f6f6f6;padding:.6em;overflow:auto;max-height:24em}\n"
	"code{font-size:.9em;color:#555}\n"
	".bar{display:inline-block;height:.8em;background:#1f77b4;vertical-align:middle}\n"
	".chart{margin:1em 0}.note{color:#666}\n"
	"nav a{margin-right:1em}\n";

/* Charts: one uPlot per curve, cursors synchronised, SI-scaled axes. */
static const char *const CHART_JS =
	"(function(){\n"
	"var D=JSON.parse(document.getElementById('aiw-data').textContent);\n"
	"var box=document.getElementById('charts');\n"
	"var COL=['#1f77b4','#ff7f0e','#2ca02c','#d62728','#9467bd','#8c564b','#e377c2',"
	"'#17becf','#bcbd22','#7f7f7f'];\n"
	"var sync=uPlot.sync('aiw');\n"
	"function scale(u,m){var P=['','k','M','G','T','P'];\n"
	" if(u==='1'&&m<=1.5)return {f:0.01,u:'%'};\n"
	" if(u==='W'||u==='B'||u==='B/s'||u==='USD'||u==='USD/h'){var k=0;"
	"while(m>=1000&&k<5){m/=1000;k++;}return {f:Math.pow(1000,k),u:P[k]+u};}\n"
	" return {f:1,u:u==='1'?'':u};}\n"
	"function fmt(v){return v==null?'-':Math.abs(v)>=100?v.toFixed(1):v.toPrecision(4);}\n"
	"var W=Math.min(960,Math.max(480,box.clientWidth||960)),n=0;\n"
	"var C=D.curves.filter(function(c){return c.name.indexOf('site.')===0;})"
	".concat(D.curves.filter(function(c){return c.name.indexOf('site.')!==0;}));\n"
	"C.forEach(function(c,i){\n"
	" var div=document.createElement('div');div.className='chart';div.id='chart-'+i;\n"
	" div.setAttribute('data-curve',c.name);box.appendChild(div);\n"
	" var m=0;c.v.forEach(function(v){if(v!=null&&Math.abs(v)>m)m=Math.abs(v);});\n"
	" var s=scale(c.unit,m);\n"
	" var y=new Array(c.v.length);for(var k=0;k<y.length;k++)"
	"y[k]=c.v[k]==null?null:c.v[k]/s.f;\n"
	" new uPlot({title:c.name+(s.u?' ['+s.u+']':''),width:W,height:200,\n"
	"  cursor:{sync:{key:sync.key},drag:{x:true,y:false}},scales:{x:{time:false}},\n"
	"  series:[{label:D.xlabel,value:function(u,v){return v==null?'-':v.toFixed(3);}},\n"
	"   {label:c.name,stroke:COL[i%10],width:1.25,value:function(u,v){return fmt(v)+"
	"(s.u?' '+s.u:'');}}],\n"
	"  axes:[{label:D.xlabel},{label:s.u,size:64}]},[D.x,y],div);\n"
	" n++;\n"
	"});\n"
	"document.documentElement.setAttribute('data-charts',String(n));\n"
	"document.documentElement.setAttribute('data-ready-ms',"
	"String(Math.round(performance.now())));\n"
	"document.documentElement.setAttribute('data-ready','1');\n"
	"})();\n";

/* The grid section's charts (write_grid): the Welch spectrum on log axes
 * with the band shaded and the dominant frequency marked, and the ramps
 * against the curves' time axis.  The spectrum's div records how many
 * points it drew (data-points) and <html> how many grid charts
 * (data-grid-charts). */
static const char *const GRID_JS =
	"(function(){\n"
	"var G=JSON.parse(document.getElementById('aiw-grid').textContent);\n"
	"var D=JSON.parse(document.getElementById('aiw-data').textContent);\n"
	"var box=document.getElementById('grid-charts'),n=0;\n"
	"var W=Math.min(960,Math.max(480,box.clientWidth||960));\n"
	"function e3(v){return v==null?'-':v.toPrecision(4);}\n"
	"if(G.f.length){\n"
	" var div=document.createElement('div');div.className='chart';div.id='grid-spectrum-chart';\n"
	" div.setAttribute('data-points',String(G.f.length));\n"
	" div.setAttribute('data-dominant',String(G.dominant));box.appendChild(div);\n"
	" var dom=[];for(var k=0;k<G.f.length;k++)dom.push(G.f[k]===G.dominant?G.psd[k]:null);\n"
	" new uPlot({title:'Welch power spectrum of site.power_w [W\\u00b2/Hz]; band '+G.band[0]+"
	"'-'+G.band[1]+' Hz shaded, dominant '+e3(G.dominant)+' Hz',width:W,height:260,\n"
	"  scales:{x:{time:false,distr:3},y:{distr:3}},\n"
	"  series:[{label:'frequency (Hz)',value:function(u,v){return e3(v);}},\n"
	"   {label:'PSD',stroke:'#1f77b4',width:1.25,value:function(u,v){return e3(v)+' W\\u00b2/Hz';}},\n"
	"   {label:'dominant',stroke:'#d62728',paths:function(){return null;},"
	"points:{show:true,size:9,fill:'#d62728'},value:function(u,v){return e3(v);}}],\n"
	"  axes:[{label:'frequency (Hz)'},{label:'W\\u00b2/Hz',size:72}],\n"
	"  hooks:{draw:[function(u){var c=u.ctx,b=u.bbox,L=b.left,R=b.left+b.width;\n"
	"   function px(x){return Math.max(L,Math.min(R,u.valToPos(x,'x',true)));}\n"
	"   var a=px(G.band[0]),z=px(G.band[1]);c.save();\n"
	"   if(z>a){c.fillStyle='rgba(255,127,14,0.15)';c.fillRect(a,b.top,z-a,b.height);}\n"
	"   if(G.dominant!=null){var d=px(G.dominant);c.strokeStyle='#d62728';c.setLineDash([4,4]);\n"
	"    c.beginPath();c.moveTo(d,b.top);c.lineTo(d,b.top+b.height);c.stroke();}\n"
	"   c.restore();}]}},[G.f,G.psd,dom],div);\n"
	" n++;\n"
	"}\n"
	"if(G.ramps.length){\n"
	" var div2=document.createElement('div');div2.className='chart';div2.id='grid-ramp-chart';\n"
	" box.appendChild(div2);var COL=['#1f77b4','#ff7f0e','#2ca02c'];\n"
	" var S=[{label:D.xlabel,value:function(u,v){return v==null?'-':v.toFixed(3);}}],Y=[D.x];\n"
	" G.ramps.forEach(function(r,i){S.push({label:r.label,stroke:COL[i%3],width:1.25,"
	"value:function(u,v){return e3(v)+' MW/min';}});Y.push(r.v);});\n"
	" new uPlot({title:'Ramp rate of site.power_w over each window [MW/min]',width:W,height:240,\n"
	"  cursor:{drag:{x:true,y:false}},scales:{x:{time:false}},series:S,\n"
	"  axes:[{label:D.xlabel},{label:'MW/min',size:64}]},Y,div2);\n"
	" n++;\n"
	"}\n"
	"document.documentElement.setAttribute('data-grid-charts',String(n));\n"
	"})();\n";

/* Errors of any kind, recorded where a headless browser's DOM dump shows
 * them. */
static const char *const ERROR_JS =
	"(function(){var E=[];function rec(m){E.push(String(m));"
	"document.documentElement.setAttribute('data-errors',E.join(' | '));}\n"
	"window.addEventListener('error',function(e){rec('error: '+(e.message||('resource '+"
	"((e.target&&(e.target.src||e.target.href))||e.type))));},true);\n"
	"window.addEventListener('unhandledrejection',function(e){rec('unhandled rejection: '+"
	"e.reason);});\n"
	"document.addEventListener('securitypolicyviolation',function(e){rec('refused by the "
	"content security policy: '+e.blockedURI);});\n"
	"var ce=console.error;console.error=function(){rec('console.error: '+"
	"Array.prototype.join.call(arguments,' '));return ce.apply(console,arguments);};\n"
	"})();\n";

void aiwi_html_num(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.6g", x);
	else
		fputs("n/a", f);
}

void aiwi_html_head(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"generator\" content=\"libaiworkload ",
	      f);
	aiwi_html_text(f, aiw_version_string());
	fputs("\">\n<title>", f);
	aiwi_html_text(f, title);
	fputs("</title>\n<script>", f);
	fputs(ERROR_JS, f);
	fputs("</script>\n<style>\n", f);
	fwrite(aiwi_uplot_css, 1, aiwi_uplot_css_len, f);
	fputs("\n", f);
	fputs(CSS, f);
	fputs("</style>\n<script>\n", f);
	fwrite(aiwi_uplot_js, 1, aiwi_uplot_js_len, f);
	fputs("\n</script>\n</head>\n<body>\n", f);
}

int aiwi_html_uplot_version_len(void)
{
	return (int)aiwi_uplot_version_len;
}

const char *aiwi_html_uplot_version(void)
{
	return (const char *)aiwi_uplot_version;
}

static void fmt_duration(char *buf, size_t len, double s)
{
	if (s >= 86400)
		snprintf(buf, len, "%.6g s (%.4g d)", s, s / 86400);
	else if (s >= 3600)
		snprintf(buf, len, "%.6g s (%.4g h)", s, s / 3600);
	else
		snprintf(buf, len, "%.6g s", s);
}

static void write_identity(FILE *f, aiw_sim *sim, size_t len)
{
	char seed[32] = "", buf[128];
	aiw_sim_get(sim, "sim.seed", seed, sizeof seed);
	double now = 0, si = NAN;
	aiw_sim_now(sim, &now);
	aiw_sim_get_double(sim, "sim.sample_interval", &si);
	fputs("<h2 id=\"identity\">Run</h2>\n<table id=\"identity-table\">\n", f);
	fputs("<tr><td>Library</td><td>libaiworkload ", f);
	aiwi_html_text(f, aiw_version_string());
	fputs("</td></tr>\n<tr><td>Seed</td><td>", f);
	aiwi_html_text(f, seed[0] ? seed : "0");
	fmt_duration(buf, sizeof buf, now);
	fputs("</td></tr>\n<tr><td>Simulated time</td><td>", f);
	aiwi_html_text(f, buf);
	fmt_duration(buf, sizeof buf, si);
	fprintf(f, "</td></tr>\n<tr><td>Sample interval</td><td>");
	aiwi_html_text(f, buf);
	fprintf(f, "</td></tr>\n<tr><td>Points per curve</td><td>%zu</td></tr>\n", len);
	fputs("<tr><td>Components</td><td>", f);
	for (size_t i = 0; i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		fputs(i ? ", " : "", f);
		aiwi_html_text(f, c->prefix);
		if (c->origin) {
			fputs(" <span class=\"note\">(", f);
			aiwi_html_text(f, c->origin);
			fputs(")</span>", f);
		}
	}
	fprintf(f, "</td></tr>\n<tr><td>Charts</td><td>uPlot %.*s (MIT), embedded</td></tr>\n"
	           "</table>\n",
	        (int)aiwi_uplot_version_len, (const char *)aiwi_uplot_version);
	/* the scenario: every parameter given (by a scenario file or a set),
	 * as INI; the others take their defaults */
	fputs("<h3>Scenario (the parameters given; the others are at their defaults)</h3>\n"
	      "<pre id=\"scenario\">",
	      f);
	char *val = malloc(4200);
	if (!val)
		return;
	for (size_t i = 0; i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		fprintf(f, "%s[", i ? "\n" : "");
		aiwi_html_text(f, c->kind->name);
		if (c->name[0]) {
			fputc(' ', f);
			aiwi_html_text(f, c->name);
		}
		fputs("]\n", f);
		for (size_t j = 0; j < c->kind->nparams; j++) {
			if (!c->v[j].given)
				continue;
			aiwi_value_format(&c->kind->params[j], &c->v[j], val, 4200);
			aiwi_html_text(f, c->kind->params[j].key);
			fputs(" = ", f);
			aiwi_html_text(f, val);
			fputc('\n', f);
		}
	}
	free(val);
	fputs("</pre>\n", f);
}

static void write_summary(FILE *f, aiw_sim *sim)
{
	size_t n = 0;
	aiw_sim_metric_count(sim, &n);
	fputs("<h2 id=\"summary\">Summary</h2>\n<table id=\"summary-table\">\n"
	      "<tr><th>Figure</th><th>Value</th><th>Metric</th></tr>\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		const char *name;
		if (aiw_sim_metric_name(sim, i, &name) == AIW_OK)
			metric_row(f, sim, name, NULL);
	}
	fputs("</table>\n", f);
}

static void write_power(FILE *f, aiw_sim *sim)
{
	double v;
	if (!metric(sim, "site", "power_peak_w", &v))
		return;
	static const char *const SITE[][2] = {
		{"facility_power_peak_w", "Facility power peak (IT x PUE)"},
		{"power_peak_w", "Site IT power peak"},
		{"sum_of_peaks_w", "Sum of the components' IT peaks"},
		{"diversity_factor", "Diversity factor (sum of component peaks / site peak)"},
		{"sum_of_rack_peaks_w", "Sum of the racks' peaks"},
		{"rack_diversity_factor", "Rack diversity factor (sum of rack peaks / site peak)"},
		{"racks", "Racks"},
		{"rows", "Rows (site.racks_per_row)"},
		{"sum_of_row_peaks_w", "Sum of the rows' peaks"},
		{"diversity_racks_in_rows", "Diversity of racks in rows (sum of rack peaks / sum of row peaks)"},
		{"halls", "Halls"},
		{"sum_of_hall_peaks_w", "Sum of the halls' peaks"},
		{"diversity_rows_in_halls", "Diversity of rows in halls (sum of row peaks / sum of hall peaks)"},
		{"diversity_halls_in_site", "Diversity of halls in the site (sum of hall peaks / site peak)"},
		{"rack_peaks_to_nameplate", "Sum of rack peaks / nameplate"},
		{"row_peaks_to_nameplate", "Sum of row peaks / nameplate"},
		{"hall_peaks_to_nameplate", "Sum of hall peaks / nameplate"},
		{"site_peak_to_nameplate", "Site peak / nameplate"},
		{"power_mean_w", "Site IT power (mean)"},
		{"load_factor", "Load factor (mean / peak)"},
		{"provisioned_power_w", "Provisioned power"},
		{"nameplate_power_w", "IT nameplate"},
		{"facility_nameplate_power_w", "Facility nameplate"},
	};
	fputs("<h2 id=\"power\">Power hierarchy and diversity</h2>\n<table id=\"power-table\">\n"
	      "<tr><th>Level</th><th>Value</th><th>Metric</th></tr>\n",
	      f);
	char name[512];
	for (size_t k = 0; k < sizeof SITE / sizeof *SITE; k++) {
		snprintf(name, sizeof name, "site.%s", SITE[k][0]);
		metric_row(f, sim, name, SITE[k][1]);
	}
	for (size_t i = 0; i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		if (aiwi_kind_is(c->kind, AIWI_KIND_SINGLETON))
			continue;
		char label[512];
		snprintf(name, sizeof name, "%s.power_peak_w", c->prefix);
		snprintf(label, sizeof label, "Component %s: IT power peak", c->prefix);
		metric_row(f, sim, name, label);
	}
	fputs("</table>\n", f);
}

static void write_latency(FILE *f, aiw_sim *sim)
{
	static const char *const LAT[][2] = {{"ttft", "Time to first token"},
	                                     {"tpot", "Time per output token"},
	                                     {"e2e", "End to end"},
	                                     {"queue_wait", "Queue wait"}};
	static const char *const STAT[] = {"p50", "p95", "p99", "mean", "max"};
	static const char *const SLO[][2] = {
		{"slo_attainment", "SLO attainment (all limits)"},
		{"slo_ttft_attainment", "TTFT limit met"},
		{"slo_tpot_attainment", "TPOT limit met"},
		{"slo_e2e_attainment", "End-to-end limit met"},
		{"requests_arrived", "Requests arrived"},
		{"requests_completed", "Requests completed"},
		{"requests_dropped", "Requests dropped"},
		{"goodput_rps", "Goodput"},
		{"throughput_rps", "Throughput"},
	};
	bool head = false;
	char name[512];
	for (size_t i = 0; i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		double v;
		if (!metric(sim, c->prefix, "ttft_p99_s", &v))
			continue;
		if (!head)
			fputs("<h2 id=\"latency\">Latency and SLO attainment</h2>\n", f);
		head = true;
		fputs("<h3>", f);
		aiwi_html_text(f, c->prefix);
		fputs("</h3>\n<table class=\"latency-table\" data-component=\"", f);
		aiwi_html_text(f, c->prefix);
		fputs("\">\n<tr><th>Latency (s)</th>", f);
		for (size_t s = 0; s < sizeof STAT / sizeof *STAT; s++)
			fprintf(f, "<th>%s</th>", STAT[s]);
		fputs("</tr>\n", f);
		for (size_t l = 0; l < sizeof LAT / sizeof *LAT; l++) {
			fprintf(f, "<tr><td>%s</td>", LAT[l][1]);
			for (size_t s = 0; s < sizeof STAT / sizeof *STAT; s++) {
				char key[64];
				snprintf(key, sizeof key, "%s_%s_s", LAT[l][0], STAT[s]);
				if (metric(sim, c->prefix, key, &v) && isfinite(v))
					fprintf(f, "<td class=\"num\">%.4g</td>", v);
				else
					fputs("<td class=\"num\">n/a</td>", f);
			}
			fputs("</tr>\n", f);
		}
		fputs("</table>\n<table class=\"slo-table\" data-component=\"", f);
		aiwi_html_text(f, c->prefix);
		fputs("\">\n", f);
		for (size_t k = 0; k < sizeof SLO / sizeof *SLO; k++) {
			snprintf(name, sizeof name, "%s.%s", c->prefix, SLO[k][0]);
			metric_row(f, sim, name, SLO[k][1]);
		}
		fputs("</table>\n", f);
	}
}

static void write_training(FILE *f, aiw_sim *sim)
{
	static const char *const PART[][2] = {
		{"compute_s", "Compute"},
		{"exposed_comm_s", "Exposed communication"},
		{"straggler_wait_s", "Waiting for stragglers"},
		{"checkpoint_s", "Checkpoints"},
		{"lost_s", "Work lost to failures"},
		{"restart_s", "Restarts"},
	};
	static const char *const MORE[][2] = {
		{"goodput", "Goodput (useful compute / wall)"},
		{"ettr", "Effective training time ratio"},
		{"mfu_achieved", "Model FLOPs utilisation"},
		{"straggler_slowdown", "Straggler slowdown"},
		{"step_time_mean_s", "Step time (mean)"},
		{"step_time_p99_s", "Step time (P99)"},
		{"failures", "Failures"},
		{"checkpoints", "Checkpoints"},
		{"steps", "Steps"},
	};
	bool head = false;
	char name[512];
	for (size_t i = 0; i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		double wall;
		if (!metric(sim, c->prefix, "wall_s", &wall) || !metric(sim, c->prefix, "compute_s", &wall))
			continue;
		metric(sim, c->prefix, "wall_s", &wall);
		if (!head)
			fputs("<h2 id=\"training\">Training time breakdown</h2>\n", f);
		head = true;
		fputs("<h3>", f);
		aiwi_html_text(f, c->prefix);
		fputs("</h3>\n<table class=\"training-table\" data-component=\"", f);
		aiwi_html_text(f, c->prefix);
		fputs("\">\n<tr><th>Part of the wall time</th><th>Time (s)</th><th>Share</th><th></th>"
		      "</tr>\n",
		      f);
		for (size_t k = 0; k < sizeof PART / sizeof *PART; k++) {
			double v;
			if (!metric(sim, c->prefix, PART[k][0], &v))
				continue;
			double share = wall > 0 && isfinite(v) ? v / wall : NAN;
			fprintf(f, "<tr><td>%s</td><td class=\"num\">%.6g</td>", PART[k][1], v);
			if (isfinite(share))
				fprintf(f,
				        "<td class=\"num\">%.2f %%</td><td><span class=\"bar\" "
				        "style=\"width:%.1fpx\"></span></td></tr>\n",
				        share * 100, fmax(0, fmin(1, share)) * 300);
			else
				fputs("<td class=\"num\">n/a</td><td></td></tr>\n", f);
		}
		fprintf(f, "<tr><th>Wall time</th><th class=\"num\">%.6g</th><th></th><th></th></tr>\n",
		        wall);
		for (size_t k = 0; k < sizeof MORE / sizeof *MORE; k++) {
			snprintf(name, sizeof name, "%s.%s", c->prefix, MORE[k][0]);
			double v;
			if (aiw_sim_metric(sim, name, &v) != AIW_OK)
				continue;
			const aiwi_metric_def *d = metric_def(name);
			char val[96];
			fmt_value(val, sizeof val, v, d ? d->unit : "1", d ? d->flags : 0);
			fprintf(f, "<tr><td>%s</td><td class=\"num\">", MORE[k][1]);
			aiwi_html_text(f, val);
			fputs("</td><td colspan=\"2\"><code>", f);
			aiwi_html_text(f, name);
			fputs("</code></td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}
}

static void write_costs(FILE *f, aiw_sim *sim)
{
	size_t n = 0;
	aiw_sim_metric_count(sim, &n);
	bool head = false;
	for (size_t i = 0; i < n; i++) {
		const char *name;
		if (aiw_sim_metric_name(sim, i, &name) != AIW_OK)
			continue;
		const aiwi_metric_def *d = metric_def(name);
		if (!d || strcmp(d->unit, "USD") != 0)
			continue;
		if (!head)
			fputs("<h2 id=\"costs\">Costs</h2>\n<table id=\"costs-table\">\n"
			      "<tr><th>Cost</th><th>Value</th><th>Metric</th></tr>\n",
			      f);
		head = true;
		metric_row(f, sim, name, NULL);
	}
	if (head)
		fputs("</table>\n", f);
}

/* A number for a test to read back: the value as the JSON summary
 * writes it (%.17g), NaN and infinities as the summary's text. */
static void data_value(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, " data-value=\"%.17g\"", v);
	else
		fprintf(f, " data-value=\"%s\"", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

/* A cell of a metric's value in the grid tables: formatted, with the
 * exact value and the metric's name as attributes; "n/a" when the run
 * has no such metric. */
static void grid_cell(FILE *f, aiw_sim *sim, const char *key, double scale, const char *fmt)
{
	char name[128], val[96];
	double v;
	snprintf(name, sizeof name, "site.%s", key);
	if (aiw_sim_metric(sim, name, &v) != AIW_OK) {
		fputs("<td class=\"num\">n/a</td>", f);
		return;
	}
	fprintf(f, "<td class=\"num\" data-metric=\"%s\"", name);
	if (scale != 1)
		fprintf(f, " data-scale=\"%g\"", scale);
	data_value(f, v);
	fputc('>', f);
	if (!fmt) {
		const aiwi_metric_def *d = metric_def(name);
		fmt_value(val, sizeof val, v, d ? d->unit : "1", d ? d->flags : 0);
	} else if (isfinite(v)) {
		snprintf(val, sizeof val, fmt, v * scale);
	} else {
		snprintf(val, sizeof val, "n/a");
	}
	aiwi_html_text(f, val);
	fputs("</td>", f);
}

/* A number in a chart's data as the JSON summary writes it (%.17g), so
 * the page holds the library's figures exactly; null when not finite. */
static void js_exact(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.17g", x);
	else
		fputs("null", f);
}

/* Curve values in buckets of b points: every point when b = 1, else the
 * minimum and maximum of each bucket in the order they occur (as the
 * curves' chart data). */
static void write_bucketed(FILE *f, const double *v, size_t len, size_t b)
{
	for (size_t k = 0; k < len; k += b) {
		size_t e = k + b < len ? k + b : len;
		if (k)
			fputc(',', f);
		if (b == 1 || e - k == 1) {
			aiwi_html_js_num(f, v[k]);
			continue;
		}
		size_t lo = k, hi = k;
		bool any = false;
		for (size_t j = k; j < e; j++) {
			if (!isfinite(v[j]))
				continue;
			if (!any || v[j] < v[lo])
				lo = j;
			if (!any || v[j] > v[hi])
				hi = j;
			any = true;
		}
		if (!any) {
			fputs("null,null", f);
			continue;
		}
		aiwi_html_js_num(f, v[lo < hi ? lo : hi]);
		fputc(',', f);
		aiwi_html_js_num(f, v[lo < hi ? hi : lo]);
	}
}

/* The grid section (site.grid = on, doc/grid.md): the ramp statistics
 * per window, the largest steps and the deepest drop, the spectrum's
 * figures, and two charts: the Welch spectrum (log axes, the band shaded,
 * the dominant frequency marked) and the ramp rate over each window along
 * the kept points of site.power_w.  Nothing is written with the
 * statistics off. */
/* True when the run kept the grid statistics (site.grid = on): the site
 * published them.  The report is a driver: it reads the statistics
 * through the public interface (the metrics, aiw_sim_grid_spectrum). */
static bool grid_on(aiw_sim *sim)
{
	double v;
	return aiw_sim_metric(sim, "site.grid_spectrum_segments", &v) == AIW_OK;
}

/* Samples in a window of w seconds at the sample interval dt, as the
 * statistics take it (doc/grid.md): k = max(1, round(w / dt)). */
static size_t grid_lag(double w, double dt)
{
	double k = round(w / dt);
	return k >= 1 ? (size_t)k : 1;
}

enum { GRID_WINDOWS = 3 };

static void write_grid(FILE *f, aiw_sim *sim, aiwi_recorder *r, size_t len)
{
	if (!grid_on(sim))
		return;
	double dt = NAN, lo = NAN, hi = NAN, dw = NAN, df = NAN;
	size_t nb = 0;
	double *psd = NULL, *freq = NULL;
	if (aiw_sim_grid_spectrum(sim, NULL, NULL, 0, &nb) == AIW_OK && nb > 1) {
		psd = malloc(nb * sizeof *psd);
		freq = malloc(nb * sizeof *freq);
		if (!psd || !freq || aiw_sim_grid_spectrum(sim, freq, psd, nb, &nb) != AIW_OK) {
			free(psd);
			free(freq);
			psd = freq = NULL;
		} else {
			df = freq[1];
		}
	}
	aiw_sim_get_double(sim, "sim.sample_interval", &dt);
	aiw_sim_get_double(sim, "site.grid_band_low", &lo);
	aiw_sim_get_double(sim, "site.grid_band_high", &hi);
	aiw_sim_get_double(sim, "site.grid_drop_window", &dw);
	fputs("<h2 id=\"grid\">The site as the grid sees it</h2>\n"
	      "<p class=\"note\">Statistics of the site's sampled IT power curve (site.power_w, "
	      "interval averages), computed as the run went (site.grid = on; doc/grid.md).  "
	      "1 MW/min = 16,667 W/s.</p>\n"
	      "<h3>Ramps</h3>\n<table id=\"grid-ramps\">\n<tr><th>Window</th><th>Lag (samples)</th>"
	      "<th>Max (W/s)</th><th>Max (MW/min)</th><th>P99 (W/s)</th><th>P99 (MW/min)</th></tr>\n",
	      f);
	for (int i = 0; i < GRID_WINDOWS; i++) {
		char key[64], buf[64];
		double w = NAN;
		snprintf(key, sizeof key, "site.grid_ramp_window_%d", i + 1);
		aiw_sim_get_double(sim, key, &w);
		fmt_duration(buf, sizeof buf, w);
		fprintf(f, "<tr data-window=\"%d\"><td>", i + 1);
		aiwi_html_text(f, buf);
		fprintf(f, "</td><td class=\"num\">%zu</td>", grid_lag(w, dt));
		snprintf(key, sizeof key, "grid_ramp_%d_max_w_per_s", i + 1);
		grid_cell(f, sim, key, 1, NULL);
		grid_cell(f, sim, key, 6e-5, "%.4g");
		snprintf(key, sizeof key, "grid_ramp_%d_p99_w_per_s", i + 1);
		grid_cell(f, sim, key, 1, NULL);
		grid_cell(f, sim, key, 6e-5, "%.4g");
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<h3>Load steps and drops</h3>\n<table id=\"grid-steps\">\n"
	      "<tr><th>Figure</th><th>Value</th><th>When / count</th></tr>\n"
	      "<tr><td>Largest step up (between two samples)</td>",
	      f);
	grid_cell(f, sim, "grid_step_up_max_w", 1, NULL);
	grid_cell(f, sim, "grid_step_up_time_s", 1, "at %.6g s");
	fputs("</tr>\n<tr><td>Largest step down</td>", f);
	grid_cell(f, sim, "grid_step_down_max_w", 1, NULL);
	grid_cell(f, sim, "grid_step_down_time_s", 1, "at %.6g s");
	fputs("</tr>\n<tr><td>Deepest drop below the highest of the ", f);
	aiwi_html_num(f, dw);
	fprintf(f, " s before (%zu samples)</td>", grid_lag(dw, dt));
	grid_cell(f, sim, "grid_drop_max_fraction", 1, NULL);
	double v;
	if (aiw_sim_metric(sim, "site.grid_drop_events", &v) == AIW_OK)
		grid_cell(f, sim, "grid_drop_events", 1, "%.0f events");
	else
		fputs("<td class=\"note\">events: set site.grid_drop_fraction</td>", f);
	fputs("</tr>\n</table>\n<h3>Spectrum</h3>\n<table id=\"grid-spectrum\">\n"
	      "<tr><th>Figure</th><th>Value</th></tr>\n<tr><td>Welch segments averaged</td>",
	      f);
	grid_cell(f, sim, "grid_spectrum_segments", 1, NULL);
	fputs("</tr>\n<tr><td>Band ", f);
	aiwi_html_num(f, lo);
	fputs("-", f);
	aiwi_html_num(f, hi);
	fputs(" Hz: share of the fluctuation power</td>", f);
	grid_cell(f, sim, "grid_band_share", 1, NULL);
	fputs("</tr>\n<tr><td>Band RMS swing</td>", f);
	grid_cell(f, sim, "grid_band_rms_w", 1, NULL);
	fputs("</tr>\n<tr><td>Dominant frequency (highest bin above 0 Hz)</td>", f);
	grid_cell(f, sim, "grid_dominant_frequency_hz", 1, "%.6g Hz");
	fprintf(f, "</tr>\n<tr><td>Bin spacing</td><td class=\"num\">%.6g Hz</td></tr>\n</table>\n",
	        df);
	/* the charts' data: bins 1 .. n/2 (0 Hz has no place on a log axis;
	 * an empty bin is null there) and each window's signed ramp */
	fputs("<div id=\"grid-charts\"></div>\n<script type=\"application/json\" id=\"aiw-grid\">{",
	      f);
	/* past HTML_MAX_POINTS bins (segments above 16,384 samples), the
	 * highest bin of each run of sb bins, so the file stays bounded and
	 * the peaks stay drawn */
	size_t nk = psd && nb > 1 ? nb - 1 : 0;
	size_t sb = nk > HTML_MAX_POINTS ? (nk + HTML_MAX_POINTS - 1) / HTML_MAX_POINTS : 1;
	for (int pass = 0; pass < 2; pass++) {
		fputs(pass ? "],\"psd\":[" : "\"f\":[", f);
		for (size_t k = 1; k <= nk; k += sb) {
			size_t best = k;
			for (size_t j = k; j < k + sb && j <= nk; j++)
				if (psd[j] > psd[best])
					best = j;
			fputs(k > 1 ? "," : "", f);
			js_exact(f, pass ? (psd[best] > 0 ? psd[best] : NAN) : freq[best]);
		}
	}
	double fd = NAN;
	aiw_sim_metric(sim, "site.grid_dominant_frequency_hz", &fd);
	fputs("],\"band\":[", f);
	aiwi_html_js_num(f, lo);
	fputc(',', f);
	aiwi_html_js_num(f, hi);
	fputs("],\"dominant\":", f);
	js_exact(f, fd);
	fputs(",\"ramps\":[", f);
	/* the ramps along the kept curve, as the statistics take them:
	 * (P_j - P_(j-k)) / (t_j - t_(j-k)), signed, in MW/min */
	const double *t = aiwi_rec_times(r), *p = NULL;
	for (size_t i = 0; i < aiwi_rec_count(r); i++)
		if (!strcmp(aiwi_rec_name(r, i), "site.power_w"))
			p = aiwi_rec_values(r, i);
	double *rr = p && len ? malloc(len * sizeof *rr) : NULL;
	size_t b = len > HTML_MAX_POINTS ? (len + HTML_MAX_POINTS / 2 - 1) / (HTML_MAX_POINTS / 2) : 1;
	for (int i = 0; rr && i < GRID_WINDOWS; i++) {
		double w = NAN;
		char key[64], buf[64];
		snprintf(key, sizeof key, "site.grid_ramp_window_%d", i + 1);
		aiw_sim_get_double(sim, key, &w);
		size_t k = grid_lag(w, dt);
		for (size_t j = 0; j < len; j++) {
			double span = j >= k ? t[j] - t[j - k] : NAN;
			rr[j] = span > 0 ? (p[j] - p[j - k]) / span * 6e-5 : NAN;
		}
		snprintf(buf, sizeof buf, "%.6g s window", w);
		fputs(i ? ",{\"label\":" : "{\"label\":", f);
		aiwi_html_js_str(f, buf);
		fputs(",\"v\":[", f);
		write_bucketed(f, rr, len, b);
		fputs("]}", f);
	}
	free(rr);
	fputs("]}</script>\n", f);
	if (!psd)
		fputs("<p class=\"note\" id=\"grid-no-spectrum\">No Welch segment was complete: the run "
		      "is shorter than site.grid_welch_segment samples.</p>\n",
		      f);
	free(psd);
	free(freq);
}

static void write_data(FILE *f, aiw_sim *sim, aiwi_recorder *r, size_t len)
{
	size_t ns = aiwi_rec_count(r);
	const double *t = aiwi_rec_times(r);
	double end = len ? t[len - 1] : 0;
	double div = end > 4 * 86400 ? 86400 : end > 3 * 3600 ? 3600 : end > 180 ? 60 : 1;
	const char *xl = div == 86400 ? "time (d)" : div == 3600 ? "time (h)"
	                 : div == 60  ? "time (min)" : "time (s)";
	/* buckets of b points past HTML_MAX_POINTS: two points each */
	size_t b = len > HTML_MAX_POINTS ? (len + HTML_MAX_POINTS / 2 - 1) / (HTML_MAX_POINTS / 2) : 1;
	fputs("<script type=\"application/json\" id=\"aiw-data\">{\"xlabel\":", f);
	aiwi_html_js_str(f, xl);
	fprintf(f, ",\"bucket\":%zu,\"x\":[", b);
	for (size_t k = 0; k < len; k += b) {
		size_t e = k + b < len ? k + b : len;
		if (k)
			fputc(',', f);
		aiwi_html_js_num(f, t[k] / div);
		if (b > 1 && e - k > 1) {
			fputc(',', f);
			aiwi_html_js_num(f, t[k + (e - k) / 2] / div);
		}
	}
	fputs("],\"curves\":[", f);
	for (size_t i = 0; i < ns; i++) {
		const double *v = aiwi_rec_values(r, i);
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", f);
		aiwi_html_js_str(f, aiwi_rec_name(r, i));
		fputs(",\"unit\":", f);
		const char *u = aiwi_rec_unit(r, i);
		aiwi_html_js_str(f, *u ? u : "1");
		fputs(",\"v\":[", f);
		write_bucketed(f, v, len, b);
		fputs("]}", f);
	}
	fputs("]}</script>\n", f);
	(void)sim;
}

AIW_EXPORT aiw_status aiw_sim_write_html(aiw_sim *sim, const char *path)
{
	if (!sim)
		return AIW_EINVAL;
	if (!path)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_write_html: path is NULL");
	if (!path[0])
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_write_html: path is empty");
	aiwi_recorder *r = aiwi_sim_recorder(sim);
	size_t len = aiwi_rec_length(r);
	if (len == 0)
		return aiwi_err(sim, AIW_ESTATE, "aiw_sim_write_html: no curves yet (run first)");
	FILE *f = fopen(path, "w");
	if (!f)
		return aiwi_err(sim, AIW_EIO, "aiw_sim_write_html: cannot write '%s': %s", path,
		                strerror(errno));
	aiwi_html_head(f, "libaiworkload report");
	fputs("<h1>libaiworkload report</h1>\n"
	      "<nav><a href=\"#identity\">Run</a><a href=\"#summary\">Summary</a>"
	      "<a href=\"#power\">Power</a><a href=\"#latency\">Latency</a>"
	      "<a href=\"#training\">Training</a><a href=\"#costs\">Costs</a>",
	      f);
	if (grid_on(sim))
		fputs("<a href=\"#grid\">Grid</a>", f);
	fputs("<a href=\"#charts-title\">Curves</a></nav>\n", f);
	write_identity(f, sim, len);
	size_t nw = 0;
	aiw_sim_warning_count(sim, &nw);
	if (nw) {
		fputs("<h2 id=\"warnings\">Warnings</h2>\n<ul>\n", f);
		for (size_t i = 0; i < nw; i++) {
			const char *text = "";
			aiw_sim_warning(sim, i, &text);
			fputs("<li>", f);
			aiwi_html_text(f, text);
			fputs("</li>\n", f);
		}
		fputs("</ul>\n", f);
	}
	write_power(f, sim);
	write_latency(f, sim);
	write_training(f, sim);
	write_costs(f, sim);
	write_grid(f, sim, r, len);
	write_summary(f, sim);
	fprintf(f,
	        "<h2 id=\"charts-title\">Curves</h2>\n<p class=\"note\">Every curve of the run, "
	        "the site's first, one point per sample interval (the interval's average)%s.  Hover for values "
	        "(the cursors move together); drag to zoom, double-click to reset.</p>\n"
	        "<div id=\"charts\" data-expected=\"%zu\"></div>\n",
	        len > HTML_MAX_POINTS ? "; curves longer than the page shows are drawn as the "
	                                "minimum and maximum of each bucket of points"
	                              : "",
	        aiwi_rec_count(r));
	write_data(f, sim, r, len);
	fputs("<script>\n", f);
	fputs(CHART_JS, f);
	if (grid_on(sim)) {
		fputs("</script>\n<script>\n", f);
		fputs(GRID_JS, f);
	}
	fputs("</script>\n</body>\n</html>\n", f);
	int e = ferror(f) ? (errno ? errno : EIO) : 0;
	if (fclose(f) != 0 && !e)
		e = errno ? errno : EIO;
	if (e)
		return aiwi_err(sim, AIW_EIO, "error writing '%s': %s", path, strerror(e));
	return AIW_OK;
}
