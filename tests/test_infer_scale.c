/*
 * test_infer_scale.c - the GPU index of the iGniter planner (issue 19, item
 * 5) plans exactly what the full scan of every open GPU plans (kept as the
 * oracle: slo__ig_plan_detail with SLO__IG_SCAN): same GPUs, placements,
 * shares, batches, latencies, bit for bit, for every policy, on
 *  - every algorithm case of the authors' golden vectors
 *    ($SLO_REFERENCE_DATA/igniter/derived/golden_vectors.json "algorithm_cases"
 *    inputs; skipped without the reference data),
 *  - seeded random sets of 10 to 3000 workloads on the embedded V100 profile,
 *    and on the V100 with the calibrated variant (v100-calibrated),
 *  - a two-type request (V100 and a cheaper copy with a smaller unit).
 * Times of both are printed for the log (no timing assertion: bench/).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <jansson.h>

#include "slo.h"
#include "slo_infer.h"
#include "infer_private.h"
#include "refdata.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}


/* Plan with the index and with the scan; both must agree exactly. */
static void same_plans(const struct slo_ig_profile *p, size_t n_types,
                       const struct slo_ig_workload *w, size_t n, int policy, const char *label)
{
    struct slo_ig_plan a, b;
    slo_error_t ea = {0}, eb = {0};
    size_t fa, fb;
    double t0 = now(), t1, t2;
    int ra = slo__ig_plan_detail(p, n_types, w, n, policy, &a, &fa, &ea);
    t1 = now();
    int rb = slo__ig_plan_detail(p, n_types, w, n, policy | SLO__IG_SCAN, &b, &fb, &eb);
    t2 = now();

    if (ra != rb)
        fail_msg("%s policy %d: index returns %d (%s), scan %d (%s)", label, policy, ra, ea.text,
                 rb, eb.text);
    if (ra) {
        assert_string_equal(ea.text, eb.text);
        assert_true(fa == fb);
        return;
    }
    assert_int_equal(a.n_gpus, b.n_gpus);
    assert_int_equal(a.n_placements, b.n_placements);
    assert_true(a.cost_usd_per_h == b.cost_usd_per_h);
    assert_int_equal(a.n_violations, b.n_violations);
    for (size_t j = 0; j < a.n_gpus; j++) {
        assert_int_equal(a.gpus[j].type, b.gpus[j].type);
        assert_int_equal(a.gpus[j].first, b.gpus[j].first);
        assert_int_equal(a.gpus[j].count, b.gpus[j].count);
        assert_int_equal(a.gpus[j].dedicated, b.gpus[j].dedicated);
        assert_true(a.gpus[j].share_pct == b.gpus[j].share_pct);
    }
    for (size_t i = 0; i < a.n_placements; i++) {
        const struct slo_ig_placement *x = &a.placements[i], *y = &b.placements[i];
        assert_int_equal(x->workload, y->workload);
        assert_int_equal(x->batch, y->batch);
        assert_true(x->share_pct == y->share_pct);
        assert_true(x->rate_rps == y->rate_rps);
        assert_true(x->latency_ms == y->latency_ms);
    }
    if (n >= 1000)
        printf("%s policy %s: %zu GPUs, index %.2f ms, scan %.2f ms\n", label,
               slo_ig_policy_name(policy), a.n_gpus, (t1 - t0) * 1e3, (t2 - t1) * 1e3);
    slo_ig_plan_free(&a);
    slo_ig_plan_free(&b);
}

static void test_algorithm_cases(void **state)
{
    (void)state;
    if (refdata_ig_golden_cases(same_plans, SLO_IG_POLICY_IGNITER, SLO_IG_POLICY_GPULETS) < 0)
        skip();
}

static void seeded(const char *profile, size_t n_types)
{
    static const size_t sizes[] = {10, 37, 100, 333, 1000, 3000};
    struct slo_ig_profile p[2];
    slo_error_t err;
    assert_int_equal(slo_ig_profile_open(profile, NULL, &p[0], &err), SLO_OK);
    p[0].usd_per_gpu_h = 3.06;
    if (n_types == 2) {
        assert_int_equal(slo_ig_profile_open(profile, NULL, &p[1], &err), SLO_OK);
        p[1].usd_per_gpu_h = 2.2; /* a cheaper, finer-grained copy */
        p[1].unit_pct = 1.25;
    }
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        struct slo_ig_workload *w = malloc(n * sizeof *w);
        char label[96];
        assert_non_null(w);
        refdata_seeded_workloads(w, n, 7 + (uint64_t)n);
        snprintf(label, sizeof label, "%s x%zu, seeded %zu", profile, n_types, n);
        for (int pol = 0; pol <= SLO_IG_POLICY_GPULETS; pol++)
            if (n <= 1000 || pol == SLO_IG_POLICY_IGNITER || pol == SLO_IG_POLICY_FFD)
                same_plans(p, n_types, w, n, pol, label);
        free(w);
    }
    for (size_t t = 0; t < n_types; t++)
        slo_ig_profile_free(&p[t]);
}

static void test_seeded_v100(void **state)
{
    (void)state;
    seeded("v100", 1);
}

static void test_seeded_calibrated(void **state)
{
    (void)state;
    seeded("v100-calibrated", 1);
}

static void test_seeded_two_types(void **state)
{
    (void)state;
    seeded("v100", 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_algorithm_cases),
        cmocka_unit_test(test_seeded_v100),
        cmocka_unit_test(test_seeded_calibrated),
        cmocka_unit_test(test_seeded_two_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
