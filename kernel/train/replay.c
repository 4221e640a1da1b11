/*
 * replay.c - spot capacity traces, the revocation risk of a plan (analytic
 * and Monte Carlo), and the replay of training plans through traces with
 * five policies (slo_replay.h; models in doc/api/train.md "Replay and risk").
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"
#include "slo_replay.h"

#define TRACE_MAX_TICKS 10000000L
#define TRACE_MAX_CAPACITY 1000000L

/* ------------------------------------------------------------------ */
/* Traces                                                              */
/* ------------------------------------------------------------------ */

void slo_spot_trace_free(struct slo_spot_trace *tr)
{
    if (!tr)
        return;
    free(tr->capacity);
    memset(tr, 0, sizeof *tr);
}

static int trace_fail(slo_error_t *err, const char *source, const char *field,
                      const char *expected, const json_t *found)
{
    char where[SLO_ERROR_SOURCE_LENGTH], what[96];
    snprintf(where, sizeof where, "%s: %s", source, field);
    if (found)
        slo__json_describe(found, what, sizeof what);
    else
        snprintf(what, sizeof what, "nothing (the field is missing)");
    return slo__fail(err, SLO_ERR_INVALID, where, "expected %s, found %s", expected, what);
}

int slo_spot_trace_parse(const char *json, const char *source, const char *type,
                         struct slo_spot_trace *tr, slo_error_t *err)
{
    static const char *const top_keys[] = {"metadata", "data", "prices", NULL};
    static const char *const meta_keys[] = {"gap_seconds", NULL};
    json_t *root = NULL, *meta, *data, *prices, *gap;
    int rc;
    size_t i, n;

    memset(tr, 0, sizeof *tr);
    if (!source)
        source = "trace";
    if (!type || !type[0] || strlen(type) >= SLO_NAME_LENGTH)
        return slo__fail(err, SLO_ERR_INVALID, source,
                         "instance type: expected a name of 1 to %d characters, found \"%.*s%s\"",
                         SLO_NAME_LENGTH - 1, SLO_NAME_LENGTH - 1, type ? type : "",
                         type && strlen(type) >= SLO_NAME_LENGTH ? "..." : "");
    if ((rc = slo__json_parse_text(json, source, &root, err)))
        return rc;
    if ((rc = slo__json_known_keys(root, top_keys, source, "", err)))
        goto out;
    meta = json_object_get(root, "metadata");
    if (!json_is_object(meta)) {
        rc = trace_fail(err, source, "metadata", "an object {\"gap_seconds\": G}", meta);
        goto out;
    }
    if ((rc = slo__json_known_keys(meta, meta_keys, source, "metadata", err)))
        goto out;
    gap = json_object_get(meta, "gap_seconds");
    if (!json_is_number(gap) || !(json_number_value(gap) > 0) ||
        json_number_value(gap) > 86400) {
        rc = trace_fail(err, source, "metadata.gap_seconds",
                        "a tick length in (0, 86400] seconds", gap);
        goto out;
    }
    data = json_object_get(root, "data");
    if (!json_is_array(data) || json_array_size(data) == 0 ||
        json_array_size(data) > (size_t)TRACE_MAX_TICKS) {
        rc = trace_fail(err, source, "data",
                        "a list of 1 to 10000000 instance counts, one per tick", data);
        goto out;
    }
    n = json_array_size(data);
    prices = json_object_get(root, "prices");
    if (prices) {
        if (!json_is_array(prices) || json_array_size(prices) != n) {
            char exp[96];
            snprintf(exp, sizeof exp, "a list of %zu prices (one per tick of data)", n);
            rc = trace_fail(err, source, "prices", exp, prices);
            goto out;
        }
        for (i = 0; i < n; i++) {
            json_t *p = json_array_get(prices, i);
            if (!json_is_number(p) && !json_is_null(p)) {
                char field[48];
                snprintf(field, sizeof field, "prices[%zu]", i);
                rc = trace_fail(err, source, field, "a number or null", p);
                goto out;
            }
        }
    }
    tr->capacity = malloc(n * sizeof *tr->capacity);
    if (!tr->capacity) {
        rc = slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
        goto out;
    }
    for (i = 0; i < n; i++) {
        json_t *v = json_array_get(data, i);
        json_int_t c;
        if (!json_is_integer(v) || (c = json_integer_value(v)) < 0 ||
            c > TRACE_MAX_CAPACITY) {
            char field[48];
            snprintf(field, sizeof field, "data[%zu]", i);
            rc = trace_fail(err, source, field, "an integer from 0 to 1000000", v);
            goto out;
        }
        tr->capacity[i] = (int)c;
        if (tr->capacity[i] > tr->max_capacity)
            tr->max_capacity = tr->capacity[i];
    }
    tr->n_ticks = n;
    tr->gap_s = json_number_value(gap);
    snprintf(tr->type, sizeof tr->type, "%s", type);
    snprintf(tr->source, sizeof tr->source, "%s", source);
    rc = SLO_OK;
out:
    json_decref(root);
    if (rc)
        slo_spot_trace_free(tr);
    return rc;
}

int slo_spot_trace_load(const char *path, const char *type, struct slo_spot_trace *tr,
                        slo_error_t *err)
{
    char *text = NULL;
    int rc;
    memset(tr, 0, sizeof *tr);
    if ((rc = slo__read_file(path, &text, err)))
        return rc;
    rc = slo_spot_trace_parse(text, path, type, tr, err);
    free(text);
    return rc;
}

double slo_spot_trace_revocation_p(const struct slo_spot_trace *tr)
{
    double lost = 0, held_h = 0;
    for (size_t i = 1; i < tr->n_ticks; i++) {
        int d = tr->capacity[i - 1] - tr->capacity[i];
        if (d > 0)
            lost += d;
        held_h += tr->capacity[i - 1] * tr->gap_s / 3600.0;
    }
    return held_h > 0 ? -expm1(-lost / held_h) : 0;
}

/* ------------------------------------------------------------------ */
/* Risk model                                                          */
/* ------------------------------------------------------------------ */

static int risk_check(const struct slo_risk_pool *pools, size_t n_pools, double duration_s,
                      double deadline_s, double overhead_s, slo_error_t *err)
{
    if (!(duration_s > 0) || !isfinite(duration_s))
        return slo__fail(err, SLO_ERR_INVALID, "duration_s",
                         "expected a run time > 0 s, found %g", duration_s);
    if (!(deadline_s > 0) || !isfinite(deadline_s))
        return slo__fail(err, SLO_ERR_INVALID, "deadline_s",
                         "expected a deadline > 0 s, found %g", deadline_s);
    if (!(overhead_s >= 0) || !isfinite(overhead_s))
        return slo__fail(err, SLO_ERR_INVALID, "overhead_s",
                         "expected a restart overhead >= 0 s, found %g", overhead_s);
    for (size_t k = 0; k < n_pools; k++) {
        const struct slo_risk_pool *p = &pools[k];
        if (!(p->p_revoke_h >= 0 && p->p_revoke_h <= 1))
            return slo__fail(err, SLO_ERR_INVALID, "p_revoke_h",
                             "pool %zu: expected an interruption rate (probability "
                             "of a revocation within an hour) in [0, 1], found %g", k,
                             p->p_revoke_h);
        if (p->count < 0 || p->count > 100000)
            return slo__fail(err, SLO_ERR_INVALID, "count",
                             "pool %zu: expected 0 to 100000 instances, found %d", k,
                             p->count);
        if (!(p->usd_per_h >= 0) || !(p->replace_usd_per_h >= 0) ||
            !isfinite(p->usd_per_h) || !isfinite(p->replace_usd_per_h))
            return slo__fail(err, SLO_ERR_INVALID, "usd_per_h",
                             "pool %zu: expected prices >= 0 USD/h, found %g and %g", k,
                             p->usd_per_h, p->replace_usd_per_h);
    }
    return SLO_OK;
}

/* Most revocations the slack absorbs; -1 when the run misses even without. */
static long risk_absorbed(double duration_s, double deadline_s, double overhead_s, long most)
{
    double slack = deadline_s - duration_s;
    if (slack < 0)
        return -1;
    if (overhead_s <= 0)
        return most;
    double m = floor(slack / overhead_s);
    return m > (double)most ? most : (long)m;
}

/* Poisson rate per hour of an hourly revocation probability p in [0, 1]. */
static double lambda_of(double p)
{
    return p >= 1 ? INFINITY : -log1p(-p);
}

static double od_price_per_h(const struct slo_risk_pool *pools, size_t n_pools)
{
    double s = 0;
    for (size_t k = 0; k < n_pools; k++)
        s += pools[k].count * pools[k].replace_usd_per_h;
    return s;
}

int slo_risk_evaluate(const struct slo_risk_pool *pools, size_t n_pools, double duration_s,
                      double deadline_s, double overhead_s, struct slo_risk_eval *out,
                      slo_error_t *err)
{
    int rc;
    long total = 0, seen = 0;
    double *dist, d_h = duration_s / 3600.0, cost = 0, en = 0, p = 0;

    memset(out, 0, sizeof *out);
    if ((rc = risk_check(pools, n_pools, duration_s, deadline_s, overhead_s, err)))
        return rc;
    for (size_t k = 0; k < n_pools; k++)
        if (pools[k].spot)
            total += pools[k].count;
    dist = calloc((size_t)total + 1, sizeof *dist);
    if (!dist)
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    dist[0] = 1;
    for (size_t k = 0; k < n_pools; k++) {
        const struct slo_risk_pool *pl = &pools[k];
        if (!pl->spot || pl->p_revoke_h <= 0) {
            cost += pl->count * pl->usd_per_h * d_h;
            continue;
        }
        double lam = lambda_of(pl->p_revoke_h);
        double q = isinf(lam) ? 1 : -expm1(-lam * d_h); /* P(revoked before D) */
        double emin = isinf(lam) ? 0 : q / lam;          /* E[min(tau, D)], h */
        cost += pl->count * (pl->usd_per_h * emin + pl->replace_usd_per_h * (d_h - emin));
        en += pl->count * q;
        for (int i = 0; i < pl->count; i++) {
            /* one more Bernoulli(q): dist <- dist (1 - q) + shift(dist) q */
            for (long n = seen + 1; n >= 1; n--)
                dist[n] = dist[n] * (1 - q) + dist[n - 1] * q;
            dist[0] *= 1 - q;
            seen++;
        }
    }
    long m = risk_absorbed(duration_s, deadline_s, overhead_s, total);
    for (long n = 0; n <= m; n++)
        p += dist[n];
    free(dist);
    out->p_meet = p > 1 ? 1 : p;
    out->expected_revocations = en;
    out->expected_cost_usd = cost + en * overhead_s / 3600.0 * od_price_per_h(pools, n_pools);
    out->max_revocations = (int)(m < 0 ? -1 : m);
    return SLO_OK;
}

/* xorshift64* (Vigna 2016): a uniform double in (0, 1). */
static double rng_uniform(unsigned long long *s)
{
    unsigned long long x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return ((double)((x * 0x2545F4914F6CDD1DULL) >> 11) + 0.5) / 9007199254740992.0;
}

int slo_risk_monte_carlo(const struct slo_risk_pool *pools, size_t n_pools,
                         double duration_s, double deadline_s, double overhead_s,
                         long draws, unsigned long long seed, struct slo_risk_eval *out,
                         slo_error_t *err)
{
    int rc;
    long total = 0, met = 0;
    double d_h = duration_s / 3600.0, cost_sum = 0, n_sum = 0, od;
    unsigned long long s = seed ? seed : 0x9E3779B97F4A7C15ULL;

    memset(out, 0, sizeof *out);
    if ((rc = risk_check(pools, n_pools, duration_s, deadline_s, overhead_s, err)))
        return rc;
    if (draws < 1)
        return slo__fail(err, SLO_ERR_INVALID, "draws", "expected at least 1 draw, found %ld",
                         draws);
    for (size_t k = 0; k < n_pools; k++)
        if (pools[k].spot)
            total += pools[k].count;
    long m = risk_absorbed(duration_s, deadline_s, overhead_s, total);
    od = od_price_per_h(pools, n_pools);
    for (long d = 0; d < draws; d++) {
        long n = 0;
        double cost = 0;
        for (size_t k = 0; k < n_pools; k++) {
            const struct slo_risk_pool *pl = &pools[k];
            for (int i = 0; i < pl->count; i++) {
                double tau = pl->spot && pl->p_revoke_h > 0
                                 ? -log(rng_uniform(&s)) / lambda_of(pl->p_revoke_h)
                                 : INFINITY;
                if (tau < d_h) {
                    n++;
                    cost += pl->usd_per_h * tau + pl->replace_usd_per_h * (d_h - tau);
                } else {
                    cost += pl->usd_per_h * d_h;
                }
            }
        }
        cost += n * overhead_s / 3600.0 * od;
        if (n <= m)
            met++;
        cost_sum += cost;
        n_sum += n;
    }
    out->p_meet = (double)met / draws;
    out->expected_cost_usd = cost_sum / draws;
    out->expected_revocations = n_sum / draws;
    out->max_revocations = (int)(m < 0 ? -1 : m);
    return SLO_OK;
}

/* ------------------------------------------------------------------ */
/* Risk-aware plan of a training problem                               */
/* ------------------------------------------------------------------ */

void slo_risk_plan_result_free(struct slo_risk_plan_result *r)
{
    if (!r)
        return;
    free(r->counts);
    memset(r, 0, sizeof *r);
}

int slo_risk_plan(const struct slo_train_problem *pb, const struct slo_train_options *opt,
                  const double *p_revoke_h, double restart_s, double confidence,
                  struct slo_risk_plan_result *res, slo_error_t *err)
{
    struct slo_train_options o;
    struct slo_risk_pool *pools = NULL;
    int rc = SLO_OK, have = 0, best_tier = -1;
    double best_cost = INFINITY, best_p = -1;

    memset(res, 0, sizeof *res);
    if (!pb || !pb->catalog || !pb->workload || !p_revoke_h)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                         "expected a problem with a catalog, a workload and rates");
    if (!(confidence > 0 && confidence < 1))
        return slo__fail(err, SLO_ERR_INVALID, "--slo-confidence",
                         "expected a probability in (0, 1), found %g", confidence);
    if (!(restart_s >= 0) || !isfinite(restart_s))
        return slo__fail(err, SLO_ERR_INVALID, "--restart-overhead",
                         "expected a restart overhead >= 0 s, found %g", restart_s);
    for (size_t k = 0; k < pb->catalog->n_types; k++)
        if (!(p_revoke_h[k] >= 0 && p_revoke_h[k] <= 1))
            return slo__fail(err, SLO_ERR_INVALID, "p_revoke_h",
                             "%s: expected an interruption rate (probability of a revocation "
                             "within an hour) in [0, 1], found %g",
                             pb->catalog->types[k].name, p_revoke_h[k]);
    if (opt)
        o = *opt;
    else
        slo_train_options_init(&o);
    o.comparisons = 0;
    double left = pb->deadline_s - pb->elapsed_s;
    for (int k = 0; k <= 9; k++) {
        struct slo_train_problem q = *pb;
        struct slo_train_result tr;
        struct slo_risk_eval ev;
        int od = k == 9;
        q.pricing = od ? SLO_PRICING_ON_DEMAND : SLO_PRICING_SPOT;
        q.deadline_s = pb->deadline_s - (od ? 0 : k) * restart_s;
        if (q.deadline_s - q.elapsed_s <= 0)
            continue;
        memset(&tr, 0, sizeof tr);
        rc = slo_train_solve(&q, &o, &tr, err);
        if (rc) {
            slo_train_result_free(&tr);
            break;
        }
        if (tr.status != SLO_STATUS_OPTIMAL && tr.status != SLO_STATUS_FEASIBLE_UNPROVEN) {
            slo_train_result_free(&tr);
            continue;
        }
        size_t n = tr.setup.n_types;
        if (!pools && !(pools = calloc(n, sizeof *pools))) {
            slo_train_result_free(&tr);
            rc = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
            break;
        }
        for (size_t i = 0; i < n; i++) {
            const struct slo_instance_type *it =
                &pb->catalog->types[tr.setup.types[i].catalog_index];
            pools[i].count = tr.plan.counts[i];
            pools[i].spot = !od && it->site == SLO_SITE_CLOUD;
            pools[i].usd_per_h = tr.setup.types[i].usd_per_h;
            pools[i].replace_usd_per_h = slo_instance_price(it, SLO_PRICING_ON_DEMAND);
            pools[i].p_revoke_h = pools[i].spot ? p_revoke_h[tr.setup.types[i].catalog_index]
                                                : 0;
        }
        rc = slo_risk_evaluate(pools, n, tr.plan.eval.time_s, left, restart_s, &ev, err);
        if (rc) {
            slo_train_result_free(&tr);
            break;
        }
        res->candidates++;
        /* Rank: confident and within the budget in expectation (2), confident
         * (1), neither (0); the cheapest in expectation within a confident
         * rank, the most likely to meet in rank 0. */
        int good = ev.p_meet >= confidence;
        int tier = good ? 1 + (!(pb->budget_usd > 0) ||
                               ev.expected_cost_usd <= pb->budget_usd)
                        : 0;
        if (!have || tier > best_tier ||
            (tier == best_tier && (tier > 0 ? ev.expected_cost_usd < best_cost
                                            : ev.p_meet > best_p))) {
            if (!res->counts && !(res->counts = calloc(n, sizeof *res->counts))) {
                slo_train_result_free(&tr);
                rc = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
                break;
            }
            memcpy(res->counts, tr.plan.counts, n * sizeof *res->counts);
            res->n_types = n;
            res->on_demand = od;
            res->time_s = tr.plan.eval.time_s;
            res->cost_usd = tr.plan.eval.cost_usd;
            res->risk = ev;
            res->eval = tr.plan.eval;
            res->proven = tr.plan.proven;
            res->plan_deadline_s = q.deadline_s;
            res->slack_revocations = od ? 0 : k;
            res->found = 1;
            res->meets_confidence = tier == 2;
            res->over_budget = tier == 1;
            best_tier = tier;
            best_cost = ev.expected_cost_usd;
            best_p = ev.p_meet;
            have = 1;
        }
        slo_train_result_free(&tr);
    }
    free(pools);
    if (rc) {
        slo_risk_plan_result_free(res);
        return rc;
    }
    return SLO_OK;
}

/* ------------------------------------------------------------------ */
/* Replay                                                              */
/* ------------------------------------------------------------------ */

static const char *const policy_names[SLO_REPLAY_N_POLICIES] = {
    "on-demand", "spotdnn", "spotdnn-replan", "risk-aware", "uniform-progress"};

const char *slo_replay_policy_name(enum slo_replay_policy p)
{
    return (unsigned)p < SLO_REPLAY_N_POLICIES ? policy_names[p] : NULL;
}

void slo_replay_options_init(struct slo_replay_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->n_starts = 20;
    opt->confidence = 0.9;
}

void slo_replay_result_free(struct slo_replay_result *res)
{
    (void)res; /* owns nothing today; kept for the API shape */
}

/* Entry 2i is trace i's type bought spot, 2i+1 the same type on demand. */
struct replay_ctx {
    const struct slo_replay_problem *pb;
    const struct slo_replay_options *opt;
    size_t m;                  /* traces */
    size_t ne;                 /* entries = 2 m */
    struct slo_catalog cat;    /* derived catalog [ne] */
    int *quota;                /* [ne] the catalog's quotas */
    struct slo_train_setup setup;
    int *setup_of;             /* [ne] setup index of each entry */
    double price[2 * SLO_CLUSTER_MAX_TYPES];
    double rate[SLO_CLUSTER_MAX_TYPES];
    int od_plan[2 * SLO_CLUSTER_MAX_TYPES]; /* the on-demand plan */
    double od_compute_s;       /* its compute time without overhead */
};

/* A plan asked of slo_train_solve. */
struct replay_plan {
    int ok;                    /* 1: counts holds a plan (feasible or closest) */
    int feasible;
    int counts[2 * SLO_CLUSTER_MAX_TYPES];
    double time_s, cost_usd;
};

static int ctx_solve(struct replay_ctx *c, const int *spot_cap, const int *existing,
                     double deadline_s, double elapsed_s, double loss_now,
                     struct replay_plan *out, slo_error_t *err)
{
    struct slo_train_problem pb;
    struct slo_train_options o;
    struct slo_train_result res;
    struct slo_cluster ex;
    int rc;

    memset(out, 0, sizeof *out);
    memset(&ex, 0, sizeof ex);
    for (size_t e = 0; e < c->ne; e++) {
        c->cat.types[e].quota = (e % 2 == 0) ? (spot_cap[e / 2] < c->quota[e]
                                                    ? spot_cap[e / 2] : c->quota[e])
                                             : c->quota[e];
        if (existing && existing[e] > c->cat.types[e].quota)
            c->cat.types[e].quota = existing[e];
        if (existing && existing[e] > 0) {
            struct slo_cluster_entry *ce = &ex.entry[ex.n++];
            snprintf(ce->type, sizeof ce->type, "%s", c->cat.types[e].name);
            ce->count = existing[e];
            snprintf(ce->count_text, sizeof ce->count_text, "%d", existing[e]);
        }
    }
    memset(&pb, 0, sizeof pb);
    pb.catalog = &c->cat;
    pb.workload = c->pb->workload;
    pb.pricing = SLO_PRICING_SPOT;
    pb.target_loss = c->pb->target_loss;
    pb.deadline_s = deadline_s;
    pb.loss_now = loss_now;
    pb.elapsed_s = elapsed_s;
    pb.overhead_s = c->pb->overhead_s;
    pb.existing = ex.n ? &ex : NULL;
    slo_train_options_init(&o);
    o.search = SLO_TRAIN_SEARCH_EXACT;
    o.comparisons = 0;
    o.node_limit = c->opt->node_limit;
    memset(&res, 0, sizeof res);
    rc = slo_train_solve(&pb, &o, &res, err);
    if (rc == SLO_OK) {
        const struct slo_train_plan *p = NULL;
        if (res.status == SLO_STATUS_OPTIMAL || res.status == SLO_STATUS_FEASIBLE_UNPROVEN) {
            p = &res.plan;
            out->feasible = 1;
        } else if (res.closest_kind != SLO_TRAIN_CLOSEST_NONE && res.closest.counts) {
            p = &res.closest;
        }
        if (p) {
            out->ok = 1;
            for (size_t i = 0; i < res.setup.n_types; i++)
                out->counts[res.setup.types[i].catalog_index] = p->counts[i];
            out->time_s = p->eval.time_s;
            out->cost_usd = p->eval.cost_usd;
        }
    }
    slo_train_result_free(&res);
    return rc;
}

static int any_running(const struct replay_ctx *c, const int *counts)
{
    for (size_t e = 0; e < c->ne; e++)
        if (counts[e] > 0)
            return 1;
    return 0;
}

/* Compute time (s, no overhead) that counts still needs from loss_now, and the
 * loss after computing dt s on it; -1 when the model gives no progress. */
static double ctx_remaining(const struct replay_ctx *c, const int *counts, double loss_now,
                            double dt, double *loss_after)
{
    struct slo_train_request rq;
    struct slo_train_eval ev;
    int sc[2 * SLO_CLUSTER_MAX_TYPES] = {0};
    double jt;

    if (!any_running(c, counts))
        return -1;
    for (size_t e = 0; e < c->ne; e++)
        sc[c->setup_of[e]] = counts[e];
    memset(&rq, 0, sizeof rq);
    rq.target_loss = c->pb->target_loss;
    rq.deadline_s = 1e15;
    rq.loss_now = loss_now;
    if (slo_train_evaluate(&c->setup, sc, &rq, &ev, NULL) != SLO_OK || !(ev.iterations > 0))
        return -1;
    if (loss_after && dt < ev.time_s) {
        if (slo_iterations_for_loss(&c->pb->workload->loss, ev.wa_batch, ev.cc, ev.n_workers,
                                    c->pb->target_loss, &jt, NULL) != SLO_OK)
            return -1;
        double j = jt - ev.iterations + dt * ev.iterations / ev.time_s;
        *loss_after = slo_loss_at(&c->pb->workload->loss, ev.wa_batch, ev.cc, ev.n_workers, j);
    }
    return ev.time_s;
}

/* Risk of plan counts (spot entries at the traces' rates). */
static int ctx_risk(const struct replay_ctx *c, const int *counts, double duration_s,
                    double time_left_s, struct slo_risk_eval *ev, slo_error_t *err)
{
    struct slo_risk_pool pools[2 * SLO_CLUSTER_MAX_TYPES];
    for (size_t e = 0; e < c->ne; e++) {
        pools[e].count = counts[e];
        pools[e].spot = e % 2 == 0;
        pools[e].usd_per_h = c->price[e];
        pools[e].replace_usd_per_h = c->price[e | 1];
        pools[e].p_revoke_h = e % 2 == 0 ? c->rate[e / 2] : 0;
    }
    return slo_risk_evaluate(pools, c->ne, duration_s, time_left_s, c->pb->overhead_s, ev, err);
}

/* The risk-aware plan: candidates are spotDNN's plans for the deadline less k
 * restart overheads (k = 0..8, slack for k revocations) and the on-demand
 * plan; the cheapest in expected cost whose P(meet) >= confidence, else the
 * most likely to meet. */
static int ctx_solve_risk(struct replay_ctx *c, const int *spot_cap, const int *existing,
                          double elapsed_s, double loss_now, struct replay_plan *out,
                          slo_error_t *err)
{
    int zero[SLO_CLUSTER_MAX_TYPES] = {0};
    double best_cost = INFINITY, best_p = -1;
    int have = 0, rc;
    double left = c->pb->deadline_s - elapsed_s;

    memset(out, 0, sizeof *out);
    for (int k = 0; k <= 9; k++) {
        struct replay_plan cand;
        struct slo_risk_eval ev;
        double dl = c->pb->deadline_s - (k < 9 ? k : 0) * c->pb->overhead_s;
        if (dl - elapsed_s <= 0)
            continue;
        rc = ctx_solve(c, k < 9 ? spot_cap : zero, existing, dl, elapsed_s, loss_now, &cand,
                       err);
        if (rc)
            return rc;
        if (!cand.ok || !cand.feasible)
            continue;
        if ((rc = ctx_risk(c, cand.counts, cand.time_s, left, &ev, err)))
            return rc;
        int good = ev.p_meet >= c->opt->confidence;
        int best_good = have && best_p >= c->opt->confidence;
        if (!have || (good && (!best_good || ev.expected_cost_usd < best_cost)) ||
            (!good && !best_good && ev.p_meet > best_p)) {
            *out = cand;
            best_cost = ev.expected_cost_usd;
            best_p = ev.p_meet;
            have = 1;
        }
    }
    if (!have) /* nothing meets the deadline: spotDNN's closest point */
        return ctx_solve(c, spot_cap, existing, c->pb->deadline_s, elapsed_s, loss_now, out,
                         err);
    return SLO_OK;
}

struct run_out {
    int met;
    double cost, finish_s;
    long replans;
    int have_risk;              /* the first plan's risk was evaluated */
    double p_meet, exp_cost;    /* its P(met) and expected cost (risk model) */
};

static int replay_run(struct replay_ctx *c, enum slo_replay_policy pol, size_t s0,
                      struct run_out *ro, slo_error_t *err)
{
    const double gap = c->pb->traces[0].gap_s, T = c->pb->deadline_s, ohd = c->pb->overhead_s;
    int run[2 * SLO_CLUSTER_MAX_TYPES] = {0}, plan[2 * SLO_CLUSTER_MAX_TYPES] = {0};
    int want[2 * SLO_CLUSTER_MAX_TYPES], cap[SLO_CLUSTER_MAX_TYPES];
    /* loss: reached so far; a segment is a stretch on one cluster, whose
     * progress is counted in compute time from seg_loss (the model's
     * iterations are whole numbers in code compat: re-evaluating every tick
     * would drop a fraction of an iteration each time) */
    double t = 0, loss = 0, pause = 0, seg_loss = 0, seg_done = 0;
    int committed = 0, rc;
    enum { UP_IDLE, UP_SPOT, UP_OD } up_mode = UP_IDLE;

    memset(ro, 0, sizeof *ro);
    for (size_t i = s0; t < T; i++) {
        for (size_t k = 0; k < c->m; k++)
            cap[k] = c->pb->traces[k].capacity[i];
        memcpy(want, run, sizeof want);
        switch (pol) {
        case SLO_REPLAY_ON_DEMAND:
            memcpy(want, c->od_plan, sizeof want);
            break;
        case SLO_REPLAY_SPOTDNN:
        case SLO_REPLAY_SPOTDNN_REPLAN:
        case SLO_REPLAY_RISK_AWARE: {
            int lost = 0, gained = 0, od_held = 0;
            for (size_t k = 0; k < c->m; k++) {
                if (run[2 * k] > cap[k])
                    lost = 1;
                if (cap[k] > plan[2 * k])
                    gained = 1;
                od_held += plan[2 * k + 1];
            }
            /* spotdnn-replan re-plans at each loss of capacity, keeping the
             * survivors; risk-aware also when spot capacity could replace
             * on-demand instances, choosing freely among what is there */
            if (i == s0 || (lost && pol != SLO_REPLAY_SPOTDNN) ||
                (gained && od_held && pol == SLO_REPLAY_RISK_AWARE)) {
                struct replay_plan rp;
                int surv[2 * SLO_CLUSTER_MAX_TYPES];
                for (size_t e = 0; e < c->ne; e++)
                    surv[e] = e % 2 == 0 && run[e] > cap[e / 2] ? cap[e / 2] : run[e];
                if (pol == SLO_REPLAY_RISK_AWARE)
                    rc = ctx_solve_risk(c, cap, NULL, t, loss, &rp, err);
                else
                    rc = ctx_solve(c, cap, i == s0 ? NULL : surv, T, t, loss, &rp, err);
                if (rc)
                    return rc;
                if (!rp.ok)
                    memcpy(rp.counts, surv, sizeof rp.counts);
                if (i == s0 && rp.ok && rp.feasible) {
                    struct slo_risk_eval rv;
                    if ((rc = ctx_risk(c, rp.counts, rp.time_s, T, &rv, err)))
                        return rc;
                    ro->have_risk = 1;
                    ro->p_meet = rv.p_meet;
                    ro->exp_cost = rv.expected_cost_usd;
                }
                if (i != s0 && memcmp(plan, rp.counts, sizeof plan) != 0)
                    ro->replans++;
                memcpy(plan, rp.counts, sizeof plan);
            }
            /* the plan's spot instances that the trace lets run now */
            for (size_t e = 0; e < c->ne; e++)
                want[e] = e % 2 == 0 && plan[e] > cap[e / 2] ? cap[e / 2] : plan[e];
            if (pol == SLO_REPLAY_RISK_AWARE) {
                /* waiting for spot: a plan that needs on-demand instances waits
                 * a tick while the on-demand plan still meets the deadline
                 * after it (with a restart), as Can't Be Late's safety net */
                int od_need = 0;
                for (size_t k = 0; k < c->m; k++)
                    od_need += want[2 * k + 1];
                double rem_od = ctx_remaining(c, c->od_plan, loss, 0, NULL);
                if (od_need && rem_od >= 0 && (T - t - gap) - rem_od >= 2 * ohd + gap)
                    memset(want, 0, sizeof want);
            }
            break;
        }
        case SLO_REPLAY_UNIFORM_PROGRESS: {
            int spot_ok = 1, spot[2 * SLO_CLUSTER_MAX_TYPES] = {0},
                od[2 * SLO_CLUSTER_MAX_TYPES] = {0};
            for (size_t k = 0; k < c->m; k++) {
                int n = c->od_plan[2 * k + 1];
                spot[2 * k] = n;
                od[2 * k + 1] = n;
                if (cap[k] < n)
                    spot_ok = 0;
            }
            double rem = ctx_remaining(c, od, loss, 0, NULL);
            double done = 1 - rem / c->od_compute_s; /* fraction of the work done */
            if (rem < 0)
                rem = 0;
            /* safety net: commit to on-demand while the slack still covers one
             * tick and a changeover */
            if (committed || (T - t) - rem <= gap + 2 * ohd)
                committed = 1, up_mode = UP_OD;
            else if (spot_ok)
                up_mode = UP_SPOT;
            else if (up_mode == UP_SPOT || up_mode == UP_IDLE)
                up_mode = done < t / T ? UP_OD : UP_IDLE;
            else /* on demand without spot: idle only when ahead by 2 changeovers */
                up_mode = done >= (t + 2 * ohd) / T ? UP_IDLE : UP_OD;
            if (up_mode == UP_SPOT)
                memcpy(want, spot, sizeof want);
            else if (up_mode == UP_OD)
                memcpy(want, od, sizeof want);
            else
                memset(want, 0, sizeof want);
            break;
        }
        default:
            return slo__fail(err, SLO_ERR_INVALID, NULL, "unknown policy %d", (int)pol);
        }
        if (memcmp(want, run, sizeof want) != 0) {
            /* survivors that stay keep computing only after the restart */
            if (any_running(c, want))
                pause = ohd;
            memcpy(run, want, sizeof run);
            seg_loss = loss;
            seg_done = 0;
        }
        double dt = gap < T - t ? gap : T - t, price = 0;
        for (size_t e = 0; e < c->ne; e++)
            price += run[e] * c->price[e];
        double p = pause < dt ? pause : dt;
        pause -= p;
        ro->cost += price * p / 3600.0;
        double rest = dt - p, after = loss;
        if (rest > 0 && any_running(c, run)) {
            double need = ctx_remaining(c, run, seg_loss, seg_done + rest, &after);
            if (need >= 0)
                need -= seg_done;
            if (need >= 0 && need <= rest) {
                ro->cost += price * need / 3600.0;
                ro->finish_s = t + p + need;
                ro->met = ro->finish_s <= T + 1e-9;
                return SLO_OK;
            }
            ro->cost += price * rest / 3600.0;
            if (need >= 0) {
                seg_done += rest;
                loss = after;
            }
        }
        t += dt;
    }
    ro->met = 0;
    return SLO_OK;
}

static void ctx_free(struct replay_ctx *c)
{
    slo_train_setup_free(&c->setup);
    free(c->cat.types);
    free(c->quota);
    free(c->setup_of);
}

int slo_replay_solve(const struct slo_replay_problem *pb, const struct slo_replay_options *opt,
                     struct slo_replay_result *res, slo_error_t *err)
{
    struct slo_replay_options dflt;
    struct replay_ctx c;
    size_t n_ticks, horizon;
    int rc;

    memset(res, 0, sizeof *res);
    res->status = SLO_STATUS_INFEASIBLE_UNPROVEN;
    if (!opt) {
        slo_replay_options_init(&dflt);
        opt = &dflt;
    }
    if (!pb || !pb->catalog || !pb->workload)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected a catalog and a workload");
    if (pb->n_traces < 1 || !pb->traces || pb->n_traces > SLO_CLUSTER_MAX_TYPES / 2)
        return slo__fail(err, SLO_ERR_INVALID, "--trace",
                         "expected 1 to %d traces (TYPE=FILE), found %zu",
                         SLO_CLUSTER_MAX_TYPES / 2, pb->n_traces);
    if (!(pb->deadline_s > 0) || !isfinite(pb->deadline_s))
        return slo__fail(err, SLO_ERR_INVALID, "--slo-time",
                         "expected a deadline > 0 s, found %g", pb->deadline_s);
    if (!(pb->overhead_s >= 0) || !isfinite(pb->overhead_s))
        return slo__fail(err, SLO_ERR_INVALID, "--restart-overhead",
                         "expected a restart overhead >= 0 s, found %g", pb->overhead_s);
    if (!(opt->confidence > 0 && opt->confidence < 1))
        return slo__fail(err, SLO_ERR_INVALID, "--slo-confidence",
                         "expected a probability in (0, 1), found %g", opt->confidence);
    if (opt->n_starts < 1 || opt->n_starts > 1000000)
        return slo__fail(err, SLO_ERR_INVALID, "--starts",
                         "expected 1 to 1000000 start times, found %d", opt->n_starts);
    n_ticks = pb->traces[0].n_ticks;
    for (size_t k = 0; k < pb->n_traces; k++) {
        const struct slo_spot_trace *tr = &pb->traces[k];
        if (tr->gap_s != pb->traces[0].gap_s)
            return slo__fail(err, SLO_ERR_INVALID, "--trace",
                             "%s: expected the tick length of %s (%g s), found %g s",
                             tr->source, pb->traces[0].source, pb->traces[0].gap_s, tr->gap_s);
        for (size_t j = 0; j < k; j++)
            if (strcmp(tr->type, pb->traces[j].type) == 0)
                return slo__fail(err, SLO_ERR_INVALID, "--trace",
                                 "expected each instance type once, found %s again",
                                 tr->type);
        if (tr->n_ticks < n_ticks)
            n_ticks = tr->n_ticks;
        double r = pb->p_revoke_h ? pb->p_revoke_h[k] : slo_spot_trace_revocation_p(tr);
        if (!(r >= 0 && r <= 1))
            return slo__fail(err, SLO_ERR_INVALID, "--interruption-rate",
                             "%s: expected an interruption rate (probability of a "
                             "revocation within an hour) in [0, 1], found %g", tr->type, r);
        res->p_revoke_h[k] = r;
    }
    horizon = (size_t)ceil(pb->deadline_s / pb->traces[0].gap_s);
    if (horizon > n_ticks)
        return slo__fail(err, SLO_ERR_INVALID, "--trace",
                         "expected traces covering the deadline (%zu ticks of %g s), found "
                         "%zu ticks", horizon, pb->traces[0].gap_s, n_ticks);

    memset(&c, 0, sizeof c);
    c.pb = pb;
    c.opt = opt;
    c.m = pb->n_traces;
    c.ne = 2 * c.m;
    c.cat.types = calloc(c.ne, sizeof *c.cat.types);
    c.quota = calloc(c.ne, sizeof *c.quota);
    c.setup_of = calloc(c.ne, sizeof *c.setup_of);
    if (!c.cat.types || !c.quota || !c.setup_of) {
        ctx_free(&c);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    snprintf(c.cat.name, sizeof c.cat.name, "replay");
    c.cat.n_types = c.ne;
    for (size_t k = 0; k < c.m; k++) {
        int idx = slo_catalog_find(pb->catalog, pb->traces[k].type);
        if (idx < 0 || pb->catalog->types[idx].site != SLO_SITE_CLOUD) {
            /* a type listed as spot pools has entries TYPE@ZONE only: name them */
            char pools[256] = "";
            size_t tl = strlen(pb->traces[k].type), used = 0;
            for (size_t i = 0; idx < 0 && i < pb->catalog->n_types && used < sizeof pools; i++) {
                const char *nm = pb->catalog->types[i].name;
                if (strncmp(nm, pb->traces[k].type, tl) == 0 && nm[tl] == '@') {
                    int w = snprintf(pools + used, sizeof pools - used, "%s%s",
                                     used ? ", " : "", nm);
                    used = w < 0 ? sizeof pools : used + (size_t)w;
                }
            }
            ctx_free(&c);
            if (pools[0])
                return slo__fail(err, SLO_ERR_NOT_FOUND, "--trace",
                                 "expected a cloud instance type or spot pool of catalog %s, found "
                                 "\"%s\", which it lists as spot pools (%s%s): a trace is one "
                                 "zone's capacity, give --trace POOL=FILE",
                                 pb->catalog->name, pb->traces[k].type, pools,
                                 used >= sizeof pools ? "..." : "");
            return slo__fail(err, SLO_ERR_NOT_FOUND, "--trace",
                             "expected a cloud instance type of catalog %s, found \"%s\"",
                             pb->catalog->name, pb->traces[k].type);
        }
        const struct slo_instance_type *src = &pb->catalog->types[idx];
        size_t w;
        for (w = 0; w < pb->workload->n_instances; w++)
            if (strcmp(pb->workload->instances[w].type, slo_instance_profile(src)) == 0)
                break;
        if (w == pb->workload->n_instances) {
            ctx_free(&c);
            return slo__fail(err, SLO_ERR_INVALID, "--trace",
                             "expected instance types that workload %s profiles, found \"%s\"",
                             pb->workload->name, pb->traces[k].type);
        }
        for (int od = 0; od < 2; od++) {
            struct slo_instance_type *t = &c.cat.types[2 * k + od];
            *t = *src;
            snprintf(t->name, sizeof t->name, "%.40s@%s", pb->traces[k].type,
                     od ? "on-demand" : "spot");
            snprintf(t->type, sizeof t->type, "%s", slo_instance_profile(src));
            t->zone[0] = 0;
            if (od)
                t->spot_usd_per_h = src->on_demand_usd_per_h;
            c.quota[2 * k + od] = src->quota;
            c.price[2 * k + od] = t->spot_usd_per_h;
        }
        c.rate[k] = res->p_revoke_h[k];
    }
    rc = slo_train_setup_init(&c.setup, &c.cat, pb->workload, SLO_PRICING_SPOT, err);
    if (rc == SLO_OK && c.setup.n_types != c.ne) {
        rc = slo__fail(err, SLO_ERR_INVALID, "--trace",
                       "expected instance types that workload %s profiles, found \"%s\"",
                       pb->workload->name, pb->traces[c.setup.skipped[0] / 2].type);
    }
    if (rc) {
        ctx_free(&c);
        return rc;
    }
    for (size_t i = 0; i < c.setup.n_types; i++)
        c.setup_of[c.setup.types[i].catalog_index] = (int)i;

    /* the on-demand plan, shared by on-demand and uniform-progress */
    {
        int zero[SLO_CLUSTER_MAX_TYPES] = {0};
        struct replay_plan od;
        if ((rc = ctx_solve(&c, zero, NULL, pb->deadline_s, 0, 0, &od, err))) {
            ctx_free(&c);
            return rc;
        }
        if (!od.feasible) {
            if (od.ok)
                rc = slo__fail(err, SLO_ERR_INFEASIBLE, NULL,
                               "no on-demand plan of the traced types meets loss %g within "
                               "%g s (the fastest needs %.0f s); nothing to compare",
                               pb->target_loss, pb->deadline_s, od.time_s);
            else
                rc = slo__fail(err, SLO_ERR_INFEASIBLE, NULL,
                               "no plan of the traced types reaches loss %g",
                               pb->target_loss);
            ctx_free(&c);
            return rc;
        }
        memcpy(c.od_plan, od.counts, sizeof c.od_plan);
        c.od_compute_s = ctx_remaining(&c, c.od_plan, 0, 0, NULL);
    }

    size_t span = n_ticks - horizon; /* last start tick */
    int ns = opt->n_starts;
    res->n_starts = ns;
    res->horizon_s = horizon * pb->traces[0].gap_s;
    for (int p = 0; p < SLO_REPLAY_N_POLICIES; p++) {
        struct slo_replay_policy_result *pr = &res->policies[p];
        double finish = 0;
        int n_risk = 0;
        pr->name = policy_names[p];
        for (int j = 0; j < ns; j++) {
            size_t s0 = ns > 1 ? (size_t)((double)span * j / (ns - 1) + 0.5) : 0;
            struct run_out ro;
            if ((rc = replay_run(&c, (enum slo_replay_policy)p, s0, &ro, err))) {
                ctx_free(&c);
                return rc;
            }
            pr->runs++;
            pr->deadlines_met += ro.met;
            pr->mean_cost_usd += ro.cost;
            pr->replans += ro.replans;
            if (ro.met)
                finish += ro.finish_s;
            if (ro.have_risk) {
                n_risk++;
                pr->predicted_p_meet += ro.p_meet;
                pr->predicted_cost_usd += ro.exp_cost;
            }
        }
        if (n_risk) {
            pr->predicted_p_meet /= n_risk;
            pr->predicted_cost_usd /= n_risk;
        } else {
            pr->predicted_p_meet = pr->predicted_cost_usd = -1;
        }
        pr->mean_cost_usd /= pr->runs;
        pr->mean_finish_s = pr->deadlines_met ? finish / pr->deadlines_met : 0;
    }
    ctx_free(&c);
    res->status = SLO_STATUS_OPTIMAL;
    return SLO_OK;
}
