/*
 * contention_fit.h - fit of spotDNN's PS bandwidth contention coefficients
 * alpha1, beta1 (paper Eq. 9) from profiled iteration times; private to
 * libslo (not installed): slo_fit_train_profile (train_fit.c, `slo fit train
 * --model-bytes`) calls it (issue 12, item 2).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_CONTENTION_FIT_H
#define SLO_CONTENTION_FIT_H

#include <stddef.h>

#include "slo.h"

/* One profiling run of n workers of one instance type (same batch, same
 * GPUs) on one PS: its mean per-worker iteration time. */
struct slo__contention_run {
    int n_workers;   /* n >= 1 */
    double t_iter_s; /* measured mean iteration time T(n), s, > 0 */
    /* Optional per run (0: the call's arguments), so that one fit takes the
     * workers of mixed clusters, each against its own type (issue 12): */
    double t_alone_s;  /* the worker's type's iteration time alone, s */
    double b_req_mbps; /* the worker's type's B_req (per-type network), MB/s */
};

struct slo__contention_fit {
    double alpha1, beta1; /* P = alpha1 sqrt(n) + beta1 (Eq. 9, before the clamp) */
    size_t n_used;        /* runs in the fit: contention branch, 0 < P(n) < 1 */
    size_t n_saturated;   /* contention runs left out because measured P(n) >= 1 */
    size_t n_floored;     /* contention runs left out because measured P(n) <= 0 */
    double rms_p;         /* root mean square residual of P over the used runs */
    double alpha1_se, beta1_se; /* asymptotic standard errors of the least squares,
                                   sigma^2 (A^T A)^-1 with sigma^2 = rss / (m - 2);
                                   NAN with m = 2 runs (no residual freedom) */
};

/*
 * Fit alpha1, beta1 of Eq. 9 to runs[n_runs] of one type, given t_alone_s,
 * the same type's iteration time alone (n = 1, where B_wk = B_req),
 * s_parm_mb (MB), b_req_mbps and b_ps_mbps (MB/s). Source: spotDNN Eqs. 6-9:
 * T(n) - T(1) = 2 S / B_wk(n) - 2 S / B_req (T_comp and the PCIe term
 * cancel), so B_wk(n) = 2 S / (T(n) - T(1) + 2 S / B_req); in the contention
 * branch (n B_req > B_ps), Eq. 8 gives P(n) = (B_req - B_wk) / (B_req -
 * B_ps / n); then least squares (LAPACKE_dgels) of P(n) on (sqrt(n), 1).
 * Runs outside the contention branch carry no information on P and are
 * skipped; runs with measured P >= 1 or P <= 0 are at Eq. 9's clamp and
 * skipped too (counted in n_saturated, n_floored).
 * A run's own t_alone_s / b_req_mbps, when > 0, replace the arguments for it
 * (the contention branch is then n x its B_req > B_ps).
 * Returns SLO_OK with *out filled; SLO_ERR_INVALID for a bad argument
 * (naming it), or when fewer than 2 distinct n remain, the text then
 * names the smallest n in the contention branch (n > B_ps / B_req), the
 * sizes found and the ones skipped, e.g. "expected runs at 2 or more
 * cluster sizes with contention (n > 8.57: n x b_req_mbps > b_ps_mbps)
 * and 0 < P(n) < 1, found n = 9 (below contention: n = 2, 4; P <= 0: none;
 * P >= 1: n = 16)";
 * SLO_ERR_NUMERIC if dgels fails; SLO_ERR_NOMEM.
 */
int slo__fit_contention(const struct slo__contention_run *runs, size_t n_runs,
                        double t_alone_s, double s_parm_mb, double b_req_mbps,
                        double b_ps_mbps, struct slo__contention_fit *out, slo_error_t *err);

#endif
