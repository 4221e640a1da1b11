/*
 * mpiprof_fit.c - alpha-beta fit of allreduce times with LAPACKE.
 * Model: Hockney's t(s) = alpha + beta s (per-message latency plus bytes
 * over bandwidth); the ring reading of alpha and beta is in doc/mpiprof.md
 * and kernel/comm/slo_comm.h.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

#include "mpiprof.h"

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

int mpiprof_fit_alpha_beta(const double *s, const double *t, size_t n, struct mpiprof_fit *fit)
{
    double *a, *y;
    lapack_int info;

    if (n < 2)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!(t[i] > 0) || !isfinite(t[i]) || !(s[i] >= 0))
            return -1;
    a = malloc(2 * n * sizeof *a);
    y = malloc(n * sizeof *y);
    if (!a || !y) {
        free(a);
        free(y);
        return -1;
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
        return -1;
    }
    fit->raw_alpha_s = y[0];
    fit->raw_beta_s_per_byte = y[1] / 1e6;
    free(a);
    free(y);
    fit->alpha_s = fit->raw_alpha_s;
    fit->beta_s_per_byte = fit->raw_beta_s_per_byte;
    fit->constrained = 0;
    if (fit->alpha_s < 0 || fit->beta_s_per_byte < 0) {
        /* 2-variable NNLS: the optimum lies on a face; minimise the
         * relative SSE with alpha = 0, and with beta = 0, keep the better.
         * alpha = 0: beta = sum(s/t) / sum((s/t)^2); beta = 0: alpha =
         * sum(1/t) / sum(1/t^2). */
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
    return 0;
}
