/*
 * contention_fit.c - alpha1, beta1 of spotDNN's PS bandwidth contention
 * model (paper Eqs. 6-9) from profiled iteration times (contention_fit.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention_fit.h"
#include "slo_private.h"

#define SRC "contention fit"

/* Append " n = N" items of the runs with flag[i] set to buf (at most one
 * per distinct n, in run order). */
static void list_sizes(const struct slo__contention_run *runs, size_t n_runs,
                       const int *flag, char *buf, size_t len)
{
    size_t used = strlen(buf);
    int first = 1;

    for (size_t i = 0; i < n_runs; i++) {
        int seen = 0;
        if (!flag[i])
            continue;
        for (size_t k = 0; k < i; k++)
            seen |= flag[k] && runs[k].n_workers == runs[i].n_workers;
        if (seen || used + 16 >= len)
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s%d", first ? "n = " : ", ",
                                 runs[i].n_workers);
        first = 0;
    }
    if (first && used + 5 < len)
        snprintf(buf + used, len - used, "none");
}

int slo__fit_contention(const struct slo__contention_run *runs, size_t n_runs,
                        double t_alone_s, double s_parm_mb, double b_req_mbps,
                        double b_ps_mbps, struct slo__contention_fit *out, slo_error_t *err)
{
    const double S = s_parm_mb;
    double *a = NULL, *b = NULL, *p = NULL;
    int *use = NULL, *below = NULL, *sat = NULL, *flo = NULL;
    size_t m = 0;
    int rc = SLO_OK;

    if (!out || (!runs && n_runs))
        return slo__fail(err, SLO_ERR_INVALID, SRC, "expected runs and a result, found NULL");
    if (!(t_alone_s > 0) || !isfinite(t_alone_s))
        return slo__fail(err, SLO_ERR_INVALID, SRC,
                         "t_alone_s: expected a time > 0 s, found %g", t_alone_s);
    if (!(S > 0) || !isfinite(S) || !(b_req_mbps > 0) || !isfinite(b_req_mbps) ||
        !(b_ps_mbps > 0) || !isfinite(b_ps_mbps))
        return slo__fail(err, SLO_ERR_INVALID, SRC,
                         "expected s_parm_mb, b_req_mbps, b_ps_mbps > 0, found %g, %g, %g", S,
                         b_req_mbps, b_ps_mbps);
    for (size_t i = 0; i < n_runs; i++)
        if (runs[i].n_workers < 1 || !(runs[i].t_iter_s > 0) || !isfinite(runs[i].t_iter_s) ||
            !(runs[i].t_alone_s >= 0) || !isfinite(runs[i].t_alone_s) ||
            !(runs[i].b_req_mbps >= 0) || !isfinite(runs[i].b_req_mbps))
            return slo__fail(err, SLO_ERR_INVALID, SRC,
                             "runs[%zu]: expected n_workers >= 1 and t_iter_s > 0, found %d "
                             "and %g",
                             i, runs[i].n_workers, runs[i].t_iter_s);
    memset(out, 0, sizeof *out);
    a = calloc(2 * (n_runs ? n_runs : 1), sizeof *a);
    b = calloc(n_runs ? n_runs : 1, sizeof *b);
    p = calloc(n_runs ? n_runs : 1, sizeof *p);
    use = calloc(n_runs ? n_runs : 1, sizeof *use);
    below = calloc(n_runs ? n_runs : 1, sizeof *below);
    sat = calloc(n_runs ? n_runs : 1, sizeof *sat);
    flo = calloc(n_runs ? n_runs : 1, sizeof *flo);
    if (!a || !b || !p || !use || !below || !sat || !flo) {
        rc = slo__fail(err, SLO_ERR_NOMEM, SRC, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n_runs; i++) {
        double n = runs[i].n_workers;
        double breq = runs[i].b_req_mbps > 0 ? runs[i].b_req_mbps : b_req_mbps;
        double t1 = runs[i].t_alone_s > 0 ? runs[i].t_alone_s : t_alone_s;
        if (n * breq <= b_ps_mbps) { /* Eq. 8: B_wk = B_req, P unseen */
            below[i] = 1;
            continue;
        }
        double denom = runs[i].t_iter_s - t1 + 2 * S / breq;
        double bwk = denom > 0 ? 2 * S / denom : INFINITY;
        p[i] = (breq - bwk) / (breq - b_ps_mbps / n);
        if (p[i] >= 1) {
            sat[i] = 1;
            out->n_saturated++;
            continue;
        }
        if (p[i] <= 0) { /* Eq. 9's clamp at 0: no slope information */
            flo[i] = 1;
            out->n_floored++;
            continue;
        }
        use[i] = 1;
    }
    {
        int distinct = 0;
        for (size_t i = 0; i < n_runs; i++) {
            int seen = 0;
            for (size_t k = 0; k < i; k++)
                seen |= use[k] && runs[k].n_workers == runs[i].n_workers;
            distinct += use[i] && !seen;
        }
        if (distinct < 2) {
            char found[256] = "", skip_lo[256] = "", skip_sat[256] = "", skip_flo[256] = "";
            list_sizes(runs, n_runs, use, found, sizeof found);
            list_sizes(runs, n_runs, below, skip_lo, sizeof skip_lo);
            list_sizes(runs, n_runs, sat, skip_sat, sizeof skip_sat);
            list_sizes(runs, n_runs, flo, skip_flo, sizeof skip_flo);
            rc = slo__fail(err, SLO_ERR_INVALID, SRC,
                           "expected runs at 2 or more cluster sizes with contention (n > %.3g: "
                           "n x b_req_mbps > b_ps_mbps) and 0 < P(n) < 1, found %s (below "
                           "contention: %s; P <= 0: %s; P >= 1: %s)",
                           b_ps_mbps / b_req_mbps, found, skip_lo, skip_flo, skip_sat);
            goto out;
        }
    }
    for (size_t i = 0; i < n_runs; i++)
        if (use[i])
            m++;
    for (size_t i = 0, r = 0; i < n_runs; i++) {
        if (!use[i])
            continue;
        a[r] = sqrt((double)runs[i].n_workers);
        a[m + r] = 1.0;
        b[r] = p[i];
        r++;
    }
    lapack_int info = LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', (lapack_int)m, 2, 1, a,
                                    (lapack_int)m, b, (lapack_int)m);
    if (info != 0) {
        rc = slo__fail(err, SLO_ERR_NUMERIC, SRC, "LAPACKE_dgels failed (info %d)", (int)info);
        goto out;
    }
    out->alpha1 = b[0];
    out->beta1 = b[1];
    out->n_used = m;
    {
        double ss = 0;
        for (size_t i = 0; i < n_runs; i++)
            if (use[i]) {
                double d = p[i] - (out->alpha1 * sqrt((double)runs[i].n_workers) + out->beta1);
                ss += d * d;
            }
        out->rms_p = sqrt(ss / (double)m);
        /* (A^T A)^-1 of the columns (sqrt n, 1), 2 x 2 in closed form. */
        double sxx = 0, sx = 0;
        for (size_t i = 0; i < n_runs; i++)
            if (use[i]) {
                double x = sqrt((double)runs[i].n_workers);
                sxx += x * x;
                sx += x;
            }
        double det = sxx * (double)m - sx * sx;
        if (m > 2 && det > 0) {
            double s2 = ss / (double)(m - 2);
            out->alpha1_se = sqrt(s2 * (double)m / det);
            out->beta1_se = sqrt(s2 * sxx / det);
        } else {
            out->alpha1_se = out->beta1_se = NAN;
        }
    }
out:
    free(a);
    free(b);
    free(p);
    free(use);
    free(below);
    free(sat);
    free(flo);
    return rc;
}
