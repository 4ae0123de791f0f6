/*
 * sweep.h - `aiworkload sweep`: the command-line front end of the
 * library's experiment sweeps (aiw_sweep_*), shared by tools/cli/
 * (through cli_sweep) and tools/aiworkload-mpi.c (through the pieces
 * below, so that both parse the same options and write the same files).
 */
#ifndef AIW_CLI_SWEEP_H
#define AIW_CLI_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "aiworkload.h"

/* `aiworkload sweep SCENARIO [options]`: argv[0] is the command word
 * ("sweep"), the options follow, so the dispatcher calls
 * cli_sweep(argc - 1, argv + 1).  Returns the exit status: 0 success,
 * 2 bad usage or invalid scenario/values, 1 other failure, 130 interrupted
 * (SIGINT/SIGTERM; the finished rows are written). */
int cli_sweep(int argc, char **argv);

/* Exit statuses beyond 0/1/2. */
#define AIW_CLI_EXIT_INTERRUPTED 130

/* Parsed command line. */
typedef struct cli_sweep_opts {
	const char *scenario;
	const char **axes;      /* "NAME=V1,V2,..." in command-line order */
	size_t naxes;
	const char *points;     /* --points FILE.csv */
	const char **adds;      /* --add KIND.NAME: components the axes or columns create */
	size_t nadds;
	const char *metrics;    /* --metrics LIST */
	const char *out;        /* --out FILE.csv (NULL: standard output) */
	const char *reps_out;   /* --replications-out FILE.csv */
	const char *report;     /* --report FILE.html */
	size_t replications;    /* --replications R (default 1) */
	unsigned jobs;          /* --jobs J (default 0: one per processor) */
	bool seed_set;
	unsigned long long seed; /* --seed N */
	int progress;           /* --progress 1, --no-progress 0, -1: when stderr is a tty */
	bool keep_going;        /* --keep-going: a refused point does not stop the sweep */
	bool help;
} cli_sweep_opts;

/* Name used in messages ("aiworkload", "aiworkload-mpi"). */
extern const char *cli_sweep_prog;

void cli_sweep_usage(FILE *f);
/* Parse argv[1..argc-1] (argv[0] is "sweep").  Returns 0 or an exit status;
 * quiet: print nothing (MPI ranks other than 0). */
int cli_sweep_parse(int argc, char **argv, cli_sweep_opts *o, bool quiet);
void cli_sweep_opts_free(cli_sweep_opts *o);
/* Outputs that would overwrite the scenario, the points file or each
 * other (the same file by device and inode, through any spelling): 0 or
 * EXIT_USAGE with a message.  cli_sweep_build calls it first. */
int cli_sweep_check_paths(const cli_sweep_opts *o, bool quiet);
/* Create, configure and prepare the sweep.  Returns 0 or an exit status. */
int cli_sweep_build(const cli_sweep_opts *o, aiw_sweep **out, bool quiet);
/* Exit status of a library status. */
int cli_sweep_exit_code(aiw_status st);

/* Progress bar on standard error (runs done / total, ETA). */
typedef struct cli_bar cli_bar;
cli_bar *cli_bar_new(void);
void cli_bar_draw(cli_bar *b, size_t done, size_t total);
void cli_bar_free(cli_bar *b); /* clears the line */
/* aiw_sweep_progress_fn drawing the bar given as payload. */
int cli_bar_cb(const aiw_sweep *sw, size_t done, size_t total, void *payload);
/* Whether to draw a bar for these options. */
bool cli_sweep_want_bar(const cli_sweep_opts *o);

/* SIGINT and SIGTERM call aiw_sweep_stop(sw) once (a second signal
 * terminates as usual) until cli_sweep_release_signals(), which returns
 * whether a signal arrived.  sw may be NULL: the signal is only recorded
 * (aiworkload run --stream-csv polls cli_sweep_signalled). */
void cli_sweep_catch_signals(aiw_sweep *sw);
bool cli_sweep_release_signals(void);
/* Whether a signal arrived since cli_sweep_catch_signals (no release). */
bool cli_sweep_signalled(void);

/* Write the results (--out, or standard output) and --replications-out of
 * a sweep that ended with status st (AIW_OK, AIW_ESTOPPED or an error with
 * message errmsg); the finished points are written in every case.  Returns
 * the exit status. */
int cli_sweep_finish(aiw_sweep *sw, const cli_sweep_opts *o, aiw_status st,
                         const char *errmsg, bool interrupted);

#endif /* AIW_CLI_SWEEP_H */
