/*
 * sync_fit.c - a sync-allreduce workload profile from DDP runs' logs
 * (issue 17, item 3; doc/cli.md "slo fit train --mode sync-allreduce"):
 * per-type compute speed from each type's run alone, the allreduce's
 * exposed time per step (ring alpha-beta) from the multi-worker runs, and
 * Pollux's gradient noise scale phi with the loss curve at B0 from every
 * run's loss rows.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"
#include "sync_private.h"

#define SRC NULL /* messages without a file: "slo fit train: TEXT" */

void slo_sync_fit_options_init(struct slo_sync_fit_options *opt)
{
    memset(opt, 0, sizeof *opt);
}

int slo_train_log_mode(const struct slo_train_log *log)
{
    FILE *f = fopen(log->source, "r");
    char line[512];
    int mode = SLO_TRAIN_ASYNC_PS;
    if (!f)
        return mode;
    while (fgets(line, sizeof line, f) && line[0] == '#') {
        const char *p = line + 1;
        while (*p == ' ' || *p == '\t')
            p++;
        if (strncmp(p, "mode:", 5) == 0) {
            p += 5;
            while (*p == ' ' || *p == '\t')
                p++;
            if (strncmp(p, "sync-allreduce", 14) == 0)
                mode = SLO_TRAIN_SYNC_ALLREDUCE;
        }
    }
    fclose(f);
    return mode;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* median of the step_s column without the first row (start-up) */
static double median_step(const struct slo_train_log *l)
{
    size_t n = l->n_rows > 1 ? l->n_rows - 1 : 0;
    if (!n)
        return NAN;
    double *v = malloc(n * sizeof *v);
    if (!v)
        return NAN;
    memcpy(v, l->step_s + 1, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_double);
    double m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    free(v);
    return m;
}

struct run {
    char cluster[256];
    double batch;      /* B = global_samples / global_step at the end */
    int workers;       /* N from the cluster and GPUs */
    int logs;
    double shares;     /* sum of the logs' batch columns */
    double step_s;     /* max over workers of the median step */
    int uneven;        /* a log's batch share differs from batch / workers */
    size_t first_log;
    struct slo_cluster c;
};

/* the loss fit's residual sum of squares at (phi, gamma1), with gamma3,
 * gamma5 the linear least squares (LAPACKE_dgels), or INFINITY */
struct lossdata {
    size_t n;
    double *j, *B, *L; /* [n] steps, batch, loss */
    double b0;
    double *a, *y;     /* work [2n], [n] */
};

/* gamma1 of offset h: h - the smallest j0 of the rows, so that j0 + gamma1
 * >= h > 0 on every row. A negative gamma1 is a delayed hyperbola: rows fitted
 * from a late first step (a window around the target) whose curve bends as
 * if it started -gamma1 steps in (the warm-up before the law holds). */
static double loss_gamma1(const struct lossdata *d, double phi, double h)
{
    double lo = INFINITY;
    for (size_t i = 0; i < d->n; i++)
        lo = fmin(lo, d->j[i] * (phi + d->b0) * d->B[i] / ((phi + d->B[i]) * d->b0));
    return h - lo;
}

static double loss_rss(struct lossdata *d, double phi, double h, double *g3, double *g5)
{
    double g1 = loss_gamma1(d, phi, h);
    for (size_t i = 0; i < d->n; i++) {
        double j0 = d->j[i] * (phi + d->b0) * d->B[i] / ((phi + d->B[i]) * d->b0);
        d->a[i] = 1 / (j0 + g1);
        d->a[d->n + i] = 1;
        d->y[i] = d->L[i];
    }
    lapack_int info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (lapack_int)d->n, 2, 1, d->a,
                                    (lapack_int)d->n, d->y, (lapack_int)d->n);
    if (info != 0)
        return INFINITY;
    double a3 = d->y[0], a5 = d->y[1], rss = 0;
    for (size_t i = 0; i < d->n; i++) {
        double j0 = d->j[i] * (phi + d->b0) * d->B[i] / ((phi + d->B[i]) * d->b0);
        double r = a3 / (j0 + g1) + a5 - d->L[i];
        rss += r * r;
    }
    if (g3)
        *g3 = a3;
    if (g5)
        *g5 = a5;
    return a3 > 0 ? rss : INFINITY;
}

/* the slowest worker's compute in run r: the max over its logs of t0_k +
 * share g_k / v_k with each worker's own logged share (its batch column:
 * equal or uneven shares alike); equal shares B / N over the cluster's types
 * when a log's type is not one of the fitted types */
static double run_compute(const struct run *u, size_t r, const size_t *log_run,
                          const struct slo_train_log *logs, size_t n_logs,
                          const struct slo_sync_instance *types, const int *type_gpus,
                          size_t n_types)
{
    double slow = 0;
    int known = 1;
    for (size_t i = 0; i < n_logs && known; i++) {
        if (log_run[i] != r)
            continue;
        size_t k;
        for (k = 0; k < n_types; k++)
            if (strcmp(types[k].type, logs[i].type) == 0)
                break;
        if (k == n_types || !(types[k].speed > 0)) {
            known = 0;
            break;
        }
        double t = types[k].step_overhead_s + logs[i].batch * type_gpus[k] / types[k].speed;
        if (t > slow)
            slow = t;
    }
    if (known)
        return slow;
    slow = 0;
    for (size_t e = 0; e < u->c.n; e++)
        for (size_t k = 0; k < n_types; k++)
            if (strcmp(types[k].type, u->c.entry[e].type) == 0) {
                double t = types[k].step_overhead_s +
                           u->batch / u->workers * type_gpus[k] / types[k].speed;
                if (t > slow)
                    slow = t;
            }
    return slow;
}

int slo_fit_sync_profile(const struct slo_train_log *logs, size_t n_logs,
                         const struct slo_sync_fit_options *opt, struct slo_workload *wl,
                         struct slo_sync_fit_result *res, slo_error_t *err)
{
    struct run *runs = NULL;
    size_t n_runs = 0, n_types = 0;
    struct slo_sync_instance *types = NULL;
    int *type_gpus = NULL;
    size_t *log_run = NULL; /* [n_logs] the run of each log */
    struct lossdata ld = {0};
    double bytes = opt->gradient_bytes;
    const char *model = NULL; /* the logs' "# model:" */
    int rv = SLO_OK;

    memset(wl, 0, sizeof *wl);
    memset(res, 0, sizeof *res);
    if (!n_logs)
        return slo__fail(err, SLO_ERR_INVALID, SRC, "expected DDP logs, found none");
    runs = calloc(n_logs, sizeof *runs);
    types = calloc(n_logs * SLO_CLUSTER_MAX_TYPES, sizeof *types);
    type_gpus = calloc(n_logs * SLO_CLUSTER_MAX_TYPES, sizeof *type_gpus);
    log_run = calloc(n_logs, sizeof *log_run);
    if (!runs || !types || !type_gpus || !log_run) {
        rv = slo__fail(err, SLO_ERR_NOMEM, SRC, "out of memory");
        goto out;
    }
    /* 0. one model: the async fit's check of "# model:", "# parameter_bytes:"
     * and --model-bytes (the gradient allreduced per step = the parameters) */
    {
        struct slo_train_fit_options fo;
        slo_train_fit_options_init(&fo);
        fo.parameter_bytes = opt->gradient_bytes;
        if ((rv = slo__train_check_models(logs, n_logs, &fo, &bytes, &model, err)))
            goto out;
    }
    /* 1. runs: logs with the same cluster and global batch */
    for (size_t i = 0; i < n_logs; i++) {
        const struct slo_train_log *l = &logs[i];
        if (!l->has_step_s || l->batch <= 0 || !l->type[0] || l->n_rows < 2) {
            rv = slo__fail(err, SLO_ERR_INVALID, l->source,
                           "expected StepLogger's step_s, batch and type columns and at least "
                           "2 rows (a DDP worker's log), found %s",
                           !l->has_step_s ? "no step_s" : l->batch <= 0 ? "no batch"
                           : !l->type[0] ? "no type" : "fewer than 2 rows");
            goto out;
        }
        double last_step = l->global_step[l->n_rows - 1];
        double B = last_step > 0 ? l->global_samples[l->n_rows - 1] / last_step : 0;
        size_t r;
        for (r = 0; r < n_runs; r++)
            if (strcmp(runs[r].cluster, l->cluster) == 0 && fabs(runs[r].batch - B) <= 1e-9 * B)
                break;
        if (r == n_runs) {
            struct run *u = &runs[n_runs++];
            snprintf(u->cluster, sizeof u->cluster, "%s", l->cluster);
            u->batch = B;
            u->first_log = i;
            if ((rv = slo_cluster_parse(l->cluster, &u->c, err))) {
                snprintf(err->source, sizeof err->source, "%s", l->source);
                goto out;
            }
            for (size_t e = 0; e < u->c.n; e++) {
                int g = 1;
                if (opt->catalog) {
                    const struct slo_instance_type *it = NULL;
                    for (size_t k = 0; k < opt->catalog->n_types; k++)
                        if (strcmp(opt->catalog->types[k].name, u->c.entry[e].type) == 0)
                            it = &opt->catalog->types[k];
                    if (!it) {
                        rv = slo__fail(err, SLO_ERR_INVALID, l->source,
                                       "cluster: expected instance types of catalog %s, found "
                                       "\"%s\"",
                                       opt->catalog->name, u->c.entry[e].type);
                        goto out;
                    }
                    g = it->gpus;
                }
                u->workers += (int)u->c.entry[e].count * g;
                size_t k;
                for (k = 0; k < n_types; k++)
                    if (strcmp(types[k].type, u->c.entry[e].type) == 0)
                        break;
                if (k == n_types) {
                    snprintf(types[k].type, sizeof types[k].type, "%s", u->c.entry[e].type);
                    type_gpus[k] = g;
                    n_types++;
                }
            }
        }
        struct run *u = &runs[r];
        log_run[i] = r;
        if (fabs(l->batch * u->workers - u->batch) > 1e-9 * u->batch)
            u->uneven = 1;
        u->logs++;
        u->shares += l->batch;
        double m = median_step(l);
        if (!(m > 0)) {
            rv = slo__fail(err, SLO_ERR_INVALID, l->source,
                           "step_s: expected positive step times, found a median of %g s", m);
            goto out;
        }
        if (m > u->step_s)
            u->step_s = m;
    }
    /* 2. every worker logged, and the batch shares sum to the global batch */
    for (size_t r = 0; r < n_runs; r++) {
        const struct run *u = &runs[r];
        if (u->logs != u->workers) {
            rv = slo__fail(err, SLO_ERR_INVALID, logs[u->first_log].source,
                           "run %s (global batch %g): expected a log from each of its %d "
                           "workers, found %d",
                           u->cluster, u->batch, u->workers, u->logs);
            goto out;
        }
        if (fabs(u->shares - u->batch) > 1e-6 * u->batch) {
            rv = slo__fail(err, SLO_ERR_INVALID, logs[u->first_log].source,
                           "run %s: expected the workers' batch shares to sum to the global "
                           "batch %g (global_samples / global_step), found %g",
                           u->cluster, u->batch, u->shares);
            goto out;
        }
    }
    /* 3. speeds: each type alone on one instance (no inter-node allreduce) */
    for (size_t k = 0; k < n_types; k++) {
        /* step = t0 + B / v over its runs alone (Pollux's T_grad = alpha +
         * beta m): sums for the least-squares line in B */
        double sx = 0, sy = 0, sxx = 0, sxy = 0, bmin = INFINITY, bmax = 0;
        int cnt = 0;
        for (size_t r = 0; r < n_runs; r++)
            if (runs[r].c.n == 1 && runs[r].c.entry[0].count == 1 &&
                strcmp(runs[r].c.entry[0].type, types[k].type) == 0 && type_gpus[k] == 1) {
                double x = runs[r].batch, y = runs[r].step_s;
                sx += x;
                sy += y;
                sxx += x * x;
                sxy += x * y;
                bmin = fmin(bmin, x);
                bmax = fmax(bmax, x);
                cnt++;
            }
        types[k].speed = 0;
        if (cnt && bmax > bmin * (1 + 1e-9)) {
            double slope = (cnt * sxy - sx * sy) / (cnt * sxx - sx * sx);
            double t0 = (sy - slope * sx) / cnt;
            if (t0 < 0) { /* no fixed part: the line through 0 */
                t0 = 0;
                slope = sxy / sxx;
            }
            if (slope > 0) {
                types[k].speed = 1 / slope;
                types[k].step_overhead_s = t0;
            }
        } else if (cnt) {
            types[k].speed = sx / sy; /* one batch: B / step */
        }
        if (!(types[k].speed > 0)) {
            rv = slo__fail(err, SLO_ERR_INVALID, SRC,
                           "need a run of %s alone (\"# cluster: %s=1\", one GPU: no allreduce) "
                           "for its compute speed, found none",
                           types[k].type, types[k].type);
            goto out;
        }
    }
    /* 4. exposed allreduce per step: measured step - compute at the share,
     * fitted as x1 / link + x2 alpha, x1 = 2 (N-1)/N bytes, x2 = 2 (N-1) */
    {
        size_t m = 0, distinct = 0;
        int seen[64] = {0};
        for (size_t r = 0; r < n_runs; r++)
            if (runs[r].workers > 1) {
                m++;
                int dup = 0;
                for (size_t q = 0; q < distinct && q < 64; q++)
                    dup |= seen[q] == runs[r].workers;
                if (!dup && distinct < 64)
                    seen[distinct++] = runs[r].workers;
            }
        if (distinct < 1) {
            rv = slo__fail(err, SLO_ERR_INVALID, SRC,
                           "the allreduce needs a run with N >= 2 workers, found none");
            goto out;
        }
        /* One worker count N >= 2 (e.g. a 2-core host, where N = 4 would
         * oversubscribe): every run has the same bytes and N, so the columns
         * x1 and x2 are proportional and only their sum t_ar(N) is
         * determined; it is kept as a latency (latency-only fit below), the
         * bandwidth is left to the catalog's links. */
        int one_count = distinct == 1;
        res->n_worker_counts = distinct;
        double *a = malloc(2 * m * sizeof *a), *b = malloc(m * sizeof *b);
        if (!a || !b) {
            free(a);
            free(b);
            rv = slo__fail(err, SLO_ERR_NOMEM, SRC, "out of memory");
            goto out;
        }
        size_t i = 0;
        double ss = 0;
        for (size_t r = 0; r < n_runs; r++) {
            const struct run *u = &runs[r];
            if (u->workers < 2)
                continue;
            double comp = run_compute(u, r, log_run, logs, n_logs, types, type_gpus, n_types);
            double N = u->workers;
            a[i] = 2 * (N - 1) / N * bytes / 1e6;
            a[m + i] = 2 * (N - 1);
            b[i] = u->step_s - comp;
            ss += b[i] * b[i];
            i++;
        }
        /* keep the latency column and the targets for a latency-only refit */
        double *a2 = malloc(m * sizeof *a2), *b2 = malloc(m * sizeof *b2);
        if (!a2 || !b2) {
            free(a);
            free(b);
            free(a2);
            free(b2);
            rv = slo__fail(err, SLO_ERR_NOMEM, SRC, "out of memory");
            goto out;
        }
        memcpy(a2, a + m, m * sizeof *a2);
        memcpy(b2, b, m * sizeof *b2);
        lapack_int info = one_count ? 0
                                    : LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (lapack_int)m, 2, 1,
                                                    a, (lapack_int)m, b, (lapack_int)m);
        double inv_link = one_count ? 0 : b[0], alpha = one_count ? 0 : b[1];
        free(a);
        free(b);
        if (one_count || (info == 0 && !(inv_link > 0))) {
            /* The extra time does not grow with the bytes (small gradients,
             * latency- or CPU-bound): the logs determine a latency only;
             * the bandwidth is left to the catalog's links. */
            info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (lapack_int)m, 1, 1, a2, (lapack_int)m,
                                 b2, (lapack_int)m);
            alpha = b2[0];
            inv_link = 0;
        }
        free(a2);
        free(b2);
        if (info != 0) {
            rv = slo__fail(err, SLO_ERR_NUMERIC, SRC, "LAPACKE_dgels failed (info %d)",
                           (int)info);
            goto out;
        }
        if (!(inv_link > 0) && !(alpha > 0)) {
            rv = slo__fail(err, SLO_ERR_INVALID, SRC,
                           "the multi-worker runs are no slower than the compute at their "
                           "share (fitted latency %g s, no bandwidth term): the logs do not "
                           "determine the allreduce; state it in the profile (allreduce)",
                           alpha);
            goto out;
        }
        res->link_mbps = inv_link > 0 ? 1 / inv_link : 0;
        res->latency_s = alpha > 0 ? alpha : 0;
        res->latency_at_zero = !(alpha > 0);
        res->n_allreduce_runs = m;
        (void)ss;
    }
    /* 5. loss: rows of every run's first log (the loss is the same on every
     * rank after the allreduce up to the local batch), phi and gamma1 by a
     * log grid and golden-section refinement, gamma3 and gamma5 linear */
    {
        size_t n = 0;
        double bmin = INFINITY, bmax = 0;
        for (size_t r = 0; r < n_runs; r++) {
            n += logs[runs[r].first_log].n_rows;
            bmin = fmin(bmin, runs[r].batch);
            bmax = fmax(bmax, runs[r].batch);
        }
        if (!(bmax > bmin * (1 + 1e-9))) {
            rv = slo__fail(err, SLO_ERR_INVALID, SRC,
                           "the gradient noise scale phi needs runs at two or more global "
                           "batch sizes, found one (%g)",
                           bmin);
            goto out;
        }
        ld.n = n;
        ld.b0 = opt->b0 > 0 ? opt->b0 : bmin;
        ld.j = malloc(n * sizeof *ld.j);
        ld.B = malloc(n * sizeof *ld.B);
        ld.L = malloc(n * sizeof *ld.L);
        ld.a = malloc(2 * n * sizeof *ld.a);
        ld.y = malloc(n * sizeof *ld.y);
        if (!ld.j || !ld.B || !ld.L || !ld.a || !ld.y) {
            rv = slo__fail(err, SLO_ERR_NOMEM, SRC, "out of memory");
            goto out;
        }
        size_t i = 0;
        double mean = 0, sst = 0;
        for (size_t r = 0; r < n_runs; r++) {
            const struct slo_train_log *l = &logs[runs[r].first_log];
            for (size_t q = 0; q < l->n_rows; q++, i++) {
                ld.j[i] = l->global_step[q];
                ld.B[i] = runs[r].batch;
                ld.L[i] = l->loss[q];
                mean += l->loss[q];
            }
        }
        mean /= (double)n;
        for (i = 0; i < n; i++)
            sst += (ld.L[i] - mean) * (ld.L[i] - mean);
        /* grid: phi in {0} u [1e-2 bmin, 1e4 bmax], gamma1 + the rows' smallest j0
         * in [1e-3, 1e6] (loss_gamma1) */
        double best = INFINITY, bp = 0, bg = 1, lo_p = log(1e-2 * bmin), hi_p = log(1e4 * bmax);
        int gp = 0, gg = 0;
        const int NP = 60, NG = 60;
        for (int u = -1; u < NP; u++)
            for (int v = 0; v < NG; v++) {
                double phi = u < 0 ? 0 : exp(lo_p + (hi_p - lo_p) * u / (NP - 1));
                double g1 = exp(log(1e-3) + (log(1e6) - log(1e-3)) * v / (NG - 1));
                double rss = loss_rss(&ld, phi, g1, NULL, NULL);
                if (rss < best) {
                    best = rss;
                    bp = phi;
                    bg = g1;
                    gp = u;
                    gg = v;
                }
            }
        if (!isfinite(best)) {
            rv = slo__fail(err, SLO_ERR_INVALID, SRC,
                           "the loss rows do not decay (no gamma3 > 0 fits them)");
            goto out;
        }
        if (gp == NP - 1 || gg == 0 || gg == NG - 1) {
            rv = slo__fail(err, SLO_ERR_INVALID, SRC,
                           "the logs do not determine the loss model: %s at the end of its "
                           "search range (phi %g, gamma1 %g); run longer or at batch sizes "
                           "further apart",
                           gp == NP - 1 ? "phi" : "gamma1", bp, loss_gamma1(&ld, bp, bg));
            goto out;
        }
        /* coordinate golden-section refinement in log space, a few sweeps */
        for (int sweep = 0; sweep < 6; sweep++) {
            for (int which = 0; which < 2; which++) {
                if (which == 0 && bp == 0)
                    continue;
                double c0 = log(which ? bg : bp), step = (hi_p - lo_p) / (NP - 1);
                if (which)
                    step = (log(1e6) - log(1e-3)) / (NG - 1);
                double x0 = c0 - step, x1 = c0 + step, gr = 0.6180339887498949;
                for (int it = 0; it < 40; it++) {
                    double xa = x1 - gr * (x1 - x0), xb = x0 + gr * (x1 - x0);
                    double fa = which ? loss_rss(&ld, bp, exp(xa), NULL, NULL)
                                      : loss_rss(&ld, exp(xa), bg, NULL, NULL);
                    double fb = which ? loss_rss(&ld, bp, exp(xb), NULL, NULL)
                                      : loss_rss(&ld, exp(xb), bg, NULL, NULL);
                    if (fa < fb)
                        x1 = xb;
                    else
                        x0 = xa;
                }
                double xm = 0.5 * (x0 + x1);
                double f = which ? loss_rss(&ld, bp, exp(xm), NULL, NULL)
                                 : loss_rss(&ld, exp(xm), bg, NULL, NULL);
                if (f < best) {
                    best = f;
                    if (which)
                        bg = exp(xm);
                    else
                        bp = exp(xm);
                }
            }
        }
        double g3, g5;
        best = loss_rss(&ld, bp, bg, &g3, &g5);
        if (g5 < 0) {
            rv = slo__fail(err, SLO_ERR_INVALID, SRC,
                           "the fit gives a loss floor gamma5 = %.4g: expected >= 0 (a loss "
                           "is never negative); the logs do not reach far enough into "
                           "training to show where the loss levels off",
                           g5);
            goto out;
        }
        res->loss_rmse = sqrt(best / (double)n);
        res->loss_r2 = sst > 0 ? 1 - best / sst : NAN;
        res->n_loss_rows = n;
        res->phi = bp;
        res->b0 = ld.b0;
        res->gamma1 = loss_gamma1(&ld, bp, bg);
        res->gamma3 = g3;
        res->gamma5 = g5;
    }
    /* 6. the profile */
    {
        struct slo_sync_profile *p = calloc(1, sizeof *p);
        if (!p) {
            rv = slo__fail(err, SLO_ERR_NOMEM, SRC, "out of memory");
            goto out;
        }
        wl->mode = SLO_TRAIN_SYNC_ALLREDUCE;
        wl->sync = p;
        snprintf(wl->name, sizeof wl->name, "%s",
                 opt->name ? opt->name : model ? model : "fitted");
        p->gradient_bytes = bytes;
        /* The batch plans assume: the per-worker batch s0 of the run at B0
         * when runs at two or more worker counts used it (a fixed
         * per-worker batch: the global batch grows with the GPUs), else the
         * global batch B0 at every worker count (doc/cli.md). */
        {
            double s0 = 0;
            int seen_n[64], n_seen = 0;
            for (size_t r = 0; r < n_runs && !(s0 > 0); r++)
                if (!runs[r].uneven && fabs(runs[r].batch - res->b0) <= 1e-9 * res->b0)
                    s0 = runs[r].batch / runs[r].workers;
            for (size_t r = 0; r < n_runs && s0 > 0; r++) {
                int dup = 0;
                if (runs[r].uneven ||
                    fabs(runs[r].batch / runs[r].workers - s0) > 1e-9 * s0)
                    continue;
                for (int q = 0; q < n_seen; q++)
                    dup |= seen_n[q] == runs[r].workers;
                if (!dup && n_seen < 64)
                    seen_n[n_seen++] = runs[r].workers;
            }
            if (n_seen >= 2 && s0 == floor(s0) && s0 <= INT_MAX)
                p->batch_per_gpu = (int)s0;
            else
                p->global_batch = res->b0;
        }
        /* a run whose workers logged unequal shares shows that the job
         * splits its batch unevenly: plans may too (proportional to speed) */
        p->uneven_batches = 0;
        for (size_t r = 0; r < n_runs; r++)
            p->uneven_batches |= runs[r].uneven;
        p->latency_s = res->latency_s;
        p->overlap = 0; /* the fit measures the exposed part directly */
        p->link_mbps = res->link_mbps;
        p->b0 = res->b0;
        p->phi = res->phi;
        p->gamma1 = res->gamma1;
        p->gamma3 = res->gamma3;
        p->gamma5 = res->gamma5;
        p->n_instances = wl->n_instances = n_types;
        p->instances = calloc(n_types, sizeof *p->instances);
        wl->instances = calloc(n_types, sizeof *wl->instances);
        if (!p->instances || !wl->instances) {
            rv = slo__fail(err, SLO_ERR_NOMEM, SRC, "out of memory");
            goto out;
        }
        for (size_t k = 0; k < n_types; k++) {
            p->instances[k] = types[k];
            snprintf(wl->instances[k].type, sizeof wl->instances[k].type, "%s", types[k].type);
            wl->instances[k].speed = types[k].speed;
            wl->instances[k].batch_per_gpu = p->batch_per_gpu;
        }
        /* predicted vs measured step time of every run */
        double rms = 0, mx = 0;
        for (size_t r = 0; r < n_runs; r++) {
            const struct run *u = &runs[r];
            double N = u->workers,
                   t = run_compute(u, r, log_run, logs, n_logs, types, type_gpus, n_types);
            if (N > 1)
                t += (res->link_mbps > 0 ? 2 * (N - 1) / N * bytes / 1e6 / res->link_mbps : 0) +
                     2 * (N - 1) * res->latency_s;
            double rel = fabs(t - u->step_s) / u->step_s;
            rms += rel * rel;
            mx = fmax(mx, rel);
        }
        res->step_rms_rel = sqrt(rms / (double)n_runs);
        res->step_max_rel = mx;
        res->n_runs = n_runs;
        res->n_types = n_types;
    }
out:
    free(runs);
    free(types);
    free(type_gpus);
    free(log_run);
    free(ld.j);
    free(ld.B);
    free(ld.L);
    free(ld.a);
    free(ld.y);
    if (rv)
        slo_workload_free(wl);
    return rv;
}
