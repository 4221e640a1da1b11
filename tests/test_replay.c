/*
 * test_replay.c - spot traces, the revocation risk model and the replay
 * (slo_replay.h), against hand-worked cases:
 *  - a 7-tick trace whose revocation rate is worked by hand (2 instances
 *    lost in 2.5 instance-hours: lambda 0.8/h, p = 1 - e^-0.8);
 *  - P(deadline met) and expected cost of a 2-instance spot plan worked by
 *    hand (1 - q^2 with q = 1 - e^-1), and the Monte Carlo of the same model
 *    (seeded, 200000 draws) within 4 standard errors of the analytic values
 *    on a 3-pool plan;
 *  - replays on synthetic traces with known outcomes: spot always there
 *    (every spot policy pays the spot price), never there (on-demand cost),
 *    and one lost after 2 ticks (spotdnn misses, spotdnn-replan meets at the
 *    cost worked from the restart rule);
 *  - a Monte Carlo replay: 1000 seeded synthetic traces with exponential
 *    spot lifetimes, whose deadline-met rate under spotdnn-replan matches the
 *    risk model's probability.
 * The compute time C of one p3.2xlarge comes from slo_train_evaluate (the
 * model), the replay's bookkeeping is what is checked.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo.h"

static void trace_of(const int *cap, size_t n, double gap, struct slo_spot_trace *tr)
{
    char buf[8192];
    size_t len = (size_t)snprintf(buf, sizeof buf, "{\"metadata\": {\"gap_seconds\": %g}, "
                                                   "\"data\": [", gap);
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%d", i ? ", " : "", cap[i]);
    snprintf(buf + len, sizeof buf - len, "]}");
    slo_error_t err = {0};
    assert_int_equal(slo_spot_trace_parse(buf, "synthetic.json", "p3.2xlarge", tr, &err),
                     SLO_OK);
}

static void test_trace_parse(void **state)
{
    (void)state;
    struct slo_spot_trace tr;
    slo_error_t err = {0};
    static const int cap[] = {1, 1, 0, 1, 1, 1, 0};

    trace_of(cap, 7, 1800, &tr);
    assert_int_equal(tr.n_ticks, 7);
    assert_int_equal(tr.max_capacity, 1);
    assert_true(tr.gap_s == 1800);
    /* hand-worked: drops at ticks 2 and 6 lose 2 instances; held c0..c5 = 5
     * ticks of 0.5 h = 2.5 instance-hours: lambda = 0.8/h */
    assert_true(fabs(slo_spot_trace_revocation_p(&tr) - (1 - exp(-0.8))) < 1e-12);
    slo_spot_trace_free(&tr);

    assert_int_equal(slo_spot_trace_parse("{\"metadata\": {\"gap_seconds\": 60}, "
                                          "\"data\": [1, -1]}", "t.json", "p3.2xlarge", &tr,
                                          &err), SLO_ERR_INVALID);
    assert_string_equal(err.source, "t.json: data[1]");
    assert_non_null(strstr(err.text, "expected an integer from 0 to 1000000, found -1"));
    assert_int_equal(slo_spot_trace_parse("{\"data\": [1]}", "t.json", "x", &tr, &err),
                     SLO_ERR_INVALID);
    assert_string_equal(err.source, "t.json: metadata");
    assert_int_equal(slo_spot_trace_parse("{\"metadata\": {\"gap_seconds\": 0}, \"data\": [1]}",
                                          "t.json", "x", &tr, &err), SLO_ERR_INVALID);
    assert_string_equal(err.source, "t.json: metadata.gap_seconds");
    assert_int_equal(slo_spot_trace_parse("{\"metadata\": {\"gap_seconds\": 5}, \"data\": []}",
                                          "t.json", "x", &tr, &err), SLO_ERR_INVALID);
    assert_string_equal(err.source, "t.json: data");
    assert_int_equal(slo_spot_trace_parse("{\"metadata\": {\"gap_seconds\": 5}, \"data\": [1],"
                                          " \"prices\": [1, 2]}", "t.json", "x", &tr, &err),
                     SLO_ERR_INVALID);
    assert_string_equal(err.source, "t.json: prices");
    assert_int_equal(slo_spot_trace_parse("{\"metadata\": {\"gap_seconds\": 5}, \"data\": [1],"
                                          " \"extra\": 1}", "t.json", "x", &tr, &err),
                     SLO_ERR_INVALID);
    assert_int_equal(slo_spot_trace_parse("[1, 2]", "t.json", "x", &tr, &err), SLO_ERR_INVALID);
    /* the trace's instance type: the message says what was found */
    assert_int_equal(slo_spot_trace_parse("{\"metadata\": {\"gap_seconds\": 5}, \"data\": [1]}",
                                          "t.json", "", &tr, &err), SLO_ERR_INVALID);
    assert_string_equal(err.source, "t.json");
    assert_string_equal(err.text, "instance type: expected a name of 1 to 63 characters, "
                                  "found \"\"");
    assert_int_equal(slo_spot_trace_load("/nonexistent/t.json", "x", &tr, &err), SLO_ERR_IO);
    assert_null(tr.capacity);
}

static void test_risk_hand_worked(void **state)
{
    (void)state;
    /* 2 spot instances at 1 USD/h, replaced at 3 USD/h, lambda = 1/h
     * (p = 1 - e^-1), D = 1 h, deadline D + 60 s, overhead 60 s: the slack
     * absorbs 1 revocation. q = 1 - e^-1 = 0.6321206; P = 1 - q^2;
     * cost = 2 (q + 3 (1 - q)) + 2q (60/3600) 6. */
    struct slo_risk_pool p = {2, 1, 1.0, 3.0, 1 - exp(-1.0)};
    struct slo_risk_eval ev;
    slo_error_t err = {0};
    double q = 1 - exp(-1.0);

    assert_int_equal(slo_risk_evaluate(&p, 1, 3600, 3660, 60, &ev, &err), SLO_OK);
    assert_int_equal(ev.max_revocations, 1);
    assert_true(fabs(ev.p_meet - (1 - q * q)) < 1e-12);
    assert_true(fabs(ev.p_meet - 0.600423) < 1e-6);
    assert_true(fabs(ev.expected_cost_usd - 3.597942) < 1e-6);
    assert_true(fabs(ev.expected_revocations - 2 * q) < 1e-12);
    /* no slack: P = no revocation = (1 - q)^2 = e^-2 */
    assert_int_equal(slo_risk_evaluate(&p, 1, 3600, 3600, 60, &ev, &err), SLO_OK);
    assert_true(fabs(ev.p_meet - exp(-2.0)) < 1e-12);
    /* the run alone overruns the deadline */
    assert_int_equal(slo_risk_evaluate(&p, 1, 3600, 3000, 60, &ev, &err), SLO_OK);
    assert_true(ev.p_meet == 0);
    /* bad rates */
    p.p_revoke_h = 1.5;
    assert_int_equal(slo_risk_evaluate(&p, 1, 3600, 3660, 60, &ev, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "in [0, 1], found 1.5"));
    p.p_revoke_h = -0.1;
    assert_int_equal(slo_risk_monte_carlo(&p, 1, 3600, 3660, 60, 10, 1, &ev, &err),
                     SLO_ERR_INVALID);
    /* p = 1: every spot instance is revoked at once */
    p.p_revoke_h = 1;
    assert_int_equal(slo_risk_evaluate(&p, 1, 3600, 3660, 60, &ev, &err), SLO_OK);
    assert_true(ev.p_meet == 0 && ev.expected_revocations == 2);
}

static void test_risk_monte_carlo(void **state)
{
    (void)state;
    /* 3 pools: 3 spot at p 0.3/h, 2 spot at p 0.1/h, 2 on demand; 2 h run,
     * slack of 2 restarts */
    struct slo_risk_pool pools[3] = {{3, 1, 1.25, 3.06, 0.3},
                                     {2, 1, 0.69, 2.28, 0.1},
                                     {2, 0, 3.06, 3.06, 0}};
    struct slo_risk_eval an, mc;
    slo_error_t err = {0};
    const long n = 200000;

    assert_int_equal(slo_risk_evaluate(pools, 3, 7200, 7200 + 2 * 300 + 10, 300, &an, &err),
                     SLO_OK);
    assert_int_equal(an.max_revocations, 2);
    assert_int_equal(slo_risk_monte_carlo(pools, 3, 7200, 7200 + 2 * 300 + 10, 300, n, 42,
                                          &mc, &err), SLO_OK);
    double se = sqrt(an.p_meet * (1 - an.p_meet) / n);
    assert_true(an.p_meet > 0.3 && an.p_meet < 0.95); /* a case that can fail both ways */
    assert_true(fabs(mc.p_meet - an.p_meet) < 4 * se);
    /* revocations: each instance Bernoulli; var <= E[N] */
    assert_true(fabs(mc.expected_revocations - an.expected_revocations) <
                4 * sqrt(an.expected_revocations / n));
    /* cost: bounded by the all-on-demand cost plus all overheads; 1% */
    assert_true(fabs(mc.expected_cost_usd - an.expected_cost_usd) < 0.01 * an.expected_cost_usd);
    /* the same seed gives the same result */
    struct slo_risk_eval mc2;
    assert_int_equal(slo_risk_monte_carlo(pools, 3, 7200, 7200 + 2 * 300 + 10, 300, n, 42,
                                          &mc2, &err), SLO_OK);
    assert_true(mc2.p_meet == mc.p_meet && mc2.expected_cost_usd == mc.expected_cost_usd);
}

/* One p3.2xlarge type: spot 1 USD/h, on-demand 3 USD/h, quota 1. */
static const char *catalog_json =
    "{\"name\": \"one\", \"types\": [{\"name\": \"p3.2xlarge\", \"gpu_model\": \"V100\", "
    "\"gpus\": 1, \"site\": \"cloud\", \"spot_usd_per_h\": 1.0, \"on_demand_usd_per_h\": 3.0, "
    "\"quota\": 1, \"network_mbps\": 1250, \"pcie_mbps\": 10000}]}";

struct fx {
    struct slo_catalog cat;
    struct slo_workload wl;
    double c_s; /* compute time of one p3.2xlarge to loss 0.8, s */
};

static int setup(void **state)
{
    static struct fx f;
    slo_error_t err = {0};
    struct slo_train_setup s;
    struct slo_train_request rq;
    struct slo_train_eval ev;
    int one = 1;
    if (slo_catalog_parse(catalog_json, "one", &f.cat, &err) ||
        slo_workload_open("resnet110", NULL, &f.wl, &err) ||
        slo_train_setup_init(&s, &f.cat, &f.wl, SLO_PRICING_SPOT, &err))
        return -1;
    memset(&rq, 0, sizeof rq);
    rq.target_loss = 0.8;
    rq.deadline_s = 1e9;
    if (slo_train_evaluate(&s, &one, &rq, &ev, &err))
        return -1;
    f.c_s = ev.time_s;
    slo_train_setup_free(&s);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fx *f = *state;
    slo_catalog_free(&f->cat);
    slo_workload_free(&f->wl);
    return 0;
}

static void replay(struct fx *f, const int *cap, size_t n, struct slo_replay_result *res)
{
    struct slo_spot_trace tr;
    struct slo_replay_problem pb;
    struct slo_replay_options opt;
    slo_error_t err = {0};
    double rate = 0.1;
    trace_of(cap, n, 600, &tr);
    memset(&pb, 0, sizeof pb);
    pb.catalog = &f->cat;
    pb.workload = &f->wl;
    pb.traces = &tr;
    pb.n_traces = 1;
    pb.target_loss = 0.8;
    pb.deadline_s = 3 * 3600;
    pb.overhead_s = 60;
    pb.p_revoke_h = &rate;
    slo_replay_options_init(&opt);
    opt.n_starts = 1;
    assert_int_equal(slo_replay_solve(&pb, &opt, res, &err), SLO_OK);
    slo_spot_trace_free(&tr);
}

static void test_replay_known(void **state)
{
    struct fx *f = *state;
    struct slo_replay_result r;
    int cap[30];
    const double C = f->c_s, ohd = 60;
    assert_true(C > 1300 && C < 10800 - 3 * ohd); /* the cases below rely on it */

    /* spot always there: every spot policy computes C after one restart at
     * 1 USD/h; on-demand the same at 3 USD/h */
    for (int i = 0; i < 30; i++)
        cap[i] = 1;
    replay(f, cap, 30, &r);
    assert_true(fabs(r.policies[SLO_REPLAY_ON_DEMAND].mean_cost_usd - 3 * (C + ohd) / 3600) < 1e-9);
    for (int p = SLO_REPLAY_SPOTDNN; p < SLO_REPLAY_N_POLICIES; p++) {
        assert_int_equal(r.policies[p].deadlines_met, 1);
        assert_true(fabs(r.policies[p].mean_cost_usd - (C + ohd) / 3600) < 1e-9);
        assert_true(fabs(r.policies[p].mean_finish_s - (C + ohd)) < 1e-6);
    }
    assert_string_equal(r.policies[SLO_REPLAY_UNIFORM_PROGRESS].name, "uniform-progress");

    /* never there: every policy that meets pays the on-demand run */
    for (int i = 0; i < 30; i++)
        cap[i] = 0;
    replay(f, cap, 30, &r);
    for (int p = 0; p < SLO_REPLAY_N_POLICIES; p++) {
        assert_int_equal(r.policies[p].deadlines_met, 1);
        assert_true(r.policies[p].mean_cost_usd >= 3 * (C + ohd) / 3600 - 1e-9);
    }
    assert_true(fabs(r.policies[SLO_REPLAY_SPOTDNN_REPLAN].mean_cost_usd - 3 * (C + ohd) / 3600)
                < 1e-9);

    /* lost after 2 ticks (1200 s) for good: spotdnn keeps waiting for its
     * spot instance and misses, billed 1200 s of spot; spotdnn-replan moves
     * to on demand with a second restart: 1200 s at 1 USD/h, then
     * ohd + (C - (1200 - ohd)) at 3 USD/h, finishing at C + 2 ohd */
    cap[0] = cap[1] = 1;
    replay(f, cap, 30, &r);
    assert_int_equal(r.policies[SLO_REPLAY_SPOTDNN].deadlines_met, 0);
    assert_true(fabs(r.policies[SLO_REPLAY_SPOTDNN].mean_cost_usd - 1200.0 / 3600) < 1e-9);
    assert_int_equal(r.policies[SLO_REPLAY_SPOTDNN_REPLAN].deadlines_met, 1);
    /* the model counts whole iterations (code compat): carrying the loss
     * to a new cluster may round by one iteration (C / 6799 = 0.55 s) */
    assert_true(fabs(r.policies[SLO_REPLAY_SPOTDNN_REPLAN].mean_cost_usd -
                     (1200 + 3 * (ohd + C - (1200 - ohd))) / 3600) < 3 * 0.6 / 3600);
    assert_true(fabs(r.policies[SLO_REPLAY_SPOTDNN_REPLAN].mean_finish_s - (C + 2 * ohd)) < 0.6);
    assert_int_equal(r.policies[SLO_REPLAY_SPOTDNN_REPLAN].replans, 1);
    assert_int_equal(r.policies[SLO_REPLAY_RISK_AWARE].deadlines_met, 1);
}

/* A Monte Carlo replay of the risk model through the replay itself: 1000
 * synthetic traces, each one p3.2xlarge obtainable until an exponential
 * lifetime (rate lambda = 0.5/h, drawn by this test's own generator, seeded)
 * and never after. The deadline leaves slack for no restart beyond the
 * first (C + 60 s + 30 s with a 60 s overhead), so spotdnn-replan meets it
 * iff its spot instance outlives the run: the risk model's
 * P = exp(-lambda (C + 60 s)), to within 4 standard errors plus one 20 s
 * tick of discretization. */
static void test_replay_monte_carlo(void **state)
{
    struct fx *f = *state;
    const double gap = 20, ohd = 60, lam = 0.5, T = f->c_s + ohd + 30;
    const int n = 1000;
    size_t ticks = (size_t)ceil(T / gap) + 1;
    int *cap = malloc(ticks * sizeof *cap);
    unsigned long long x = 12345;
    int met = 0;
    double p_h = 1 - exp(-lam);
    struct slo_risk_pool pool = {1, 1, 1.0, 3.0, p_h};
    struct slo_risk_eval ev;
    slo_error_t err = {0};

    assert_non_null(cap);
    for (int r = 0; r < n; r++) {
        /* splitmix64 -> uniform (0, 1) -> exponential lifetime, s */
        unsigned long long z = (x += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        double u = ((double)(z >> 11) + 0.5) / 9007199254740992.0;
        double tau = -log(u) / lam * 3600;
        for (size_t i = 0; i < ticks; i++)
            cap[i] = i * gap < tau;
        struct slo_spot_trace tr = {.gap_s = gap, .n_ticks = ticks, .capacity = cap,
                                    .max_capacity = 1};
        snprintf(tr.type, sizeof tr.type, "p3.2xlarge");
        snprintf(tr.source, sizeof tr.source, "synthetic");
        struct slo_replay_problem pb = {0};
        struct slo_replay_options opt;
        struct slo_replay_result res;
        pb.catalog = &f->cat;
        pb.workload = &f->wl;
        pb.traces = &tr;
        pb.n_traces = 1;
        pb.target_loss = 0.8;
        pb.deadline_s = T;
        pb.overhead_s = ohd;
        pb.p_revoke_h = &p_h;
        slo_replay_options_init(&opt);
        opt.n_starts = 1;
        assert_int_equal(slo_replay_solve(&pb, &opt, &res, &err), SLO_OK);
        met += res.policies[SLO_REPLAY_SPOTDNN_REPLAN].deadlines_met;
        if (r == 0)
            assert_true(fabs(res.policies[SLO_REPLAY_SPOTDNN_REPLAN].predicted_p_meet -
                             exp(-lam * (f->c_s + ohd) / 3600)) < 1e-9);
    }
    free(cap);
    assert_int_equal(slo_risk_evaluate(&pool, 1, f->c_s + ohd, T, ohd, &ev, &err), SLO_OK);
    assert_int_equal(ev.max_revocations, 0);
    double p = ev.p_meet, se = sqrt(p * (1 - p) / n);
    assert_true(fabs(p - exp(-lam * (f->c_s + ohd) / 3600)) < 1e-12);
    assert_true(fabs((double)met / n - p) < 4 * se + lam * gap / 3600);
}

static void test_replay_errors(void **state)
{
    struct fx *f = *state;
    struct slo_spot_trace tr;
    struct slo_replay_problem pb;
    struct slo_replay_options opt;
    struct slo_replay_result r;
    slo_error_t err = {0};
    int cap[5] = {1, 1, 1, 1, 1};
    double rate = 1.2;

    trace_of(cap, 5, 600, &tr);
    memset(&pb, 0, sizeof pb);
    pb.catalog = &f->cat;
    pb.workload = &f->wl;
    pb.traces = &tr;
    pb.n_traces = 1;
    pb.target_loss = 0.8;
    pb.deadline_s = 3 * 3600;
    pb.overhead_s = 60;
    slo_replay_options_init(&opt);
    /* 5 ticks of 600 s do not cover 3 h */
    assert_int_equal(slo_replay_solve(&pb, &opt, &r, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "covering the deadline"));
    pb.deadline_s = 2000;
    pb.p_revoke_h = &rate;
    assert_int_equal(slo_replay_solve(&pb, &opt, &r, &err), SLO_ERR_INVALID);
    assert_string_equal(err.source, "--interruption-rate");
    pb.p_revoke_h = NULL;
    opt.confidence = 1;
    assert_int_equal(slo_replay_solve(&pb, &opt, &r, &err), SLO_ERR_INVALID);
    assert_string_equal(err.source, "--slo-confidence");
    opt.confidence = 0.9;
    /* one p3.2xlarge needs C > 2000 s: not even on demand meets it */
    assert_int_equal(slo_replay_solve(&pb, &opt, &r, &err), SLO_ERR_INFEASIBLE);
    snprintf(tr.type, sizeof tr.type, "g3.8xlarge");
    assert_int_equal(slo_replay_solve(&pb, &opt, &r, &err), SLO_ERR_NOT_FOUND);
    assert_string_equal(err.source, "--trace");
    slo_spot_trace_free(&tr);
}

/* slo_risk_plan on the shipped aws-table3 catalog and resnet110: with no
 * revocations it is slo_train_solve's plan; with every spot instance
 * revoked at once (p = 1) and slack for none of them it is the on-demand
 * plan, with P = 1. */
static void test_risk_plan(void **state)
{
    (void)state;
    struct slo_catalog cat;
    struct slo_workload wl;
    struct slo_train_problem pb;
    struct slo_train_result tr;
    struct slo_risk_plan_result rp;
    slo_error_t err = {0};
    double rates[16];

    assert_int_equal(slo_catalog_open("aws-table3", NULL, &cat, &err), SLO_OK);
    assert_int_equal(slo_workload_open("resnet110", NULL, &wl, &err), SLO_OK);
    assert_true(cat.n_types <= 16);
    memset(&pb, 0, sizeof pb);
    pb.catalog = &cat;
    pb.workload = &wl;
    pb.pricing = SLO_PRICING_SPOT;
    pb.target_loss = 0.8;
    pb.deadline_s = 2400;

    for (size_t k = 0; k < cat.n_types; k++)
        rates[k] = 0;
    assert_int_equal(slo_risk_plan(&pb, NULL, rates, 60, 0.9, &rp, &err), SLO_OK);
    memset(&tr, 0, sizeof tr);
    assert_int_equal(slo_train_solve(&pb, NULL, &tr, &err), SLO_OK);
    assert_int_equal(tr.status, SLO_STATUS_OPTIMAL);
    assert_true(rp.found && rp.meets_confidence && !rp.on_demand);
    assert_int_equal(rp.n_types, tr.setup.n_types);
    assert_memory_equal(rp.counts, tr.plan.counts, rp.n_types * sizeof *rp.counts);
    assert_true(fabs(rp.cost_usd - tr.plan.eval.cost_usd) < 1e-12);
    /* the model rounds cost to 1e-6 USD (code compat); the risk model does not */
    assert_true(rp.risk.p_meet == 1 && fabs(rp.risk.expected_cost_usd - rp.cost_usd) < 2e-6);
    slo_train_result_free(&tr);
    slo_risk_plan_result_free(&rp);

    for (size_t k = 0; k < cat.n_types; k++)
        rates[k] = 1;
    assert_int_equal(slo_risk_plan(&pb, NULL, rates, 600, 0.9, &rp, &err), SLO_OK);
    pb.pricing = SLO_PRICING_ON_DEMAND;
    memset(&tr, 0, sizeof tr);
    assert_int_equal(slo_train_solve(&pb, NULL, &tr, &err), SLO_OK);
    assert_true(rp.found && rp.meets_confidence && rp.on_demand);
    assert_true(rp.risk.p_meet == 1);
    assert_true(fabs(rp.cost_usd - tr.plan.eval.cost_usd) < 1e-12);
    slo_train_result_free(&tr);
    slo_risk_plan_result_free(&rp);

    rates[2] = 1.5;
    assert_int_equal(slo_risk_plan(&pb, NULL, rates, 60, 0.9, &rp, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, cat.types[2].name));
    rates[2] = 0;
    assert_int_equal(slo_risk_plan(&pb, NULL, rates, 60, 1.0, &rp, &err), SLO_ERR_INVALID);
    assert_string_equal(err.source, "--slo-confidence");
    assert_int_equal(slo_risk_plan(&pb, NULL, rates, 60, 0, &rp, &err), SLO_ERR_INVALID);
    slo_catalog_free(&cat);
    slo_workload_free(&wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_parse),
        cmocka_unit_test(test_risk_hand_worked),
        cmocka_unit_test(test_risk_monte_carlo),
        cmocka_unit_test(test_risk_plan),
        cmocka_unit_test_setup_teardown(test_replay_known, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replay_monte_carlo, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replay_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
