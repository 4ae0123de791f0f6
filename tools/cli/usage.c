/*
 * usage.c - the general usage text of `aiworkload`, printed by `--help` and
 * by `run --help` (kept apart from main.c so the command sources link
 * without it, as the command-line fuzz harness does).
 */
#include "common.h"

void cli_usage(FILE *f)
{
	fprintf(f,
	        "usage: aiworkload [run] [SCENARIO.ini ...] [options]\n"
	        "       aiworkload plot [SCENARIO.ini ...] -o FILE.svg [options]\n"
	        "       aiworkload sweep SCENARIO.ini --set NAME=V1,V2,... [options]\n"
	        "       aiworkload params [PATTERN] [--man]\n"
	        "       aiworkload catalog [GPU|LINK]\n"
	        "       aiworkload scenario\n"
	        "       aiworkload autoscale-replay --policy hpa|kpa [--set K=V] METRICS.csv\n"
	        "                 [--out FILE.csv]\n"
	        "       aiworkload calibrate FILE.csv [--gpu G] [--out SNIPPET.ini [--component NAME]]\n"
	        "                 [--set NAME=VALUE] [--hold PHASE.TERM]\n"
	        "       aiworkload capacity [--ttft-p99 S] [--tpot-p99 S] [--component NAME]\n"
	        "                 SCENARIO.ini\n"
	        "       aiworkload --help | --version\n"
	        "\n"
	        "Simulate AI training and inference on one discrete-event clock and report\n"
	        "power, utilisation, latency and cost.  Without a scenario, run the built-in\n"
	        "mixed site (print it with `aiworkload scenario`).\n"
	        "\n"
	        "run and plot options:\n"
	        "  --set NAME=VALUE     set a parameter (site.pue=1.2, training.pretrain.gpus=2048)\n"
	        "                       of a component the scenario declares\n"
	        "  --add KIND.NAME      create a component (inference.chat2) for --set to configure\n"
	        "  --seed N             sim.seed\n"
	        "  --duration D         sim.duration (90d, 36h, 15min)\n"
	        "  --sample-interval D  sim.sample_interval (resolution of curves and peaks)\n"
	        "  --summary FORMAT     text (key figures, default), full (every metric), json\n"
	        "                       or none, on standard output\n"
	        "  --series FILE.csv    every curve, one column each, units in the header\n"
	        "  --stream-csv FILE    the same CSV, written as the run goes; keeps only the\n"
	        "                       last %d points of each curve in memory (unless the\n"
	        "                       scenario or --set gives sim.series_keep, or --series,\n"
	        "                       --promtest or --plot needs the whole curves)\n"
	        "  --json FILE.json     summary metrics, parameters and run metadata\n"
	        "  --metrics FILE.prom  Prometheus text exposition of the final metrics\n"
	        "  --promtest FILE.yml  the curves as `promtool test rules` input series\n"
	        "  --rules FILES        rule files the --promtest file lists (comma-separated)\n"
	        "  --plot FILE.svg      chart: site power, power by component, utilisation\n"
	        "  -o, --output FILE    (plot) the SVG to write\n"
	        "  --title TEXT         title of the chart\n"
	        "  --progress, --no-progress\n"
	        "                       progress bar on standard error (default: when it is a\n"
	        "                       terminal)\n"
	        "\n"
	        "params options:\n"
	        "  PATTERN              substring or shell pattern of parameter names\n"
	        "  --man                the aiworkload-params(7) manual page, generated\n"
	        "\n"
	        "Exit status: 0 success, 2 bad usage or invalid scenario, 1 other failure.\n"
	        "`aiworkload COMMAND --help` describes each command (sweep, calibrate,\n"
	        "capacity, autoscale-replay, ...).  See aiworkload(1),\n"
	        "aiworkload-scenario(5), aiworkload-params(7).\n",
	        STREAM_KEEP);
}
