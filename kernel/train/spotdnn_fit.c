/*
 * spotdnn_fit.c - least-squares fit of the spotDNN loss model (paper Eq. 3,
 * draft Eq. 3) to loss samples from profiling runs (research notes 1.11).
 *
 * For fixed gamma1 (and, for spotdnn-2023, gamma4) Eq. 3
 *     loss = (g2 bw + g3) s / (j + g1) + g5,
 *     s = sqrt(n) (2022) or sqrt((R + g4) n) (2023),
 * is linear in (g2, g3, g5) with features bw s/(j+g1), s/(j+g1) and 1, so the
 * fit is a variable projection: LAPACKE_dgels solves the linear part and a
 * log-spaced bracketing scan plus golden-section search minimizes the residual
 * sum of squares over gamma1 (nested inside the same search over gamma4).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"

#define FIT_MIN_SAMPLES 8
/* gamma1 range. Samples have j >= 0, so any gamma1 > 0 keeps j + gamma1 > 0;
 * the published ResNet-110 value is 876.5 (j in the thousands). */
#define G1_MIN 1e-3
#define G1_MAX 1e6
#define G1_SCAN 91 /* 10 points per decade */
/* gamma4 range (spotdnn-2023), scanned in sqrt(gamma4): denser near 0. */
#define G4_MAX 10.0
#define G4_SCAN 21
#define GOLDEN_MAX_ITER 200

/* Scratch state of one fit. */
struct fit_ctx {
    const struct slo_loss_sample *s;
    size_t n;
    enum slo_loss_form form;
    double g4;        /* current gamma4 (2023) */
    double *a;        /* [3 n] column-major design matrix, overwritten by dgels */
    double *b;        /* [n] right-hand side, overwritten by dgels */
    lapack_int info;  /* last nonzero dgels info, 0 if none */
};

/* A scalar objective of a search variable t. Returns SLO_OK or an error code. */
typedef int (*objective_fn)(struct fit_ctx *c, double t, double *f);

/* Solve the linear part at (g1, c->g4): coef = (g2, g3, g5) and the residual
 * sum of squares. A rank-deficient design gives rss = +inf (c->info set). */
/* The design matrix at (g1, c->g4) into c->a (columns b_w x, x, 1 with
 * x = s/(j + g1)) and the losses into c->b. */
static void fill_design(struct fit_ctx *c, double g1)
{
    const size_t n = c->n;

    for (size_t i = 0; i < n; i++) {
        const struct slo_loss_sample *p = &c->s[i];
        double r = c->form == SLO_LOSS_SPOTDNN_2022 ? 1.0 : p->cc + c->g4;
        double x = sqrt(r * p->n_workers) / (p->iterations + g1);
        c->a[i] = p->wa_batch * x;
        c->a[n + i] = x;
        c->a[2 * n + i] = 1.0;
        c->b[i] = p->loss;
    }
}

static int solve_linear(struct fit_ctx *c, double g1, double coef[3], double *rss)
{
    const size_t n = c->n;

    fill_design(c, g1);
    lapack_int info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (lapack_int)n, 3, 1, c->a,
                                    (lapack_int)n, c->b, (lapack_int)n);
    if (info < 0) {
        c->info = info;
        return SLO_ERR_NUMERIC;
    }
    if (info > 0) {
        c->info = info;
        *rss = INFINITY;
        return SLO_OK;
    }
    /* With m > 3 rows, rows 3..m-1 of b hold the residual in the Q basis. */
    *rss = 0;
    for (size_t i = 3; i < n; i++)
        *rss += c->b[i] * c->b[i];
    memcpy(coef, c->b, 3 * sizeof *coef);
    return SLO_OK;
}

/* Objective over t = ln(gamma1). */
static int rss_of_log_g1(struct fit_ctx *c, double t, double *f)
{
    double coef[3];
    return solve_linear(c, exp(t), coef, f);
}

/* Golden-section search for a minimum of f on [lo, hi]; *t and *ft hold the
 * best point seen so far on entry and the best point on return. */
static int golden(struct fit_ctx *c, objective_fn f, double lo, double hi, double *t,
                  double *ft)
{
    const double r = 0.5 * (sqrt(5.0) - 1);
    double x1 = hi - r * (hi - lo), x2 = lo + r * (hi - lo), f1, f2;
    int rv;

    if ((rv = f(c, x1, &f1)) || (rv = f(c, x2, &f2)))
        return rv;
    for (int it = 0; it < GOLDEN_MAX_ITER && hi - lo > 1e-12 * (1 + fabs(lo) + fabs(hi));
         it++) {
        if (f1 <= f2) {
            hi = x2, x2 = x1, f2 = f1;
            x1 = hi - r * (hi - lo);
            rv = f(c, x1, &f1);
        } else {
            lo = x1, x1 = x2, f1 = f2;
            x2 = lo + r * (hi - lo);
            rv = f(c, x2, &f2);
        }
        if (rv)
            return rv;
    }
    if (f1 < *ft)
        *t = x1, *ft = f1;
    if (f2 < *ft)
        *t = x2, *ft = f2;
    return SLO_OK;
}

/* Minimize f over t in [lo, hi]: scan npts equally spaced points, then
 * refine between the neighbours of the best one. */
static int scan_and_refine(struct fit_ctx *c, objective_fn f, double lo, double hi,
                           int npts, double *t_out, double *f_out)
{
    double step = (hi - lo) / (npts - 1), best_t = lo, best_f = INFINITY;
    int best_i = 0, rv;

    for (int i = 0; i < npts; i++) {
        double t = lo + i * step, ft;
        if ((rv = f(c, t, &ft)))
            return rv;
        if (ft < best_f)
            best_i = i, best_t = t, best_f = ft;
    }
    if (isfinite(best_f)) {
        double a = best_i > 0 ? best_t - step : best_t;
        double b = best_i < npts - 1 ? best_t + step : best_t;
        if ((rv = golden(c, f, a, b, &best_t, &best_f)))
            return rv;
    }
    *t_out = best_t;
    *f_out = best_f;
    return SLO_OK;
}

/* Best ln(gamma1) at the current gamma4. */
static int best_log_g1(struct fit_ctx *c, double *t, double *rss)
{
    return scan_and_refine(c, rss_of_log_g1, log(G1_MIN), log(G1_MAX), G1_SCAN, t, rss);
}

/* Objective over u = sqrt(gamma4): the RSS profiled over gamma1. */
static int rss_of_sqrt_g4(struct fit_ctx *c, double u, double *f)
{
    double t;
    c->g4 = u * u;
    return best_log_g1(c, &t, f);
}

/* Check one sample: every value finite and >= 0, at least one worker. */
static int check_sample(const struct slo_loss_sample *p, size_t i, slo_error_t *err)
{
    const char *field = NULL;
    double v = 0;

    if (!isfinite(p->iterations) || p->iterations < 0)
        field = "iterations", v = p->iterations;
    else if (!isfinite(p->wa_batch) || p->wa_batch < 0)
        field = "wa_batch", v = p->wa_batch;
    else if (!isfinite(p->cc) || p->cc < 0)
        field = "cc", v = p->cc;
    else if (!isfinite(p->loss) || p->loss < 0)
        field = "loss", v = p->loss;
    if (field)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                        "samples[%zu].%s: expected a finite number >= 0, found %g", i, field,
                        v);
    if (p->n_workers < 1)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                        "samples[%zu].n_workers: expected an integer >= 1, found %d", i,
                        p->n_workers);
    return SLO_OK;
}

static int cmp_cluster(const void *pa, const void *pb)
{
    const struct slo_loss_sample *a = pa, *b = pb;
    if (a->wa_batch != b->wa_batch)
        return a->wa_batch < b->wa_batch ? -1 : 1;
    if (a->cc != b->cc)
        return a->cc < b->cc ? -1 : 1;
    return (a->n_workers > b->n_workers) - (a->n_workers < b->n_workers);
}

/* Count distinct (bw, R, n) clusters and distinct bw values (sorts a copy). */
static int count_clusters(const struct slo_loss_sample *s, size_t n, size_t *clusters,
                          size_t *batches, slo_error_t *err)
{
    struct slo_loss_sample *tmp = malloc(n * sizeof *tmp);

    if (!tmp)
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    memcpy(tmp, s, n * sizeof *tmp);
    qsort(tmp, n, sizeof *tmp, cmp_cluster);
    *clusters = *batches = 1;
    for (size_t i = 1; i < n; i++) {
        *clusters += cmp_cluster(&tmp[i - 1], &tmp[i]) != 0;
        *batches += tmp[i - 1].wa_batch != tmp[i].wa_batch;
    }
    free(tmp);
    return SLO_OK;
}

static int check_samples(const struct slo_loss_sample *s, size_t n, size_t *clusters,
                         slo_error_t *err)
{
    size_t batches = 0;
    int rv;

    if (n < FIT_MIN_SAMPLES)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                        "expected at least %d loss samples to fit the loss model, found %zu",
                        FIT_MIN_SAMPLES, n);
    for (size_t i = 0; i < n; i++)
        if ((rv = check_sample(&s[i], i, err)))
            return rv;
    if ((rv = count_clusters(s, n, clusters, &batches, err)))
        return rv;
    if (*clusters < 2 || batches < 2)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                        "expected samples from at least 2 clusters with different weighted-"
                        "average batch b_w (to separate gamma2 from gamma3), found %zu "
                        "cluster%s and %zu b_w value%s",
                        *clusters, *clusters == 1 ? "" : "s", batches, batches == 1 ? "" : "s");
    return SLO_OK;
}

/* Goodness of fit of m on the samples. */
static void fill_report(const struct slo_loss_sample *s, size_t n,
                        const struct slo_loss_model *m, size_t clusters,
                        struct slo_fit_report *report)
{
    double mean = 0, ss_res = 0, ss_tot = 0;

    for (size_t i = 0; i < n; i++)
        mean += s[i].loss / n;
    for (size_t i = 0; i < n; i++) {
        double r = s[i].loss - slo_loss_at(m, s[i].wa_batch, s[i].cc, s[i].n_workers,
                                           s[i].iterations);
        ss_res += r * r;
        ss_tot += (s[i].loss - mean) * (s[i].loss - mean);
    }
    report->rmse = sqrt(ss_res / n);
    report->r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : (ss_res == 0 ? 1 : 0);
    report->n_samples = n;
    report->n_clusters = clusters;
    /* Within 0.1% of a range end (log scale for gamma1): not determined. */
    report->gamma1_at_limit = m->gamma1 <= G1_MIN * 1.001 || m->gamma1 >= G1_MAX / 1.001;
    report->gamma4_at_limit = m->form == SLO_LOSS_SPOTDNN_2023 &&
                              (m->gamma4 >= G4_MAX * 0.999 || m->gamma4 <= 1e-9);
}

/* Largest condition number of the column-scaled design (b_w x, x, 1) that
 * is accepted: 1e8 = 1/sqrt(machine epsilon) leaves half of the digits of
 * the samples to the coefficients. */
#define FIT_MAX_CONDITION 1e8
/* Largest accepted 2 SE(g2) b_w,max as a fraction of the decay term
 * g2 b_w,max + g3: the batch dependence must fix the iterations to a target
 * loss (proportional to the decay term) to 10% over batches up to b_w,max. */
#define FIT_MAX_B_UNCERTAINTY 0.1

/*
 * Whether the samples determine the fit at (g1, c->g4) with linear
 * coefficients coef = (g2, g3, g5), rss the residual sum of squares there.
 * Uses the Jacobian J of Eq. 3 in (g2, g3, g5, g1[, g4]) at the fit, its
 * columns scaled to unit norm: the condition number (LAPACKE_dgesvd) and
 * the asymptotic standard errors sigma^2 (J^T J)^-1, sigma^2 = rss / (n - p).
 * Refuses (SLO_ERR_INVALID, naming what is missing): a decay term
 * g2 b_w + g3 <= 0 at a profiled b_w (the loss would not fall with
 * training); a condition number above FIT_MAX_CONDITION; 2 SE(g1) above g1
 * (the logs do not reach the loss curve's bend; checked first, as it
 * inflates the others); 2 SE(g2) b_w,max above FIT_MAX_B_UNCERTAINTY of that
 * decay term (the batches are not far enough apart for the noise to tell
 * how the loss depends on b_w); a loss floor g5 below 0 by more than two
 * standard errors.
 */
static int check_determined(struct fit_ctx *c, double g1, double rss, const double coef[3],
                            struct slo_fit_report *rep, slo_error_t *err)
{
    const size_t n = c->n;
    const double g4 = c->g4;
    int p = c->form == SLO_LOSS_SPOTDNN_2022 ? 4 : 5;
    double d[5], sv[5], vt[25], superb[4], se[5], bmin = INFINITY, bmax = 0, jmin = INFINITY,
                                                  jmax = 0, lmax = 0;
    double cond, sigma2, decay_lo, decay_hi, *jac;
    lapack_int info;
    int rv = SLO_OK;

    for (size_t i = 0; i < n; i++) {
        bmin = fmin(bmin, c->s[i].wa_batch);
        bmax = fmax(bmax, c->s[i].wa_batch);
        jmin = fmin(jmin, c->s[i].iterations);
        jmax = fmax(jmax, c->s[i].iterations);
        lmax = fmax(lmax, c->s[i].loss);
    }
    decay_lo = coef[0] * bmin + coef[1];
    decay_hi = coef[0] * bmax + coef[1];
    if (!(decay_lo > 0 && decay_hi > 0))
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                        "the fit gives gamma2 b_w + gamma3 = %.4g at b_w = %.6g and %.4g at "
                        "b_w = %.6g (gamma2 = %.4g, gamma3 = %.4g): expected > 0 at every "
                        "profiled batch (the loss must fall as training proceeds); the logs' "
                        "losses do not decrease with iterations",
                        decay_lo, bmin, decay_hi, bmax, coef[0], coef[1]);
    for (size_t i = 0; p == 5 && i < n; i++)
        if (!(c->s[i].cc + g4 > 0))
            p = 4; /* R + gamma4 = 0: no derivative in gamma4 there (its bound) */
    jac = malloc((size_t)p * n * sizeof *jac);
    if (!jac)
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const struct slo_loss_sample *q = &c->s[i];
        double r = c->form == SLO_LOSS_SPOTDNN_2022 ? 1.0 : q->cc + g4;
        double x = sqrt(r * q->n_workers) / (q->iterations + g1);
        double decay = coef[0] * q->wa_batch + coef[1];
        jac[i] = q->wa_batch * x;                            /* d/d gamma2 */
        jac[n + i] = x;                                      /* d/d gamma3 */
        jac[2 * n + i] = 1.0;                                /* d/d gamma5 */
        jac[3 * n + i] = -decay * x / (q->iterations + g1); /* d/d gamma1 */
        if (p == 5)
            jac[4 * n + i] = decay * x / (2 * r);            /* d/d gamma4 */
    }
    for (int k = 0; k < p; k++) {
        double s2 = 0;
        for (size_t i = 0; i < n; i++)
            s2 += jac[k * n + i] * jac[k * n + i];
        d[k] = sqrt(s2);
        if (!(d[k] > 0) || !isfinite(d[k])) {
            rv = slo__fail(err, SLO_ERR_INVALID, NULL,
                          "the loss samples give a zero or non-finite column of the loss "
                          "model's Jacobian (b_w = %g..%g, j = %g..%g): expected samples with "
                          "b_w > 0",
                          bmin, bmax, jmin, jmax);
            goto out;
        }
        for (size_t i = 0; i < n; i++)
            jac[k * n + i] /= d[k];
    }
    info = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'A', (lapack_int)n, p, jac, (lapack_int)n, sv,
                          NULL, 1, vt, p, superb);
    if (info == LAPACK_WORK_MEMORY_ERROR) {
        rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory in LAPACKE_dgesvd");
        goto out;
    }
    if (info != 0) {
        rv = slo__fail(err, SLO_ERR_NUMERIC, NULL,
                      "LAPACKE_dgesvd failed (info %d) on the loss model's Jacobian", (int)info);
        goto out;
    }
    cond = sv[p - 1] > 0 ? sv[0] / sv[p - 1] : INFINITY;
    sigma2 = rss / (double)(n - (size_t)p);
    for (int k = 0; k < p; k++) {
        double v = 0;
        for (int i = 0; i < p; i++)
            v += sv[i] > 0 ? vt[i + p * k] * vt[i + p * k] / (sv[i] * sv[i]) : INFINITY;
        se[k] = sqrt(sigma2 * v) / d[k];
    }
    if (rep) {
        rep->condition = cond;
        rep->gamma2_se = se[0];
        rep->gamma3_se = se[1];
        rep->gamma5_se = se[2];
        rep->gamma1_se = se[3];
    }
    if (!(cond <= FIT_MAX_CONDITION)) {
        if (bmax - bmin < 1e-2 * bmax)
            rv = slo__fail(err, SLO_ERR_INVALID, NULL,
                          "the logs' weighted-average batches b_w differ by only %.3g (%.15g "
                          "to %.15g samples): the loss model needs at least two clearly "
                          "different batches to separate gamma2 from gamma3 (condition "
                          "number %.3g, at most %.0e accepted); profile clusters of other "
                          "sizes or instance types",
                          bmax - bmin, bmin, bmax, cond, FIT_MAX_CONDITION);
        else
            rv = slo__fail(err, SLO_ERR_INVALID, NULL,
                          "the loss samples do not determine gamma1, gamma2, gamma3 and gamma5 "
                          "(condition number %.3g of the model's Jacobian, at most %.0e "
                          "accepted; b_w = %.6g..%.6g samples, j = %.6g..%.6g iterations): "
                          "expected logs that span more of the loss curve and clearly "
                          "different batches",
                          cond, FIT_MAX_CONDITION, bmin, bmax, jmin, jmax);
    } else if (!(2 * se[3] <= g1)) {
        rv = slo__fail(err, SLO_ERR_INVALID, NULL,
                      "the logs do not determine gamma1 = %.4g +- %.3g (two standard errors, "
                      "more than gamma1 itself): their iterations j = %.6g..%.6g do not "
                      "reach the bend of the loss curve for the loss noise (rmse %.3g); "
                      "expected logs from earlier and later in training",
                      g1, 2 * se[3], jmin, jmax, sqrt(rss / (double)n));
    } else if (!(2 * se[0] * bmax <= FIT_MAX_B_UNCERTAINTY * decay_hi)) {
        rv = slo__fail(err, SLO_ERR_INVALID, NULL,
                      "the logs do not determine how the loss depends on the weighted-"
                      "average batch: gamma2 = %.4g +- %.3g (two standard errors), so "
                      "gamma2 b_w is uncertain by %.3g at b_w = %.6g, more than %g%% of the "
                      "decay term gamma2 b_w + gamma3 = %.4g; expected clusters whose "
                      "batches (here %.6g..%.6g samples) differ more for the loss noise "
                      "(rmse %.3g), or more rows",
                      coef[0], 2 * se[0], 2 * se[0] * bmax, bmax, 100 * FIT_MAX_B_UNCERTAINTY,
                      decay_hi, bmin, bmax, sqrt(rss / (double)n));
    } else if (coef[2] < 0 && -coef[2] > 2 * se[2] + 1e-9 * lmax) {
        rv = slo__fail(err, SLO_ERR_INVALID, NULL,
                      "the fit gives a loss floor gamma5 = %.4g +- %.3g (two standard "
                      "errors): expected >= 0 (a loss is never negative); the logs do not "
                      "reach far enough into training to show where the loss levels off",
                      coef[2], 2 * se[2]);
    }
out:
    free(jac);
    return rv;
}

/* The nonlinear search: gamma4 (2023 only) outside, gamma1 inside. */
static int fit_nonlinear(struct fit_ctx *c, double *g1, double *g4, double *rss)
{
    double t, u = 0;
    int rv;

    if (c->form == SLO_LOSS_SPOTDNN_2023 &&
        (rv = scan_and_refine(c, rss_of_sqrt_g4, 0, sqrt(G4_MAX), G4_SCAN, &u, rss)))
        return rv;
    c->g4 = u * u;
    if ((rv = best_log_g1(c, &t, rss)))
        return rv;
    *g1 = exp(t);
    *g4 = c->g4;
    return SLO_OK;
}

/*
 * slo_fit_loss - fit spotDNN's Eq. 3 to loss samples (research notes 1.11).
 * samples[n]: iterations j (normalized iterations, >= 0), wa_batch b_w
 * (samples), cc R (>= 0; used by spotdnn-2023), n_workers (>= 1), loss (>= 0).
 * m->form selects the form; on success m->gamma1..5 hold the least-squares
 * coefficients (gamma4 = 0 for spotdnn-2022), gamma1 in [1e-3, 1e6] and
 * gamma4 in [0, 10]. report (may be NULL) gets rmse (loss units), r2, the
 * sample and distinct-(b_w, R, n) cluster counts.
 * report also gets the design's condition number and the standard errors of
 * gamma2, gamma3, gamma5 given gamma1 (and gamma4).
 * Errors: SLO_ERR_INVALID (fewer than 8 samples; fewer than 2 clusters or b_w
 * values; a non-finite or negative value, text "samples[i].field: ..."; an
 * unknown form; a fit the samples do not determine (check_determined, and
 * gamma1 at an end of its range or gamma4 at 10), the text naming what is
 * missing), SLO_ERR_NUMERIC (LAPACK failure or rank-deficient design at
 * every trial point), SLO_ERR_NOMEM. m and report are unchanged on failure.
 */
int slo_fit_loss(const struct slo_loss_sample *samples, size_t n, struct slo_loss_model *m,
                 struct slo_fit_report *report, slo_error_t *err)
{
    struct fit_ctx c = {samples, n, m->form, 0, NULL, NULL, 0};
    double g1, g4, rss, coef[3];
    struct slo_loss_model fit;
    struct slo_fit_report rep = {0};
    size_t clusters = 0;
    int rv;

    if (m->form != SLO_LOSS_SPOTDNN_2022 && m->form != SLO_LOSS_SPOTDNN_2023)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                        "expected loss form spotdnn-2023 or spotdnn-2022, found form %d",
                        (int)m->form);
    if ((rv = check_samples(samples, n, &clusters, err)))
        return rv;
    c.a = malloc(3 * n * sizeof *c.a);
    c.b = malloc(n * sizeof *c.b);
    if (!c.a || !c.b) {
        rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        goto done;
    }
    rv = fit_nonlinear(&c, &g1, &g4, &rss);
    if (!rv && isfinite(rss))
        rv = solve_linear(&c, g1, coef, &rss);
    if (c.info == LAPACK_WORK_MEMORY_ERROR) {
        rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory in LAPACKE_dgels");
        goto done;
    }
    if (rv || !isfinite(rss)) {
        rv = slo__fail(err, SLO_ERR_NUMERIC, NULL,
                      "LAPACKE_dgels failed (info %d): the loss model's linear least-squares "
                      "problem is rank-deficient or invalid",
                      (int)c.info);
        goto done;
    }
    if ((rv = check_determined(&c, g1, rss, coef, &rep, err)))
        goto done;
    fit = *m;
    fit.gamma1 = g1;
    fit.gamma2 = coef[0];
    fit.gamma3 = coef[1];
    fit.gamma4 = g4;
    fit.gamma5 = coef[2];
    fill_report(samples, n, &fit, clusters, &rep);
    if (rep.gamma1_at_limit) {
        rv = slo__fail(err, SLO_ERR_INVALID, NULL,
                      "gamma1 = %g is at the end of its search range [%g, %g]: the logs do "
                      "not determine it; expected logs that run further into training (the "
                      "loss curve's bend)",
                      g1, G1_MIN, G1_MAX);
        goto done;
    }
    if (rep.gamma4_at_limit && g4 > 1) {
        rv = slo__fail(err, SLO_ERR_INVALID, NULL,
                      "gamma4 = %g is at the end of its search range [0, %g]: the logs do "
                      "not determine it; expected clusters with more different convergence "
                      "coefficients R, or the form spotdnn-2022 (no gamma4)",
                      g4, G4_MAX);
        goto done;
    }
    *m = fit;
    if (report)
        *report = rep;
done:
    free(c.a);
    free(c.b);
    return rv;
}
