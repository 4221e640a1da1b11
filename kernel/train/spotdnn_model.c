/*
 * spotdnn_model.c - the spotDNN performance and convergence model
 * (paper Eqs. 1-11): per-worker iteration time with PS-bandwidth and PCIe
 * contention, cluster speed, expected iteration time, weighted-average batch
 * size, convergence coefficient, loss as a function of normalized iterations
 * and its inverse, time and cost.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"
#include "sync_private.h"

double slo_contention_probability(double alpha1, double beta1, double margin, int n)
{
    /* Eq. 9; the authors' code caps at 1 but never floors at 0 (research 1.3). */
    double p = alpha1 * sqrt((double)n) + beta1 + margin;
    return p < 0 ? 0 : p > 1 ? 1 : p;
}

/* Eq. 8 with the demand b_req of one worker. */
static double eq8(const struct slo_workload *wl, double b_req, int n, double *p_out)
{
    /* Eq. 8: contention only when the workers' demand exceeds the PS NIC. */
    if (n * b_req <= wl->b_ps_mbps) {
        if (p_out)
            *p_out = -1;
        return b_req;
    }
    double p = slo_contention_probability(wl->alpha1, wl->beta1, wl->contention_margin, n);
    if (p_out)
        *p_out = p;
    return p * (wl->b_ps_mbps / n) + (1 - p) * b_req;
}

double slo_worker_bandwidth(const struct slo_workload *wl, int n, double *p_out)
{
    return eq8(wl, wl->b_req_mbps, n, p_out);
}

double slo_train_type_bandwidth(const struct slo_train_setup *s, size_t k, int n,
                                double *p_out)
{
    /* Per-type B_req (doc/model.md "Per-type network"): the branch and the
     * (1 - P) share are the type's own; with one B_req for all types this is
     * slo_worker_bandwidth exactly. */
    double b = s->types[k].b_req_mbps;
    return eq8(&s->wl, b > 0 ? b : s->wl.b_req_mbps, n, p_out); /* 0: a hand-built setup */
}

double slo_convergence_coefficient(const double *speeds, size_t n)
{
    double total = 0, sumsq = 0, wmax = 0;

    if (n <= 1)
        return 0;
    for (size_t i = 0; i < n; i++)
        total += speeds[i];
    if (!(total > 0))
        return NAN;
    for (size_t i = 0; i < n; i++) {
        double w = speeds[i] / total;
        sumsq += w * w;
        if (w > wmax)
            wmax = w;
    }
    /* Eq. 5 expanded: (w1 - 1)^2 + sum_{i>=2} w_i^2 = sum w^2 - 2 w1 + 1. */
    double r2 = sumsq - 2 * wmax + 1;
    return sqrt(r2 > 0 ? r2 : 0);
}

/* The sqrt factor of Eq. 3: sqrt((R + g4) n) (2023) or sqrt(n) (2022). */
static double staleness_factor(const struct slo_loss_model *m, double R, int n)
{
    if (m->form == SLO_LOSS_SPOTDNN_2022)
        return sqrt((double)n);
    return sqrt((R + m->gamma4) * n);
}

double slo_loss_at(const struct slo_loss_model *m, double bw, double R, int n, double j)
{
    return (m->gamma2 * bw + m->gamma3) * staleness_factor(m, R, n) / (j + m->gamma1) +
           m->gamma5;
}

int slo_iterations_for_loss(const struct slo_loss_model *m, double bw, double R, int n,
                            double target, double *j_out, slo_error_t *err)
{
    double num = m->gamma2 * bw + m->gamma3;

    if (!(target > m->gamma5))
        return slo__fail(err, SLO_ERR_UNREACHABLE, "loss_model.gamma5",
                        "target loss %g is at or below the asymptotic loss gamma5 = %g of the "
                        "loss model; expected a target above it",
                        target, m->gamma5);
    if (!(num > 0))
        return slo__fail(err, SLO_ERR_UNREACHABLE, "loss_model",
                        "weighted-average batch %.1f leaves no loss decay (gamma2 bw + gamma3 "
                        "= %g <= 0)",
                        bw, num);
    if (m->form == SLO_LOSS_SPOTDNN_2023 && R + m->gamma4 < 0)
        return slo__fail(err, SLO_ERR_UNREACHABLE, "loss_model.gamma4",
                        "R + gamma4 = %g < 0: no loss decay", R + m->gamma4);
    *j_out = num * staleness_factor(m, R, n) / (target - m->gamma5) - m->gamma1;
    return SLO_OK;
}

int slo__train_setup_begin(struct slo_train_setup *s, const struct slo_catalog *cat,
                           const struct slo_workload *wl, enum slo_pricing pricing,
                           slo_error_t *err)
{
    memset(s, 0, sizeof *s);
    s->wl = *wl;
    s->wl.instances = NULL;
    s->wl.n_instances = 0;
    s->pricing = pricing;
    s->types = calloc(cat->n_types ? cat->n_types : 1, sizeof *s->types);
    s->skipped = calloc(cat->n_types ? cat->n_types : 1, sizeof *s->skipped);
    if (!s->types || !s->skipped) {
        slo_train_setup_free(s);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    return SLO_OK;
}

struct slo_train_type *slo__train_setup_type(struct slo_train_setup *s,
                                             const struct slo_catalog *cat, size_t c, int found)
{
    const struct slo_instance_type *it = &cat->types[c];
    struct slo_train_type *t;
    if (!found) {
        s->skipped[s->n_skipped++] = (int)c;
        return NULL;
    }
    t = &s->types[s->n_types];
    t->catalog_index = (int)c;
    t->name = it->name;
    t->site = it->site;
    t->gpus = it->gpus;
    t->usd_per_h = slo_instance_price(it, s->pricing);
    t->quota = it->quota;
    return t;
}

int slo_train_setup_init(struct slo_train_setup *s, const struct slo_catalog *cat,
                         const struct slo_workload *wl, enum slo_pricing pricing,
                         slo_error_t *err)
{
    memset(s, 0, sizeof *s);
    if (wl->mode == SLO_TRAIN_SYNC_ALLREDUCE) /* issue 17: not this model */
        return slo__fail(err, SLO_ERR_INVALID, wl->name,
                         "mode: expected an async-ps workload for spotDNN's model, found "
                         "sync-allreduce (slo_train_solve plans it; slo_sync_* model it)");
    int rv = slo__train_setup_begin(s, cat, wl, pricing, err);
    if (rv)
        return rv;
    for (size_t c = 0; c < cat->n_types; c++) {
        const struct slo_instance_type *it = &cat->types[c];
        const struct slo_workload_instance *wi = NULL;
        for (size_t i = 0; i < wl->n_instances; i++)
            if (strcmp(wl->instances[i].type, slo_instance_profile(it)) == 0)
                wi = &wl->instances[i];
        struct slo_train_type *t = slo__train_setup_type(s, cat, c, wi != NULL);
        if (!t)
            continue;
        double S = wl->s_parm_mb;
        double pcie = it->pcie_mbps > 0 ? it->pcie_mbps : wl->b_pcie_mbps;
        double batch = (double)it->gpus * wi->batch_per_gpu;
        double t_prof = batch / wi->speed;
        int net_cat = wl->worker_network_catalog && it->network_mbps > 0;
        double b_req = net_cat ? fmin(it->network_mbps, wl->b_req_mbps) : wl->b_req_mbps;
        double t_net = 2 * S / b_req;                 /* Eq. 7, first term, B_wk = B_req */
        double t_pcie = 2 * it->gpus * S / pcie;      /* Eq. 7, second term */

        t->batch = batch;
        t->b_req_mbps = b_req;
        if (wl->compat == SLO_COMPAT_SPOTDNN_CODE) {
            /* The code folds PCIe into T_comp with the sign flipped (research 1.2). */
            t->t_comp_s = t_prof - t_net + t_pcie;
            t->t_pcie_s = 0;
        } else {
            /* Paper Sec. III: T_comp = T^i - T^i_comm at B_wk = B_req. */
            t->t_comp_s = t_prof - t_net - t_pcie;
            t->t_pcie_s = t_pcie;
        }
        if (!(t->t_comp_s > 0)) {
            char src[SLO_ERROR_SOURCE_LENGTH];
            snprintf(src, sizeof src, "workload %s, catalog %s", wl->name, cat->name);
            rv = slo__fail(err, SLO_ERR_INVALID, src,
                          "instances (%s): expected a compute time > 0, found the profiled "
                          "iteration time %.6g s (gpus x batch_per_gpu / "
                          "speed_samples_per_s = %d x %d / %g) no longer than its "
                          "communication time %.6g s (2 s_parm_mb / b_req_mbps + 2 gpus "
                          "s_parm_mb / pcie_mbps, with s_parm_mb %g, b_req_mbps %g%s, "
                          "pcie_mbps %g%s)",
                          it->name, t_prof, it->gpus, wi->batch_per_gpu, wi->speed,
                          t_net + t_pcie, S, b_req,
                          net_cat ? " (the catalog's network_mbps)"
                          : wl->worker_network_catalog ? " (no network_mbps in the catalog)"
                                                      : "",
                          pcie,
                          it->pcie_mbps > 0 ? " from the catalog" : " from the workload");
            slo_train_setup_free(s);
            return rv;
        }
        s->n_types++;
    }
    if (s->n_types == 0) {
        char src[SLO_ERROR_SOURCE_LENGTH];
        snprintf(src, sizeof src, "%s", cat->name);
        slo_train_setup_free(s);
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "workload %s profiles none of the catalog's %zu instance types; "
                        "expected at least one type in both",
                        wl->name, cat->n_types);
    }
    return SLO_OK;
}

void slo_train_setup_free(struct slo_train_setup *s)
{
    if (!s)
        return;
    free(s->types);
    free(s->skipped);
    free(s->sync_types); /* issue 17 */
    memset(s, 0, sizeof *s);
}

double slo_train_iteration_time(const struct slo_train_setup *s, size_t k, int n)
{
    /* Eqs. 6-7: T^i = T_comp + 2 S / B_wk + 2 g S / B_pcie. */
    double bwk = slo_train_type_bandwidth(s, k, n, NULL);
    return s->types[k].t_comp_s + 2 * s->wl.s_parm_mb / bwk + s->types[k].t_pcie_s;
}

int slo_train_evaluate(const struct slo_train_setup *s, const int *counts,
                       const struct slo_train_request *req, struct slo_train_eval *out,
                       slo_error_t *err)
{
    const int code = s->wl.compat == SLO_COMPAT_SPOTDNN_CODE;
    double rate = 0, v = 0, sumsq_speed = 0, smax = 0, price = 0, j, j_now = 0;
    int n = 0, rv;

    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < s->n_types; k++) {
        if (counts[k] < 0)
            return slo__fail(err, SLO_ERR_INVALID, s->types[k].name,
                            "expected a count >= 0, found %d", counts[k]);
        n += counts[k];
    }
    if (n == 0)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected a cluster with at least one worker");
    /* One B_wk for all types (paper); per type with worker_network "catalog":
     * b_wk_mbps reports the smallest, p_contention P when any type contends. */
    double bwk_min = INFINITY;
    out->p_contention = -1;
    for (size_t k = 0; k < s->n_types; k++) {
        if (!counts[k])
            continue;
        double p, bwk = slo_train_type_bandwidth(s, k, n, &p);
        if (bwk < bwk_min)
            bwk_min = bwk;
        if (p > out->p_contention)
            out->p_contention = p;
        double T = s->types[k].t_comp_s + 2 * s->wl.s_parm_mb / bwk + s->types[k].t_pcie_s;
        double speed = s->types[k].batch / T;
        rate += counts[k] / T;                /* Eq. 2 denominator */
        v += counts[k] * speed;               /* v = sum b^i / T^i */
        sumsq_speed += counts[k] * speed * speed;
        if (speed > smax)
            smax = speed;
        price += counts[k] * s->types[k].usd_per_h;
    }
    out->n_workers = n;
    out->b_wk_mbps = bwk_min;
    out->speed = v;
    out->t_exp_s = 1 / rate;                  /* Eq. 2 */
    out->wa_batch = v / rate;                 /* Eq. 4: b_w = v T_exp */
    if (code)
        out->wa_batch = slo__round_even(out->wa_batch, 1);
    {
        /* Eq. 5 with worker 1 = the largest share. */
        double r2 = sumsq_speed / (v * v) - 2 * smax / v + 1;
        out->cc = n > 1 && r2 > 0 ? sqrt(r2) : 0;
    }
    out->usd_per_h = price;
    if ((rv = slo_iterations_for_loss(&s->wl.loss, out->wa_batch, out->cc, n, req->target_loss,
                                      &j, err)))
        return rv;
    if (req->loss_now > 0) {
        /* Re-plan: iterations still to go on the new cluster (doc/model.md). */
        if ((rv = slo_iterations_for_loss(&s->wl.loss, out->wa_batch, out->cc, n, req->loss_now,
                                          &j_now, err)))
            return rv;
        /* A loss above where this cluster's curve starts is progress 0. */
        j = j - (j_now > 0 ? j_now : 0);
    }
    j = code ? nearbyint(j) : ceil(j - 1e-9);
    /* At or above the start of the curve the target is met in one iteration
     * (the authors' code drops such clusters; they are the cheapest answer). */
    if (j < 1)
        j = 1;
    out->iterations = j;
    out->samples = j * out->wa_batch;
    if (code) {
        out->time_s = slo__round_even(out->wa_batch * j / v, 2) + req->overhead_s;
        out->cost_usd = slo__round_even(price * out->time_s / 3600, 6);
    } else {
        out->time_s = j * out->t_exp_s + req->overhead_s; /* Eq. 1 */
        out->cost_usd = price * out->time_s / 3600;       /* Eq. 11 */
    }
    return SLO_OK;
}
