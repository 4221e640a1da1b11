/*
 * infer_solve.c - the inference planner's one solve call: price the GPU
 * types from a catalog, plan with slo_ig_plan, check every placement against
 * its SLO, and say what was found (enum slo_status) - what `slo infer` does.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"
#include "slo_infer.h"
#include "infer_private.h"

static double per_gpu_price(const struct slo_instance_type *t, enum slo_pricing pricing)
{
    return slo_instance_price(t, pricing) / t->gpus;
}

int slo_infer_price_gpu(const struct slo_ig_profile *p, const struct slo_catalog *cat,
                        enum slo_pricing pricing, const char *instance_type,
                        struct slo_infer_gpu_type *out, slo_error_t *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->gpu_model, sizeof out->gpu_model, "%s", p->gpu_model);
    snprintf(out->instance_type, sizeof out->instance_type, "%s", p->instance_type);
    out->usd_per_gpu_h = p->usd_per_gpu_h;
    /* rule 1: the profile's own price */
    if (p->usd_per_gpu_h >= 0.0)
        return SLO_OK;
    if (!cat)
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                         "gpu: expected a price for this GPU type (gpu.usd_per_h, or a catalog "
                         "to price gpu.instance_type or gpu.model), found no catalog");
    if (!out->instance_type[0] && instance_type)
        snprintf(out->instance_type, sizeof out->instance_type, "%s", instance_type);
    /* rule 2: the named instance type, price / its GPUs */
    if (out->instance_type[0]) {
        int k = slo_catalog_find(cat, out->instance_type);
        if (k < 0)
            return slo__fail(err, SLO_ERR_NOT_FOUND, p->source,
                             "gpu.instance_type: expected an instance type of catalog %s, "
                             "found \"%s\"",
                             cat->name, out->instance_type);
        out->usd_per_gpu_h = per_gpu_price(&cat->types[k], pricing);
        if (!out->gpu_model[0])
            snprintf(out->gpu_model, sizeof out->gpu_model, "%s", cat->types[k].gpu_model);
        return SLO_OK;
    }
    /* rule 3: the cheapest per-GPU price among the types with this GPU model */
    if (out->gpu_model[0]) {
        int best = -1;
        for (size_t k = 0; k < cat->n_types; k++)
            if (strcmp(cat->types[k].gpu_model, out->gpu_model) == 0 &&
                (best < 0 || per_gpu_price(&cat->types[k], pricing) <
                                 per_gpu_price(&cat->types[best], pricing)))
                best = (int)k;
        if (best >= 0) {
            snprintf(out->instance_type, sizeof out->instance_type, "%s",
                     cat->types[best].name);
            out->usd_per_gpu_h = per_gpu_price(&cat->types[best], pricing);
            return SLO_OK;
        }
    }
    return slo__fail(err, SLO_ERR_INVALID, p->source,
                     "gpu: expected a price for this GPU type (gpu.usd_per_h, gpu.instance_type "
                     "or a gpu.model of catalog %s), found %s; pass --instance-type TYPE",
                     cat->name, out->gpu_model[0] ? "a GPU model the catalog lacks" : "none");
}

void slo_infer_options_init(struct slo_infer_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->policy = SLO_IG_POLICY_IGNITER;
}

void slo_infer_result_free(struct slo_infer_result *res)
{
    if (!res)
        return;
    free(res->types);
    free(res->gpus);
    free(res->placements);
    memset(res, 0, sizeof *res);
}

/* Largest number of tenants one GPU of p holds (each has at least one unit). */
static size_t max_tenants(const struct slo_ig_profile *p)
{
    return (size_t)floor(100.0 / p->unit_pct + 1e-9);
}

/* 1 when co-location on p can only add latency to any tenant of the
 * workloads w[n] (notes 1.2.5, 1.2.7, 1.2.8): their models' alpha_cache >= 0,
 * kc >= 0, bc >= 0 (so each co-runner's L2 term c >= 0), Delta_sch(k) >= 0
 * for 2 <= k <= max tenants (linear in k: both ends) and a clock that only
 * drops (slope <= 0). */
static int interference_adds(const struct slo_ig_profile *p, const struct slo_ig_workload *w,
                             size_t n)
{
    size_t nmax = max_tenants(p);
    if (!(p->clock_slope_mhz_per_w <= 0.0))
        return 0;
    if (p->model_variant == SLO_IG_VARIANT_CALIBRATED) {
        /* igniter-calibrated: its pair terms must only add too (kappa, o >= 0) */
        for (size_t i = 0; i < n; i++) {
            int mi = slo_ig_find_model(p, w[i].model);
            if (mi >= 0 && !(p->models[mi].calib.l2_coupling_per_pct2 >= 0.0 &&
                             p->models[mi].calib.overhead_ms >= 0.0))
                return 0;
        }
    }
    if (nmax >= 2 && (slo_ig_delta_sch_ms(p, 2) < 0.0 || slo_ig_delta_sch_ms(p, nmax) < 0.0))
        return 0;
    for (size_t i = 0; i < n; i++) {
        int mi = slo_ig_find_model(p, w[i].model);
        const struct slo_ig_model *m = mi < 0 ? NULL : &p->models[mi];
        if (m && !(m->alpha_cache_per_pct >= 0.0 && m->kc_pct_per_rps >= 0.0 && m->bc_pct >= 0.0))
            return 0;
    }
    return 1;
}

/* Least solo share (%, a multiple of the unit) at which model m meets the
 * latency bound of workload w at some batch 1..SLO_IG_MAX_BATCH (notes 2.2
 * step 3: r >= gamma/delta - k4 with gamma > 0; +inf when no batch can). */
static double least_solo_share(const struct slo_ig_profile *p, const struct slo_ig_model *m,
                               const struct slo_ig_workload *w)
{
    double best = INFINITY;
    if (!(m->k[3] + p->unit_pct > 0.0))
        return INFINITY; /* r + k4 must stay positive for the bound to hold */
    for (int b = 1; b <= SLO_IG_MAX_BATCH; b++) {
        struct slo_ig_bounds bd;
        double bound = slo_ig_latency_bound_ms(p, m, b, w->rate_rps, w->slo_ms / 2.0);
        slo_ig_bounds_for(p, m, b, bound, &bd);
        if (!(bd.gamma > 0.0))
            return INFINITY; /* solo latency would not fall with the share: no bound */
        if (bd.r_low_pct < best)
            best = bd.r_low_pct;
    }
    return best;
}

/* Lower bound (ms) on the latency of model mi on p at any batch 1..32 and
 * share in [u, 100], alone or with up to max_tenants - 1 co-runners among
 * the workloads w[n] (notes 1.2.1-1.2.10 term by term: transfer b (d_in + d_out)/B;
 * t_sch >= t_sch0 + n_k min Delta_sch; t_act >= min over the share of
 * t_act0 times (1 + alpha_cache (tenants - 1) min(0, least bc)), the
 * co-runners' L2 terms at their least with kc >= 0; t_gpu >= t_sch + t_act
 * with a clock that only drops). NAN when a premise fails (no bound). */
static double latency_lower_bound_ms(const struct slo_ig_profile *p, int mi,
                                     const struct slo_ig_workload *w, size_t n)
{
    const struct slo_ig_model *m = &p->models[mi];
    size_t nmax = max_tenants(p);
    double c_low = 0.0, d_low = 0.0, factor, best = INFINITY;

    if (!(p->clock_slope_mhz_per_w <= 0.0) || !(m->alpha_cache_per_pct >= 0.0) ||
        !(m->k[3] + p->unit_pct > 0.0) || nmax < 1)
        return NAN;
    if (p->model_variant != SLO_IG_VARIANT_IGNITER_2023)
        return NAN; /* the bound below is the paper's surface; none for the variant */
    for (size_t i = 0; i < n; i++) {
        int k = slo_ig_find_model(p, w[i].model);
        if (k < 0)
            continue;
        if (!(p->models[k].kc_pct_per_rps >= 0.0))
            return NAN;
        if (p->models[k].bc_pct < c_low)
            c_low = p->models[k].bc_pct;
    }
    factor = 1.0 + m->alpha_cache_per_pct * (double)(nmax - 1) * c_low;
    if (nmax >= 2) {
        double d2 = slo_ig_delta_sch_ms(p, 2), dn = slo_ig_delta_sch_ms(p, nmax);
        d_low = fmin(0.0, fmin(d2, dn));
    }
    if (!(factor >= 0.0) || !(m->t_sch_solo_ms + m->n_kernels * d_low >= 0.0))
        return NAN;
    for (int b = 1; b <= SLO_IG_MAX_BATCH; b++) {
        double transfer = b * (m->input_bytes + m->output_bytes) / p->bandwidth_bytes_per_ms;
        /* t_act0 is monotone in the share (gamma/(r + k4), r + k4 > 0): an end */
        double act0 = fmin(slo_ig_active_solo_ms(m, b, p->unit_pct),
                           slo_ig_active_solo_ms(m, b, 100.0));
        double gpu = m->t_sch_solo_ms + m->n_kernels * d_low + fmax(0.0, act0) * factor;
        if (transfer + gpu < best)
            best = transfer + gpu;
    }
    return best;
}

/* 1 when no GPU type of problem can serve workload w[wi] of w[n] within
 * SLO/2 (proven by latency_lower_bound_ms on every type that has its model). */
static int proven_infeasible(const struct slo_ig_profile *profiles, size_t n_types,
                             const struct slo_ig_workload *w, size_t n, size_t wi)
{
    int any = 0;
    for (size_t t = 0; t < n_types; t++) {
        int mi = slo_ig_find_model(&profiles[t], w[wi].model);
        double lb;
        if (mi < 0)
            continue;
        any = 1;
        lb = latency_lower_bound_ms(&profiles[t], mi, w, n);
        if (!(lb > w[wi].slo_ms / 2.0))
            return 0;
    }
    return any;
}

/* Lower bound on the cost of any plan (USD/h): see slo_infer_solve. */
static double cost_lower_bound(const struct slo_ig_profile *profiles, size_t n_types,
                               const struct slo_ig_workload *w, size_t n)
{
    double lb = INFINITY, sum = 0.0;
    const struct slo_ig_profile *p = &profiles[0];

    for (size_t t = 0; t < n_types; t++)
        lb = fmin(lb, profiles[t].usd_per_gpu_h);
    if (n_types != 1 || !interference_adds(p, w, n))
        return lb;
    for (size_t i = 0; i < n; i++) {
        int mi = slo_ig_find_model(p, w[i].model);
        double r = mi < 0 ? INFINITY : least_solo_share(p, &p->models[mi], &w[i]);
        if (!(r <= 100.0))
            return lb; /* a split workload (or none): only the one-GPU bound */
        sum += r;
    }
    return fmax(lb, p->usd_per_gpu_h * ceil(sum / 100.0 - 1e-9));
}

static void set_reason(struct slo_infer_result *res, const slo_error_t *e)
{
    /* "SOURCE: TEXT" as the front ends print an error, cut to the reason's size */
    const char *parts[3] = {e->source, e->source[0] ? ": " : "", e->text};
    size_t used = 0;
    for (int k = 0; k < 3; k++) {
        size_t len = strlen(parts[k]);
        if (len > sizeof res->reason - 1 - used)
            len = sizeof res->reason - 1 - used;
        memcpy(res->reason + used, parts[k], len);
        used += len;
    }
    res->reason[used] = '\0';
}

void slo__infer_set_placement(struct slo_infer_placement *q, const struct slo_ig_placement *p,
                              size_t workload, size_t gpu, size_t type, double price,
                              const struct slo_ig_workload *w)
{
    memset(q, 0, sizeof *q);
    q->workload = workload;
    q->gpu = gpu;
    q->type = type;
    q->rate_rps = p->rate_rps;
    q->batch = p->batch;
    q->share_pct = p->share_pct;
    q->latency_ms = p->latency_ms;
    q->slo_half_ms = w->slo_ms / 2.0;
    q->throughput_rps = p->throughput_rps;
    q->usd_per_gpu_h = price;
    q->meets_slo = slo_ig_meets_slo(p->latency_ms, p->throughput_rps, w->slo_ms, p->rate_rps);
}

static int copy_plan(const struct slo_ig_plan *plan, const struct slo_ig_profile *priced,
                     const struct slo_ig_workload *w, struct slo_infer_result *res,
                     slo_error_t *err)
{
    res->policy = plan->policy;
    res->cost_usd_per_h = plan->cost_usd_per_h;
    res->n_violations = plan->n_violations;
    res->gpus = calloc(plan->n_gpus ? plan->n_gpus : 1, sizeof *res->gpus);
    res->placements = calloc(plan->n_placements ? plan->n_placements : 1,
                             sizeof *res->placements);
    if (!res->gpus || !res->placements)
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    res->n_gpus = plan->n_gpus;
    res->n_placements = plan->n_placements;
    for (size_t j = 0; j < plan->n_gpus; j++) {
        const struct slo_ig_plan_gpu *g = &plan->gpus[j];
        struct slo_infer_gpu *o = &res->gpus[j];
        o->type = g->type;
        o->dedicated = g->dedicated;
        o->share_pct = g->share_pct;
        o->usd_per_gpu_h = priced[g->type].usd_per_gpu_h;
        o->power_w = g->power_w;
        o->clock_mhz = g->clock_mhz;
        o->first = g->first;
        o->count = g->count;
        for (size_t i = g->first; i < g->first + g->count; i++) {
            const struct slo_ig_placement *pl = &plan->placements[i];
            slo__infer_set_placement(&res->placements[i], pl, pl->workload, j, g->type,
                                     o->usd_per_gpu_h, &w[pl->workload]);
        }
    }
    return SLO_OK;
}

int slo__infer_solve(const struct slo_infer_problem *pb, const struct slo_infer_options *opt,
                     int repair, struct slo_infer_result *res, slo_error_t *err)
{
    struct slo_infer_options defaults;
    struct slo_ig_profile *priced = NULL;
    struct slo_ig_plan plan = {0};
    slo_error_t e = {0};
    size_t failed = SIZE_MAX;
    int rv;

    if (!res)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected a result, found NULL");
    memset(res, 0, sizeof *res);
    if (!pb)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected a problem, found NULL");
    if (!opt) {
        slo_infer_options_init(&defaults);
        opt = &defaults;
    }
    res->policy = opt->policy;
    if (pb->n_types && !pb->profiles)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected %zu GPU profiles, found NULL",
                         pb->n_types);
    if (pb->n_workloads && !pb->workloads)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected %zu workloads, found NULL",
                         pb->n_workloads);
    res->types = calloc(pb->n_types ? pb->n_types : 1, sizeof *res->types);
    /* shallow copies (the models stay the caller's) carrying the prices */
    priced = calloc(pb->n_types ? pb->n_types : 1, sizeof *priced);
    if (!res->types || !priced) {
        rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        goto fail;
    }
    res->n_types = pb->n_types;
    for (size_t t = 0; t < pb->n_types; t++) {
        struct slo_infer_gpu_type *ty = &res->types[t];
        if ((rv = slo_infer_price_gpu(&pb->profiles[t], pb->catalog, pb->pricing,
                                      pb->instance_types ? pb->instance_types[t] : NULL, ty,
                                      err)))
            goto fail;
        priced[t] = pb->profiles[t];
        if (opt->model_variant &&
            (rv = slo_ig_profile_set_variant(&priced[t], opt->model_variant, err)))
            goto fail;
        priced[t].usd_per_gpu_h = ty->usd_per_gpu_h;
        snprintf(priced[t].gpu_model, sizeof priced[t].gpu_model, "%s", ty->gpu_model);
        snprintf(priced[t].instance_type, sizeof priced[t].instance_type, "%s",
                 ty->instance_type);
    }
    rv = slo__ig_plan_detail(priced, pb->n_types, pb->workloads, pb->n_workloads, opt->policy,
                             &plan, &failed, &e);
    if (rv == SLO_ERR_INFEASIBLE) {
        /* what the planner found, not a failed call */
        res->status = failed != SIZE_MAX &&
                              proven_infeasible(priced, pb->n_types, pb->workloads,
                                                pb->n_workloads, failed)
                          ? SLO_STATUS_INFEASIBLE
                          : SLO_STATUS_INFEASIBLE_UNPROVEN;
        set_reason(res, &e);
        free(priced);
        return SLO_OK;
    }
    if (rv) {
        if (err)
            *err = e;
        goto fail;
    }
    if ((rv = copy_plan(&plan, priced, pb->workloads, res, err)))
        goto fail;
    res->cost_lower_bound_usd_per_h =
        cost_lower_bound(priced, pb->n_types, pb->workloads, pb->n_workloads);
    /* Slurm's integer gres/mps units: rounded once, here, and re-verified; a
     * plan whose rounded shares fail keeps its status (the plan itself holds)
     * with mps_verified = 0 and the reason (`slo infer --emit slurm` refuses it) */
    {
        slo_error_t me = {0};
        int mrv = slo_infer_mps_round(priced, pb->n_types, pb->workloads, pb->n_workloads, res,
                                      &me);
        /* a GPU whose tenants fail at whole units: re-plan that GPU alone at
         * the 1 % unit (the others stay as planned), then re-verify it all */
        if (repair && mrv == SLO_ERR_INFEASIBLE && !res->n_violations) {
            mrv = slo__infer_mps_repair(priced, pb->n_types, pb->workloads, pb->n_workloads,
                                        res, &me);
            if (mrv == SLO_OK && res->mps_repaired_gpus)
                mrv = slo_infer_mps_round(priced, pb->n_types, pb->workloads,
                                          pb->n_workloads, res, &me);
        }
        if (mrv == SLO_ERR_NOMEM) {
            rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
            goto fail;
        }
    }
    if (res->n_violations) {
        res->status = SLO_STATUS_INFEASIBLE_UNPROVEN;
        snprintf(res->reason, sizeof res->reason,
                 "%zu placement%s miss SLO/2 or the rate under the interference model "
                 "(policy %s, a baseline)",
                 res->n_violations, res->n_violations == 1 ? "" : "s",
                 slo_ig_policy_name(res->policy));
    } else if (res->cost_usd_per_h <= res->cost_lower_bound_usd_per_h + 1e-9) {
        res->status = SLO_STATUS_OPTIMAL;
    } else {
        res->status = SLO_STATUS_FEASIBLE_UNPROVEN;
        snprintf(res->reason, sizeof res->reason,
                 "the plan (policy %s, a heuristic) costs %.4g USD/h on %zu GPU%s; the proven "
                 "lower bound is %.4g USD/h",
                 slo_ig_policy_name(res->policy), res->cost_usd_per_h, res->n_gpus,
                 res->n_gpus == 1 ? "" : "s", res->cost_lower_bound_usd_per_h);
    }
    slo_ig_plan_free(&plan);
    free(priced);
    return SLO_OK;
fail:
    slo_ig_plan_free(&plan);
    free(priced);
    slo_infer_result_free(res);
    return rv;
}

int slo_infer_solve(const struct slo_infer_problem *pb, const struct slo_infer_options *opt,
                    struct slo_infer_result *res, slo_error_t *err)
{
    return slo__infer_solve(pb, opt, 1, res, err);
}
