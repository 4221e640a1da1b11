/*
 * test_contention_fit.c - slo__fit_contention (kernel/train/contention_fit.c):
 * alpha1, beta1 of spotDNN's Eq. 9 recovered from iteration times made by
 * the forward model written out here (Eqs. 6-9 as in
 * shared/research/spotdnn.md 1.2-1.3), with the ResNet-110 values of the
 * draft's Table IV (alpha1 0.81, beta1 -1.92; S = 11.5 MB, B_ps 1200 MB/s)
 * and B_req 140 MB/s (contention from n = 9, P(9) = 0.51, as the notes say),
 * and, for the noise case, a communication-bound type.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "contention_fit.h"

#define S_MB 11.5
#define B_PS 1200.0
#define T_PCIE 0.02  /* s, 2 g S / B_pcie */
#define ALPHA1 0.81
#define BETA1 (-1.92)

/* Eqs. 6-9 forward: the iteration time at n workers whose type draws
 * b_req MB/s alone and computes t_comp s. */
static double t_iter(int n, double b_req, double t_comp)
{
    double p = ALPHA1 * sqrt((double)n) + BETA1;
    p = p < 0 ? 0 : p > 1 ? 1 : p;
    double bwk = n * b_req > B_PS ? p * (B_PS / n) + (1 - p) * b_req : b_req;
    return t_comp + 2 * S_MB / bwk + T_PCIE;
}

/* ResNet-110-like: B_req 140 MB/s, T_comp 0.3 s: contention from n = 9
 * (P(9) = 0.51), P(13) = 1.0005 and P(16) = 1.32 clamped. */
static void exact_recovery(void **state)
{
    (void)state;
    const int ns[] = {2, 4, 9, 10, 11, 12, 13, 16};
    struct slo__contention_run r[8];
    struct slo__contention_fit f;
    slo_error_t err = {0};

    for (int i = 0; i < 8; i++)
        r[i] = (struct slo__contention_run){ns[i], t_iter(ns[i], 140, 0.3), 0, 0};
    assert_int_equal(slo__fit_contention(r, 8, t_iter(1, 140, 0.3), S_MB, 140, B_PS, &f, &err),
                     SLO_OK);
    assert_float_equal(f.alpha1, ALPHA1, 1e-9);
    assert_float_equal(f.beta1, BETA1, 1e-9);
    assert_int_equal(f.n_used, 4);
    assert_int_equal(f.n_saturated, 2);
    assert_int_equal(f.n_floored, 0);
    assert_true(f.rms_p < 1e-9);
}

/* Noise. In the ResNet-110-like case above the contention signal
 * T(9) - T(1) is 4.1 ms of a 0.49 s iteration, so 1% noise on T (4.9 ms)
 * hides it: alpha1/beta1 are not identifiable there, whatever the fitter.
 * Here a communication-bound type (B_req 1000 MB/s, T_comp 0.05 s;
 * contention from n = 2, 0 < P < 1 for n = 6..12): T(9) - T(1) = 18 ms of
 * 91 ms. +-1% multiplicative noise on every time (a fixed sign pattern,
 * 3 repeats of n = 6..12; the alone time +1%). Tolerance, from the
 * propagation: 1% of T moves P by about 0.03-0.05; the slope over
 * sqrt(n) in [2.45, 3.46] then errs by at most about 0.1, the intercept by
 * 0.3; P(9) (where contention is half-way) within 0.05. */
static void noisy_recovery(void **state)
{
    (void)state;
    static const double e[21] = {+1, -1, +1, -1, -1, +1, +1, +1, -1, -1, +1,
                                 -1, -1, +1, +1, -1, +1, -1, +1, +1, -1};
    struct slo__contention_run r[21 + 2];
    struct slo__contention_fit f;
    slo_error_t err = {0};

    for (int i = 0; i < 21; i++) {
        int n = 6 + i / 3;
        r[i] = (struct slo__contention_run){n, t_iter(n, 1000, 0.05) * (1 + 0.01 * e[i]), 0, 0};
    }
    r[21] = (struct slo__contention_run){2, t_iter(2, 1000, 0.05), 0, 0}; /* P = 0: floored */
    r[22] = (struct slo__contention_run){4, t_iter(4, 1000, 0.05), 0, 0};
    assert_int_equal(slo__fit_contention(r, 23, t_iter(1, 1000, 0.05) * 1.01, S_MB, 1000, B_PS,
                                         &f, &err),
                     SLO_OK);
    printf("# noisy: alpha1 %.4f (true %.2f), beta1 %.4f (true %.2f), P(9) %.4f (true %.2f), "
           "rms P %.4f, %zu runs used, %zu floored, %zu saturated\n",
           f.alpha1, ALPHA1, f.beta1, BETA1, 3 * f.alpha1 + f.beta1, 3 * ALPHA1 + BETA1,
           f.rms_p, f.n_used, f.n_floored, f.n_saturated);
    assert_float_equal(f.alpha1, ALPHA1, 0.1);
    assert_float_equal(f.beta1, BETA1, 0.3);
    assert_float_equal(f.alpha1 * 3 + f.beta1, ALPHA1 * 3 + BETA1, 0.05);
}

static void too_few_sizes(void **state)
{
    (void)state;
    struct slo__contention_run r[] = {{2, t_iter(2, 140, 0.3), 0, 0}, {4, t_iter(4, 140, 0.3), 0, 0},
                                      {9, t_iter(9, 140, 0.3), 0, 0}, {9, t_iter(9, 140, 0.3), 0, 0},
                                      {16, t_iter(16, 140, 0.3), 0, 0}};
    struct slo__contention_fit f;
    slo_error_t err = {0};

    assert_int_equal(slo__fit_contention(r, 5, t_iter(1, 140, 0.3), S_MB, 140, B_PS, &f, &err),
                     SLO_ERR_INVALID);
    assert_string_equal(err.text,
                        "expected runs at 2 or more cluster sizes with contention (n > 8.57: "
                        "n x b_req_mbps > b_ps_mbps) and 0 < P(n) < 1, found n = 9 (below "
                        "contention: n = 2, 4; P <= 0: none; P >= 1: n = 16)");
    assert_int_equal(slo__fit_contention(r, 0, t_iter(1, 140, 0.3), S_MB, 140, B_PS, &f, &err),
                     SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "found none (below contention: none; P <= 0: none; P >= 1: none)"));
}

static void bad_arguments(void **state)
{
    (void)state;
    struct slo__contention_run r[] = {{9, 0.5, 0, 0}, {0, 0.5, 0, 0}};
    struct slo__contention_fit f;
    slo_error_t err = {0};

    assert_int_equal(slo__fit_contention(r, 2, 0.4, S_MB, 140, B_PS, &f, &err),
                     SLO_ERR_INVALID);
    assert_string_equal(err.text, "runs[1]: expected n_workers >= 1 and t_iter_s > 0, found 0 "
                                  "and 0.5");
    assert_int_equal(slo__fit_contention(r, 1, -1, S_MB, 140, B_PS, &f, &err),
                     SLO_ERR_INVALID);
    assert_string_equal(err.text, "t_alone_s: expected a time > 0 s, found -1");
    assert_int_equal(slo__fit_contention(r, 1, 0.4, S_MB, 0, B_PS, &f, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "b_req_mbps"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_recovery),
        cmocka_unit_test(noisy_recovery),
        cmocka_unit_test(too_few_sizes),
        cmocka_unit_test(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
