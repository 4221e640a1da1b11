/*
 * igniter_fit.c - fitting the iGniter coefficients from profiling grids
 * (notes 1.3; HEAD power_frequency(), idletime(), activetime(),
 * power_l2cache() and the alpha_cache closed form). Least squares go through
 * LAPACKE_dgels; the active-time surface uses a small Levenberg-Marquardt
 * loop whose damped steps are dgels solves of the augmented system.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "infer_private.h"
#include "slo_private.h"
#include "slo_infer.h"

static const double grid_batch[3] = {1, 16, 32};
static const double grid_share_pct[3] = {10, 50, 100};

/* Smallest spread (max - min) of a line fit's x, relative to max |x|, that
 * counts as clearly different points: the profiles' latencies are measured
 * to about 1%, so x closer than that cannot tell a slope. */
#define LINE_MIN_SPREAD 1e-2

/* Least squares y ~ k x + b over n points (n >= 2) with dgels. xname names
 * x in the refusal when the x are not clearly different (spread below
 * LINE_MIN_SPREAD: the slope would be noise over a vanishing difference,
 * e.g. kp = 2.76e13). */
static int fit_line(const double *x, const double *y, int n, double *k, double *b,
                    const char *source, const char *what, const char *xname,
                    slo_error_t *err)
{
    double a[2 * 16], rhs[16], xmin = INFINITY, xmax = -INFINITY, xabs = 0;
    lapack_int info;

    if (n < 2 || n > 16)
        return slo__fail(err, SLO_ERR_INVALID, source,
                        "%s: expected 2 to 16 points for a line fit, found %d", what, n);
    for (int i = 0; i < n; i++) {
        xmin = fmin(xmin, x[i]);
        xmax = fmax(xmax, x[i]);
        xabs = fmax(xabs, fabs(x[i]));
    }
    if (!(xmax - xmin >= LINE_MIN_SPREAD * xabs) || !(xabs > 0))
        return slo__fail(err, SLO_ERR_INVALID, source,
                        "%s: the %s at the %d points used are all %.6g (spread %.3g, less "
                        "than %g%%): the line fit needs at least two clearly different "
                        "values",
                        what, xname, n, xmax, xmax - xmin, 100 * LINE_MIN_SPREAD);
    for (int i = 0; i < n; i++) {
        a[i * 2] = x[i];
        a[i * 2 + 1] = 1.0;
        rhs[i] = y[i];
    }
    info = LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', n, 2, 1, a, 2, rhs, 1);
    if (info != 0)
        return slo__fail(err, SLO_ERR_NUMERIC, source,
                        "%s: line fit failed (LAPACKE_dgels info %d; all x equal?)", what,
                        (int)info);
    *k = rhs[0];
    *b = rhs[1];
    return SLO_OK;
}

int slo_ig_fit_hardware(struct slo_ig_profile *p, slo_error_t *err)
{
    const struct slo_ig_hw_raw *r = &p->raw;
    double power[SLO_IG_MAX_CONCURRENCY], step = 0.0, sxy = 0.0, sxx = 0.0;
    double xs[SLO_IG_MAX_CONCURRENCY], ys[SLO_IG_MAX_CONCURRENCY];
    size_t n = r->n_concurrent, first_capped = n, n_steps = 0;
    int rv;

    if (n < 3)
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                        "hardware.power/frequency/idletime: expected at least 3 concurrency "
                        "levels to fit the clock slope and the scheduling delay, found %zu",
                        n);
    /* HEAD power_frequency(): the mean power step over the un-throttled points
     * extrapolates the power the throttled points would have drawn. */
    memcpy(power, r->power_w, sizeof power);
    for (size_t i = 0; i < n; i++) {
        if (r->clock_mhz[i] == p->max_clock_mhz) {
            if (i >= 1) {
                step += power[i] - power[i - 1];
                n_steps++;
            }
        } else {
            first_capped = i;
            break;
        }
    }
    if (first_capped < n) {
        step = n_steps > 0 ? step / (double)n_steps : power[0] - p->idle_power_w;
        if (!(step > 0.0))
            return slo__fail(err, SLO_ERR_INVALID, p->source,
                            "hardware.power: expected the power to rise across the "
                            "un-throttled concurrency levels 1..%zu (their mean step "
                            "extrapolates the throttled points' power), found a mean step of "
                            "%.4g W (%.4g W at level 1, %.4g W at level %zu)",
                            first_capped > 0 ? first_capped : 1, step, power[0],
                            power[first_capped > 0 ? first_capped - 1 : 0],
                            first_capped > 0 ? first_capped : 1);
        for (size_t j = first_capped; j < n; j++) {
            if (j >= 1)
                power[j] = power[j - 1] + step;
            /* (f - F) = a (P - P_max): one-parameter least squares through 0. */
            sxy += (r->clock_mhz[j] - p->max_clock_mhz) * (power[j] - p->power_cap_w);
            sxx += (power[j] - p->power_cap_w) * (power[j] - p->power_cap_w);
        }
        if (!(sxx > 0.0))
            return slo__fail(err, SLO_ERR_NUMERIC, p->source,
                            "hardware.power: the throttled points sit exactly at the power "
                            "cap; the clock slope cannot be fitted");
        p->clock_slope_mhz_per_w = sxy / sxx;
        if (!(p->clock_slope_mhz_per_w <= 0.0))
            return slo__fail(err, SLO_ERR_INVALID, p->source,
                            "hardware.frequency: the fitted clock slope is %.4g MHz/W > 0 "
                            "(the clock would rise above %g MHz as power passes the %g W "
                            "cap): expected the throttled levels' clocks below the maximum "
                            "and their power above the cap",
                            p->clock_slope_mhz_per_w, p->max_clock_mhz, p->power_cap_w);
    } else {
        p->clock_slope_mhz_per_w = 0.0; /* never throttled in profiling: no drop modelled */
    }
    /* HEAD idletime(): clock-normalised gaps, increase over the solo gap. */
    for (size_t c = 1; c < n; c++) {
        double v1 = r->idle_gap_ms[0] * r->clock_mhz[0] / p->max_clock_mhz;
        double vc = r->idle_gap_ms[c] * r->clock_mhz[c] / p->max_clock_mhz;
        xs[c - 1] = (double)(c + 1);
        ys[c - 1] = vc - v1;
    }
    if ((rv = fit_line(xs, ys, (int)(n - 1), &p->sched_alpha_ms, &p->sched_beta_ms, p->source,
                       "hardware.idletime", "concurrency levels", err)))
        return rv;
    if (!(p->sched_alpha_ms >= 0))
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                        "hardware.idletime: the fitted scheduling delay falls as co-runners "
                        "are added (alpha = %.4g ms per workload < 0): expected clock-"
                        "normalised idle gaps that grow with concurrency",
                        p->sched_alpha_ms);
    return slo__ig_check_hardware_coefficients(p, "hardware (fitted)", err);
}

/* Residuals and Jacobian of notes 1.2.2 at k over the 9 grid points. */
static void act_residuals(const double *k, const double *y, double *res, double *jac)
{
    for (int i = 0; i < 9; i++) {
        double b = grid_batch[i / 3], r = grid_share_pct[i % 3];
        double num = k[0] * b * b + k[1] * b + k[2], den = r + k[3];
        res[i] = num / den + k[4] - y[i];
        if (jac) {
            jac[i * 5 + 0] = b * b / den;
            jac[i * 5 + 1] = b / den;
            jac[i * 5 + 2] = 1.0 / den;
            jac[i * 5 + 3] = -num / (den * den);
            jac[i * 5 + 4] = 1.0;
        }
    }
}

static double sum_sq(const double *v, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i] * v[i];
    return s;
}

/* Levenberg-Marquardt from k = (1,1,1,1,1) (as scipy curve_fit in HEAD
 * activetime()). Each step solves min |[J; sqrt(lambda) D] d + [res; 0]| with
 * dgels, D = diag of the column norms of J (Marquardt scaling). */
static int fit_active(const double *y, double *k, const char *source, const char *name,
                      slo_error_t *err)
{
    double res[9], jac[45], cand[5], cres[9], lambda = 1e-3;
    double sse, csse;
    int it;

    for (int i = 0; i < 5; i++)
        k[i] = 1.0;
    act_residuals(k, y, res, jac);
    sse = sum_sq(res, 9);
    for (it = 0; it < 5000; it++) {
        double a[14 * 5], rhs[14], d[5];
        int accepted = 0;
        for (int c = 0; c < 5; c++) {
            double s = 0.0;
            for (int i = 0; i < 9; i++)
                s += jac[i * 5 + c] * jac[i * 5 + c];
            d[c] = sqrt(s) > 0.0 ? sqrt(s) : 1.0;
        }
        for (int tries = 0; tries < 60 && !accepted; tries++) {
            lapack_int info;
            memcpy(a, jac, sizeof jac);
            for (int i = 0; i < 9; i++)
                rhs[i] = -res[i];
            for (int c = 0; c < 5; c++) {
                for (int cc = 0; cc < 5; cc++)
                    a[(9 + c) * 5 + cc] = c == cc ? sqrt(lambda) * d[c] : 0.0;
                rhs[9 + c] = 0.0;
            }
            info = LAPACKE_dgels(LAPACK_ROW_MAJOR, 'N', 14, 5, 1, a, 5, rhs, 1);
            if (info != 0)
                return slo__fail(err, SLO_ERR_NUMERIC, source,
                                "%s.gpulatency: Levenberg-Marquardt step failed "
                                "(LAPACKE_dgels info %d)",
                                name, (int)info);
            for (int c = 0; c < 5; c++)
                cand[c] = k[c] + rhs[c];
            act_residuals(cand, y, cres, NULL);
            csse = sum_sq(cres, 9);
            if (isfinite(csse) && csse < sse) {
                double rel = (sse - csse) / (sse > 0.0 ? sse : 1.0), step = 0.0, norm = 0.0;
                for (int c = 0; c < 5; c++) {
                    step += rhs[c] * rhs[c];
                    norm += k[c] * k[c];
                }
                memcpy(k, cand, sizeof cand);
                act_residuals(k, y, res, jac);
                sse = csse;
                lambda = lambda / 10.0 > 1e-12 ? lambda / 10.0 : 1e-12;
                accepted = 1;
                if (rel < 1e-15 && step < 1e-24 * (norm + 1e-12))
                    return SLO_OK;
            } else {
                lambda *= 10.0;
            }
        }
        if (!accepted)
            return SLO_OK; /* no descent direction left at any damping: a minimum */
    }
    return slo__fail(err, SLO_ERR_NUMERIC, source,
                    "%s.gpulatency: Levenberg-Marquardt did not converge in %d iterations", name,
                    it);
}

int slo_ig_fit_model(const struct slo_ig_profile *p, struct slo_ig_model *m,
                     slo_error_t *err)
{
    const struct slo_ig_model_raw *r = &m->raw;
    double y[9], xp[9], yp[9], xc[3];
    int np = 0, rv;

    if (!m->has_raw)
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                        "%s: expected raw measurements to fit, found coefficients only", m->name);
    /* HEAD activetime(): clock-normalise throttled points, remove t_sch0. */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double t = r->gpu_latency_ms[i][j];
            if (r->clock_mhz[i][j] < p->max_clock_mhz)
                t *= r->clock_mhz[i][j] / p->max_clock_mhz;
            y[i * 3 + j] = t - m->t_sch_solo_ms;
        }
    if ((rv = fit_active(y, m->k, p->source, m->name, err)))
        return rv;
    /* HEAD power_l2cache(): solo capability from the raw GPU latency. */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double x = 1000.0 * grid_batch[i] / (r->gpu_latency_ms[i][j] - m->t_sch_solo_ms);
            if (i == j)
                xc[i] = x;
            if (r->clock_mhz[i][j] > p->max_clock_mhz - 1.0) {
                xp[np] = x;
                yp[np] = r->power_w[i][j] - p->idle_power_w;
                np++;
            }
        }
    if (np < 2)
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                        "%s.frequency: expected at least 2 un-throttled grid points to fit "
                        "power, found %d",
                        m->name, np);
    if ((rv = fit_line(xp, yp, np, &m->kp_w_per_rps, &m->bp_w, p->source, m->name,
                       "solo capabilities h0 = 1000 b / (gpulatency - idletime_1) (req/s) of "
                       "the power fit",
                       err)) ||
        (rv = fit_line(xc, r->l2_diag_pct, 3, &m->kc_pct_per_rps, &m->bc_pct, p->source,
                       m->name,
                       "solo capabilities h0 (req/s) at the l2caches grid points (1, 10%), "
                       "(16, 50%), (32, 100%)",
                       err)))
        return rv;
    if (!(r->l2_pct > 0.0) || !(r->active_solo_ms > 0.0))
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                        "%s: expected l2cache > 0 and activetime_1 > 0, found %g and %g",
                        m->name, r->l2_pct, r->active_solo_ms);
    /* Closed form: slow-down per percent of the co-runner's L2 use. */
    m->alpha_cache_per_pct =
        ((r->active_pair_ms * r->pair_clock_mhz / p->max_clock_mhz) / r->active_solo_ms - 1.0) /
        r->l2_pct;
    {
        char path[SLO_IG_NAME_LENGTH + 16];
        snprintf(path, sizeof path, "%s (fitted)", m->name);
        return slo__ig_check_model_coefficients(p, m, path, err);
    }
}

int slo__ig_check_hardware_coefficients(const struct slo_ig_profile *p, const char *path,
                                        slo_error_t *err)
{
    const char *what = NULL, *why = "";
    double v = 0, lo = 0, hi = 0;

    if (!(p->clock_slope_mhz_per_w >= -1e6 && p->clock_slope_mhz_per_w <= 0))
        what = "clock_slope_mhz_per_w", v = p->clock_slope_mhz_per_w, lo = -1e6, hi = 0,
        why = " MHz/W (the clock only drops above the power cap)";
    else if (!(p->sched_alpha_ms >= 0 && p->sched_alpha_ms <= 1e3))
        what = "sched_alpha_ms", v = p->sched_alpha_ms, lo = 0, hi = 1e3,
        why = " ms (the delay grows with co-runners)";
    else if (!(p->sched_beta_ms >= -1e3 && p->sched_beta_ms <= 1e3))
        what = "sched_beta_ms", v = p->sched_beta_ms, lo = -1e3, hi = 1e3, why = " ms";
    if (what)
        return slo__fail(err, SLO_ERR_INVALID, p->source, "%s.%s: expected a number in [%g, %g]%s, "
                        "found %.17g", path, what, lo, hi, why, v);
    return SLO_OK;
}

int slo__ig_check_model_coefficients(const struct slo_ig_profile *p,
                                     const struct slo_ig_model *m, const char *path,
                                     slo_error_t *err)
{
    const char *what = NULL, *why = "";
    double v = 0, lo = 0, hi = 0;

    for (int i = 0; i < 5; i++)
        if (!isfinite(m->k[i]))
            return slo__fail(err, SLO_ERR_INVALID, p->source,
                            "%s.k[%d]: expected a finite number, found %g", path, i, m->k[i]);
    if (!(m->kp_w_per_rps >= 0 && m->kp_w_per_rps <= 1e4))
        what = "kp_w_per_rps", v = m->kp_w_per_rps, lo = 0, hi = 1e4,
        why = " W per req/s (power rises with throughput)";
    else if (!(m->bp_w >= -p->idle_power_w && m->bp_w <= p->power_cap_w))
        what = "bp_w", v = m->bp_w, lo = -p->idle_power_w, hi = p->power_cap_w,
        why = " W (above -idlepower: no workload draws less than an idle GPU)";
    else if (!(m->kc_pct_per_rps >= 0 && m->kc_pct_per_rps <= 1e4))
        what = "kc_pct_per_rps", v = m->kc_pct_per_rps, lo = 0, hi = 1e4,
        why = " % per req/s (L2 use rises with throughput)";
    else if (!(m->bc_pct >= -100 && m->bc_pct <= 100))
        what = "bc_pct", v = m->bc_pct, lo = -100, hi = 100, why = " %";
    else if (!(m->alpha_cache_per_pct >= 0 && m->alpha_cache_per_pct <= 1))
        what = "alpha_cache_per_pct", v = m->alpha_cache_per_pct, lo = 0, hi = 1,
        why = " per % (a co-runner's L2 use never speeds a workload up)";
    if (what)
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                        "%s.%s: expected a number in [%g, %g]%s, found %.17g", path, what, lo,
                        hi, why, v);
    return SLO_OK;
}
