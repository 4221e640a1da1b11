/*
 * train_solve.c - the job-level training planner: one call that binds the
 * model, runs the sliding window (spotDNN Algorithm 1) and/or the exact
 * search, the comparisons, and when nothing meets the SLO the closest
 * feasible point, with the status and reason `slo train` and the Slurm
 * plugin report.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"
#include "sync_private.h"

void slo_train_options_init(struct slo_train_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->search = SLO_TRAIN_SEARCH_BOTH;
    opt->node_limit = 0;
    opt->max_workers = 0;
    opt->comparisons = 1;
}

void slo_train_result_free(struct slo_train_result *res)
{
    if (!res)
        return;
    slo_train_plan_free(&res->plan);
    slo_train_plan_free(&res->window);
    slo_train_plan_free(&res->exact);
    slo_train_plan_free(&res->on_demand);
    slo_train_plan_free(&res->homogeneous);
    slo_train_plan_free(&res->closest);
    free(res->existing);
    slo_train_setup_free(&res->setup);
    memset(res, 0, sizeof *res);
}

/* Replace buf's text (cut at len - 1 characters: SLO_REASON_LENGTH). */
static void set(char *buf, size_t len, const char *fmt, ...) SLO_PRINTF(3, 4);
static void set(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* "SOURCE: TEXT" or "TEXT", as the CLI reports an error. */
static void error_text(const slo_error_t *e, char *out, size_t len)
{
    if (e->source[0])
        set(out, len, "%s: %s", e->source, e->text);
    else
        set(out, len, "%s", e->text);
}

static int nomem(slo_error_t *err)
{
    return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
}

/* The survivors by name -> counts per setup type. */
static int map_existing(const struct slo_train_setup *s, const struct slo_cluster *c,
                        int *counts, slo_error_t *err)
{
    for (size_t i = 0; i < c->n; i++) {
        const struct slo_cluster_entry *e = &c->entry[i];
        size_t k;
        for (k = 0; k < s->n_types; k++)
            if (strcmp(s->types[k].name, e->type) == 0)
                break;
        if (k == s->n_types) {
            /* a type listed as spot pools is planned as TYPE@ZONE entries */
            char pools[256] = "";
            size_t tl = strlen(e->type), used = 0;
            for (size_t j = 0; j < s->n_types && used < sizeof pools; j++)
                if (strncmp(s->types[j].name, e->type, tl) == 0 && s->types[j].name[tl] == '@') {
                    int w = snprintf(pools + used, sizeof pools - used, "%s%s", used ? ", " : "",
                                     s->types[j].name);
                    used = w < 0 ? sizeof pools : used + (size_t)w;
                }
            return slo__fail(err, SLO_ERR_NOT_FOUND, "--existing",
                             "expected an instance type of the catalog that the workload "
                             "profiles, found \"%s\"%s%s%s%s",
                             e->type, pools[0] ? ", which the catalog lists as spot pools (" : "",
                             pools, used >= sizeof pools ? "..." : "",
                             pools[0] ? "): name the pools the survivors run in" : "");
        }
        if (e->count < 0 || e->count > s->types[k].quota)
            return slo__fail(err, SLO_ERR_INVALID, "--existing",
                             "%s: expected a count from 0 to the catalog's quota %d, found "
                             "\"%s\"",
                             e->type, s->types[k].quota, e->count_text);
        counts[k] = (int)e->count;
    }
    return SLO_OK;
}

int slo__train_plan_copy(const struct slo_train_setup *s, const struct slo_train_plan *from,
                         struct slo_train_plan *to)
{
    *to = *from;
    to->counts = malloc((s->n_types ? s->n_types : 1) * sizeof *to->counts);
    if (!to->counts)
        return -1;
    if (s->n_types && from->counts)
        memcpy(to->counts, from->counts, s->n_types * sizeof *to->counts);
    return 0;
}

struct slo_train_request slo__train_request(const struct slo_train_problem *pb,
                                            const struct slo_train_options *opt,
                                            struct slo_train_result *res)
{
    res->remaining_s = pb->deadline_s - pb->elapsed_s;
    res->overhead_s = pb->overhead_s;
    return (struct slo_train_request){
        .target_loss = pb->target_loss,
        .deadline_s = res->remaining_s,
        .budget_usd = pb->budget_usd,
        .loss_now = pb->loss_now,
        .overhead_s = pb->overhead_s,
        .existing = res->existing,
        .node_limit = opt->node_limit,
        .max_workers = opt->max_workers,
    };
}

int slo__train_adopt_exact(const struct slo_train_setup *s, struct slo_train_result *res,
                           slo_error_t *err)
{
    res->method = SLO_TRAIN_SEARCH_EXACT;
    if (slo__train_plan_copy(s, &res->exact, &res->plan))
        return nomem(err);
    res->status = res->exact.proven ? SLO_STATUS_OPTIMAL : SLO_STATUS_FEASIBLE_UNPROVEN;
    if (!res->exact.proven)
        set(res->reason, sizeof res->reason,
            "exact search stopped at its node limit: the cheapest plan found, not proven");
    return SLO_OK;
}

/* No cluster reaches the target loss (why: the model's reason). */
static int unreachable(struct slo_train_result *res, const slo_error_t *why)
{
    res->status = SLO_STATUS_INFEASIBLE;
    res->closest_kind = SLO_TRAIN_CLOSEST_NONE;
    slo_train_plan_free(&res->closest);
    set(res->unreachable, sizeof res->unreachable, "%s", why->text);
    error_text(why, res->reason, sizeof res->reason);
    return SLO_OK;
}

/* Nothing meets the SLO (why: the search's verdict): the closest feasible
 * point, as `slo train` has always reported it. */
static int infeasible(struct slo_train_result *res, const struct slo_train_request *req,
                      const slo_error_t *why, int proven, slo_error_t *err)
{
    const struct slo_train_setup *s = &res->setup;
    char list[SLO_REASON_LENGTH], t[32];
    slo_error_t fe = {0};
    int rv;

    res->status = proven ? SLO_STATUS_INFEASIBLE : SLO_STATUS_INFEASIBLE_UNPROVEN;
    set(res->cause, sizeof res->cause, "%s", why->text);
    if (req->budget_usd > 0) {
        /* The budget may be what binds: the cheapest plan without it. */
        struct slo_train_request free_req = *req;
        struct slo_train_plan cheap = {0};
        free_req.budget_usd = 0;
        rv = slo_plan_exact(s, &free_req, &cheap, NULL);
        if (rv == SLO_OK) {
            res->closest = cheap;
            res->closest_kind = SLO_TRAIN_CLOSEST_CHEAPEST;
            slo_train_counts_format(s, cheap.counts, '=', list, sizeof list);
            set(res->reason, sizeof res->reason,
                     "%s; the cheapest plan%s that meets the deadline, %s, costs %.6f USD",
                     why->text, cheap.proven ? "" : " found", list, cheap.eval.cost_usd);
            return SLO_OK;
        }
        slo_train_plan_free(&cheap);
        if (rv == SLO_ERR_NOMEM)
            return nomem(err);
    }
    rv = slo_plan_fastest(s, req, &res->closest, &fe);
    if (rv == SLO_ERR_UNREACHABLE)
        return unreachable(res, &fe);
    if (rv) {
        slo_train_plan_free(&res->closest);
        if (err)
            *err = fe;
        return rv;
    }
    res->closest_kind = SLO_TRAIN_CLOSEST_FASTEST;
    slo_train_counts_format(s, res->closest.counts, '=', list, sizeof list);
    slo_format_duration(res->closest.eval.time_s, t, sizeof t);
    set(res->reason, sizeof res->reason,
             "%s; the fastest plan%s, %s, needs %.2f s (%s) at %.6f USD", why->text,
             res->closest.proven ? "" : " found", list, res->closest.eval.time_s, t,
             res->closest.eval.cost_usd);
    return SLO_OK;
}

/* The comparisons of a feasible result: the same search with on-demand
 * prices (spot pricing only), and one instance type. */
static int comparisons(const struct slo_train_problem *pb, const struct slo_train_request *req,
                       int exact, struct slo_train_result *res, slo_error_t *err)
{
    int rv;

    if (pb->pricing == SLO_PRICING_SPOT) {
        struct slo_train_setup od = {0};
        rv = slo_train_setup_init(&od, pb->catalog, pb->workload, SLO_PRICING_ON_DEMAND, NULL);
        if (rv == SLO_ERR_NOMEM) /* not a comparison to leave out (tests/test_alloc_fail.c) */
            return nomem(err);
        if (rv == SLO_OK) {
            /* Reuse: a plan's time does not depend on prices, so the spot
             * plan meets the deadline at on-demand prices too and seeds the
             * on-demand search as its first incumbent (it bounds the
             * search's cost from the first node). */
            rv = exact ? slo__plan_exact_seeded(&od, req, res->plan.counts, &res->on_demand, NULL)
                       : slo_plan_window(&od, req, &res->on_demand, NULL);
            res->have_on_demand = rv == SLO_OK;
            slo_train_setup_free(&od);
            if (rv == SLO_ERR_NOMEM)
                return nomem(err);
        }
    }
    res->have_homogeneous = 1;
    if (slo_plan_homogeneous(&res->setup, req, &res->homogeneous, NULL) == SLO_ERR_NOMEM)
        return nomem(err);
    return SLO_OK;
}

static int solve(const struct slo_train_problem *pb, const struct slo_train_options *opt,
                 struct slo_train_result *res, slo_error_t *err)
{
    struct slo_train_setup *s = &res->setup;
    int do_window = opt->search != SLO_TRAIN_SEARCH_EXACT;
    int do_exact = opt->search != SLO_TRAIN_SEARCH_WINDOW;
    slo_error_t e = {0};
    int rv;

    if (!pb || !pb->catalog || !pb->workload)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                         "expected a problem with a catalog and a workload, found none");
    if (opt->search < SLO_TRAIN_SEARCH_BOTH || opt->search > SLO_TRAIN_SEARCH_EXACT)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                         "expected a search of both, window or exact, found %d",
                         (int)opt->search);
    /* The numbers the model cannot take (the CLI refuses them earlier, in
     * its own words); source: the problem's field. */
    {
        const struct {
            const char *name, *want;
            double v;
            int ok;
        } f[] = {
            {"target_loss", "a finite loss", pb->target_loss, isfinite(pb->target_loss)},
            {"deadline_s", "a finite deadline > 0 s", pb->deadline_s,
             isfinite(pb->deadline_s) && pb->deadline_s > 0},
            {"budget_usd", "a finite budget (<= 0: none)", pb->budget_usd,
             isfinite(pb->budget_usd)},
            {"loss_now", "a finite loss (<= 0: a fresh start)", pb->loss_now,
             isfinite(pb->loss_now)},
            {"elapsed_s", "a finite time >= 0 s", pb->elapsed_s,
             isfinite(pb->elapsed_s) && pb->elapsed_s >= 0},
            {"overhead_s", "a finite time >= 0 s", pb->overhead_s,
             isfinite(pb->overhead_s) && pb->overhead_s >= 0},
        };
        for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
            if (!f[i].ok)
                return slo__fail(err, SLO_ERR_INVALID, f[i].name, "expected %s, found %g",
                                 f[i].want, f[i].v);
        if (pb->elapsed_s >= pb->deadline_s)
            return slo__fail(err, SLO_ERR_INVALID, "elapsed_s",
                             "expected less than deadline_s (%g s), found %g s", pb->deadline_s,
                             pb->elapsed_s);
        if (pb->pricing != SLO_PRICING_SPOT && pb->pricing != SLO_PRICING_ON_DEMAND)
            return slo__fail(err, SLO_ERR_INVALID, "pricing",
                             "expected SLO_PRICING_SPOT or SLO_PRICING_ON_DEMAND, found %d",
                             (int)pb->pricing);
    }
    /* issue 17: the profile's mode chooses the model and its planner */
    if (pb->workload->mode == SLO_TRAIN_SYNC_ALLREDUCE)
        return slo__sync_solve(pb, opt, res, err);
    if ((rv = slo_train_setup_init(s, pb->catalog, pb->workload, pb->pricing, err)))
        return rv;
    if (!(res->existing = calloc(s->n_types ? s->n_types : 1, sizeof *res->existing)))
        return nomem(err);
    if (pb->existing && (rv = map_existing(s, pb->existing, res->existing, err)))
        return rv;
    struct slo_train_request req = slo__train_request(pb, opt, res);

    if (do_window) {
        rv = slo_plan_window(s, &req, &res->window, &e);
        if (rv == SLO_ERR_UNREACHABLE)
            return unreachable(res, &e);
        if (rv && rv != SLO_ERR_INFEASIBLE) {
            if (err)
                *err = e;
            return rv;
        }
        res->have_window = 1;
    }
    if (do_exact) {
        memset(&e, 0, sizeof e);
        rv = slo_plan_exact(s, &req, &res->exact, &e);
        /* it ran, whatever it found (the infeasible result's proof) */
        res->have_exact = rv == SLO_OK || rv == SLO_ERR_INFEASIBLE;
        if (rv == SLO_ERR_INFEASIBLE)
            /* counts NULL: the request itself leaves no time (proven) */
            return infeasible(res, &req, &e, !res->exact.counts || res->exact.proven, err);
        if (rv == SLO_ERR_UNREACHABLE)
            return unreachable(res, &e);
        if (rv) {
            if (err)
                *err = e;
            return rv;
        }
        rv = slo__train_adopt_exact(s, res, err);
        if (rv)
            return rv;
    } else {
        if (!res->window.feasible)
            return infeasible(res, &req, &e, !res->window.counts, err);
        res->method = SLO_TRAIN_SEARCH_WINDOW;
        if (slo__train_plan_copy(s, &res->window, &res->plan))
            return nomem(err);
        res->status = SLO_STATUS_FEASIBLE_UNPROVEN;
        set(res->reason, sizeof res->reason,
                 "sliding window only (spotDNN Algorithm 1): the cheapest plan in its "
                 "windows, not proven");
    }
    return opt->comparisons ? comparisons(pb, &req, do_exact, res, err) : SLO_OK;
}

int slo_train_solve(const struct slo_train_problem *problem,
                    const struct slo_train_options *opt, struct slo_train_result *res,
                    slo_error_t *err)
{
    struct slo_train_options def;
    int rv;

    if (!res)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected a result to fill, found NULL");
    memset(res, 0, sizeof *res);
    if (!opt) {
        slo_train_options_init(&def);
        opt = &def;
    }
    rv = solve(problem, opt, res, err);
    if (rv) {
        /* The call failed: nothing was planned and nothing proven. */
        res->status = SLO_STATUS_INFEASIBLE_UNPROVEN;
    }
    return rv;
}
