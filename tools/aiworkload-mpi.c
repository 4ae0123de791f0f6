/*
 * aiworkload-mpi - `mpirun -np N aiworkload-mpi sweep SCENARIO [options]`:
 * the sweep of `aiworkload sweep` (same options, same files, byte for
 * byte) spread over MPI ranks.
 *
 * Every rank parses the same command line and prepares the same sweep
 * (deterministic: same grid, same metric list).  Rank 0 is the master: it
 * hands out task indices (point-major order) one at a time to the ranks
 * that ask, so slow points never idle the others (dynamic load balancing),
 * stores the metric vectors they send back with aiw_sweep_store, and
 * writes the files.  Rank 0 also computes, in a second thread, so that
 * `-np 1` works and no core idles; only its main thread calls MPI
 * (MPI_THREAD_FUNNELED) and it polls with MPI_Iprobe and short sleeps
 * rather than spinning in a blocking receive.
 *
 * Messages: a worker sends TAG_RESULT = [task, status, metrics...] as
 * doubles (task -1 on its first request; task indices < 2^40 are exact in
 * a double), followed by TAG_ERR (the message text) when status is an
 * error; the master answers TAG_TASK = the next task index, or -1: stop.
 *
 * SIGINT/SIGTERM on any rank stop the sweep: the master stops handing out
 * tasks, writes the finished points and every rank exits with 130.
 *
 * `mpirun -np N aiworkload-mpi plan SCENARIO [options]`: the serving plan
 * of `aiworkload plan` (same options, same output, byte for byte) with the
 * grid's combinations split over the ranks: rank k runs combinations k,
 * k + N, k + 2N, ... (aiw_plan_run_part, on --jobs threads), rank 0
 * gathers every part's bytes and merges them (aiw_plan_merge: ranking,
 * Pareto flags, re-check, output); the other ranks print nothing.  A
 * static split (a plan's combinations cost alike more than a sweep's
 * points do); a training plan is refused (its search is one process's).
 */
#include <mpi.h>

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aiworkload.h"
#include "cli/common.h"
#include "cli/sweep.h"

enum { TAG_RESULT = 1, TAG_TASK = 2, TAG_ERR = 3 };
#define MSG_LEN 1024

/* Master state shared by its MPI thread and its compute thread. */
typedef struct master {
	aiw_sweep *sw;
	size_t R, ntasks, nmetrics;
	pthread_mutex_t mu;
	size_t next;          /* next task to hand out */
	size_t done;          /* tasks stored */
	bool stopping;        /* no more tasks (stop, signal or error) */
	bool interrupted;     /* a stop (not an error) */
	size_t err_task;      /* lowest failed task (SIZE_MAX: none) */
	aiw_status err_st;
	char errmsg[MSG_LEN];
	bool local_done;
} master;

static size_t claim(master *m)
{
	size_t t = SIZE_MAX;
	pthread_mutex_lock(&m->mu);
	if (!m->stopping && m->next < m->ntasks)
		t = m->next++;
	pthread_mutex_unlock(&m->mu);
	return t;
}

/* Record a task's outcome (status st; msg when an error). */
static void record(master *m, size_t t, aiw_status st, const double *metrics, const char *msg)
{
	pthread_mutex_lock(&m->mu);
	if (st == AIW_OK) {
		aiw_sweep_store(m->sw, t / m->R, t % m->R, metrics);
		m->done++;
	} else if (st == AIW_ESTOPPED) {
		m->stopping = m->interrupted = true;
	} else {
		if (t < m->err_task) {
			m->err_task = t;
			m->err_st = st;
			snprintf(m->errmsg, sizeof m->errmsg, "%s", msg ? msg : aiw_strerror(st));
		}
		m->stopping = true;
		aiw_sweep_stop(m->sw); /* the local task in flight */
	}
	pthread_mutex_unlock(&m->mu);
}

static void *compute(void *arg)
{
	master *m = arg;
	double *buf = malloc((m->nmetrics ? m->nmetrics : 1) * sizeof *buf);
	for (size_t t; buf && (t = claim(m)) != SIZE_MAX;) {
		aiw_status st = aiw_sweep_run_task(m->sw, t / m->R, t % m->R, buf);
		record(m, t, st, buf, aiw_sweep_errmsg(m->sw));
	}
	if (!buf)
		record(m, 0, AIW_ENOMEM, NULL, "out of memory");
	free(buf);
	pthread_mutex_lock(&m->mu);
	m->local_done = true;
	pthread_mutex_unlock(&m->mu);
	return NULL;
}

static int run_master(aiw_sweep *sw, const cli_sweep_opts *o, int nranks, size_t R,
                      size_t ntasks, size_t nmetrics)
{
	master m = {.sw = sw, .R = R, .ntasks = ntasks, .nmetrics = nmetrics,
	            .err_task = SIZE_MAX, .err_st = AIW_OK};
	pthread_mutex_init(&m.mu, NULL);
	double *buf = malloc((nmetrics + 2) * sizeof *buf);
	if (!buf) {
		fprintf(stderr, "%s sweep: out of memory\n", cli_sweep_prog);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	cli_bar *bar = cli_sweep_want_bar(o) ? cli_bar_new() : NULL;
	cli_sweep_catch_signals(sw);
	pthread_t th;
	bool threaded = pthread_create(&th, NULL, compute, &m) == 0;
	if (!threaded)
		m.local_done = true; /* the workers do everything */
	int workers = nranks - 1;
	if (workers == 0 && !threaded)
		compute(&m);
	while (true) {
		int flag = 0;
		MPI_Status ms;
		MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &flag, &ms);
		if (flag) {
			int src = ms.MPI_SOURCE;
			MPI_Recv(buf, (int)(nmetrics + 2), MPI_DOUBLE, src, TAG_RESULT, MPI_COMM_WORLD,
			         MPI_STATUS_IGNORE);
			if (buf[0] >= 0) {
				size_t t = (size_t)buf[0];
				aiw_status st = (aiw_status)(int)buf[1];
				char msg[MSG_LEN] = "";
				if (st != AIW_OK && st != AIW_ESTOPPED) {
					MPI_Recv(msg, MSG_LEN, MPI_CHAR, src, TAG_ERR, MPI_COMM_WORLD,
					         MPI_STATUS_IGNORE);
					msg[MSG_LEN - 1] = 0;
				}
				record(&m, t, st, buf + 2, msg);
			}
			size_t t = claim(&m);
			long long next = t == SIZE_MAX ? -1 : (long long)t;
			MPI_Send(&next, 1, MPI_LONG_LONG, src, TAG_TASK, MPI_COMM_WORLD);
			if (next < 0)
				workers--;
			continue;
		}
		pthread_mutex_lock(&m.mu);
		if (cli_sweep_signalled()) /* the handler stopped the local task */
			m.stopping = m.interrupted = true;
		size_t done = m.done;
		bool finished = m.local_done && workers == 0;
		pthread_mutex_unlock(&m.mu);
		if (bar)
			cli_bar_draw(bar, done, ntasks);
		if (finished)
			break;
		struct timespec ts = {0, 500000}; /* 0.5 ms: no busy wait */
		nanosleep(&ts, NULL);
	}
	if (threaded)
		pthread_join(th, NULL);
	if (cli_sweep_release_signals())
		m.interrupted = true;
	cli_bar_free(bar);
	free(buf);
	aiw_status st = m.err_st != AIW_OK ? m.err_st : m.done < ntasks ? AIW_ESTOPPED : AIW_OK;
	int rc = cli_sweep_finish(sw, o, st, m.errmsg, m.interrupted);
	pthread_mutex_destroy(&m.mu);
	return rc;
}

static void run_worker(aiw_sweep *sw, size_t R, size_t nmetrics)
{
	double *buf = malloc((nmetrics + 2) * sizeof *buf);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 1);
	cli_sweep_catch_signals(sw);
	buf[0] = -1;
	buf[1] = 0;
	for (size_t i = 0; i < nmetrics; i++)
		buf[2 + i] = 0;
	for (;;) {
		MPI_Send(buf, (int)(nmetrics + 2), MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
		if (buf[1] != AIW_OK && buf[1] != AIW_ESTOPPED) {
			char msg[MSG_LEN];
			snprintf(msg, sizeof msg, "%s", aiw_sweep_errmsg(sw));
			MPI_Send(msg, MSG_LEN, MPI_CHAR, 0, TAG_ERR, MPI_COMM_WORLD);
		}
		long long next;
		MPI_Recv(&next, 1, MPI_LONG_LONG, 0, TAG_TASK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (next < 0)
			break;
		size_t t = (size_t)next;
		aiw_status st = aiw_sweep_run_task(sw, t / R, t % R, buf + 2);
		buf[0] = (double)t;
		buf[1] = (double)st;
	}
	cli_sweep_release_signals();
	free(buf);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: mpirun -np N aiworkload-mpi sweep SCENARIO.ini [options]\n"
	           "       mpirun -np N aiworkload-mpi plan SCENARIO.ini [options]\n"
	           "sweep: the options of `aiworkload sweep` (--jobs is ignored: one run at a\n"
	           "time per rank, rank 0 computing in a second thread).\n"
	           "plan: the options of `aiworkload plan` (aiworkload plan --help); the grid's\n"
	           "combinations split over the ranks, each on --jobs threads, the output\n"
	           "written by rank 0, the same bytes as aiworkload plan.\n\n");
	cli_sweep_usage(f);
}

static int plan_rank, plan_nranks;

/* The plan's runner on every rank: its part, the parts gathered on rank
 * 0 and merged there; the other ranks end here (exit status 0, or 1 when
 * their part failed; rank 0 reports). */
static aiw_status mpi_plan_run(aiw_plan *plan)
{
	void *bytes = NULL;
	size_t len = 0;
	aiw_status st = aiw_plan_run_part(plan, (size_t)plan_rank, (size_t)plan_nranks, &bytes, &len);
	if (st == AIW_OK && len > (size_t)INT_MAX) {
		free(bytes);
		bytes = NULL;
		st = AIW_ELIMIT;
	}
	int mine[2] = {(int)st, st == AIW_OK ? (int)len : 0};
	int *all = plan_rank == 0 ? calloc(2 * (size_t)plan_nranks, sizeof *all) : NULL;
	if (plan_rank == 0 && !all)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
	int bad = 0;
	if (plan_rank == 0)
		for (int k = 0; k < plan_nranks; k++)
			if (all[2 * k] != AIW_OK)
				bad = 1;
	MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (bad) {
		free(bytes);
		if (plan_rank != 0) {
			MPI_Finalize();
			exit(st == AIW_OK ? 0 : 1);
		}
		int first = 0;
		while (all[2 * first] == AIW_OK)
			first++;
		aiw_status other = (aiw_status)all[2 * first];
		free(all);
		if (st == AIW_OK)
			fprintf(stderr, "aiworkload-mpi plan: rank %d: %s\n", first, aiw_strerror(other));
		return st != AIW_OK ? st : other;
	}
	int *displs = NULL;
	unsigned char *recv = NULL;
	if (plan_rank == 0) {
		displs = calloc((size_t)plan_nranks, sizeof *displs);
		size_t total = 0;
		for (int k = 0; k < plan_nranks; k++)
			total += (size_t)all[2 * k + 1];
		recv = malloc(total ? total : 1);
		if (!displs || !recv || total > (size_t)INT_MAX)
			MPI_Abort(MPI_COMM_WORLD, 1);
		int at = 0;
		for (int k = 0; k < plan_nranks; k++) {
			displs[k] = at;
			all[k] = all[2 * k + 1]; /* the counts, packed */
			at += all[k];
		}
	}
	MPI_Gatherv(bytes, mine[1], MPI_BYTE, recv, all, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
	free(bytes);
	if (plan_rank != 0) {
		MPI_Finalize();
		exit(0);
	}
	const void **parts = calloc((size_t)plan_nranks, sizeof *parts);
	size_t *lens = calloc((size_t)plan_nranks, sizeof *lens);
	if (!parts || !lens)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int k = 0; k < plan_nranks; k++) {
		parts[k] = recv + displs[k];
		lens[k] = (size_t)all[k];
	}
	st = aiw_plan_merge(plan, parts, lens, (size_t)plan_nranks);
	free(parts);
	free(lens);
	free(recv);
	free(displs);
	free(all);
	return st;
}

int main(int argc, char **argv)
{
	int provided, rank, nranks;
	if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		fprintf(stderr, "aiworkload-mpi: MPI_Init_thread failed\n");
		return 1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	cli_sweep_prog = "aiworkload-mpi";
	bool quiet = rank != 0;
	int rc = 0;
	if (argc >= 2 && strcmp(argv[1], "plan") == 0) {
		/* the plan's parser and output on every rank; only rank 0's shown */
		if (quiet && (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)))
			MPI_Abort(MPI_COMM_WORLD, 1);
		plan_rank = rank;
		plan_nranks = nranks;
		cli_plan_runner = mpi_plan_run;
		rc = cli_plan(argc, argv);
		MPI_Finalize();
		return rc;
	}
	if (argc < 2 || strcmp(argv[1], "sweep") != 0) {
		if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
			if (!quiet)
				usage(stdout);
		} else {
			if (!quiet) {
				fprintf(stderr, "aiworkload-mpi: the commands are `sweep` and `plan`\n");
				usage(stderr);
			}
			rc = 2;
		}
		MPI_Finalize();
		return rc;
	}
	/* rank 0's compute thread never calls MPI: FUNNELED is enough, and Open
	 * MPI also runs it correctly when it reports less */
	(void)provided;

	cli_sweep_opts o;
	aiw_sweep *sw = NULL;
	rc = cli_sweep_parse(argc - 1, argv + 1, &o, quiet);
	if (rc == 0 && o.keep_going) {
		if (!quiet)
			fprintf(stderr, "aiworkload-mpi: --keep-going is for aiworkload sweep only\n");
		rc = cli_sweep_exit_code(AIW_EINVAL);
	}
	if (rc == 0 && o.help) {
		if (!quiet)
			usage(stdout);
	} else if (rc == 0) {
		rc = cli_sweep_build(&o, &sw, quiet);
	}
	/* every rank must agree before any message exchange */
	int worst = rc;
	MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (worst != 0 || o.help) {
		if (rc == 0 && worst != 0 && !quiet)
			fprintf(stderr, "aiworkload-mpi: another rank could not prepare the sweep\n");
		aiw_sweep_free(sw);
		cli_sweep_opts_free(&o);
		MPI_Finalize();
		return rc ? rc : worst;
	}
	size_t np, nm;
	aiw_sweep_npoints(sw, &np);
	aiw_sweep_nmetrics(sw, &nm);
	size_t R = o.replications;
	if (rank == 0) {
		rc = run_master(sw, &o, nranks, R, np * R, nm);
	} else {
		run_worker(sw, R, nm);
	}
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	aiw_sweep_free(sw);
	cli_sweep_opts_free(&o);
	MPI_Finalize();
	return rc;
}
