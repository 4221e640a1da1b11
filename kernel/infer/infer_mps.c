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

int slo_infer_mps_round(const struct slo_ig_profile *profiles, size_t n_types,
                        const struct slo_ig_workload *workloads, size_t n,
                        struct slo_infer_result *res, slo_error_t *err)
{
    struct slo_ig_tenant *t = NULL;
    struct slo_ig_prediction *o = NULL;
    int *cnt = NULL;
    size_t *order = NULL, most = 0;
    int rv = SLO_OK;

    if (!res)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected a result, found NULL");
    res->mps_reason[0] = '\0';
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
        if (g->count > most)
            most = g->count;
    }
    t = calloc(most, sizeof *t);
    o = calloc(most, sizeof *o);
    cnt = calloc(most, sizeof *cnt);
    order = calloc(most, sizeof *order);
    if (!t || !o || !cnt || !order) {
        rv = fail(res, err, SLO_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < res->n_gpus; j++) {
        const struct slo_infer_gpu *g = &res->gpus[j];
        const struct slo_ig_profile *p = &profiles[g->type];
        struct slo_infer_placement *pl = &res->placements[g->first];
        slo_error_t e = {0};
        double sum = 0.0;

        for (size_t i = 0; i < g->count; i++) {
            const struct slo_ig_workload *w;
            if (pl[i].workload >= n) {
                rv = fail(res, err, SLO_ERR_INVALID,
                          "GPU %zu: expected workloads below %zu, found workload %zu", j + 1, n,
                          pl[i].workload + 1);
                goto out;
            }
            w = &workloads[pl[i].workload];
            t[i].model = slo_ig_find_model(p, w->model);
            t[i].batch = pl[i].batch;
            sum += pl[i].share_pct;
            if (t[i].model < 0) {
                rv = fail(res, err, SLO_ERR_INVALID,
                          "GPU %zu, workload %zu: expected a model of profile %s, found \"%s\"",
                          j + 1, pl[i].workload + 1, p->source, w->model);
                goto out;
            }
        }
        round_gpu(p, workloads, pl, g->count, cnt, t, o, order);
        for (size_t i = 0; i < g->count; i++)
            t[i].share_pct = cnt[i];
        for (size_t i = 0; i < g->count; i++)
            if (cnt[i] <= 0) {
                rv = fail(res, err, SLO_ERR_INVALID,
                          "GPU %zu, workload %zu (%s): MPS share %.6g %% rounds to 0 of the %d "
                          "gres/mps units of a GPU (its %zu tenants' shares sum to %.6g %%); "
                          "Slurm cannot give it a share",
                          j + 1, pl[i].workload + 1, workloads[pl[i].workload].model,
                          pl[i].share_pct, SLO_MPS_COUNT_PER_GPU, g->count, sum);
                goto out;
            }
        if (slo_ig_predict(p, t, g->count, o, NULL, &e)) {
            rv = fail(res, err, e.code ? e.code : SLO_ERR_INVALID, "GPU %zu: %s", j + 1, e.text);
            goto out;
        }
        for (size_t i = 0; i < g->count; i++) {
            const struct slo_ig_workload *w = &workloads[pl[i].workload];
            if (!slo_ig_meets_slo(o[i].latency_ms, o[i].throughput_rps, w->slo_ms,
                                  pl[i].rate_rps)) {
                int slow = !slo_ig_meets_slo(o[i].latency_ms, 0.0, w->slo_ms, 0.0);
                rv = fail(res, err, SLO_ERR_INFEASIBLE,
                          "GPU %zu, workload %zu (%s): at the rounded MPS share %d %% (planned "
                          "%.6g %%) the model predicts %s %.6g %s against %s %.6g %s",
                          j + 1, pl[i].workload + 1, w->model, cnt[i], pl[i].share_pct,
                          slow ? "latency" : "throughput",
                          slow ? o[i].latency_ms : o[i].throughput_rps, slow ? "ms" : "req/s",
                          slow ? "SLO/2" : "the rate", slow ? w->slo_ms / 2.0 : pl[i].rate_rps,
                          slow ? "ms" : "req/s");
                goto out;
            }
        }
        for (size_t i = 0; i < g->count; i++) {
            pl[i].mps_gres_count = cnt[i];
            /* Slurm: CUDA_MPS_ACTIVE_THREAD_PERCENTAGE = N x 100 / Count */
            pl[i].mps_active_thread_pct = cnt[i] * 100 / SLO_MPS_COUNT_PER_GPU;
            pl[i].mps_latency_ms = o[i].latency_ms;
            pl[i].mps_throughput_rps = o[i].throughput_rps;
        }
    }
    res->mps_verified = 1;
out:
    free(t);
    free(o);
    free(cnt);
    free(order);
    return rv;
}
