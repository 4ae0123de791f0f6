/*
 * common.h - what the commands of aiworkload share: messages and exit
 * statuses, option values, number formatting, metric names, the built-in
 * scenario, the summary table and each command's entry point.
 *
 *   main.c      dispatch, --help, --version
 *   run.c       run and plot (plot is run writing an SVG, no summary)
 *   summary.c   the summary table and the metric descriptions (aiw_metric_info)
 *   params.c    params and params --man (aiworkload-params(7))
 *   catalog.c   catalog
 *   scenario.c  the built-in default scenario and `aiworkload scenario`
 *   calibrate.c calibrate (measured serving times, aiw_profile_*)
 *   capacity.c  capacity (offline and server capacity, aiw_inference_capacity)
 *   plan.c      plan (the serving plan, aiw_plan_*)
 *   sweep.c     sweep (shared with tools/aiworkload-mpi.c through sweep.h)
 *   common.c    the helpers declared here: the option parser of every
 *               command, the outputs-against-inputs check, formatting
 *
 * Exit status: 0 success, 2 bad usage or invalid scenario (the message names
 * file:line or the parameter), 1 any other failure (I/O, memory, limits).
 * Everything here goes through the public API only.
 */
#ifndef AIW_CLI_COMMON_H
#define AIW_CLI_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include "aiworkload.h"

#define EXIT_USAGE 2
#define EXIT_FAIL 1

/* Points of each curve --stream-csv keeps in memory (sim.series_keep): an
 * hour at the default 1-minute interval, whatever the duration. */
#define STREAM_KEEP 60

/* Name in messages. */
extern const char *cli_prog;

/* "aiworkload: MESSAGE" on standard error. */
void cli_errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, then a pointer to --help; returns EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Invalid input (parameters, scenario text, ranges) is a usage error (2);
 * everything else (memory, I/O, limits reached while running) is 1. */
int cli_exit_code(aiw_status st);

/* The one option parser of every command (cli_parse_options).
 *
 * An option with a value is written "--opt VALUE" or "--opt=VALUE"; one
 * that takes a single value (CLI_OPT_ONE) and is given twice is refused,
 * since which one was meant cannot be known; a repeatable one (CLI_OPT_MANY,
 * --set) keeps every value in order.  A flag (CLI_OPT_FLAG) stores the name
 * given; flags sharing one value pointer (--progress, --no-progress) are one
 * option.  "--" ends the options; "-" is an operand.  --help or -h stops the
 * parse (*help set) unless an error came before it. */
typedef enum cli_opt_kind { CLI_OPT_ONE, CLI_OPT_MANY, CLI_OPT_FLAG } cli_opt_kind;
typedef struct cli_opt {
	const char *names; /* "--plot|--output|-o": the first names it in messages */
	cli_opt_kind kind;
	const char **value; /* ONE: the value; FLAG: the name given (NULL: absent) */
	const char **list;  /* MANY: the values in command-line order (room for argc) */
	size_t *n;          /* MANY: their count */
} cli_opt;
/* Who parses: messages read "PROG CMD: ..." then "Try 'PROG CMD --help'."
 * (cmd NULL: "PROG: ..." and "Try 'PROG --help'."); quiet prints nothing. */
typedef struct cli_cmd {
	const char *prog, *cmd;
	bool quiet;
} cli_cmd;
/* Parse argv[first..argc-1] against opts; the operands go to ops (room for
 * argc), their count to *nops.  Returns 0 or EXIT_USAGE with the message
 * printed; touches no file. */
int cli_parse_options(const cli_cmd *who, int argc, char **argv, int first, const cli_opt *opts,
                      size_t nopts, const char **ops, size_t *nops, bool *help);
/* A usage error of who: the message and the pointer to its --help;
 * returns EXIT_USAGE. */
int cli_cmd_usage_error(const cli_cmd *who, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Files a command reads or writes, for cli_check_outputs: what names each
 * in messages ("--series", "the scenario", "the file inference.chat.profile
 * names"; copied), path is the caller's (argv, or a simulation's strings
 * while it lives). */
typedef struct cli_file {
	char *what;
	const char *path;
} cli_file;
typedef struct cli_files {
	cli_file *v;
	size_t n, cap;
} cli_files;
/* Append one file (path NULL: nothing); 0 or EXIT_FAIL out of memory. */
int cli_files_add(cli_files *l, const char *what, const char *path);
/* Append the files sim's parameters name (aiw_sim_input). */
int cli_files_add_sim(cli_files *l, aiw_sim *sim);
void cli_files_free(cli_files *l);
/* Outputs that would overwrite an input or each other (cli_same_file: by
 * device and inode, through any spelling or link): refused before anything
 * is written.  0 or EXIT_USAGE with the message. */
int cli_check_outputs(const cli_cmd *who, const cli_files *out, const cli_files *in);

bool cli_ends_with(const char *s, const char *suffix);
/* 1234567.8 -> "1,234,568" */
void cli_fmt_group(char *buf, size_t len, double x, int decimals);
/* 0.25 -> "250 ms", 7200 -> "2 h" */
void cli_fmt_duration(char *buf, size_t len, double s);
/* Seconds from a to b. */
double cli_elapsed(const struct timespec *a, const struct timespec *b);

/* "training.pretrain.goodput" -> kind, component name, key (site and sim
 * have no component name). */
void cli_split_metric(const char *full, char *kind, size_t kl, char *comp, size_t cl,
                      const char **key);

/* summary.c: --stream-csv's per-curve sums, from which the summary takes
 * time averages when the curves keep only their last points. */
typedef struct cli_stream {
	FILE *f;
	bool header;
	size_t n;           /* curves */
	double *sum, *span; /* per curve: integral of its finite points and their
	                       time span, for the summary's time averages (the
	                       curves keep only their last points in memory) */
	double last_t;
	bool oom;
} cli_stream;

/* The summary table on standard output; label names the scenario. */
void cli_print_summary(aiw_sim *sim, const char *label, double wall, bool full,
                       const cli_stream *s);
/* One-line description of a metric (kind "training", key "goodput"), NULL
 * when the table has none. */
const char *cli_metric_doc(const char *kind, const char *key);

/* Paths naming the same file: the same device and inode when both exist
 * (through any spelling, link or symbolic link), else the same directory
 * and name.  Files other than regular ones (/dev/null, a terminal, a pipe)
 * are never "the same": writing one twice destroys nothing. */
bool cli_same_file(const char *a, const char *b);
/* fclose(f) of the output file path; 0, or EXIT_FAIL with "error writing
 * 'PATH': REASON" when it or an earlier write failed. */
int cli_close_output(FILE *f, const char *path);
/* Standard output flushed; 0, or EXIT_FAIL with "error writing standard
 * output: REASON". */
int cli_flush_stdout(void);
/* A library call that failed with st and message msg: the message, with
 * the system's reason err (errno right after the call) when st is AIW_EIO
 * and the message gives none. */
void cli_lib_error(const char *msg, aiw_status st, int err);

/* Whether sim has the component kind.name (name "" for sim and site). */
bool cli_has_component(aiw_sim *sim, const char *kind, const char *name);
/* A parameter KIND.NAME.key naming a component that sim does not have
 * (aiw_sim_set would create it: a typo would add a fleet): true, with msg
 * "the scenario declares no inference.chta; did you mean inference.chat?"
 * (the nearest name of that kind, by edit distance).  added: the "KIND.NAME"
 * components the command line creates explicitly (--add), which pass.
 * False for every other name, which aiw_sim_set judges. */
bool cli_undeclared_component(aiw_sim *sim, const char *param, const char *const *added,
                              size_t nadded, char *msg, size_t len);

/* run and plot: the command line, parsed (the strings point into argv). */
typedef struct cli_run_opts {
	const char **scenarios;
	size_t nscenarios;
	const char **sets; /* "NAME=VALUE" in command-line order */
	size_t nsets;
	const char **adds; /* --add "KIND.NAME" in command-line order */
	size_t nadds;
	const char *seed, *duration, *sample_interval;
	const char *summary;
	const char *series, *json, *metrics, *promtest, *rules, *plot, *title, *report;
	const char *openmetrics, *om_start;
	const char *stream_csv;
	int progress; /* -1 auto, 0 off, 1 on */
	bool help;    /* --help: print the usage, run nothing */
} cli_run_opts;
/* Parse argv[first..argc-1] of run (plot: of plot); touches no file and
 * runs nothing.  Returns 0 or the exit status, with the message printed;
 * cli_run_opts_free(o) in every case. */
int cli_run_parse(int argc, char **argv, int first, bool plot, cli_run_opts *o);
void cli_run_opts_free(cli_run_opts *o);
/* Load the scenarios (the built-in one when none) into sim and apply the
 * --set, --seed, --duration and --sample-interval options; runs nothing.
 * Returns 0 or the exit status, with the message printed. */
int cli_run_configure(aiw_sim *sim, const cli_run_opts *o);

/* The general usage (main.c): commands, run's and plot's options. */
void cli_usage(FILE *f);

/* The commands: argv as main's; return the exit status. */
int cli_run(int argc, char **argv, int first, bool plot);
int cli_params(int argc, char **argv);
int cli_catalog(int argc, char **argv);
int cli_autoscale_replay(int argc, char **argv);
int cli_scenario(int argc, char **argv);
int cli_calibrate(int argc, char **argv);
int cli_capacity(int argc, char **argv);
int cli_plan(int argc, char **argv);
/* How plan runs the search: NULL, aiw_plan_run; aiworkload-mpi sets its
 * own (the grid's parts over the ranks, merged on rank 0). */
extern aiw_status (*cli_plan_runner)(aiw_plan *plan);

#endif /* AIW_CLI_COMMON_H */
