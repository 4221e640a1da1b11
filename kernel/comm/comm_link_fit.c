/*
 * comm_link_fit.c - the alpha-beta (Hockney) fit of measured collective
 * times and its ring reading: the one place for both, used by slo-mpiprof,
 * the profile reader (comm_profile.c), its checker and slo-train-demo.
 *
 * Fit: t(s) = alpha + beta s, least squares on relative residuals (rows
 * scaled by 1/t, so small sizes, the latency, count as much as large ones,
 * the bandwidth) with LAPACKE_dgels, then bounded to alpha, beta >= 0: a
 * two-variable non-negative least squares whose optimum, when the free fit
 * has a negative coefficient, lies on a face (alpha = 0 or beta = 0).
 * Ring reading (slo_comm.h, Transport): a ring allreduce of s bytes over p
 * workers takes 2(p-1) alpha_step + 2(p-1)/p s / B, so alpha_step =
 * alpha / (2(p-1)) and B = 2(p-1) / (p beta).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

#include "slo_private.h"

/* sum of squared relative residuals of (a, b) */
static double rel_sse(const double *s, const double *t, size_t n, double a, double b)
{
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        double r = (a + b * s[i] - t[i]) / t[i];
        e += r * r;
    }
    return e;
}

int slo_comm_fit_alpha_beta(const double *bytes, const double *time_s, size_t n,
                            struct slo_comm_alpha_beta *out, slo_error_t *err)
{
    const double *s = bytes, *t = time_s;
    struct slo_comm_alpha_beta result, *fit = &result;
    double *a, *y;
    lapack_int info;

    if (!bytes || !time_s || !out)
        return slo__fail(err, SLO_ERR_INVALID, "alpha-beta fit", "expected the sizes, "
                         "times and fit, found NULL");
    if (n < 2)
        return slo__fail(err, SLO_ERR_INVALID, "alpha-beta fit",
                         "expected at least 2 measured sizes, found %zu", n);
    for (size_t i = 0; i < n; i++)
        if (!(t[i] > 0) || !isfinite(t[i]) || !(s[i] >= 0) || !isfinite(s[i]))
            return slo__fail(err, SLO_ERR_INVALID, "alpha-beta fit",
                             "point %zu: expected a size >= 0 and a finite time > 0, found "
                             "%g bytes, %g s", i, s[i], t[i]);
    {
        size_t i = 1;
        while (i < n && s[i] == s[0])
            i++;
        if (i == n) /* the columns [1/t, s/t] are proportional: no line */
            return slo__fail(err, SLO_ERR_INVALID, "alpha-beta fit",
                             "expected at least 2 different sizes, found every one %g bytes",
                             s[0]);
    }
    a = malloc(2 * n * sizeof *a);
    y = malloc(n * sizeof *y);
    if (!a || !y) {
        free(a);
        free(y);
        return slo__fail(err, SLO_ERR_NOMEM, "alpha-beta fit", "out of memory");
    }
    /* row i: [1/t_i, s_i/t_i] (alpha, beta) = 1, column-major; the byte
     * column is scaled to MB so the two columns are of similar size */
    for (size_t i = 0; i < n; i++) {
        a[i] = 1.0 / t[i];
        a[n + i] = (s[i] / 1e6) / t[i];
        y[i] = 1.0;
    }
    info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (lapack_int)n, 2, 1, a, (lapack_int)n, y,
                         (lapack_int)n);
    if (info != 0) {
        free(a);
        free(y);
        return slo__fail(err, SLO_ERR_NUMERIC, "alpha-beta fit",
                         "LAPACKE_dgels failed (info %d): the sizes do not determine a "
                         "line", (int)info);
    }
    fit->unconstrained_alpha_s = y[0];
    fit->unconstrained_beta_s_per_byte = y[1] / 1e6;
    free(a);
    free(y);
    fit->alpha_s = fit->unconstrained_alpha_s;
    fit->beta_s_per_byte = fit->unconstrained_beta_s_per_byte;
    fit->constrained = 0;
    if (fit->alpha_s < 0 || fit->beta_s_per_byte < 0) {
        /* alpha = 0: beta = sum(s/t) / sum((s/t)^2); beta = 0: alpha =
         * sum(1/t) / sum(1/t^2); keep the better of the two faces. */
        double n1 = 0, d1 = 0, n2 = 0, d2 = 0, b0, a0;
        for (size_t i = 0; i < n; i++) {
            n1 += s[i] / t[i];
            d1 += (s[i] / t[i]) * (s[i] / t[i]);
            n2 += 1.0 / t[i];
            d2 += 1.0 / (t[i] * t[i]);
        }
        b0 = d1 > 0 ? n1 / d1 : 0;
        a0 = n2 / d2;
        if (d1 > 0 && rel_sse(s, t, n, 0, b0) <= rel_sse(s, t, n, a0, 0)) {
            fit->alpha_s = 0;
            fit->beta_s_per_byte = b0;
        } else {
            fit->alpha_s = a0;
            fit->beta_s_per_byte = 0;
        }
        fit->constrained = 1;
    }
    fit->rms_residual_s = 0;
    fit->max_relative_residual = 0;
    for (size_t i = 0; i < n; i++) {
        double r = fit->alpha_s + fit->beta_s_per_byte * s[i] - t[i];
        fit->rms_residual_s += r * r;
        if (fabs(r) / t[i] > fit->max_relative_residual)
            fit->max_relative_residual = fabs(r) / t[i];
    }
    fit->rms_residual_s = sqrt(fit->rms_residual_s / (double)n);
    *out = result;
    return SLO_OK;
}

double slo_comm_ring_latency_from_fit(double alpha_s, int workers)
{
    return workers >= 2 ? alpha_s / (2.0 * (workers - 1)) : NAN;
}

double slo_comm_ring_bandwidth_from_fit(double beta_s_per_byte, int workers)
{
    if (workers < 2 || !(beta_s_per_byte >= 0))
        return NAN;
    return beta_s_per_byte > 0 ? 2.0 * (workers - 1) / (workers * beta_s_per_byte) : INFINITY;
}

int slo_comm_ring_link_from_fit(double alpha_s, double beta_s_per_byte, int workers,
                                struct slo_comm_link *link, slo_error_t *err)
{
    double b;
    if (!link)
        return slo__fail(err, SLO_ERR_INVALID, "link", "expected a link, found NULL");
    if (workers < 2 || workers > SLO_COMM_MAX_WORKERS)
        return slo__fail(err, SLO_ERR_INVALID, "workers",
                         "expected 2 .. %d workers for a ring, found %d",
                         SLO_COMM_MAX_WORKERS, workers);
    if (!(alpha_s >= 0) || !isfinite(alpha_s) || !(beta_s_per_byte >= 0) ||
        !isfinite(beta_s_per_byte))
        return slo__fail(err, SLO_ERR_INVALID, "alpha-beta fit",
                         "expected alpha_s >= 0 and beta_s_per_byte >= 0, found %g and %g",
                         alpha_s, beta_s_per_byte);
    link->workers = workers;
    link->collective = SLO_COMM_RING;
    link->max_in_flight = 0;
    link->latency_s = fmin(slo_comm_ring_latency_from_fit(alpha_s, workers),
                           SLO_COMM_MAX_LATENCY_S);
    b = slo_comm_ring_bandwidth_from_fit(beta_s_per_byte, workers);
    link->bandwidth_bytes_per_s = fmin(b, SLO_COMM_MAX_BANDWIDTH_BYTES_PER_S);
    return SLO_OK;
}
