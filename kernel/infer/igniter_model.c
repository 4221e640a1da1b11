/*
 * igniter_model.c - iGniter inference performance model (notes 1.2.1-1.2.11;
 * README "Model the Inference Performance"; HEAD predict()) and the
 * planner's per-workload bounds (notes 2.2 steps 2-3; HEAD algorithm()).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>

#include "slo_private.h"
#include "slo_infer.h"
#include "infer_private.h"

/* notes 1.2.2: solo active time at clock F, ms. */
double slo_ig_active_solo_ms(const struct slo_ig_model *m, int batch, double share_pct)
{
    double b = batch;
    return (m->k[0] * b * b + m->k[1] * b + m->k[2]) / (share_pct + m->k[3]) + m->k[4];
}

/* notes 1.2.8: per-kernel scheduling delay increase with p co-located workloads. */
double slo_ig_delta_sch_ms(const struct slo_ig_profile *p, size_t n_colocated)
{
    return n_colocated >= 2 ? p->sched_alpha_ms * (double)n_colocated + p->sched_beta_ms : 0.0;
}

/* Workload i of t[] checked against p (model index, batch in the profiled
 * range, share in (0, 100] %) and its solo state into *o (zeroed first):
 * the solo active time t_act_solo_ms (1.2.2), the solo capability (1.2.3),
 * power (1.2.4) and L2 utilization (1.2.6). Shared by both model variants
 * (igniter_variant.c). SLO_OK or SLO_ERR_INVALID naming the workload. */
int slo__ig_tenant_solo(const struct slo_ig_profile *p, const struct slo_ig_tenant *t, size_t i,
                        struct slo_ig_prediction *o, slo_error_t *err)
{
    const struct slo_ig_model *m;

    if (t[i].model < 0 || (size_t)t[i].model >= p->n_models)
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                        "predict: workload %zu: expected a model index in [0, %zu), found %d",
                        i, p->n_models, t[i].model);
    m = &p->models[t[i].model];
    if (t[i].batch < 1 || t[i].batch > SLO_IG_MAX_BATCH)
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                        "predict: workload %zu (%s): expected a batch in [1, %d] (the "
                        "profiled range), found %d",
                        i, m->name, SLO_IG_MAX_BATCH, t[i].batch);
    if (!(t[i].share_pct > 0.0 && t[i].share_pct <= 100.0))
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                        "predict: workload %zu (%s): expected a share in (0, 100] %%, "
                        "found %g",
                        i, m->name, t[i].share_pct);
    memset(o, 0, sizeof *o);
    o->t_act_solo_ms = slo_ig_active_solo_ms(m, t[i].batch, t[i].share_pct);
    if (!(o->t_act_solo_ms > 0.0) || !isfinite(o->t_act_solo_ms))
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                        "predict: workload %zu (%s): the fitted solo active time at batch "
                        "%d, share %g %% is %g ms; expected > 0 (outside the fitted range)",
                        i, m->name, t[i].batch, t[i].share_pct, o->t_act_solo_ms);
    /* 1.2.3: solo capability, req/s (drives the interference terms). */
    o->solo_capability_rps = 1000.0 * t[i].batch / o->t_act_solo_ms;
    o->power_w = m->kp_w_per_rps * o->solo_capability_rps + m->bp_w;     /* 1.2.4 */
    o->l2_pct = m->kc_pct_per_rps * o->solo_capability_rps + m->bc_pct; /* 1.2.6 */
    return SLO_OK;
}

/* 1.2.5: the clock, MHz, at total power total_power_w, W: linear drop
 * above the power cap (a < 0, no lower clamp). SLO_OK, or SLO_ERR_INVALID
 * when it is not > 0 (far outside the profiled range). */
int slo__ig_clock_mhz(const struct slo_ig_profile *p, double total_power_w, double *clock_mhz,
                      slo_error_t *err)
{
    *clock_mhz = p->max_clock_mhz;
    if (total_power_w > p->power_cap_w)
        *clock_mhz =
            p->clock_slope_mhz_per_w * (total_power_w - p->power_cap_w) + p->max_clock_mhz;
    if (!(*clock_mhz > 0.0))
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                        "predict: total power %g W drives the modelled clock to %g MHz; "
                        "expected > 0 (far outside the profiled range)",
                        total_power_w, *clock_mhz);
    return SLO_OK;
}

int slo_ig_predict(const struct slo_ig_profile *p, const struct slo_ig_tenant *t, size_t n,
                   struct slo_ig_prediction *out, struct slo_ig_gpu_state *gpu,
                   slo_error_t *err)
{
    double total_power_w, total_l2_pct = 0.0, clock_mhz, delta_sch;

    if (p->model_variant != SLO_IG_VARIANT_IGNITER_2023) /* issue 18: igniter_variant.c */
        return slo__ig_predict_variant(p, t, n, out, gpu, err);
    if (n == 0)
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                        "predict: expected at least one workload on the GPU, found none");
    total_power_w = p->idle_power_w; /* 1.2.4: P_j = P_idle + sum P_i */
    for (size_t i = 0; i < n; i++) {
        int rc = slo__ig_tenant_solo(p, t, i, &out[i], err);
        if (rc)
            return rc;
        total_power_w += out[i].power_w;
        total_l2_pct += out[i].l2_pct;
    }
    if (slo__ig_clock_mhz(p, total_power_w, &clock_mhz, err))
        return SLO_ERR_INVALID;
    delta_sch = slo_ig_delta_sch_ms(p, n); /* 1.2.8 */
    for (size_t i = 0; i < n; i++) {
        const struct slo_ig_model *m = &p->models[t[i].model];
        struct slo_ig_prediction *o = &out[i];
        double b = t[i].batch;
        double others_l2 = total_l2_pct - o->l2_pct; /* 1.2.7: excludes itself */
        o->t_load_ms = m->input_bytes * b / p->bandwidth_bytes_per_ms;     /* 1.2.1 */
        o->t_feedback_ms = m->output_bytes * b / p->bandwidth_bytes_per_ms; /* 1.2.1 */
        o->t_sch_ms = m->n_kernels * delta_sch + m->t_sch_solo_ms;          /* 1.2.8 */
        o->t_act_ms = o->t_act_solo_ms * (1.0 + m->alpha_cache_per_pct * others_l2); /* 1.2.7 */
        /* 1.2.9: the clock drop slows scheduling and kernels alike. */
        o->t_gpu_ms = (o->t_sch_ms + o->t_act_ms) / (clock_mhz / p->max_clock_mhz);
        /* 1.2.11: loading overlaps execution (Triton), feedback does not. */
        o->throughput_rps = b * 1000.0 / (o->t_gpu_ms + o->t_feedback_ms);
        /* 1.2.10 (HEAD sums the transfers first; same value). */
        o->latency_ms = o->t_gpu_ms + (m->input_bytes + m->output_bytes) * b /
                                          p->bandwidth_bytes_per_ms;
    }
    if (gpu) {
        gpu->total_power_w = total_power_w;
        gpu->clock_mhz = clock_mhz;
        gpu->delta_sch_ms_per_kernel = delta_sch;
    }
    return SLO_OK;
}

int slo_ig_batch_for(const struct slo_ig_profile *p, const struct slo_ig_model *m,
                     double rate_rps, double slo_half_ms)
{
    /* notes 2.2 step 2: b = ceil(T' rho B / (B + d_in rho)), rho in req/ms,
     * capped at the largest profiled batch (a loose SLO would otherwise ask
     * for batches far outside the fitted surface: 24270 at 100 s). */
    double rho = rate_rps / 1000.0;
    double b = ceil(slo_half_ms * rho * p->bandwidth_bytes_per_ms /
                    (p->bandwidth_bytes_per_ms + m->input_bytes * rho));
    if (!(b >= 1.0))
        return 1;
    if (b > SLO_IG_MAX_BATCH)
        return SLO_IG_MAX_BATCH;
    return (int)b;
}

double slo_ig_latency_bound_ms(const struct slo_ig_profile *p, const struct slo_ig_model *m,
                               int batch, double rate_rps, double slo_half_ms)
{
    /* throughput 1000 b / (t_gpu + t_fb) >= R  <=>  latency <= t_load + 1000 b / R */
    double thr = m->input_bytes * batch / p->bandwidth_bytes_per_ms + 1000.0 * batch / rate_rps;
    return thr < slo_half_ms ? thr : slo_half_ms;
}

void slo_ig_bounds_for(const struct slo_ig_profile *p, const struct slo_ig_model *m,
                       int batch, double bound_ms, struct slo_ig_bounds *out)
{
    double b = batch;
    out->batch = batch;
    out->bound_ms = bound_ms;
    /* notes 2.2 step 3: invert the solo model (clock F, no co-runners). */
    out->gamma = m->k[0] * b * b + m->k[1] * b + m->k[2];
    out->delta_ms = bound_ms - m->t_sch_solo_ms -
                    b * (m->input_bytes + m->output_bytes) / p->bandwidth_bytes_per_ms - m->k[4];
    if (p->model_variant != SLO_IG_VARIANT_IGNITER_2023) { /* issue 18: igniter_variant.c */
        slo__ig_bounds_variant(p, m, batch, bound_ms, out);
        return;
    }
    if (!(out->delta_ms > 0.0) || !(out->gamma > 0.0)) {
        /* Upstream divides anyway (negative or infinite share, notes 5.2); an
         * SLO this tight cannot be met at this batch: no share suffices. */
        out->r_low_pct = out->delta_ms > 0.0 ? p->unit_pct : INFINITY;
        return;
    }
    out->r_low_pct = ceil((out->gamma / out->delta_ms - m->k[3]) / p->unit_pct) * p->unit_pct;
    if (out->r_low_pct < p->unit_pct) /* upstream can give 0 or less; one unit minimum */
        out->r_low_pct = p->unit_pct;
}

void slo_ig_choose_batch(const struct slo_ig_profile *p, const struct slo_ig_model *m,
                         double rate_rps, double slo_half_ms, struct slo_ig_bounds *out)
{
    int b0 = slo_ig_batch_for(p, m, rate_rps, slo_half_ms);
    /* iGniter's batch b0 fills T' (its latency bound is T' itself, up to the
     * cap); a smaller batch is taken only when it needs strictly less share,
     * so the share never grows as T' does: the candidates 1..b0 only grow and
     * each one's bound min(T', t_load + 1000 b / R) only loosens. */
    slo_ig_bounds_for(p, m, b0, slo_ig_latency_bound_ms(p, m, b0, rate_rps, slo_half_ms), out);
    for (int b = b0 - 1; b >= 1; b--) {
        struct slo_ig_bounds o;
        slo_ig_bounds_for(p, m, b, slo_ig_latency_bound_ms(p, m, b, rate_rps, slo_half_ms), &o);
        if (o.r_low_pct < out->r_low_pct)
            *out = o;
    }
}

int slo_ig_workload_bounds(const struct slo_ig_profile *p, const struct slo_ig_workload *w,
                           struct slo_ig_bounds *out, slo_error_t *err)
{
    int mi = slo_ig_find_model(p, w->model);
    if (mi < 0)
        return slo__fail(err, SLO_ERR_NOT_FOUND, p->source,
                        "model \"%s\": not in this profile", w->model);
    if (!(w->rate_rps > 0.0) || !isfinite(w->rate_rps) || !(w->slo_ms > 0.0) ||
        !isfinite(w->slo_ms))
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                        "workload %s: expected rate > 0 req/s and SLO > 0 ms, found %g, %g",
                        w->model, w->rate_rps, w->slo_ms);
    slo_ig_choose_batch(p, &p->models[mi], w->rate_rps, w->slo_ms / 2.0, out);
    return SLO_OK;
}

int slo_ig_find_model(const struct slo_ig_profile *p, const char *name)
{
    for (size_t i = 0; i < p->n_models; i++)
        if (strcmp(p->models[i].name, name) == 0)
            return (int)i;
    return -1;
}
