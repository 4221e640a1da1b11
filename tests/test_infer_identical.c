/*
 * test_infer_identical.c - the iGniter planner at scale (issue 19, item 5:
 * the GPU index, the per-(model, batch, r_low) answer trees of
 * kernel/infer/igniter_plan.c, consolidation's running free share) plans
 * bit for bit what the straightforward planner plans: the full scan of every
 * open GPU with the insertion-sorted, re-summed consolidation (the oracle,
 * slo__ig_plan_detail with SLO__IG_SCAN, the planner as it was before the
 * index). Every GPU (type, dedicated, share, power, clock, placements) and
 * every placement (workload, rate, batch, share, latency, throughput) is
 * compared as bits, and so are the cost, the violation count and, for a
 * request the planner refuses, the error text and the workload it names.
 * Cases:
 *  - every algorithm case of the authors' golden vectors (skipped without
 *    $SLO_REFERENCE_DATA), all four policies;
 *  - 60 seeded random sets: 40 of bench_infer's generator (refdata.c, seeds
 *    1..40, 10 to 3000 workloads) and 20 of a wider one (SLO 1-6x the model's
 *    least, rates 1-3000 req/s: split workloads, alternative batches,
 *    infeasible ones), on the V100 (paper's model, a monotone one: the
 *    answer trees narrow by failed bounds), the V100 calibrated (not
 *    monotone), a 1.25 % unit and a 2.2 % unit (not dyadic: no answer trees);
 *  - 48 small sets on coarse units (5, 10, 12.5, 25 %), where consolidation's
 *    room test (a GPU whose tenants cannot all find room elsewhere is not
 *    tried) decides often;
 *  - two seeded sets of 10,000 workloads and one two-type request.
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

#include <cmocka.h>
#include <jansson.h>

#include "slo.h"
#include "slo_infer.h"
#include "infer_private.h"
#include "refdata.h"

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Plan w[n] with the planner and with the oracle; fail on any difference. */
static void identical(const struct slo_ig_profile *p, size_t n_types,
                      const struct slo_ig_workload *w, size_t n, int policy, const char *label)
{
    struct slo_ig_plan a, b;
    slo_error_t ea = {0}, eb = {0};
    size_t fa = 0, fb = 0;
    int ra = slo__ig_plan_detail(p, n_types, w, n, policy, &a, &fa, &ea);
    int rb = slo__ig_plan_detail(p, n_types, w, n, policy | SLO__IG_SCAN, &b, &fb, &eb);

    if (ra != rb)
        fail_msg("%s, policy %s: planner returns %d (%s), oracle %d (%s)", label,
                 slo_ig_policy_name(policy), ra, ea.text, rb, eb.text);
    if (ra) {
        if (strcmp(ea.text, eb.text) || fa != fb)
            fail_msg("%s, policy %s: planner refuses with \"%s\" (workload %zu), oracle with "
                     "\"%s\" (workload %zu)",
                     label, slo_ig_policy_name(policy), ea.text, fa, eb.text, fb);
        return;
    }
    if (a.n_gpus != b.n_gpus || a.n_placements != b.n_placements ||
        !same_bits(a.cost_usd_per_h, b.cost_usd_per_h) || a.n_violations != b.n_violations)
        fail_msg("%s, policy %s: planner %zu GPUs %zu placements %.17g USD/h %zu violations, "
                 "oracle %zu %zu %.17g %zu",
                 label, slo_ig_policy_name(policy), a.n_gpus, a.n_placements, a.cost_usd_per_h,
                 a.n_violations, b.n_gpus, b.n_placements, b.cost_usd_per_h, b.n_violations);
    for (size_t j = 0; j < a.n_gpus; j++) {
        const struct slo_ig_plan_gpu *x = &a.gpus[j], *y = &b.gpus[j];
        if (x->type != y->type || x->dedicated != y->dedicated || x->first != y->first ||
            x->count != y->count || !same_bits(x->share_pct, y->share_pct) ||
            !same_bits(x->usd_per_gpu_h, y->usd_per_gpu_h) || !same_bits(x->power_w, y->power_w) ||
            !same_bits(x->clock_mhz, y->clock_mhz))
            fail_msg("%s, policy %s: GPU %zu differs (planner %zu tenants %.17g %%, oracle %zu "
                     "tenants %.17g %%)",
                     label, slo_ig_policy_name(policy), j + 1, x->count, x->share_pct, y->count,
                     y->share_pct);
    }
    for (size_t i = 0; i < a.n_placements; i++) {
        const struct slo_ig_placement *x = &a.placements[i], *y = &b.placements[i];
        if (x->workload != y->workload || x->batch != y->batch ||
            !same_bits(x->rate_rps, y->rate_rps) || !same_bits(x->share_pct, y->share_pct) ||
            !same_bits(x->latency_ms, y->latency_ms) ||
            !same_bits(x->throughput_rps, y->throughput_rps))
            fail_msg("%s, policy %s: placement %zu differs (planner workload %zu b%d %.17g %%, "
                     "oracle workload %zu b%d %.17g %%)",
                     label, slo_ig_policy_name(policy), i + 1, x->workload + 1, x->batch,
                     x->share_pct, y->workload + 1, y->batch, y->share_pct);
    }
    slo_ig_plan_free(&a);
    slo_ig_plan_free(&b);
}

static void open_profile(const char *name, double usd, double unit, struct slo_ig_profile *p)
{
    slo_error_t err;
    if (slo_ig_profile_open(name, NULL, p, &err) != SLO_OK)
        fail_msg("profile %s: %s", name, err.text);
    p->usd_per_gpu_h = usd;
    if (unit > 0.0)
        p->unit_pct = unit;
}

static void test_algorithm_cases(void **state)
{
    (void)state;
    if (refdata_ig_golden_cases(identical, SLO_IG_POLICY_IGNITER, SLO_IG_POLICY_GPULETS) < 0)
        skip();
}

/* The wider generator: model uniform, SLO = the model's least x U[1, 6),
 * rate U[1, 3000) req/s (splits and infeasible workloads included). */
static void wide_workloads(struct slo_ig_workload *w, size_t n, uint64_t seed)
{
    static const char *const names[4] = {"alexnet", "resnet50", "vgg19", "ssd"};
    static const double min_slo[4] = {8, 20, 30, 30};
    uint64_t s = seed * 2862933555777941757ULL + 3037000493ULL;
    for (size_t i = 0; i < n; i++) {
        int m;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        m = (int)((s >> 33) % 4);
        memset(&w[i], 0, sizeof w[i]);
        snprintf(w[i].model, sizeof w[i].model, "%s", names[m]);
        w[i].slo_ms = min_slo[m] * (1.0 + 5.0 * (double)((s >> 12) & 0xffff) / 65536.0);
        w[i].rate_rps = 1.0 + 2999.0 * (double)((s >> 40) & 0xffff) / 65536.0;
    }
}

static void seeded_sets(void **state)
{
    static const size_t sizes[8] = {10, 37, 100, 250, 500, 1000, 2000, 3000};
    struct slo_ig_profile prof[4];
    static const char *const pname[4] = {"v100", "v100-calibrated", "v100 unit 1.25",
                                         "v100 unit 2.2"};
    int sets = 0;
    (void)state;
    open_profile("v100", 3.06, 0.0, &prof[0]);
    open_profile("v100-calibrated", 3.06, 0.0, &prof[1]);
    open_profile("v100", 3.06, 1.25, &prof[2]);
    open_profile("v100", 3.06, 2.2, &prof[3]);
    for (uint64_t seed = 1; seed <= 60; seed++) {
        size_t n = sizes[seed % 8];
        int wide = seed > 40, pi = (int)(seed % 4);
        struct slo_ig_workload *w = malloc(n * sizeof *w);
        char label[128];
        assert_non_null(w);
        if (wide) {
            n = n > 1000 ? 1000 : n; /* wide sets split often: smaller */
            wide_workloads(w, n, seed);
        } else {
            refdata_seeded_workloads(w, n, seed);
        }
        snprintf(label, sizeof label, "%s set, seed %u, %zu workloads, %s",
                 wide ? "wide" : "bench", (unsigned)seed, n, pname[pi]);
        identical(&prof[pi], 1, w, n, SLO_IG_POLICY_IGNITER, label);
        if (n <= 500) /* the baselines share the scan; kept short */
            for (int pol = SLO_IG_POLICY_FFD; pol <= SLO_IG_POLICY_GPULETS; pol++)
                identical(&prof[pi], 1, w, n, pol, label);
        sets++;
        free(w);
    }
    assert_true(sets >= 50);
    for (int i = 0; i < 4; i++)
        slo_ig_profile_free(&prof[i]);
}

/* Consolidation's room test (cannot_empty) on coarse units, where a GPU's
 * room holds few tenants and the test decides often, both ways: bench and
 * wide sets of 20-400 workloads at u = 5, 10, 12.5 and 25 %. */
static void coarse_units(void **state)
{
    static const double units[4] = {5.0, 10.0, 12.5, 25.0};
    static const size_t sizes[4] = {20, 60, 150, 400};
    (void)state;
    for (int ui = 0; ui < 4; ui++) {
        struct slo_ig_profile p;
        open_profile("v100", 3.06, units[ui], &p);
        for (uint64_t seed = 101; seed <= 112; seed++) {
            size_t n = sizes[seed % 4];
            struct slo_ig_workload *w = malloc(n * sizeof *w);
            char label[128];
            int wide = seed % 2 == 0;
            assert_non_null(w);
            if (wide)
                wide_workloads(w, n, seed);
            else
                refdata_seeded_workloads(w, n, seed);
            snprintf(label, sizeof label, "%s set, seed %u, %zu workloads, unit %g %%",
                     wide ? "wide" : "bench", (unsigned)seed, n, units[ui]);
            identical(&p, 1, w, n, SLO_IG_POLICY_IGNITER, label);
            free(w);
        }
        slo_ig_profile_free(&p);
    }
}

static void ten_thousand(void **state)
{
    size_t n = 10000;
    struct slo_ig_profile p;
    struct slo_ig_workload *w = malloc(n * sizeof *w);
    (void)state;
    assert_non_null(w);
    open_profile("v100", 3.06, 0.0, &p);
    refdata_seeded_workloads(w, n, 7 + (uint64_t)n); /* bench_infer's 10,000 */
    identical(&p, 1, w, n, SLO_IG_POLICY_IGNITER, "bench set, 10000 workloads");
    refdata_seeded_workloads(w, n, 424242);
    identical(&p, 1, w, n, SLO_IG_POLICY_IGNITER, "bench set, seed 424242, 10000 workloads");
    slo_ig_profile_free(&p);
    free(w);
}

static void two_types(void **state)
{
    size_t n = 1500;
    struct slo_ig_profile p[2];
    struct slo_ig_workload *w = malloc(n * sizeof *w);
    (void)state;
    assert_non_null(w);
    open_profile("v100", 3.06, 0.0, &p[0]);
    open_profile("v100", 2.2, 1.25, &p[1]); /* a cheaper, finer-grained copy */
    refdata_seeded_workloads(w, n, 99);
    identical(p, 2, w, n, SLO_IG_POLICY_IGNITER, "two types, 1500 workloads");
    identical(p, 2, w, 200, SLO_IG_POLICY_FFD, "two types, 200 workloads");
    slo_ig_profile_free(&p[0]);
    slo_ig_profile_free(&p[1]);
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_algorithm_cases),
        cmocka_unit_test(seeded_sets),
        cmocka_unit_test(coarse_units),
        cmocka_unit_test(ten_thousand),
        cmocka_unit_test(two_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
