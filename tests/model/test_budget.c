/* test_budget.c - a GPU budget shared by serving fleets (site.gpu_budget,
 * lib/site/budget.c) and offline jobs (traffic = batch): the arbitration
 * rules on hand-worked splits (priority, proportional with its rounding,
 * weighted max-min fair); the cap never exceeded (the arbiter's invariant
 * at every decision, and the fleets' provisioned GPUs read back at every
 * second of a busy run under every rule); interactive first (a
 * high-priority fleet's figures unchanged, bit for bit, when a batch fleet
 * joins it under a budget large enough); an offline job's completion time
 * and work by its deadline against the closed form of a fixed fleet of
 * fixed service times; a run without a budget publishes no budget figure;
 * seeded runs reproduced bit for bit; the refusals. */
#include "core/internal.h"
#include "inference/serving.h"
#include "site/budget.h"
#include "../testutil.h"
#include "fleet_test.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* the rules, by hand                                                        */
/* ------------------------------------------------------------------------ */
static void split2(int rule, uint32_t w0, uint32_t w1, double g0, double g1, double p0, double p1,
                   double x0, double x1, double room, uint32_t e0, uint32_t e1)
{
	aiwi_budget_ask a[2] = {{w0, g0, p0, x0}, {w1, g1, p1, x1}};
	uint32_t got[2] = {99, 99};
	aiwi_budget_split(rule, 2, a, room, got);
	ck_assert_msg(got[0] == e0 && got[1] == e1,
	              "rule %d, asks %u x %g and %u x %g GPUs in %g: got %u + %u, expected %u + %u",
	              rule, w0, g0, w1, g1, room, got[0], got[1], e0, e1);
}

/* Two fleets ask 3 and 2 replicas of one GPU with 4 GPUs free.
 *  priority: the first (higher or equal, first in order) takes 3, the
 *    other the 1 left; the second ranked higher takes its 2, then 2.
 *  proportional: shares 4 x 3/5 = 2.4 and 4 x 2/5 = 1.6, floors 2 + 1,
 *    the GPU left to the larger remainder (0.6): 2 + 2.
 *  weighted 1:1: shares 2 and 2, both within their asks: 2 + 2; 3:1:
 *    shares 3 and 1: 3 + 1; 1:3: shares 1 and 3, the second asks 2 only,
 *    its spare 1 back to the first: 2 + 2.
 * Replicas of 2 GPUs (3 of them) beside one of 1 GPU (2), 5 GPUs free,
 * proportional: demands 6 and 2 GPUs, shares 3.75 and 1.25, floors 1
 * replica (2 GPUs) and 1 (1 GPU), 2 GPUs left: the larger remainder
 * (1.75) takes a replica of 2: 2 + 1, 5 GPUs. */
START_TEST(rules_by_hand)
{
	split2(AIW_BUDGET_PRIORITY, 3, 2, 1, 1, 1, 0, 1, 1, 4, 3, 1);
	split2(AIW_BUDGET_PRIORITY, 3, 2, 1, 1, 0, 0, 1, 1, 4, 3, 1);
	split2(AIW_BUDGET_PRIORITY, 3, 2, 1, 1, 0, 1, 1, 1, 4, 2, 2);
	split2(AIW_BUDGET_PROPORTIONAL, 3, 2, 1, 1, 0, 0, 1, 1, 4, 2, 2);
	split2(AIW_BUDGET_WEIGHTED, 3, 2, 1, 1, 0, 0, 1, 1, 4, 2, 2);
	split2(AIW_BUDGET_WEIGHTED, 3, 2, 1, 1, 0, 0, 3, 1, 4, 3, 1);
	split2(AIW_BUDGET_WEIGHTED, 3, 2, 1, 1, 0, 0, 1, 3, 4, 2, 2);
	split2(AIW_BUDGET_PROPORTIONAL, 3, 2, 2, 1, 0, 0, 1, 1, 5, 2, 1);
	/* priority with replicas of 2 GPUs: the first takes floor(5 / 2) = 2 */
	split2(AIW_BUDGET_PRIORITY, 3, 2, 2, 1, 1, 0, 1, 1, 5, 2, 1);
	/* everything fits: every rule grants it all; no room: nothing */
	for (int r = 0; r < 3; r++) {
		split2(r, 3, 2, 1, 1, 0, 0, 1, 1, 5, 3, 2);
		split2(r, 3, 2, 1, 1, 0, 0, 1, 1, 0, 0, 0);
		split2(r, 3, 2, 1, 1, 0, 0, 1, 1, -3, 0, 0);
	}
	/* three equal asks of 1 in 2 GPUs: shares 2/3 each, floors 0, the 2
	 * GPUs by largest remainder, ties in member order: 1, 1, 0 */
	aiwi_budget_ask a[3] = {{1, 1, 0, 1}, {1, 1, 0, 1}, {1, 1, 0, 1}};
	uint32_t got[3];
	for (int r = AIW_BUDGET_PROPORTIONAL; r <= AIW_BUDGET_WEIGHTED; r++) {
		aiwi_budget_split(r, 3, a, 2, got);
		ck_assert(got[0] == 1 && got[1] == 1 && got[2] == 0);
	}
}
END_TEST

/* ------------------------------------------------------------------------ */
/* the cap, over busy runs                                                    */
/* ------------------------------------------------------------------------ */
/* Three autoscaled fleets (replicas of 2, 1 and 4 GPUs) whose demand
 * together is well above a budget of 24 GPUs, and a fixed one of 2 x 2;
 * the HPAs sync on the same period, so their requests coincide and the
 * rule splits them (14 GPUs held at the start, 10 free). */
static void busy_text(char *text, size_t n, const char *rule)
{
	snprintf(text, n,
	         "[sim]\nduration = 30min\nsample_interval = 1min\n"
	         "[site]\ngpu_budget = 24\nbudget_rule = %s\n"
	         "[inference a]\ngpus_per_replica = 2\nweight_bits = 8\nrate = 40/s\nreplicas = 2\n"
	         "autoscaler = hpa\nmin_replicas = 1\nmax_replicas = 40\nmetric = concurrency\n"
	         "target_value = 8\ncold_start = uniform(5s,20s)\nbudget_priority = 3\n"
	         "budget_weight = 2\n"
	         "[inference b]\ngpus_per_replica = 1\nweight_bits = 8\nmodel_params = 8e9\n"
	         "rate = 60/s\nreplicas = 2\nautoscaler = hpa\nmin_replicas = 1\nmax_replicas = 40\n"
	         "metric = concurrency\n"
	         "target_value = 4\ncold_start = uniform(5s,20s)\nbudget_priority = 2\n"
	         "[inference c]\ngpus_per_replica = 4\nrate = 20/s\nreplicas = 1\n"
	         "autoscaler = hpa\nmin_replicas = 1\nmax_replicas = 10\nmetric = concurrency\n"
	         "target_value = 8\ncold_start = uniform(5s,20s)\nbudget_priority = 1\n"
	         "[inference d]\ngpus_per_replica = 2\nweight_bits = 8\nrate = 2/s\nreplicas = 2\n"
	         "autoscaler = none\n",
	         rule);
}

static double held_now(aiw_sim *sim)
{
	static const char *const names[] = {"a", "b", "c", "d"};
	static const double g[] = {2, 1, 4, 2};
	double u = 0;
	for (int k = 0; k < 4; k++) {
		aiwi_comp *c = comp(sim, names[k]);
		for (size_t s = 0; s < aiwi_serving_slots(c); s++)
			u += aiwi_serving_replica_state(c, s) != AIW_REPLICA_FREE ? g[k] : 0;
	}
	return u;
}

START_TEST(cap_never_exceeded)
{
	static const char *const rules[] = {"priority", "proportional", "weighted"};
	for (int r = 0; r < 3; r++) {
		char text[2048];
		busy_text(text, sizeof text, rules[r]);
		aiw_sim *sim = load(3, text);
		double peak = 0;
		/* the arbiter checks the cap after every decision (the run fails
		 * otherwise); here, the fleets' own slots every second */
		for (int t = 1; t <= 1800; t++) {
			AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, t));
			double u = held_now(sim);
			ck_assert_msg(u <= 24, "%s: %g GPUs held at %d s", rules[r], u, t);
			peak = fmax(peak, u);
		}
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		ck_assert(aiwi_test_metric(sim, "site.budget_gpus") == 24);
		ck_assert(aiwi_test_metric(sim, "site.budget_peak_gpus") <= 24);
		ck_assert(aiwi_test_metric(sim, "site.budget_peak_gpus") >= peak);
		ck_assert_msg(peak == 24 || peak == 23, "%s: peak %g", rules[r], peak);
		/* the cap binds: scale-ups were denied, and the fleets' counts add up */
		double den = aiwi_test_metric(sim, "site.budget_denied_scaleups");
		ck_assert(den > 0);
		ck_assert(den == M(sim, "a", "budget_denied_scaleups") +
		                         M(sim, "b", "budget_denied_scaleups") +
		                         M(sim, "c", "budget_denied_scaleups"));
		ck_assert(aiwi_test_metric(sim, "site.budget_denied_gpus") ==
		          M(sim, "a", "budget_denied_gpus") + M(sim, "b", "budget_denied_gpus") +
		                  M(sim, "c", "budget_denied_gpus") + M(sim, "d", "budget_denied_gpus"));
		ck_assert(M(sim, "d", "budget_requests") == 0); /* no autoscaler: never asks */
		for (const char *k = "abcd"; *k; k++) {
			char n[2] = {*k, 0};
			check_conservation(sim, n);
		}
		/* strict priority: the lowest-ranked fleet gets nothing, the
		 * highest some; in proportion to demand, the lowest some too */
		if (r == 0)
			ck_assert(M(sim, "c", "budget_granted_replicas") == 0 &&
			          M(sim, "a", "budget_granted_replicas") > 0);
		if (r == 1)
			ck_assert(M(sim, "c", "budget_granted_replicas") > 0);
		aiw_sim_free(sim);
	}
}
END_TEST

/* ------------------------------------------------------------------------ */
/* interactive first                                                          */
/* ------------------------------------------------------------------------ */
static const char CHAT[] =
        "[inference chat]\ngpus_per_replica = 2\nweight_bits = 8\ntraffic = diurnal\nrate = 20/s\n"
        "peak_to_trough = 10\npeak_hour = 1\nreplicas = 2\nautoscaler = hpa\nmin_replicas = 1\n"
        "max_replicas = 30\nmetric = concurrency\ntarget_value = 12\ncold_start = uniform(10s,30s)\n"
        "slo_ttft = 500ms\nbudget_priority = 10\n";
static const char JOB[] =
        "[inference job]\ngpus_per_replica = 2\nweight_bits = 8\ntraffic = batch\n"
        "batch_requests = 20000\nbatch_start = 10min\nbatch_deadline = 90min\n"
        "prompt_tokens = const(1000)\noutput_tokens = const(200)\nreplicas = 1\n"
        "autoscaler = hpa\nmin_replicas = 1\nmax_replicas = 20\nmetric = concurrency\n"
        "target_value = 64\ncold_start = uniform(10s,30s)\n";

/* Every inference.chat.* figure of a and b equal, bit for bit. */
static void same_chat(aiw_sim *a, aiw_sim *b)
{
	size_t n = 0;
	ck_assert_int_eq(aiw_sim_metric_count(a, &n), AIW_OK);
	size_t seen = 0;
	for (size_t i = 0; i < n; i++) {
		const char *name;
		ck_assert_int_eq(aiw_sim_metric_name(a, i, &name), AIW_OK);
		if (strncmp(name, "inference.chat.", 15) || strstr(name, ".budget_"))
			continue;
		double x = aiwi_test_metric(a, name), y = aiwi_test_metric(b, name);
		ck_assert_msg((isnan(x) && isnan(y)) || x == y, "%s: %.17g then %.17g", name, x, y);
		seen++;
	}
	ck_assert(seen > 50);
}

START_TEST(interactive_first)
{
	char alone[2048], both[4096], none[2048];
	const char *head = "[sim]\nduration = 2h\nsample_interval = 1min\n"
	                   "[site]\ngpu_budget = 200\nbudget_rule = priority\n";
	snprintf(alone, sizeof alone, "%s%s", head, CHAT);
	snprintf(both, sizeof both, "%s%s%s", head, CHAT, JOB);
	snprintf(none, sizeof none, "[sim]\nduration = 2h\nsample_interval = 1min\n%s", CHAT);
	aiw_sim *a = load(5, alone), *b = load(5, both), *o = load(5, none);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	AIW_OK_OR_FAIL(o, aiw_sim_run(o));
	/* the budget large enough: nothing denied, the job done */
	ck_assert(aiwi_test_metric(b, "site.budget_denied_scaleups") == 0);
	ck_assert(aiwi_test_metric(b, "site.budget_peak_gpus") <= 200);
	ck_assert(M(b, "job", "batch_completion_s") > 600);
	same_chat(a, b);
	/* and with no budget at all: the arbiter's grant at the same instant
	 * provisions what the controller would have */
	same_chat(a, o);
	aiw_sim_free(a);
	aiw_sim_free(b);
	aiw_sim_free(o);
}
END_TEST

/* Under a budget too small for both, strict priority keeps the
 * interactive fleet's replicas coming first: the job is denied, the chat
 * fleet is not, whatever their order in the scenario. */
START_TEST(batch_when_there_is_room)
{
	char text[4096];
	snprintf(text, sizeof text,
	         "[sim]\nduration = 2h\nsample_interval = 1min\n"
	         "[site]\ngpu_budget = 40\nbudget_rule = priority\n%s%s",
	         JOB, CHAT);
	aiw_sim *sim = load(5, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "job", "budget_denied_scaleups") > 0);
	ck_assert(aiwi_test_metric(sim, "site.budget_peak_gpus") <= 40);
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* an offline job against its closed form                                     */
/* ------------------------------------------------------------------------ */
/* N = 24 requests at batch_start = 100 s, each holding a batch slot for
 * exactly S = 10 s (service = const), on R = 2 replicas of max_batch B = 4:
 * the fleet completes R B = 8 every S, so the job ends at
 * 100 + ceil(N / (R B)) S = 130 s; by a deadline of 125 s, 2 rounds
 * (16 requests, 16 x 100 output tokens) are done, and it is 5 s late. */
START_TEST(job_closed_form)
{
	const double N = 24, S = 10, R = 2, B = 4, T0 = 100, DL = 125;
	aiw_sim *sim = load(7, "[sim]\nduration = 10min\n"
	                       "[inference job]\ntraffic = batch\nbatch_requests = 24\n"
	                       "batch_start = 100s\nbatch_deadline = 125s\nservice = const(10s)\n"
	                       "max_batch = 4\nreplicas = 2\nprompt_tokens = const(50)\n"
	                       "output_tokens = const(100)\nautoscaler = none\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double end = T0 + ceil(N / (R * B)) * S;
	double rounds = floor((DL - T0) / S);
	ck_assert(M(sim, "job", "batch_job_requests") == N);
	ck_assert_msg(M(sim, "job", "batch_completion_s") == end, "%.17g",
	              M(sim, "job", "batch_completion_s"));
	ck_assert(M(sim, "job", "batch_duration_s") == end - T0);
	ck_assert(M(sim, "job", "batch_deadline_met") == 0);
	ck_assert(M(sim, "job", "batch_lateness_s") == end - DL);
	ck_assert(M(sim, "job", "batch_requests_by_deadline") == rounds * R * B);
	ck_assert(M(sim, "job", "requests_completed") == N);
	aiw_sim_free(sim);
	/* a deadline met: 30 s early */
	sim = load(7, "[sim]\nduration = 10min\n"
	              "[inference job]\ntraffic = batch\nbatch_requests = 24\n"
	              "batch_start = 100s\nbatch_deadline = 160s\nservice = const(10s)\n"
	              "max_batch = 4\nreplicas = 2\nautoscaler = none\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "job", "batch_deadline_met") == 1);
	ck_assert(M(sim, "job", "batch_lateness_s") == end - 160);
	ck_assert(M(sim, "job", "batch_requests_by_deadline") == N);
	aiw_sim_free(sim);
	/* the run ends before the job: not done, deadline missed */
	sim = load(7, "[sim]\nduration = 120s\n"
	              "[inference job]\ntraffic = batch\nbatch_requests = 24\n"
	              "batch_start = 100s\nbatch_deadline = 115s\nservice = const(10s)\n"
	              "max_batch = 4\nreplicas = 2\nautoscaler = none\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(isnan(M(sim, "job", "batch_completion_s")));
	ck_assert(M(sim, "job", "batch_deadline_met") == 0);
	ck_assert(M(sim, "job", "batch_requests_by_deadline") == 8);
	aiw_sim_free(sim);
	/* output tokens (the roofline, fixed lengths): all 50 x 100 by a
	 * deadline after the job; part of them by one inside it, at least
	 * those of the requests done */
	const char *job = "[sim]\nduration = 10min\n"
	                  "[inference job]\ntraffic = batch\nbatch_requests = 50\n"
	                  "batch_start = 10s\nbatch_deadline = %s\nprompt_tokens = const(500)\n"
	                  "output_tokens = const(100)\nreplicas = 1\nautoscaler = none\n";
	char text[512];
	snprintf(text, sizeof text, job, "5min");
	sim = load(7, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "job", "batch_deadline_met") == 1);
	ck_assert(M(sim, "job", "batch_tokens_by_deadline") == 5000);
	ck_assert(M(sim, "job", "tokens_out") == 5000);
	double half = 10 + 0.5 * M(sim, "job", "batch_duration_s");
	aiw_sim_free(sim);
	char at[64];
	snprintf(at, sizeof at, "%.17gs", half);
	snprintf(text, sizeof text, job, at);
	sim = load(7, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double tok = M(sim, "job", "batch_tokens_by_deadline");
	ck_assert(M(sim, "job", "batch_deadline_met") == 0);
	ck_assert_msg(tok > 0 && tok < 5000 && tok >= 100 * M(sim, "job", "batch_requests_by_deadline"),
	              "%g", tok);
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* off, seeds, refusals                                                       */
/* ------------------------------------------------------------------------ */
START_TEST(off_publishes_nothing)
{
	(void)churn_replicas; /* (fleet_test.h's: replicas added outside the budget) */
	aiw_sim *sim = load(1, "[sim]\nduration = 5min\n[inference x]\nrate = 5/s\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double v;
	ck_assert(aiw_sim_metric(sim, "site.budget_gpus", &v) != AIW_OK);
	ck_assert(aiw_sim_metric(sim, "inference.x.budget_denied_scaleups", &v) != AIW_OK);
	ck_assert(aiw_sim_metric(sim, "inference.x.batch_completion_s", &v) != AIW_OK);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(seeded_runs_reproduced)
{
	char text[2048];
	busy_text(text, sizeof text, "weighted");
	aiw_sim *a = load(11, text), *b = load(11, text);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	size_t n = 0;
	ck_assert_int_eq(aiw_sim_metric_count(a, &n), AIW_OK);
	for (size_t i = 0; i < n; i++) {
		const char *name;
		ck_assert_int_eq(aiw_sim_metric_name(a, i, &name), AIW_OK);
		if (!strcmp(name, "sim.events") || !strncmp(name, "sim.wall", 8))
			continue;
		double x = aiwi_test_metric(a, name), y = aiwi_test_metric(b, name);
		ck_assert_msg((isnan(x) && isnan(y)) || x == y, "%s: %.17g then %.17g", name, x, y);
	}
	ck_assert(aiwi_test_metric(a, "site.budget_denied_scaleups") > 0);
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

START_TEST(refusals)
{
	expect_fail("[sim]\nduration = 1min\n[site]\ngpu_budget = 6\n"
	            "[inference a]\nreplicas = 1\n[inference b]\nreplicas = 1\n",
	            AIW_ESCENARIO, "site.gpu_budget = 6 GPUs: the fleets' initial replicas hold 8");
	expect_fail("[sim]\nduration = 1min\n[site]\ngpu_budget = -1\n", 0, "gpu_budget");
	expect_fail("[sim]\nduration = 1min\n[site]\nbudget_rule = fair\n", 0, "budget_rule");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nbudget_weight = 0\n", 0,
	            "budget_weight");
	expect_fail("[sim]\nduration = 1min\n[inference a]\ntraffic = batch\nbatch_start = 10min\n"
	            "batch_deadline = 5min\n",
	            AIW_ERANGE, "batch_deadline = 300 s is before batch_start = 600 s");
	expect_fail("[sim]\nduration = 1min\n[inference a]\ntraffic = batch\nbatch_requests = 0\n",
	            0, "batch_requests");
	expect_fail("[sim]\nduration = 1min\n[inference a]\ntraffic = batch\nsessions = on\n",
	            AIW_ESCENARIO, "traffic = batch");
	/* a fleet's budget settings that nothing reads are warned of */
	aiw_sim *w = load(1, "[sim]\nduration = 1min\n[inference a]\nbudget_priority = 3\n"
	                     "[inference b]\nbudget_weight = 2\n");
	AIW_OK_OR_FAIL(w, aiw_sim_run(w));
	ck_assert(aiwi_test_warned(w, "inference.a.budget_priority has no effect: site.gpu_budget"));
	ck_assert(aiwi_test_warned(w, "inference.b.budget_weight has no effect"));
	aiw_sim_free(w);
	w = load(1, "[sim]\nduration = 1min\n[site]\ngpu_budget = 100\n"
	            "[inference a]\nbudget_weight = 3\n");
	AIW_OK_OR_FAIL(w, aiw_sim_run(w));
	ck_assert(aiwi_test_warned(w, "budget_rule is not weighted"));
	aiw_sim_free(w);
	/* a job's setting without traffic = batch does nothing: the mode table
	 * says so */
	aiw_sim *sim = load(1, "[sim]\nduration = 1min\n[inference a]\nbatch_requests = 5\n");
	char msg[512];
	ck_assert(aiwi_param_modes_first(comp(sim, "a"), msg, sizeof msg));
	ck_assert_msg(strstr(msg, "batch_requests") && strstr(msg, "traffic"), "%s", msg);
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("budget");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, rules_by_hand);
	tcase_add_test(tc, cap_never_exceeded);
	tcase_add_test(tc, interactive_first);
	tcase_add_test(tc, batch_when_there_is_room);
	tcase_add_test(tc, job_closed_form);
	tcase_add_test(tc, off_publishes_nothing);
	tcase_add_test(tc, seeded_runs_reproduced);
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
