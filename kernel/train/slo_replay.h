/*
 * slo_replay.h - replaying training plans on real spot capacity traces, and
 * the revocation risk of a plan (included by slo.h).
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Conventions: slo_core.h. Sources: spotDNN (slo_train.h) for the plans and
 * the re-planning inputs; Z. Wu et al., "Can't Be Late: Optimizing Spot
 * Instance Savings under Deadlines", NSDI 2024 (Uniform Progress, Sec. 4,
 * and the traces of shared/data/spot-traces). doc/api/train.md, "Replay and
 * risk", states the models.
 */
#ifndef SLO_REPLAY_H
#define SLO_REPLAY_H

#include <stddef.h>

#include "slo_core.h"
#include "slo_train.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Spot capacity traces                                                */
/* ------------------------------------------------------------------ */

/* One trace: how many spot instances of one type could be had, tick by tick. */
struct slo_spot_trace {
    char type[SLO_NAME_LENGTH];          /* instance type it limits ("p3.2xlarge") */
    char source[SLO_ERROR_SOURCE_LENGTH]; /* file name, for messages */
    double gap_s;                        /* tick length, s (metadata.gap_seconds) */
    size_t n_ticks;
    int *capacity;                       /* [n_ticks] instances obtainable, >= 0, owned */
    int max_capacity;                    /* largest capacity[] value */
};

/*
 * Parse a trace in the skypilot-org/spot-traces shape (doc/formats.md,
 * "Spot capacity trace"): one JSON object {"metadata": {"gap_seconds": G},
 * "data": [N, ...]} with optional "prices" (a list of numbers of the same
 * length, ignored) and no other keys; G a number in (0, 86400] s, data a
 * non-empty list of at most 10,000,000 integers in 0..1e6. type names the
 * instance type the trace limits (at most SLO_NAME_LENGTH - 1 characters).
 * Errors: SLO_ERR_INVALID with source "SOURCE: FIELD" and text "expected
 * ..., found ..." ("t.json: data[3]: expected an integer from 0 to 1000000,
 * found -1"); SLO_ERR_IO (load, unreadable); SLO_ERR_NOMEM. tr is empty on
 * failure.
 */
int slo_spot_trace_parse(const char *json, const char *source, const char *type,
                         struct slo_spot_trace *tr, slo_error_t *err);
int slo_spot_trace_load(const char *path, const char *type, struct slo_spot_trace *tr,
                        slo_error_t *err);
void slo_spot_trace_free(struct slo_spot_trace *tr);

/*
 * Interruption rate estimated from a trace, as the probability that a
 * running instance is revoked within an hour, 1 - exp(-lambda): lambda, per
 * instance-hour, is the instances lost at capacity drops (sum of
 * max(c[i-1] - c[i], 0)) divided by the instance-hours held (sum of c[i-1]
 * gap_s / 3600) - the maximum-likelihood rate of independent exponential
 * instance lifetimes when every obtainable instance is held. Returns 0 for
 * a trace that never holds an instance.
 */
double slo_spot_trace_revocation_p(const struct slo_spot_trace *tr);

/* ------------------------------------------------------------------ */
/* Revocation risk of a plan (issue 13 item 4)                         */
/* ------------------------------------------------------------------ */

/* One pool of a plan: instances of one type bought at one price. */
struct slo_risk_pool {
    int count;                  /* instances in the plan, >= 0 */
    int spot;                   /* 1: spot (revocable), 0: on-demand or on-prem */
    double usd_per_h;           /* price paid while it runs, USD/h, >= 0 */
    double replace_usd_per_h;   /* price of its on-demand replacement, USD/h */
    double p_revoke_h;          /* interruption rate: probability that a running
                                   instance is revoked within an hour, in [0, 1]
                                   (Poisson rate lambda = -ln(1 - p) per hour;
                                   e.g. Spot Instance Advisor's bucket scaled to
                                   an hour, or slo_spot_trace_revocation_p) */
};

struct slo_risk_eval {
    double p_meet;              /* probability that the run ends by the deadline */
    double expected_cost_usd;   /* expected cost with the replacements, USD */
    double expected_revocations;
    int max_revocations;        /* most revocations the slack absorbs */
};

/*
 * The risk model (documented in doc/api/train.md): every spot instance of
 * pool k is revoked independently at an exponential time of rate
 * lambda_k = -ln(1 - p_revoke_h) per hour (Poisson revocations, the clock
 * running while the job computes);
 * a revoked instance is replaced by an on-demand instance of the same type
 * (the re-plan that keeps the cluster's speed, so progress is unchanged)
 * after a pause of overhead_s during which the whole cluster is billed at
 * its on-demand prices. A plan that computes for duration_s then ends at
 * duration_s + N overhead_s, N the number of instances revoked before
 * duration_s of computing: N is a sum of Bernoulli(1 - exp(-rate D)),
 * its distribution exact by convolution, and the deadline is met iff
 * N <= floor((deadline_s - duration_s) / overhead_s) (every N when
 * overhead_s is 0). Expected cost: sum over instances of price x E[min(tau,
 * D)] + replacement price x (D - E[min(tau, D)]), plus E[N] overhead_s x
 * the cluster's on-demand price per hour.
 * pools[n_pools]; duration_s > 0, deadline_s > 0, overhead_s >= 0, all s.
 * Errors: SLO_ERR_INVALID, source "p_revoke_h" (text "pool K: expected an
 * interruption rate (probability of a revocation within an hour) in [0, 1],
 * found R") or the field
 * named; SLO_ERR_NOMEM. Source: this project (issue 13), with spotDNN's
 * restart overhead T_ohd.
 */
int slo_risk_evaluate(const struct slo_risk_pool *pools, size_t n_pools, double duration_s,
                      double deadline_s, double overhead_s, struct slo_risk_eval *out,
                      slo_error_t *err);

/*
 * The same quantities estimated by drawing the model's revocation times
 * (draws runs, xorshift64* generator seeded with seed; the same seed gives
 * the same result): the Monte Carlo check of slo_risk_evaluate. Errors as
 * slo_risk_evaluate, and SLO_ERR_INVALID for draws < 1.
 */
int slo_risk_monte_carlo(const struct slo_risk_pool *pools, size_t n_pools,
                         double duration_s, double deadline_s, double overhead_s,
                         long draws, unsigned long long seed, struct slo_risk_eval *out,
                         slo_error_t *err);

/* The risk-aware plan of a training problem (the hook for `slo train
 * --slo-confidence`). */
struct slo_risk_plan_result {
    int found;                  /* 1: counts holds a plan that meets the deadline
                                   without revocations */
    int meets_confidence;       /* 1: its p_meet >= the confidence asked and, with
                                   a budget (pb->budget_usd > 0), its expected cost
                                   risk.expected_cost_usd <= the budget */
    int *counts;                /* [setup.n_types] of a slo_train_setup_init of the
                                   problem's catalog, workload and SPOT pricing, in its
                                   type order; owned (slo_risk_plan_result_free) */
    size_t n_types;
    int on_demand;              /* 1: the plan is priced on demand (no spot risk) */
    double time_s, cost_usd;    /* the plan's time and cost without revocations */
    struct slo_risk_eval risk;  /* its P(deadline met) and expected cost */
    int candidates;             /* plans evaluated */
    /* Added for `slo train --slo-confidence` (the chosen candidate in full): */
    struct slo_train_eval eval; /* slo_train_solve's evaluation of the plan (its
                                   time_s and cost_usd are time_s, cost_usd above) */
    int proven;                 /* the candidate's search proved it cheapest for
                                   its deadline */
    double plan_deadline_s;     /* the deadline it was planned for, s: the SLO's less
                                   k restart overheads (slack for k revocations) */
    int slack_revocations;      /* that k (0 for the on-demand candidate) */
    int over_budget;            /* 1: candidates reach the confidence but every one
                                   is expected to cost more than pb->budget_usd; the
                                   plan is the cheapest of them in expected cost
                                   (meets_confidence 0) */
};

void slo_risk_plan_result_free(struct slo_risk_plan_result *r);

/*
 * The cheapest plan in expected cost whose probability of meeting the
 * deadline is at least confidence, under the risk model of slo_risk_evaluate:
 * the candidates are slo_train_solve's plans (spot pricing) for the deadline
 * shortened by k restart overheads (k = 0..8: slack for k revocations) and
 * its plan at on-demand prices (P = 1 when it meets the deadline). A budget
 * (pb->budget_usd > 0, USD) binds each candidate's cost without revocations
 * and the chosen plan's EXPECTED cost: when every candidate that reaches the
 * confidence is expected to cost more, the cheapest of them in expectation
 * (meets_confidence 0, over_budget 1); when no candidate reaches the
 * confidence, the one most likely to meet (meets_confidence 0). pb as slo_train_solve's (its pricing is ignored);
 * p_revoke_h[catalog->n_types] the interruption rate of each catalog entry
 * in [0, 1] (ignored for on-prem entries); restart_s, s >= 0, the pause a
 * revocation costs; confidence in (0, 1). Returns SLO_OK (found 0 when no
 * candidate meets the deadline even without revocations); SLO_ERR_INVALID
 * for a rate outside [0, 1] (source "p_revoke_h", text naming the type), a
 * confidence outside (0, 1) (source "--slo-confidence"); slo_train_solve's
 * errors; SLO_ERR_NOMEM. Source: this project (issue 13) on spotDNN's
 * planner.
 */
int slo_risk_plan(const struct slo_train_problem *pb, const struct slo_train_options *opt,
                  const double *p_revoke_h, double restart_s, double confidence,
                  struct slo_risk_plan_result *res, slo_error_t *err);

/* ------------------------------------------------------------------ */
/* Replay of training plans on traces (issue 13 item 5)                */
/* ------------------------------------------------------------------ */

enum slo_replay_policy {
    SLO_REPLAY_ON_DEMAND = 0,        /* "on-demand": the cheapest on-demand plan */
    SLO_REPLAY_SPOTDNN = 1,          /* "spotdnn": spotDNN's plan at the start, lost
                                        spot instances relaunched when capacity returns */
    SLO_REPLAY_SPOTDNN_REPLAN = 2,   /* "spotdnn-replan": re-planned (slo_train_solve with
                                        survivors, time left, loss reached, overhead) at
                                        each loss of capacity */
    SLO_REPLAY_RISK_AWARE = 3,       /* "risk-aware": as spotdnn-replan, each plan the
                                        cheapest in expected cost with P(meet) >= the
                                        confidence (slo_risk_evaluate) */
    SLO_REPLAY_UNIFORM_PROGRESS = 4, /* "uniform-progress": Can't Be Late's policy on the
                                        on-demand plan's cluster */
    SLO_REPLAY_N_POLICIES = 5
};

/* "on-demand", "spotdnn", ... (NULL for an unknown value). */
const char *slo_replay_policy_name(enum slo_replay_policy p);

struct slo_replay_problem {
    const struct slo_catalog *catalog;    /* prices and quotas (borrowed) */
    const struct slo_workload *workload;  /* profiles and loss model (borrowed) */
    const struct slo_spot_trace *traces;  /* [n_traces], one per instance type */
    size_t n_traces;
    double target_loss;                   /* L_obj */
    double deadline_s;                    /* T_obj, s, > 0 */
    double overhead_s;                    /* restart overhead per cluster change, s, >= 0 */
    const double *p_revoke_h;             /* [n_traces] interruption rates
                                             (struct slo_risk_pool) in [0, 1], or
                                             NULL: each trace's
                                             slo_spot_trace_revocation_p */
};

struct slo_replay_options {
    int n_starts;          /* start times, evenly spaced over the ticks where the
                              deadline fits in the trace (default 20) */
    double confidence;     /* risk-aware: P(meet) asked for, in (0, 1) (default 0.9) */
    long node_limit;       /* slo_train_options.node_limit of every plan (default 0) */
};

void slo_replay_options_init(struct slo_replay_options *opt);

struct slo_replay_policy_result {
    const char *name;        /* slo_replay_policy_name */
    int runs;                /* start times replayed */
    int deadlines_met;       /* runs that reached the target loss by the deadline */
    double mean_cost_usd;    /* mean over runs of the USD billed (a missed run is billed
                                up to the deadline, where it stops) */
    double mean_finish_s;    /* mean finish time of the runs that met the deadline, s
                                (0 when none did) */
    long replans;            /* re-plans that changed the plan, over all runs */
    double predicted_p_meet; /* spotdnn, spotdnn-replan, risk-aware: mean over runs of
                                the risk model's P(deadline met) for the first plan
                                (slo_risk_evaluate, which assumes re-planning onto
                                on-demand replacements); -1 for the others */
    double predicted_cost_usd; /* the same mean of its expected cost, USD; -1 likewise */
};

struct slo_replay_result {
    enum slo_status status;          /* optimal: every policy replayed */
    char reason[SLO_REASON_LENGTH];
    int n_starts;                    /* start times used */
    double horizon_s;                /* ticks replayed per run x gap, s */
    double p_revoke_h[SLO_CLUSTER_MAX_TYPES]; /* [n_traces] interruption rates used */
    struct slo_replay_policy_result policies[SLO_REPLAY_N_POLICIES];
};

void slo_replay_result_free(struct slo_replay_result *res);

/*
 * Replay every policy from the same opt->n_starts start ticks of the traces
 * (the traces' common length; every trace must have the same gap_s). Only
 * the traced instance types take part: each becomes a spot entry (its spot
 * price, capacity the trace's value at each tick, at most its quota) and an
 * on-demand entry (its on-demand price and quota). A run computes with the
 * loss model of slo_train_evaluate (loss reached carried across cluster
 * changes), pauses overhead_s at every change of the running cluster (billed),
 * and stops at the target loss or the deadline. Returns SLO_OK (status
 * optimal); SLO_ERR_INVALID for no trace, a traced type the catalog or the
 * workload lacks (source "--trace"), differing gaps, traces shorter than the
 * deadline, a rate outside [0, 1], confidence outside (0, 1), n_starts < 1;
 * SLO_ERR_INFEASIBLE when not even the on-demand plan meets the SLO (the
 * replay would compare nothing; text says the closest point); errors of
 * slo_train_solve; SLO_ERR_NOMEM.
 */
int slo_replay_solve(const struct slo_replay_problem *problem,
                     const struct slo_replay_options *opt, struct slo_replay_result *res,
                     slo_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* SLO_REPLAY_H */
