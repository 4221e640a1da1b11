/*
 * infer_mps.c - the one rounding of a plan's MPS shares to Slurm's integer
 * gres/mps units, and the re-check of the rounded plan against the model
 * (slo_infer_mps_round; doc/infer.md "Slurm and MPS").
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"
#include "slo_infer.h"
#include "infer_private.h"

/* 1 when the tenants t[count] of GPU p, at their shares, all meet their
 * SLOs (w, pl give each its SLO and rate); o receives the predictions. */
static int gpu_meets(const struct slo_ig_profile *p, const struct slo_ig_workload *workloads,
                     const struct slo_infer_placement *pl, const struct slo_ig_tenant *t,
                     size_t count, struct slo_ig_prediction *o)
{
    if (slo_ig_predict(p, t, count, o, NULL, NULL))
        return 0;
    for (size_t i = 0; i < count; i++)
        if (!slo_ig_meets_slo(o[i].latency_ms, o[i].throughput_rps,
                              workloads[pl[i].workload].slo_ms, pl[i].rate_rps))
            return 0;
    return 1;
}

/* Round the count of every tenant of one GPU (placements pl[count], tenants
 * t[count] with model and batch set) into n[count]: ceil; while the counts
 * sum above 100, lower by one unit a tenant that was rounded up, trying them
 * by smallest fractional share first (ties: placement order) and taking the
 * first whose lowering keeps every tenant within its SLO (re-predicted), or
 * the first tried when none does (the caller's check then names it). */
static void round_gpu(const struct slo_ig_profile *p, const struct slo_ig_workload *workloads,
                      const struct slo_infer_placement *pl, size_t count, int *n,
                      struct slo_ig_tenant *t, struct slo_ig_prediction *o, size_t *order)
{
    long sum = 0;
    for (size_t i = 0; i < count; i++) {
        n[i] = (int)ceil(pl[i].share_pct - 1e-9);
        sum += n[i];
    }
    while (sum > SLO_MPS_COUNT_PER_GPU) {
        size_t m = 0, pick;
        /* the candidates, by fraction then index (insertion sort: few tenants) */
        for (size_t i = 0; i < count; i++) {
            double fl = floor(pl[i].share_pct + 1e-9);
            if ((double)n[i] > fl + 0.5 && n[i] > 0) {
                size_t k = m++;
                double frac = pl[i].share_pct - fl;
                while (k > 0 && pl[order[k - 1]].share_pct - floor(pl[order[k - 1]].share_pct +
                                                                   1e-9) > frac) {
                    order[k] = order[k - 1];
                    k--;
                }
                order[k] = i;
            }
        }
        if (m == 0)
            break; /* every count already at floor: the shares sum above 100 */
        pick = order[0];
        for (size_t c = 0; c < m; c++) {
            size_t i = order[c];
            for (size_t q = 0; q < count; q++)
                t[q].share_pct = n[q] - (q == i);
            if (n[i] - 1 > 0 && gpu_meets(p, workloads, pl, t, count, o)) {
                pick = i;
                break;
            }
        }
        n[pick]--;
        sum--;
    }
}

static void clear_mps(struct slo_infer_result *res)
{
    res->mps_verified = 0;
    for (size_t i = 0; i < res->n_placements; i++) {
        res->placements[i].mps_gres_count = 0;
        res->placements[i].mps_active_thread_pct = 0;
        res->placements[i].mps_latency_ms = 0.0;
        res->placements[i].mps_throughput_rps = 0.0;
    }
}

static int fail(struct slo_infer_result *res, slo_error_t *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(struct slo_infer_result *res, slo_error_t *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->mps_reason, sizeof res->mps_reason, fmt, ap);
    va_end(ap);
    clear_mps(res);
    return slo__fail(err, code, NULL, "%s", res->mps_reason);
}

/* round_one's scratch, of at least as many entries as a GPU has tenants. */
struct scratch {
    struct slo_ig_tenant *t;
    struct slo_ig_prediction *o;
    int *cnt;
    size_t *order;
};

/* 0, or -1 out of memory (free with scratch_free either way). */
static int scratch_alloc(struct scratch *s, size_t n)
{
    s->t = calloc(n, sizeof *s->t);
    s->o = calloc(n, sizeof *s->o);
    s->cnt = calloc(n, sizeof *s->cnt);
    s->order = calloc(n, sizeof *s->order);
    return s->t && s->o && s->cnt && s->order ? 0 : -1;
}

static void scratch_free(struct scratch *s)
{
    free(s->t);
    free(s->o);
    free(s->cnt);
    free(s->order);
}

/* Round and re-verify GPU j (placements pl[count] of profile p): on success
 * the placements' mps_* fields are set; otherwise e holds the reason
 * ("GPU J, workload K (MODEL): ...") and the return value its code.
 * t, o, cnt, order: scratch of at least count entries. */
static int round_one(const struct slo_ig_profile *p, const struct slo_ig_workload *workloads,
                     size_t n, size_t j, struct slo_infer_placement *pl, size_t count,
                     struct slo_ig_tenant *t, struct slo_ig_prediction *o, int *cnt,
                     size_t *order, slo_error_t *e)
{
    slo_error_t pe = {0};
    double sum = 0.0;

    for (size_t i = 0; i < count; i++) {
        const struct slo_ig_workload *w;
        if (pl[i].workload >= n)
            return slo__fail(e, SLO_ERR_INVALID, NULL,
                             "GPU %zu: expected workloads below %zu, found workload %zu", j + 1,
                             n, pl[i].workload + 1);
        w = &workloads[pl[i].workload];
        t[i].model = slo_ig_find_model(p, w->model);
        t[i].batch = pl[i].batch;
        sum += pl[i].share_pct;
        if (t[i].model < 0)
            return slo__fail(e, SLO_ERR_INVALID, NULL,
                             "GPU %zu, workload %zu: expected a model of profile %s, found "
                             "\"%s\"",
                             j + 1, pl[i].workload + 1, p->source, w->model);
    }
    round_gpu(p, workloads, pl, count, cnt, t, o, order);
    for (size_t i = 0; i < count; i++)
        t[i].share_pct = cnt[i];
    for (size_t i = 0; i < count; i++)
        if (cnt[i] <= 0)
            return slo__fail(e, SLO_ERR_INVALID, NULL,
                             "GPU %zu, workload %zu (%s): MPS share %.6g %% rounds to 0 of the "
                             "%d gres/mps units of a GPU (its %zu tenants' shares sum to %.6g "
                             "%%); Slurm cannot give it a share",
                             j + 1, pl[i].workload + 1, workloads[pl[i].workload].model,
                             pl[i].share_pct, SLO_MPS_COUNT_PER_GPU, count, sum);
    if (slo_ig_predict(p, t, count, o, NULL, &pe))
        return slo__fail(e, pe.code ? pe.code : SLO_ERR_INVALID, NULL, "GPU %zu: %s", j + 1,
                         pe.text);
    for (size_t i = 0; i < count; i++) {
        const struct slo_ig_workload *w = &workloads[pl[i].workload];
        if (!slo_ig_meets_slo(o[i].latency_ms, o[i].throughput_rps, w->slo_ms,
                              pl[i].rate_rps)) {
            int slow = !slo_ig_meets_slo(o[i].latency_ms, 0.0, w->slo_ms, 0.0);
            return slo__fail(e, SLO_ERR_INFEASIBLE, NULL,
                             "GPU %zu, workload %zu (%s): at the rounded MPS share %d %% "
                             "(planned %.6g %%) the model predicts %s %.6g %s against %s "
                             "%.6g %s",
                             j + 1, pl[i].workload + 1, w->model, cnt[i], pl[i].share_pct,
                             slow ? "latency" : "throughput",
                             slow ? o[i].latency_ms : o[i].throughput_rps, slow ? "ms" : "req/s",
                             slow ? "SLO/2" : "the rate", slow ? w->slo_ms / 2.0 : pl[i].rate_rps,
                             slow ? "ms" : "req/s");
        }
    }
    for (size_t i = 0; i < count; i++) {
        pl[i].mps_gres_count = cnt[i];
        /* Slurm: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE = N x 100 / Count */
        pl[i].mps_active_thread_pct = cnt[i] * 100 / SLO_MPS_COUNT_PER_GPU;
        pl[i].mps_latency_ms = o[i].latency_ms;
        pl[i].mps_throughput_rps = o[i].throughput_rps;
    }
    return SLO_OK;
}

/* Check the plan's shape; *most receives the most tenants of a GPU. */
static int check_plan(const struct slo_ig_profile *profiles, size_t n_types,
                      const struct slo_ig_workload *workloads, struct slo_infer_result *res,
                      size_t *most, slo_error_t *err)
{
    *most = 0;
    if (!profiles || !workloads || res->n_gpus == 0 || !res->gpus || !res->placements)
        return fail(res, err, SLO_ERR_INVALID,
                    "expected a plan with GPUs, its profiles and workloads, found none");
    for (size_t j = 0; j < res->n_gpus; j++) {
        const struct slo_infer_gpu *g = &res->gpus[j];
        if (g->type >= n_types || g->count == 0 || g->first + g->count > res->n_placements)
            return fail(res, err, SLO_ERR_INVALID,
                        "GPU %zu: expected a GPU type below %zu and placements within the "
                        "plan's %zu, found type %zu, placements [%zu, %zu)",
                        j + 1, n_types, res->n_placements, g->type, g->first,
                        g->first + g->count);
        if (g->count > *most)
            *most = g->count;
    }
    return SLO_OK;
}

int slo_infer_mps_round(const struct slo_ig_profile *profiles, size_t n_types,
                        const struct slo_ig_workload *workloads, size_t n,
                        struct slo_infer_result *res, slo_error_t *err)
{
    struct scratch sc = {0};
    size_t most = 0;
    int rv = SLO_OK;

    if (!res)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected a result, found NULL");
    res->mps_reason[0] = '\0';
    if ((rv = check_plan(profiles, n_types, workloads, res, &most, err)))
        return rv;
    if (scratch_alloc(&sc, most)) {
        rv = fail(res, err, SLO_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < res->n_gpus; j++) {
        const struct slo_infer_gpu *g = &res->gpus[j];
        slo_error_t e = {0};
        if ((rv = round_one(&profiles[g->type], workloads, n, j, &res->placements[g->first],
                            g->count, sc.t, sc.o, sc.cnt, sc.order, &e))) {
            rv = fail(res, err, rv, "%s", e.text);
            goto out;
        }
    }
    res->mps_verified = 1;
out:
    scratch_free(&sc);
    return rv;
}

/* One GPU's re-plan (slo__infer_mps_repair): its placements in the plan's
 * form, workload indices of the whole problem. */
struct repl {
    struct slo_ig_plan plan;
    size_t *map; /* [count]: sub-problem workload -> problem workload */
};

/* Re-plan the tenants pl[count] of a GPU of profile p with the planner at
 * Slurm's unit (1 %), so its shares are whole gres/mps units; 1 when that
 * plan has no violation and every GPU of it rounds and verifies. */
static int replan_gpu(const struct slo_ig_profile *p, const struct slo_ig_workload *workloads,
                      size_t n, const struct slo_infer_placement *pl, size_t count,
                      struct repl *r, slo_error_t *err)
{
    struct slo_ig_profile q = *p;
    struct slo_ig_workload *sub = calloc(count, sizeof *sub);
    struct slo_infer_placement *tp = NULL;
    struct scratch sc = {0};
    slo_error_t e = {0};
    int ok = 0;

    memset(r, 0, sizeof *r);
    r->map = calloc(count, sizeof *r->map);
    if (!sub || !r->map) {
        ok = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    for (size_t k = 0; k < count; k++) {
        sub[k] = workloads[pl[k].workload];
        sub[k].rate_rps = pl[k].rate_rps;
        r->map[k] = pl[k].workload;
    }
    q.unit_pct = 100.0 / SLO_MPS_COUNT_PER_GPU;
    if (slo_ig_plan(&q, 1, sub, count, SLO_IG_POLICY_IGNITER, &r->plan, &e)) {
        if (e.code == SLO_ERR_NOMEM)
            ok = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    if (r->plan.n_violations)
        goto out;
    tp = calloc(r->plan.n_placements, sizeof *tp);
    if (scratch_alloc(&sc, r->plan.n_placements) || !tp) {
        ok = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < r->plan.n_placements; i++) {
        const struct slo_ig_placement *sp = &r->plan.placements[i];
        slo__infer_set_placement(&tp[i], sp, r->map[sp->workload], 0, 0, 0.0,
                                 &workloads[r->map[sp->workload]]);
    }
    ok = 1;
    for (size_t g = 0; g < r->plan.n_gpus && ok; g++)
        ok = round_one(p, workloads, n, g, &tp[r->plan.gpus[g].first], r->plan.gpus[g].count,
                       sc.t, sc.o, sc.cnt, sc.order, &e) == SLO_OK;
out:
    free(sub);
    free(tp);
    scratch_free(&sc);
    return ok;
}

int slo__infer_mps_repair(const struct slo_ig_profile *profiles, size_t n_types,
                          const struct slo_ig_workload *workloads, size_t n,
                          struct slo_infer_result *res, slo_error_t *err)
{
    struct scratch sc = {0};
    size_t most = 0, n_gpus = 0, n_pl = 0, extra = 0, repaired = 0;
    struct repl *rp = NULL; /* [res->n_gpus]: the re-plan of a repaired GPU */
    struct slo_infer_gpu *gpus = NULL;
    struct slo_infer_placement *pls = NULL;
    int rv = SLO_OK;
    const size_t n_orig = res->n_gpus;

    res->mps_repaired_gpus = res->mps_extra_gpus = 0;
    if ((rv = check_plan(profiles, n_types, workloads, res, &most, err)))
        return rv;
    rp = calloc(res->n_gpus, sizeof *rp);
    if (scratch_alloc(&sc, most) || !rp) {
        rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    /* 1. which GPUs fail at whole units, and their re-plans */
    for (size_t j = 0; j < res->n_gpus; j++) {
        const struct slo_infer_gpu *g = &res->gpus[j];
        slo_error_t e = {0};
        int ok;
        if (round_one(&profiles[g->type], workloads, n, j, &res->placements[g->first], g->count,
                      sc.t, sc.o, sc.cnt, sc.order, &e) == SLO_OK) {
            n_gpus++;
            n_pl += g->count;
            continue;
        }
        ok = replan_gpu(&profiles[g->type], workloads, n, &res->placements[g->first], g->count,
                        &rp[j], err);
        if (ok != 0 && ok != 1) {
            rv = ok; /* SLO_ERR_NOMEM */
            goto out;
        }
        if (!ok) { /* no repair: keep the GPU, the final check names it */
            slo_ig_plan_free(&rp[j].plan);
            free(rp[j].map);
            memset(&rp[j], 0, sizeof rp[j]);
            n_gpus++;
            n_pl += g->count;
            continue;
        }
        repaired++;
        extra += rp[j].plan.n_gpus - 1;
        n_gpus += rp[j].plan.n_gpus;
        n_pl += rp[j].plan.n_placements;
    }
    if (repaired == 0)
        goto out;
    /* 2. the new plan: a repaired GPU's first GPU in its place (the others
     * keep their numbers), its further GPUs after the plan's */
    gpus = calloc(n_gpus, sizeof *gpus);
    pls = calloc(n_pl, sizeof *pls);
    if (!gpus || !pls) {
        rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    {
        size_t gi = 0, pi = 0;
        for (int pass = 0; pass < 2; pass++)
            for (size_t j = 0; j < res->n_gpus; j++) {
                const struct slo_infer_gpu *g = &res->gpus[j];
                const struct slo_ig_plan *pn = &rp[j].plan;
                size_t from = pass == 0 ? 0 : 1, to = pass == 0 ? 1 : pn->n_gpus;
                if (!pn->n_gpus) {
                    if (pass == 1)
                        continue;
                    gpus[gi] = *g;
                    gpus[gi].first = pi;
                    for (size_t i = 0; i < g->count; i++) {
                        pls[pi] = res->placements[g->first + i];
                        pls[pi++].gpu = gi;
                    }
                    gi++;
                    continue;
                }
                for (size_t k = from; k < to; k++) {
                    const struct slo_ig_plan_gpu *ng = &pn->gpus[k];
                    gpus[gi].type = g->type;
                    gpus[gi].dedicated = ng->dedicated;
                    gpus[gi].share_pct = ng->share_pct;
                    gpus[gi].usd_per_gpu_h = g->usd_per_gpu_h;
                    gpus[gi].power_w = ng->power_w;
                    gpus[gi].clock_mhz = ng->clock_mhz;
                    gpus[gi].first = pi;
                    gpus[gi].count = ng->count;
                    for (size_t i = ng->first; i < ng->first + ng->count; i++) {
                        size_t w = rp[j].map[pn->placements[i].workload];
                        slo__infer_set_placement(&pls[pi++], &pn->placements[i], w, gi, g->type,
                                      g->usd_per_gpu_h, &workloads[w]);
                    }
                    gi++;
                }
            }
    }
    free(res->gpus);
    free(res->placements);
    res->gpus = gpus;
    res->placements = pls;
    gpus = NULL;
    pls = NULL;
    res->n_gpus = n_gpus;
    res->n_placements = n_pl;
    res->cost_usd_per_h = 0.0;
    for (size_t j = 0; j < n_gpus; j++)
        res->cost_usd_per_h += res->gpus[j].usd_per_gpu_h;
out:
    if (rp)
        for (size_t j = 0; j < n_orig; j++) {
            slo_ig_plan_free(&rp[j].plan);
            free(rp[j].map);
        }
    free(rp);
    scratch_free(&sc);
    free(gpus);
    free(pls);
    if (rv == SLO_OK) {
        res->mps_repaired_gpus = repaired;
        res->mps_extra_gpus = extra;
    }
    return rv;
}
