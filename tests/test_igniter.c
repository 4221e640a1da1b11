/*
 * test_igniter.c - the iGniter inference model, fits and planner against the
 * reference data in $SLO_REFERENCE_DATA/igniter/:
 *   upstream-HEAD/i-Gniter/Algorithm/config   (the V100 profile, JSON-lines)
 *   derived/golden_vectors.json               (upstream Python's outputs on it)
 *   upstream-history/9901e6b/.../testcon.log  (measured pair co-locations)
 *   upstream-HEAD/.../Profile/tools/gpulet.config (interference block)
 *   upstream-history/e4b3c76/.../config_gpu1.json (upstream plan, README case)
 * Exit 77 (skipped) when SLO_REFERENCE_DATA is unset or empty.
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

#include "refdata.h"
#include "slo.h"
#include "slo_infer.h"

#define PROFILE "igniter/upstream-HEAD/i-Gniter/Algorithm/config"
#define GOLDEN "igniter/derived/golden_vectors.json"
#define TESTCON "igniter/upstream-history/9901e6b/i-Gniter/Profile/tools/testcon.log"
#define GPULET "igniter/upstream-HEAD/i-Gniter/Profile/tools/gpulet.config"
#define CONFIG_GPU1 "igniter/upstream-history/e4b3c76/i-Gniter/Algorithm/config_gpu1.json"
#define LAUNCH_CONFIG "igniter/upstream-history/31a7909/i-Gniter/Launch/config.json"

struct fixture {
    struct slo_ig_profile fitted;  /* fitted by us from PROFILE */
    struct slo_ig_profile golden;  /* same constants, golden coefficients */
    json_t *gv;
};

static char ref_dir[4096];

static void path_of(char *buf, size_t len, const char *rel)
{
    snprintf(buf, len, "%s/%s", ref_dir, rel);
}

static char *slurp(const char *rel)
{
    char path[4200];
    path_of(path, sizeof path, rel);
    return refdata_read_file(path);
}

static double rel_err(double got, double want)
{
    double d = fabs(got - want);
    return want != 0.0 ? d / fabs(want) : d;
}

static double num(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        fail_msg("golden vectors: %s is not a number", key);
    return json_number_value(v);
}

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);
    slo_error_t err;
    char path[4200];
    json_error_t jerr;
    json_t *models, *hw;

    assert_non_null(fx);
    path_of(path, sizeof path, PROFILE);
    if (slo_ig_profile_load(path, &fx->fitted, &err))
        fail_msg("%s: %s", err.source, err.text);
    if (slo_ig_profile_load(path, &fx->golden, &err))
        fail_msg("%s: %s", err.source, err.text);
    path_of(path, sizeof path, GOLDEN);
    fx->gv = json_load_file(path, 0, &jerr);
    if (!fx->gv)
        fail_msg("%s: %s", path, jerr.text);
    /* The golden profile: upstream's own fitted coefficients. */
    hw = json_object_get(fx->gv, "hardware");
    fx->golden.clock_slope_mhz_per_w = num(hw, "freq_slope_a_MHz_per_W");
    fx->golden.sched_alpha_ms = num(hw, "sched_alpha_ms_per_kernel_per_workload");
    fx->golden.sched_beta_ms = num(hw, "sched_beta_ms_per_kernel");
    models = json_object_get(fx->gv, "models");
    for (size_t i = 0; i < fx->golden.n_models; i++) {
        struct slo_ig_model *m = &fx->golden.models[i];
        json_t *g = json_object_get(models, m->name);
        assert_non_null(g);
        for (size_t k = 0; k < 5; k++)
            m->k[k] = json_number_value(json_array_get(json_object_get(g, "act_k1_k5"), k));
        m->kp_w_per_rps = json_number_value(json_array_get(json_object_get(g, "power_kp_bp"), 0));
        m->bp_w = json_number_value(json_array_get(json_object_get(g, "power_kp_bp"), 1));
        m->kc_pct_per_rps = json_number_value(json_array_get(json_object_get(g, "l2_kc_bc"), 0));
        m->bc_pct = json_number_value(json_array_get(json_object_get(g, "l2_kc_bc"), 1));
        m->alpha_cache_per_pct = num(g, "alpha_cache_per_pct");
    }
    fx->fitted.usd_per_gpu_h = fx->golden.usd_per_gpu_h = 3.06; /* p3.2xlarge on demand */
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    slo_ig_profile_free(&fx->fitted);
    slo_ig_profile_free(&fx->golden);
    json_decref(fx->gv);
    free(fx);
    return 0;
}

/* The hardware constants of golden_vectors.json "hardware" against the
 * upstream config, and the fitted clock slope and scheduling coefficients. */
static void test_fit_hardware(void **state)
{
    struct fixture *fx = *state;
    json_t *hw = json_object_get(fx->gv, "hardware");
    const struct slo_ig_profile *p = &fx->fitted;
    double e1, e2, e3;

    assert_true(p->max_clock_mhz == num(hw, "F_max_MHz"));
    assert_true(p->power_cap_w == num(hw, "P_max_W"));
    assert_true(p->idle_power_w == num(hw, "P_idle_W"));
    assert_true(p->unit_pct == num(hw, "unit_pct"));
    assert_true(p->bandwidth_bytes_per_ms == num(hw, "B_pcie_bytes_per_ms"));
    e1 = rel_err(p->clock_slope_mhz_per_w, num(hw, "freq_slope_a_MHz_per_W"));
    e2 = rel_err(p->sched_alpha_ms, num(hw, "sched_alpha_ms_per_kernel_per_workload"));
    e3 = rel_err(p->sched_beta_ms, num(hw, "sched_beta_ms_per_kernel"));
    print_message("hardware fit vs golden: a %.2e, alpha_sch %.2e, beta_sch %.2e (relative)\n",
                  e1, e2, e3);
    assert_true(e1 < 1e-6 && e2 < 1e-6 && e3 < 1e-6);
}

/*
 * golden_vectors.json "models": k1..k5 (LM), (kp, bp), (kc, bc), alpha_cache.
 * All within 1e-3 relative, except ResNet-50's k3: the research notes (1.4)
 * found the surface flat in that direction (k3 = -0.0104 from scipy, -0.0113
 * from an independent LM); k3/(r + k4) is at most 0.0011 ms next to >= 2 ms of
 * active time. For it we check instead that the fitted surface agrees with
 * scipy's at the 9 profiled grid points to 1e-4, and that our sum of squared
 * residuals is no larger than scipy's (both minimise the same objective).
 */
static void test_fit_models(void **state)
{
    struct fixture *fx = *state;
    double worst = 0.0;
    static const int grid_b[3] = {1, 16, 32};
    static const double grid_r[3] = {10, 50, 100};

    for (size_t i = 0; i < fx->fitted.n_models; i++) {
        const struct slo_ig_model *m = &fx->fitted.models[i], *g = &fx->golden.models[i];
        double e[10];
        e[0] = rel_err(m->k[0], g->k[0]);
        e[1] = rel_err(m->k[1], g->k[1]);
        e[2] = strcmp(m->name, "resnet50") ? rel_err(m->k[2], g->k[2]) : 0.0;
        e[3] = rel_err(m->k[3], g->k[3]);
        e[4] = rel_err(m->k[4], g->k[4]);
        e[5] = rel_err(m->kp_w_per_rps, g->kp_w_per_rps);
        e[6] = rel_err(m->bp_w, g->bp_w);
        e[7] = rel_err(m->kc_pct_per_rps, g->kc_pct_per_rps);
        e[8] = rel_err(m->bc_pct, g->bc_pct);
        e[9] = rel_err(m->alpha_cache_per_pct, g->alpha_cache_per_pct);
        for (int k = 0; k < 10; k++) {
            if (e[k] > worst)
                worst = e[k];
            if (e[k] > 1e-3)
                fail_msg("%s coefficient %d: relative error %g > 1e-3", m->name, k, e[k]);
        }
        if (!strcmp(m->name, "resnet50")) {
            double sse_us = 0.0, sse_ref = 0.0, surf = 0.0;
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    double y = m->raw.gpu_latency_ms[a][b];
                    double us = slo_ig_active_solo_ms(m, grid_b[a], grid_r[b]);
                    double ref = slo_ig_active_solo_ms(g, grid_b[a], grid_r[b]);
                    if (m->raw.clock_mhz[a][b] < fx->fitted.max_clock_mhz)
                        y *= m->raw.clock_mhz[a][b] / fx->fitted.max_clock_mhz;
                    y -= m->t_sch_solo_ms;
                    sse_us += (us - y) * (us - y);
                    sse_ref += (ref - y) * (ref - y);
                    if (rel_err(us, ref) > surf)
                        surf = rel_err(us, ref);
                }
            print_message("resnet50 k3: ours %.6g, scipy %.6g; surface max rel diff %.2e; "
                          "SSE ours %.10g scipy %.10g\n",
                          m->k[2], g->k[2], surf, sse_us, sse_ref);
            assert_true(surf < 1e-4);
            assert_true(sse_us <= sse_ref * (1 + 1e-9));
        }
    }
    print_message("model fits vs golden: max relative error %.2e (ResNet-50 k3 aside)\n", worst);
}

/* Run the 13 golden_vectors.json "predict_cases" on profile p; returns the
 * largest relative error over every intermediate and output. */
static double predict_cases(const struct fixture *fx, const struct slo_ig_profile *p)
{
    json_t *cases = json_object_get(fx->gv, "predict_cases");
    double worst = 0.0;

    assert_int_equal(json_array_size(cases), 13);
    for (size_t c = 0; c < json_array_size(cases); c++) {
        json_t *cs = json_array_get(cases, c);
        json_t *models = json_object_get(cs, "models"), *per = json_object_get(cs, "per_workload");
        size_t n = json_array_size(models);
        struct slo_ig_tenant t[8];
        struct slo_ig_prediction o[8];
        struct slo_ig_gpu_state st;
        slo_error_t err;
        double e;

        assert_true(n <= 8);
        for (size_t i = 0; i < n; i++) {
            t[i].model = slo_ig_find_model(p, json_string_value(json_array_get(models, i)));
            assert_true(t[i].model >= 0);
            t[i].batch = (int)json_integer_value(json_array_get(json_object_get(cs, "batch"), i));
            t[i].share_pct =
                json_number_value(json_array_get(json_object_get(cs, "resource_pct"), i));
        }
        if (slo_ig_predict(p, t, n, o, &st, &err))
            fail_msg("case %zu: %s", c, err.text);
#define CHECK(got, want)                                                                      \
    do {                                                                                      \
        e = rel_err((got), (want));                                                           \
        if (e > worst)                                                                        \
            worst = e;                                                                        \
    } while (0)
        CHECK(st.total_power_w, num(cs, "P_total_W"));
        CHECK(st.clock_mhz, num(cs, "freq_MHz"));
        CHECK(st.delta_sch_ms_per_kernel + 1.0, num(cs, "delta_sch_ms_per_kernel") + 1.0);
        for (size_t i = 0; i < n; i++) {
            json_t *w = json_array_get(per, i);
            CHECK(o[i].t_act_solo_ms, num(w, "t_act_solo_ms"));
            CHECK(o[i].solo_capability_rps, num(w, "solo_capability_req_per_s"));
            CHECK(o[i].power_w, num(w, "power_W"));
            CHECK(o[i].l2_pct, num(w, "l2_pct"));
            CHECK(o[i].latency_ms,
                  json_number_value(json_array_get(json_object_get(cs, "latency_ms"), i)));
            CHECK(o[i].throughput_rps,
                  json_number_value(
                      json_array_get(json_object_get(cs, "throughput_req_per_s"), i)));
        }
#undef CHECK
    }
    return worst;
}

/* The model itself: with upstream's coefficients the 13 cases (Figures
 * 11-13, power-capped, solo) match to rounding. */
static void test_predict_golden_coefficients(void **state)
{
    struct fixture *fx = *state;
    double worst = predict_cases(fx, &fx->golden);
    print_message("13 predict cases, golden coefficients: max relative error %.2e\n", worst);
    assert_true(worst < 1e-12);
}

/* End to end: fitted by us from the upstream config, the same 13 cases. */
static void test_predict_fitted(void **state)
{
    struct fixture *fx = *state;
    double worst = predict_cases(fx, &fx->fitted);
    print_message("13 predict cases, our fit: max relative error %.2e\n", worst);
    assert_true(worst < 1e-3);
}

/* Paper Figure 11 as printed (research notes 1.4): 28.04963 and 13.64733 ms. */
static void test_predict_figure11_printed(void **state)
{
    struct fixture *fx = *state;
    struct slo_ig_tenant t[2] = {{slo_ig_find_model(&fx->fitted, "vgg19"), 3, 20},
                                 {slo_ig_find_model(&fx->fitted, "ssd"), 3, 80}};
    struct slo_ig_prediction o[2];
    assert_int_equal(slo_ig_predict(&fx->fitted, t, 2, o, NULL, NULL), SLO_OK);
    assert_true(fabs(o[0].latency_ms - 28.04963) < 5e-4);
    assert_true(fabs(o[1].latency_ms - 13.64733) < 5e-4);
}

static size_t load_workloads(json_t *input, struct slo_ig_workload *w, size_t cap)
{
    size_t n = json_array_size(input);
    assert_true(n <= cap);
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(input, i);
        memset(&w[i], 0, sizeof w[i]);
        snprintf(w[i].model, sizeof w[i].model, "%s",
                 json_string_value(json_object_get(o, "model")));
        w[i].slo_ms = num(o, "slo_ms");
        w[i].rate_rps = num(o, "rate_req_per_s");
    }
    return n;
}

static void verify_or_fail(const struct slo_ig_profile *p, const struct slo_ig_workload *w,
                           size_t n, const struct slo_ig_plan *plan)
{
    slo_error_t err;
    if (slo_ig_plan_verify(p, 1, w, n, plan, &err))
        fail_msg("verifier: %s", err.text);
}

/*
 * golden_vectors.json "algorithm_cases" 0-2 (README motivation example =
 * upstream config_gpu1.json; Experiment 4 = Figure 16; Experiment 5): the
 * per-workload (batch, r_low) and the plan exactly: GPU count, tenant order,
 * shares, batches. Run on our fitted profile.
 */
static void test_algorithm_readme_cases(void **state)
{
    struct fixture *fx = *state;
    json_t *cases = json_object_get(fx->gv, "algorithm_cases");

    for (size_t c = 0; c < 3; c++) {
        json_t *cs = json_array_get(cases, c);
        json_t *lb = json_object_get(cs, "per_workload_lower_bounds_from_full_rate");
        json_t *gpus = json_object_get(cs, "output_gpus");
        struct slo_ig_workload w[16];
        struct slo_ig_plan plan;
        slo_error_t err;
        size_t n = load_workloads(json_object_get(cs, "input"), w, 16);

        for (size_t i = 0; i < n; i++) {
            struct slo_ig_bounds b;
            json_t *g = json_array_get(lb, i);
            assert_int_equal(slo_ig_workload_bounds(&fx->fitted, &w[i], &b, NULL), SLO_OK);
            assert_int_equal(b.batch, json_integer_value(json_object_get(g, "batch")));
            assert_true(b.r_low_pct == num(g, "r_lower_pct"));
            assert_true(rel_err(b.gamma, num(g, "gamma")) < 1e-3);
            assert_true(rel_err(b.delta_ms, num(g, "delta_ms")) < 1e-3);
        }
        if (slo_ig_plan(&fx->fitted, 1, w, n, SLO_IG_POLICY_IGNITER, &plan, &err))
            fail_msg("case %zu: %s", c, err.text);
        assert_int_equal(plan.n_gpus, json_array_size(gpus));
        for (size_t j = 0; j < plan.n_gpus; j++) {
            json_t *g = json_array_get(gpus, j);
            json_t *models = json_object_get(g, "models");
            assert_int_equal(plan.gpus[j].count, json_array_size(models));
            for (size_t i = 0; i < plan.gpus[j].count; i++) {
                const struct slo_ig_placement *pl = &plan.placements[plan.gpus[j].first + i];
                assert_string_equal(w[pl->workload].model,
                                    json_string_value(json_array_get(models, i)));
                assert_true(pl->share_pct ==
                            json_number_value(json_array_get(json_object_get(g, "resources"), i)));
                assert_int_equal(pl->batch, json_integer_value(json_array_get(
                                                json_object_get(g, "batches"), i)));
            }
        }
        assert_int_equal(plan.n_violations, 0);
        assert_true(fabs(plan.cost_usd_per_h - 3.06 * (double)plan.n_gpus) < 1e-12);
        verify_or_fail(&fx->fitted, w, n, &plan);
        slo_ig_plan_free(&plan);
    }
}

/* The README plan against the upstream file it produced, config_gpu1.json
 * (history e4b3c76): shares 37.5/30/10 %, batches 6/8/4; and research notes
 * 2.4's predicted latencies 28.73 / 18.91 / 6.92 ms against T' 30/20/7.5. */
static void test_algorithm_config_gpu1(void **state)
{
    struct fixture *fx = *state;
    char *text = slurp(CONFIG_GPU1);
    json_error_t jerr;
    json_t *cfg = json_loads(text, 0, &jerr);
    struct slo_ig_workload w[3] = {{"alexnet", 500, 15}, {"resnet50", 400, 40}, {"vgg19", 200, 60}};
    static const double lat[3] = {28.73, 18.91, 6.92};
    struct slo_ig_plan plan;

    assert_non_null(cfg);
    assert_int_equal(slo_ig_plan(&fx->fitted, 1, w, 3, SLO_IG_POLICY_IGNITER, &plan, NULL), SLO_OK);
    assert_int_equal(plan.n_gpus, 1);
    for (size_t i = 0; i < 3; i++) {
        const struct slo_ig_placement *pl = &plan.placements[i];
        assert_true(pl->share_pct ==
                    json_number_value(json_array_get(json_object_get(cfg, "resources"), i)));
        assert_int_equal(pl->batch,
                         json_integer_value(json_array_get(json_object_get(cfg, "batches"), i)));
        assert_true(fabs(pl->latency_ms - lat[i]) < 0.005);
    }
    slo_ig_plan_free(&plan);
    json_decref(cfg);
    free(text);
}

/*
 * golden_vectors.json "algorithm_cases"[3]: the 12 workloads of upstream
 * predict.py. Upstream emits 9 GPUs, and two defects (notes 5.2) show:
 *  - resnet50:5:400 gets r_low = 127.5 % (delta = 0.456 ms) and no batch
 *    meets T' = 2.5 ms even on a whole GPU (batch 1 alone takes 2.62 ms), yet
 *    upstream places it alone at 127.5 %, a GPU above 100 %;
 *  - the dedicated GPUs of ssd:15:200 and ssd:25:300 carry batch[b*] (the
 *    batch of whichever workload has index b*) instead of b* itself: upstream
 *    writes batch 2 (= batch[1], alexnet:7.5:500's) for ssd:15:200 whose b* is
 *    1 at T' = 7.5 ms, and batch 1 (= batch[3], resnet50's) for ssd:25:300
 *    whose b* is 3 at T' = 12.5 ms.
 * With the defects fixed, the request as a whole is infeasible: we report
 * resnet50 (workload 4) as unservable and name the numbers. Without it, the
 * other 11 are planned: the dedicated SSD GPUs carry b* (1 and 3), rates
 * 149 and 238 req/s as upstream (ceil(0.9 h(b*))), the residuals 51 and 62
 * req/s are placed like any workload, no GPU exceeds 100 % and the verifier
 * passes.
 */
static void test_algorithm_twelve_fixed(void **state)
{
    struct fixture *fx = *state;
    json_t *cs = json_array_get(json_object_get(fx->gv, "algorithm_cases"), 3);
    struct slo_ig_workload w[16], w11[16];
    struct slo_ig_plan plan;
    slo_error_t err;
    size_t n = load_workloads(json_object_get(cs, "input"), w, 16), k = 0, n_ded = 0;
    double ssd_rates[2] = {0, 0};
    int ssd_batches[2] = {0, 0};

    assert_int_equal(n, 12);
    assert_int_equal(slo_ig_plan(&fx->fitted, 1, w, n, SLO_IG_POLICY_IGNITER, &plan, &err),
                     SLO_ERR_INFEASIBLE);
    assert_non_null(strstr(err.text, "workload 4 (resnet50"));
    assert_int_equal(plan.n_gpus, 0);
    for (size_t i = 0; i < n; i++)
        if (i != 3)
            w11[k++] = w[i];
    assert_int_equal(slo_ig_plan(&fx->fitted, 1, w11, k, SLO_IG_POLICY_IGNITER, &plan, &err),
                     SLO_OK);
    verify_or_fail(&fx->fitted, w11, k, &plan);
    for (size_t j = 0; j < plan.n_gpus; j++) {
        const struct slo_ig_plan_gpu *g = &plan.gpus[j];
        assert_true(g->share_pct <= 100.0);
        if (g->dedicated) {
            const struct slo_ig_placement *pl = &plan.placements[g->first];
            assert_string_equal(w11[pl->workload].model, "ssd");
            ssd_batches[n_ded < 2 ? n_ded : 1] = pl->batch;
            ssd_rates[n_ded < 2 ? n_ded : 1] = pl->rate_rps;
            n_ded++;
        }
    }
    assert_int_equal(n_ded, 2);
    assert_true(ssd_rates[0] == 149.0 && ssd_rates[1] == 238.0);
    assert_int_equal(ssd_batches[0], 1);
    assert_int_equal(ssd_batches[1], 3);
    print_message("12-workload case without resnet50:5:400: %zu GPUs (upstream 9 incl. the "
                  "127.5 %% one), %.2f USD/h\n",
                  plan.n_gpus, plan.cost_usd_per_h);
    slo_ig_plan_free(&plan);
}

/* Experiment 5 against the launcher's config (history 31a7909): resnet50 45 %
 * b9, ssd 15 % b1; alexnet 30 % there = our 20 % + the 10 % shadow (notes 2.4). */
static void test_algorithm_launch_config(void **state)
{
    struct fixture *fx = *state;
    char *text = slurp(LAUNCH_CONFIG);
    json_t *cfg = json_loads(text, 0, NULL);
    struct slo_ig_workload w[3] = {{"alexnet", 1200, 10}, {"resnet50", 600, 30}, {"ssd", 50, 40}};
    struct slo_ig_plan plan;
    json_t *models, *res, *bat;

    assert_non_null(cfg);
    models = json_object_get(cfg, "models");
    res = json_object_get(cfg, "resources");
    bat = json_object_get(cfg, "batches");
    assert_int_equal(slo_ig_plan(&fx->fitted, 1, w, 3, SLO_IG_POLICY_IGNITER, &plan, NULL), SLO_OK);
    assert_int_equal(plan.n_gpus, 1);
    for (size_t i = 0; i < json_array_size(models); i++) {
        const char *name = json_string_value(json_array_get(models, i));
        for (size_t k = 0; k < plan.n_placements; k++) {
            const struct slo_ig_placement *pl = &plan.placements[k];
            double want = json_number_value(json_array_get(res, i));
            if (strncmp(w[pl->workload].model, name, strlen(w[pl->workload].model)))
                continue;
            assert_int_equal(pl->batch, json_integer_value(json_array_get(bat, i)));
            assert_true(pl->share_pct == (strstr(name, "alexnet") ? want - 10.0 : want));
        }
    }
    slo_ig_plan_free(&plan);
    json_decref(cfg);
    free(text);
}

/* Independent verifier on random requests, every policy's igniter plan. */
static void test_verifier_random(void **state)
{
    struct fixture *fx = *state;
    static const char *const names[4] = {"alexnet", "resnet50", "vgg19", "ssd"};
    static const double min_slo[4] = {8, 20, 30, 30};
    uint64_t s = 42;
    size_t plans = 0, gpus = 0;

    for (int trial = 0; trial < 60; trial++) {
        struct slo_ig_workload w[40];
        struct slo_ig_plan plan;
        slo_error_t err;
        size_t n = 1 + (size_t)(trial % 40);
        for (size_t i = 0; i < n; i++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            int m = (int)((s >> 33) % 4);
            snprintf(w[i].model, sizeof w[i].model, "%s", names[m]);
            w[i].slo_ms = min_slo[m] + (double)((s >> 20) % 60);
            w[i].rate_rps = 20.0 + (double)((s >> 40) % 1500);
        }
        if (slo_ig_plan(&fx->fitted, 1, w, n, SLO_IG_POLICY_IGNITER, &plan, &err))
            fail_msg("trial %d: %s", trial, err.text);
        verify_or_fail(&fx->fitted, w, n, &plan);
        assert_int_equal(plan.n_violations, 0);
        plans++;
        gpus += plan.n_gpus;
        /* The verifier is not a rubber stamp: overfill one GPU, or cut a share. */
        if (plan.gpus[0].count >= 1) {
            struct slo_ig_placement *pl = &plan.placements[plan.gpus[0].first];
            double keep = pl->share_pct;
            pl->share_pct = keep + 100.0;
            assert_int_equal(slo_ig_plan_verify(&fx->fitted, 1, w, n, &plan, NULL),
                             SLO_ERR_INFEASIBLE);
            pl->share_pct = 2.5;
            if (keep > 2.5)
                assert_int_equal(slo_ig_plan_verify(&fx->fitted, 1, w, n, &plan, NULL),
                                 SLO_ERR_INFEASIBLE);
            pl->share_pct = keep;
            pl->rate_rps += 1.0;
            assert_int_equal(slo_ig_plan_verify(&fx->fitted, 1, w, n, &plan, NULL),
                             SLO_ERR_INFEASIBLE);
        }
        slo_ig_plan_free(&plan);
    }
    print_message("verifier: %zu random plans, %zu GPUs, all feasible\n", plans, gpus);
}

/* Baselines: FFD on solo shares packs at least as tightly but the model
 * predicts SLO violations on the README example (research notes 2.5);
 * every baseline plan serves every rate and keeps GPUs <= 100 %. */
static void test_baselines(void **state)
{
    struct fixture *fx = *state;
    struct slo_ig_workload w[3] = {{"alexnet", 500, 15}, {"resnet50", 400, 40}, {"vgg19", 200, 60}};
    struct slo_ig_plan plan;

    assert_int_equal(slo_ig_plan(&fx->fitted, 1, w, 3, SLO_IG_POLICY_FFD, &plan, NULL), SLO_OK);
    assert_int_equal(plan.n_gpus, 1);
    /* FFD keeps the solo lower bounds 35 + 27.5 + 10 = 72.5 % */
    assert_true(plan.gpus[0].share_pct == 72.5);
    assert_true(plan.n_violations > 0);
    slo_ig_plan_free(&plan);
    for (int pol = SLO_IG_POLICY_GSLICE; pol <= SLO_IG_POLICY_GPULETS; pol++) {
        assert_int_equal(slo_ig_plan(&fx->fitted, 1, w, 3, pol, &plan, NULL), SLO_OK);
        for (size_t j = 0; j < plan.n_gpus; j++)
            assert_true(plan.gpus[j].share_pct <= 100.0);
        print_message("%s: %zu GPUs, %zu predicted violations\n", slo_ig_policy_name(pol),
                      plan.n_gpus, plan.n_violations);
        slo_ig_plan_free(&plan);
    }
    /* The same 60 random requests as test_verifier_random under every policy:
     * the interference-blind baselines pack about as tightly but the model
     * predicts SLO violations on their plans; iGniter's have none. */
    {
        static const char *const names[4] = {"alexnet", "resnet50", "vgg19", "ssd"};
        static const double min_slo[4] = {8, 20, 30, 30};
        size_t gpus[4] = {0, 0, 0, 0}, viol[4] = {0, 0, 0, 0}, placements[4] = {0, 0, 0, 0};
        uint64_t s = 42;
        for (int trial = 0; trial < 60; trial++) {
            struct slo_ig_workload wr[40];
            size_t n = 1 + (size_t)(trial % 40);
            for (size_t i = 0; i < n; i++) {
                s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                int m = (int)((s >> 33) % 4);
                snprintf(wr[i].model, sizeof wr[i].model, "%s", names[m]);
                wr[i].slo_ms = min_slo[m] + (double)((s >> 20) % 60);
                wr[i].rate_rps = 20.0 + (double)((s >> 40) % 1500);
            }
            for (int pol = 0; pol < 4; pol++) {
                assert_int_equal(slo_ig_plan(&fx->fitted, 1, wr, n, pol, &plan, NULL), SLO_OK);
                gpus[pol] += plan.n_gpus;
                viol[pol] += plan.n_violations;
                placements[pol] += plan.n_placements;
                for (size_t j = 0; j < plan.n_gpus; j++)
                    assert_true(plan.gpus[j].share_pct <= 100.0);
                slo_ig_plan_free(&plan);
            }
        }
        for (int pol = 0; pol < 4; pol++)
            print_message("60 random requests, %-7s: %4zu GPUs, %3zu of %4zu placements "
                          "predicted to miss SLO/2 or their rate\n",
                          slo_ig_policy_name(pol), gpus[pol], viol[pol], placements[pol]);
        assert_int_equal(viol[SLO_IG_POLICY_IGNITER], 0);
        assert_true(viol[SLO_IG_POLICY_FFD] > 0);
        assert_true(gpus[SLO_IG_POLICY_FFD] <= gpus[SLO_IG_POLICY_IGNITER]);
    }
}

/*
 * Accuracy on measured co-locations, with our fitted coefficients:
 * testcon.log (540 latencies) and the gpulet.config interference block
 * (1500). The upstream model's figure is MAPE 3.64 % / 3.66 % (notes 1.5,
 * golden "model_accuracy_my_computation"); the issue asks for <= 3.7 %.
 */
static void accuracy_on(void **state, const char *rel, const char *golden_key, size_t n_want)
{
    struct fixture *fx = *state;
    char *text = slurp(rel);
    double *ape, mean, median, p90, max;
    size_t n;
    slo_error_t err;
    json_t *acc = json_object_get(fx->gv, "model_accuracy_my_computation"), *g = NULL;
    const char *key;
    json_t *v;

    if (slo_ig_colocation_errors(&fx->fitted, text, rel, &ape, &n, &err))
        fail_msg("%s: %s", err.source, err.text);
    slo_ig_error_summary(ape, n, &mean, &median, &p90, &max);
    json_object_foreach(acc, key, v)
        if (strstr(key, golden_key))
            g = v;
    assert_non_null(g);
    print_message("%s: n %zu, MAPE %.3f %%, median %.3f %%, p90 %.3f %%, max %.2f %% "
                  "(upstream model: %.3f / %.3f / %.3f / %.2f)\n",
                  rel, n, mean, median, p90, max, num(g, "mean_abs_pct_err"), num(g, "median"),
                  num(g, "p90"), num(g, "max"));
    assert_int_equal(n, n_want);
    assert_true(mean <= 3.7);
    assert_true(fabs(mean - num(g, "mean_abs_pct_err")) < 0.005);
    assert_true(fabs(median - num(g, "median")) < 0.005);
    assert_true(fabs(p90 - num(g, "p90")) < 0.005);
    free(ape);
    free(text);
}

static void test_accuracy_testcon(void **state)
{
    accuracy_on(state, TESTCON, "testcon.log", 540);
}

static void test_accuracy_gpulet(void **state)
{
    accuracy_on(state, GPULET, "gpulet.config", 1500);
}

/* Bad input: each must fail with a message naming the problem, nothing partial. */
static void expect_profile_error(const char *text, const char *needle)
{
    struct slo_ig_profile p;
    slo_error_t err;
    int rv = slo_ig_profile_parse(text, "bad.json", &p, &err);
    assert_int_not_equal(rv, SLO_OK);
    assert_int_equal(p.n_models, 0);
    assert_null(p.models);
    if (!strstr(err.text, needle))
        fail_msg("expected \"%s\" in \"%s\"", needle, err.text);
    slo_ig_profile_free(&p);
}

static void test_bad_profiles(void **state)
{
    struct fixture *fx = *state;
    char *good = slurp(PROFILE), *bad;
    size_t len = strlen(good);
    (void)fx;
    expect_profile_error("{\"alexnet\": {\"inputdata\": 1}}\n", "hardware: expected a section");
    expect_profile_error("{\"hardware\": {\"idlepower\": 53.5}}\n{\"hardware\": [1]}\n",
                         "line 2: section \"hardware\": expected an object");
    expect_profile_error("{\"hardware\": {\"idlepower\": 53.5}}\n{\"hardware\": {\"unit\": \n",
                         "line 2");
    /* the upstream profile with one key broken, one missing */
    bad = malloc(len + 64);
    assert_non_null(bad);
    memcpy(bad, good, len + 1);
    memcpy(strstr(bad, "\"unit\": 2.5"), "\"unit\": \"x\"", 11);
    expect_profile_error(bad, "hardware.unit: expected a number in [0.01, 100], found the string");
    memcpy(bad, good, len + 1);
    {
        char *line = strstr(bad, "{\"ssd\": {\"l2caches\""), *eol = strchr(line, '\n');
        memmove(line, eol + 1, strlen(eol + 1) + 1); /* drop the line */
    }
    expect_profile_error(bad, "ssd.l2caches: expected an array of 3 numbers, found it missing");
    memcpy(bad, good, len + 1);
    memcpy(strstr(bad, "{\"ssd\": {\"l2caches\""), "{\"ssd\": {\"l2cache_\"", 19);
    expect_profile_error(bad, "ssd: \"l2cache_\": unknown field; expected one of:");
    free(bad);
    free(good);
}

/* HEAD loadprofile(): keys merge per section, later lines win. Appending
 * {"hardware": {"unit": 5}} to the upstream config (the T4's 40-SM unit)
 * makes every planned share a multiple of 5 %, the rest unchanged. */
static void test_jsonlines_later_lines_win(void **state)
{
    struct fixture *fx = *state;
    char *good = slurp(PROFILE), *text = malloc(strlen(good) + 64);
    struct slo_ig_profile p;
    struct slo_ig_workload w[3] = {{"alexnet", 500, 15}, {"resnet50", 400, 40}, {"vgg19", 200, 60}};
    struct slo_ig_plan plan;

    assert_non_null(text);
    /* the upstream file has no final newline */
    sprintf(text, "%s\n{\"hardware\": {\"unit\": 5}}\n", good);
    assert_int_equal(slo_ig_profile_parse(text, "merged", &p, NULL), SLO_OK);
    assert_true(p.unit_pct == 5.0);
    assert_true(p.idle_power_w == fx->fitted.idle_power_w);
    assert_true(p.models[3].k[1] == fx->fitted.models[3].k[1]);
    p.usd_per_gpu_h = 1.0;
    assert_int_equal(slo_ig_plan(&p, 1, w, 3, SLO_IG_POLICY_IGNITER, &plan, NULL), SLO_OK);
    for (size_t i = 0; i < plan.n_placements; i++)
        assert_true(fmod(plan.placements[i].share_pct, 5.0) == 0.0);
    assert_int_equal(slo_ig_plan_verify(&p, 1, w, 3, &plan, NULL), SLO_OK);
    slo_ig_plan_free(&plan);
    slo_ig_profile_free(&p);
    free(text);
    free(good);
}

static void test_bad_requests(void **state)
{
    struct fixture *fx = *state;
    struct slo_ig_plan plan;
    slo_error_t err;
    struct slo_ig_workload unknown = {"bert", 100, 50}, zero = {"vgg19", 0, 50},
                           neg = {"vgg19", 100, -1}, tight = {"ssd", 100, 0.5};

    assert_int_equal(slo_ig_plan(&fx->fitted, 1, &unknown, 1, 0, &plan, &err), SLO_ERR_NOT_FOUND);
    assert_non_null(strstr(err.text, "found \"bert\""));
    assert_int_equal(slo_ig_plan(&fx->fitted, 1, &zero, 1, 0, &plan, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "expected a rate > 0"));
    assert_int_equal(slo_ig_plan(&fx->fitted, 1, &neg, 1, 0, &plan, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "expected an SLO > 0"));
    /* SLO/2 = 0.25 ms is shorter than SSD's transfers (0.405 ms per request) */
    assert_int_equal(slo_ig_plan(&fx->fitted, 1, &tight, 1, 0, &plan, &err), SLO_ERR_INFEASIBLE);
    assert_non_null(strstr(err.text, "no GPU type can serve it"));
    assert_int_equal(plan.n_gpus, 0);
    assert_null(plan.gpus);
}

/* Our own JSON: the coefficients the fit printed, read back, predict the same. */
static void test_coefficients_roundtrip(void **state)
{
    struct fixture *fx = *state;
    char *text = slo_ig_profile_coefficients_json(&fx->fitted);
    struct slo_ig_profile p;
    slo_error_t err;
    double worst;

    assert_non_null(text);
    if (slo_ig_profile_parse(text, "roundtrip", &p, &err))
        fail_msg("%s", err.text);
    worst = predict_cases(fx, &p);
    assert_true(worst < 1e-3);
    assert_int_equal(p.has_raw, 0);
    slo_ig_profile_free(&p);
    free(text);
}

/*
 * Issue 15, "Why", items 2-4: measured arrays that do not determine the fit,
 * appended as later JSON-lines to the upstream config (later lines win, HEAD
 * loadprofile()), each refused with file, field and the value or the reason.
 * The outcomes before issue 15 are in the comments.
 */
static void expect_with_lines(const char *good, const char *lines, const char *needle)
{
    char *text = malloc(strlen(good) + strlen(lines) + 2);
    assert_non_null(text);
    sprintf(text, "%s\n%s", good, lines);
    expect_profile_error(text, needle);
    free(text);
}

static void test_profile_undetermined(void **state)
{
    char *good = slurp(PROFILE);
    (void)state;

    /* The same solo capability h0 = 300 req/s at every alexnet grid point
     * (gpulatency = idletime_1 + 1000 b / h0, h0 perturbed by 1e-12 per
     * point). Before: kp = 2.76e13, bp = -1.38e17, exit 0, and a predicted
     * power of -3.3e9 W. */
    expect_with_lines(good,
                      "{\"alexnet\": {\"gpulatency\": [[3.3651016116258083, 3.3651016116224746, "
                      "3.3651016116191417], [53.36510161146581, 53.365101611412484, "
                      "53.365101611359144], [106.69843494431915, 106.6984349442125, "
                      "106.69843494410581]]}}\n",
                      "alexnet: the solo capabilities h0 = 1000 b / (gpulatency - idletime_1) "
                      "(req/s) of the power fit at the 8 points used are all 300");
    /* Power falling across the three un-throttled levels. Before: clock
     * slope +0.256 MHz/W, exit 0; its read-back refused; --predict showed a
     * clock above the 1530 MHz maximum. */
    expect_with_lines(good,
                      "{\"hardware\": {\"power\": [258.8888888888889, 184.88888888888889, "
                      "117.55555555555556, 296.1111111111111, 295.2]}}\n",
                      "hardware.power: expected the power to rise across the un-throttled "
                      "concurrency levels 1..3");
    /* Power rising, but the extrapolated throttled points stay below the
     * 300 W cap: the slope would be positive too. */
    expect_with_lines(good, "{\"hardware\": {\"power\": [100, 110, 120, 296.1, 295.2]}}\n",
                      "hardware.frequency: the fitted clock slope is ");
    /* The idle times: accepted before (only finiteness was checked),
     * sched_alpha_ms/sched_beta_ms dropped, --predict printed -nan. */
    expect_with_lines(good,
                      "{\"hardware\": {\"power\": [117.55555555555556, 184.88888888888889, "
                      "258.8888888888889], \"frequency\": [1530, 1530, 1530], "
                      "\"idletime\": [1e306, 0.002, 0.007]}}\n",
                      "hardware.idletime[0]: expected a number in [0, 1000] ms, found 1e+306");
    expect_with_lines(good,
                      "{\"hardware\": {\"idletime\": [0.0013685428280272927, -0.002, 0.007, "
                      "0.0119, 0.017]}}\n",
                      "hardware.idletime[1]: expected a number in [0, 1000] ms, found -0.002");
    /* An idle gap that shrinks with co-runners: alpha < 0. */
    expect_with_lines(good, "{\"hardware\": {\"idletime\": [0.017, 0.0119, 0.0068, 0.0017, 0.0014]}}\n",
                      "hardware.idletime: the fitted scheduling delay falls as co-runners are "
                      "added");
    expect_with_lines(good, "{\"hardware\": {\"power\": [-117.5, 184.9, 258.9, 296.1, 295.2]}}\n",
                      "hardware.power[0]: expected a number in [53.5, 600] W, found -117.5");
    expect_with_lines(good,
                      "{\"hardware\": {\"frequency\": [1536.7, 1530, 1530, 1485.6, 1431.4]}}\n",
                      "hardware.frequency[0]: expected a number in (0, 1530] MHz, found 1536.7");
    expect_with_lines(good, "{\"vgg19\": {\"power\": [[86.4, 179.8, -274.1], [89.1, 206.4, 295.1], "
                            "[85.3, 206.3, 299.0]]}}\n",
                      "vgg19.power[0][2]: expected a number in [53.5, 600] W, found -274.1");
    expect_with_lines(good, "{\"ssd\": {\"l2caches\": [3.2, 18.6, 133.2]}}\n",
                      "ssd.l2caches[2]: expected a number in [0, 100] %, found 133.2");
    expect_with_lines(good, "{\"ssd\": {\"frequency_2\": 1600}}\n",
                      "ssd.frequency_2: expected a number in [1, 1530]");
    free(good);
}

/* The workloads file's ranges (issue 15): a rate or SLO beyond any inference
 * service is refused naming the field and value. */
static void test_workloads_ranges(void **state)
{
    struct slo_ig_workload *w;
    size_t n;
    slo_error_t err;
    (void)state;

    assert_int_equal(slo_ig_workloads_parse("[{\"model\": \"vgg19\", \"rate_rps\": 1e306, "
                                            "\"slo_ms\": 60}]",
                                            "wk.json", &w, &n, &err),
                     SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "workloads[0].rate_rps: expected at most 1e+07 req/s, found 1e+306"));
    assert_null(w);
    assert_int_equal(slo_ig_workloads_parse("[{\"model\": \"vgg19\", \"rate_rps\": 100, "
                                            "\"slo_ms\": 1e300}]",
                                            "wk.json", &w, &n, &err),
                     SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "workloads[0].slo_ms: expected at most 1e+07 ms"));
}

/* xorshift64, fixed seed: uniform in [-1, 1]. */
static double perturb_u(uint64_t *st)
{
    uint64_t x = *st;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *st = x;
    return 2.0 * ((double)(x >> 11) / 9007199254740992.0) - 1.0;
}

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/*
 * Property (issue 15: "the fit's own output never fails read-back"): the
 * upstream V100 measurements, perturbed at random within the readers'
 * physical ranges (hardware power +-10 %, model power +-30 %, throttled
 * clocks +-3 %, idle gaps +-80 %, latencies +-20 %, L2 +-30 %, activetime_2
 * +-2 %, one draw in four with the hardware power levels reversed), 300
 * draws. Each either is refused by the fits with a
 * reason, or its coefficients read back, and every prediction on them is
 * finite with the clock in (0, maxGPUfrequency] - never above it, never NaN.
 * Both outcomes must occur, so the property tests both paths.
 */
static void test_fit_readback_property(void **state)
{
    struct fixture *fx = *state;
    const struct slo_ig_profile *base = &fx->fitted;
    uint64_t st = 0x15EEDull;
    int accepted = 0, refused = 0;

    for (int trial = 0; trial < 300; trial++) {
        struct slo_ig_profile q = *base, back;
        struct slo_ig_hw_raw *h = &q.raw;
        slo_error_t err = {0};
        int rv;
        char *text;

        q.models = malloc(base->n_models * sizeof *q.models);
        assert_non_null(q.models);
        memcpy(q.models, base->models, base->n_models * sizeof *q.models);
        for (size_t i = 0; i < h->n_concurrent; i++) {
            h->power_w[i] = clampd(h->power_w[i] * (1 + 0.1 * perturb_u(&st)), q.idle_power_w,
                                   2 * q.power_cap_w);
            if (h->clock_mhz[i] < q.max_clock_mhz)
                h->clock_mhz[i] = clampd(h->clock_mhz[i] * (1 + 0.03 * perturb_u(&st)), 1,
                                         q.max_clock_mhz);
            h->idle_gap_ms[i] *= 1 + 0.8 * perturb_u(&st);
        }
        if (perturb_u(&st) > 0.5)
            for (size_t i = 0; i < h->n_concurrent / 2; i++) {
                double t = h->power_w[i];
                h->power_w[i] = h->power_w[h->n_concurrent - 1 - i];
                h->power_w[h->n_concurrent - 1 - i] = t;
            }
        rv = slo_ig_fit_hardware(&q, &err);
        for (size_t k = 0; !rv && k < q.n_models; k++) {
            struct slo_ig_model_raw *r = &q.models[k].raw;
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < 3; j++) {
                    r->gpu_latency_ms[i][j] *= 1 + 0.2 * perturb_u(&st);
                    r->power_w[i][j] = clampd(r->power_w[i][j] * (1 + 0.3 * perturb_u(&st)),
                                              q.idle_power_w, 2 * q.power_cap_w);
                }
                r->l2_diag_pct[i] = clampd(r->l2_diag_pct[i] * (1 + 0.3 * perturb_u(&st)), 0, 100);
            }
            r->active_pair_ms *= 1 + 0.02 * perturb_u(&st);
            rv = slo_ig_fit_model(&q, &q.models[k], &err);
        }
        if (rv) {
            assert_int_equal(rv, SLO_ERR_INVALID);
            assert_true(err.text[0] != '\0');
            if (getenv("SLO_TEST_VERBOSE"))
                print_message("refused: %.110s\n", err.text);
            refused++;
            free(q.models);
            continue;
        }
        accepted++;
        text = slo_ig_profile_coefficients_json(&q);
        assert_non_null(text);
        if (slo_ig_profile_parse(text, "readback", &back, &err))
            fail_msg("trial %d: the fit's output does not read back: %s", trial, err.text);
        for (int b = 1; b <= 32; b += 31)
            for (double share = 10; share <= 100; share += 45) {
                struct slo_ig_tenant t[4];
                struct slo_ig_prediction out[4];
                struct slo_ig_gpu_state g;
                size_t n = back.n_models < 4 ? back.n_models : 4;
                for (size_t i = 0; i < n; i++)
                    t[i] = (struct slo_ig_tenant){(int)i, b, share};
                for (size_t m = 1; m <= n; m++) {
                    if (slo_ig_predict(&back, t, m, out, &g, &err) != SLO_OK)
                        continue; /* refused with a reason (e.g. outside the fitted range) */
                    assert_true(g.clock_mhz > 0 && g.clock_mhz <= back.max_clock_mhz);
                    assert_true(isfinite(g.total_power_w));
                    for (size_t i = 0; i < m; i++)
                        assert_true(isfinite(out[i].latency_ms) && out[i].latency_ms > 0 &&
                                    isfinite(out[i].throughput_rps) && isfinite(out[i].power_w));
                }
            }
        slo_ig_profile_free(&back);
        free(text);
        free(q.models);
    }
    print_message("fit read-back property: %d perturbed profiles fitted and read back, %d "
                  "refused with a reason\n",
                  accepted, refused);
    assert_true(accepted > 0 && refused > 0);
}

/* Copy text to out with the number after the first key replaced by value. */
static void replace_number(const char *text, const char *key, const char *value, char *out)
{
    const char *at = strstr(text, key);
    char *end;
    assert_non_null(at);
    at += strlen(key);
    (void)strtod(at, &end);
    assert_true(end > at);
    sprintf(out, "%.*s%s%s", (int)(at - text), text, value, end);
}

/* The coefficients form is read with the fits' physical ranges: the issue's
 * absurd fitted values are refused on read too, and the fitted upstream
 * profile's own coefficients read back (test_coefficients_roundtrip). */
static void test_coefficients_ranges(void **state)
{
    struct fixture *fx = *state;
    char *text = slo_ig_profile_coefficients_json(&fx->fitted), *bad;
    size_t len;

    assert_non_null(text);
    len = strlen(text);
    bad = malloc(len + 64);
    assert_non_null(bad);
    /* kp = 2.76e13 (the same-capability fit of issue 15) */
    replace_number(text, "\"kp_w_per_rps\": ", "2.76e13", bad);
    expect_profile_error(bad, "coefficients.kp_w_per_rps: expected a number in [0, 10000] W "
                              "per req/s");
    /* alpha_cache < 0: a co-runner would speed the workload up */
    replace_number(text, "\"alpha_cache_per_pct\": ", "-0.5", bad);
    expect_profile_error(bad, "coefficients.alpha_cache_per_pct: expected a number in [0, 1]");
    free(bad);
    free(text);
}

/*
 * GPU types with prices. Synthetic second types (made here, not data): the
 * same V100 model priced at the p3.2xlarge spot price 1.25 USD/h, and a
 * "SLOW" type whose kernels take 1.6x as long (k1..k5 x 1.6) at 1.00 USD/h.
 *  - V100 at 3.06 vs the same GPU at 1.25: everything goes to the cheaper one,
 *    with exactly the plan of the single-type run.
 *  - V100 vs SLOW on a mix of tight and loose SLOs: the tight ones can only
 *    run on the V100 (SLOW alone is infeasible), the plan uses both types, is
 *    no dearer than the V100-only plan, and passes the verifier.
 */
static void test_gpu_types_with_prices(void **state)
{
    struct fixture *fx = *state;
    char *text = slo_ig_profile_coefficients_json(&fx->fitted);
    struct slo_ig_profile types[2];
    struct slo_ig_workload w[3] = {{"alexnet", 500, 15}, {"resnet50", 400, 40}, {"vgg19", 200, 60}};
    struct slo_ig_workload mix[12];
    struct slo_ig_plan plan, only;
    slo_error_t err;
    size_t n_slow = 0, n_fast = 0;

    assert_non_null(text);
    types[0] = fx->fitted; /* borrowed: not freed here */
    assert_int_equal(slo_ig_profile_parse(text, "cheap", &types[1], NULL), SLO_OK);
    types[1].usd_per_gpu_h = 1.25;
    assert_int_equal(slo_ig_plan(types, 2, w, 3, SLO_IG_POLICY_IGNITER, &plan, &err), SLO_OK);
    assert_int_equal(plan.n_gpus, 1);
    assert_int_equal(plan.gpus[0].type, 1);
    assert_true(plan.cost_usd_per_h == 1.25);
    assert_true(plan.placements[0].share_pct == 37.5);
    slo_ig_plan_free(&plan);

    for (size_t i = 0; i < types[1].n_models; i++)
        for (int k = 0; k < 5; k++)
            if (k != 3) /* k4 shifts the share; scale the time terms only */
                types[1].models[i].k[k] *= 1.6;
    snprintf(types[1].gpu_model, sizeof types[1].gpu_model, "SLOW");
    types[1].usd_per_gpu_h = 1.0;
    for (size_t i = 0; i < 12; i++) {
        static const char *const names[4] = {"alexnet", "resnet50", "vgg19", "ssd"};
        snprintf(mix[i].model, sizeof mix[i].model, "%s", names[i % 4]);
        /* the first four only fit on the V100 (batch 1 alone on SLOW is too
         * slow for SLO/2), the rest fit on both */
        static const double tight[4] = {2, 6, 8, 14};
        mix[i].slo_ms = i < 4 ? tight[i] : 150;
        mix[i].rate_rps = i < 4 ? 20.0 : 50.0 + 25.0 * (double)i;
    }
    if (slo_ig_plan(types, 2, mix, 12, SLO_IG_POLICY_IGNITER, &plan, &err))
        fail_msg("%s", err.text);
    if (slo_ig_plan_verify(types, 2, mix, 12, &plan, &err))
        fail_msg("verifier: %s", err.text);
    for (size_t j = 0; j < plan.n_gpus; j++) {
        n_slow += plan.gpus[j].type == 1;
        n_fast += plan.gpus[j].type == 0;
    }
    assert_true(n_slow > 0 && n_fast > 0);
    /* SLOW alone cannot serve the tight four: a clear infeasibility */
    assert_int_equal(slo_ig_plan(&types[1], 1, mix, 12, SLO_IG_POLICY_IGNITER, &only, &err),
                     SLO_ERR_INFEASIBLE);
    assert_int_equal(slo_ig_plan(&types[0], 1, mix, 12, SLO_IG_POLICY_IGNITER, &only, NULL),
                     SLO_OK);
    print_message("V100 + SLOW: %zu GPUs (%zu SLOW), %.2f USD/h; V100 only: %zu GPUs, "
                  "%.2f USD/h\n",
                  plan.n_gpus, n_slow, plan.cost_usd_per_h, only.n_gpus, only.cost_usd_per_h);
    assert_true(plan.cost_usd_per_h <= only.cost_usd_per_h + 1e-9);
    slo_ig_plan_free(&only);
    slo_ig_plan_free(&plan);
    slo_ig_profile_free(&types[1]);
    free(text);
}

/* The embedded default is the upstream V100 profile plus a gpu section. */
static void test_embedded_profile(void **state)
{
    struct fixture *fx = *state;
    struct slo_ig_profile p;
    slo_error_t err;
    const char *text = slo_embedded_gpu_profile("v100");
    assert_non_null(text);
    if (slo_ig_profile_parse(text, "embedded:v100", &p, &err))
        fail_msg("%s", err.text);
    assert_string_equal(p.gpu_model, "V100");
    assert_string_equal(p.instance_type, "p3.2xlarge");
    assert_int_equal(p.n_models, fx->fitted.n_models);
    for (size_t i = 0; i < p.n_models; i++)
        for (int k = 0; k < 5; k++)
            assert_true(p.models[i].k[k] == fx->fitted.models[i].k[k]);
    slo_ig_profile_free(&p);
}


/* Random requests for the SLO properties below (the models' tightest SLOs
 * that every GPU can serve, plus up to 200 ms; rates 20..1519 req/s). */
static size_t random_request(uint64_t *s, struct slo_ig_workload *w, size_t n_max)
{
    static const char *const names[4] = {"alexnet", "resnet50", "vgg19", "ssd"};
    static const double min_slo[4] = {8, 20, 30, 30};
    size_t n;
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    n = 1 + (size_t)((*s >> 33) % n_max);
    for (size_t i = 0; i < n; i++) {
        *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
        int m = (int)((*s >> 33) % 4);
        snprintf(w[i].model, sizeof w[i].model, "%s", names[m]);
        w[i].slo_ms = min_slo[m] + (double)((*s >> 20) % 200);
        w[i].rate_rps = 20.0 + (double)((*s >> 40) % 1500);
    }
    return n;
}

static void plan_checked(const struct slo_ig_profile *p, const struct slo_ig_workload *w,
                         size_t n, struct slo_ig_plan *plan)
{
    slo_error_t err;
    if (slo_ig_plan(p, 1, w, n, SLO_IG_POLICY_IGNITER, plan, &err))
        fail_msg("plan: %s", err.text);
    verify_or_fail(p, w, n, plan);
    assert_int_equal(plan->n_violations, 0);
    for (size_t k = 0; k < plan->n_placements; k++)
        assert_true(plan->placements[k].batch >= 1 &&
                    plan->placements[k].batch <= SLO_IG_MAX_BATCH);
}

/*
 * Loose SLOs. Reported: alexnet at 500 req/s got batch 243 / 2427 / 24270 at
 * SLO 1 s / 10 s / 100 s, 7.5 % share at 100 ms but 55 % at 100 s and a
 * dedicated GPU at 1000 s, and at 1e5 s batch 1000000 with throughput 20 req/s
 * (a violation in an igniter plan). Now: batches within [1, 32], the solo
 * share never grows as the SLO loosens, every plan verified with no violation,
 * and 8 x alexnet:500 stays on one GPU from 100 ms to 1e8 ms.
 */
static void test_loose_slo(void **state)
{
    struct fixture *fx = *state;
    static const char *const names[4] = {"alexnet", "resnet50", "vgg19", "ssd"};
    static const double rates[3] = {50, 500, 1500};
    static const double slos[] = {40, 60, 100, 130, 200, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e12};
    struct slo_ig_workload eight[8];
    struct slo_ig_plan plan;

    for (size_t m = 0; m < 4; m++)
        for (size_t r = 0; r < 3; r++) {
            double last_share = INFINITY, last_cost = INFINITY;
            for (size_t k = 0; k < sizeof slos / sizeof slos[0]; k++) {
                struct slo_ig_workload w = {"", rates[r], slos[k]};
                struct slo_ig_bounds b;
                snprintf(w.model, sizeof w.model, "%s", names[m]);
                assert_int_equal(slo_ig_workload_bounds(&fx->fitted, &w, &b, NULL), SLO_OK);
                assert_true(b.batch >= 1 && b.batch <= SLO_IG_MAX_BATCH);
                assert_true(b.bound_ms <= slos[k] / 2.0);
                if (b.r_low_pct > last_share)
                    fail_msg("%s at %g req/s: r_low %g %% at SLO %g ms, %g %% at a tighter SLO",
                             w.model, w.rate_rps, b.r_low_pct, w.slo_ms, last_share);
                last_share = b.r_low_pct;
                plan_checked(&fx->fitted, &w, 1, &plan);
                if (plan.cost_usd_per_h > last_cost + 1e-9)
                    fail_msg("%s at %g req/s: %g USD/h at SLO %g ms, %g at a tighter SLO",
                             w.model, w.rate_rps, plan.cost_usd_per_h, w.slo_ms, last_cost);
                last_cost = plan.cost_usd_per_h;
                slo_ig_plan_free(&plan);
            }
        }
    for (size_t k = 2; k < sizeof slos / sizeof slos[0]; k++) {
        for (size_t i = 0; i < 8; i++)
            eight[i] = (struct slo_ig_workload){"alexnet", 500, slos[k]};
        plan_checked(&fx->fitted, eight, 8, &plan);
        assert_int_equal(plan.n_gpus, 1);
        slo_ig_plan_free(&plan);
    }
    /* the batch cap holds for the model as well: --predict's range */
    {
        struct slo_ig_tenant t = {0, SLO_IG_MAX_BATCH + 1, 50};
        struct slo_ig_prediction o;
        slo_error_t err;
        assert_int_equal(slo_ig_predict(&fx->fitted, &t, 1, &o, NULL, &err), SLO_ERR_INVALID);
        assert_non_null(strstr(err.text, "expected a batch in [1, 32]"));
        t.batch = SLO_IG_MAX_BATCH;
        assert_int_equal(slo_ig_predict(&fx->fitted, &t, 1, &o, NULL, NULL), SLO_OK);
    }
}

/*
 * Property: relaxing every SLO of a request (each multiplied by 1 to 4, a
 * quarter of them left as they were, and every one by 1000 in a second
 * round) must not make the igniter plan costlier. Per workload this holds by
 * construction (slo_ig_choose_batch: the share never grows; test_loose_slo
 * checks it strictly). For the plan it rests on the greedy packing, a
 * heuristic that is not monotone: a relaxation may rarely take one GPU more
 * (a bin-packing anomaly; doc/infer.md, Limitations). So this test asserts
 * what the planner guarantees and measures the rest: never more than one
 * GPU more, and such anomalies in at most 1% of the 600 relaxations (15000
 * random requests over 5 seeds gave 8, about 0.05%; before the batch cap
 * 214 of these 600 did). The seed is the first one tried, not one chosen
 * to pass.
 */
static void test_relaxed_slo_rarely_costs_more(void **state)
{
    struct fixture *fx = *state;
    uint64_t s = 2026;
    size_t trials = 0, gpus = 0, gpus_relaxed = 0, relaxations = 0, anomalies = 0;

    for (int trial = 0; trial < 300; trial++) {
        struct slo_ig_workload w[12], loose[12];
        struct slo_ig_plan plan, relaxed;
        size_t n = random_request(&s, w, 12);
        plan_checked(&fx->fitted, w, n, &plan);
        for (int round = 0; round < 2; round++) {
            for (size_t i = 0; i < n; i++) {
                s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                loose[i] = w[i];
                if (round == 1)
                    loose[i].slo_ms *= 1000.0;
                else if ((s >> 30) % 4)
                    loose[i].slo_ms *= 1.0 + (double)((s >> 40) % 301) / 100.0;
            }
            plan_checked(&fx->fitted, loose, n, &relaxed);
            relaxations++;
            if (relaxed.n_gpus > plan.n_gpus + 1)
                fail_msg("trial %d round %d: %zu workloads: %zu GPUs with the SLOs relaxed, "
                         "%zu before (more than one GPU more)",
                         trial, round, n, relaxed.n_gpus, plan.n_gpus);
            if (relaxed.n_gpus > plan.n_gpus ||
                relaxed.cost_usd_per_h > plan.cost_usd_per_h + 1e-9)
                anomalies++;
            gpus_relaxed += relaxed.n_gpus;
            slo_ig_plan_free(&relaxed);
        }
        trials++;
        gpus += 2 * plan.n_gpus;
        slo_ig_plan_free(&plan);
    }
    print_message("relaxed SLOs: %zu random requests, %zu GPUs as given, %zu relaxed (x1-4, "
                  "x1000); %zu of %zu relaxations cost more (one GPU)\n",
                  trials, gpus / 2, gpus_relaxed, anomalies, relaxations);
    assert_true(anomalies * 100 <= relaxations);
}

/* Our JSON on one line (json.dump of etc/slo/gpus/v100.json) is our format,
 * not a one-line JSON-lines file; a JSON value that is not an object is an
 * error naming both forms. */
static void test_one_line_profile(void **state)
{
    struct fixture *fx = *state;
    const char *text = slo_embedded_gpu_profile("v100");
    char *one = malloc(strlen(text) + 1);
    struct slo_ig_profile p;
    slo_error_t err;
    size_t k = 0;

    assert_non_null(one);
    for (const char *c = text; *c; c++)
        if (*c != '\n')
            one[k++] = *c;
    one[k] = '\0';
    assert_null(strchr(one, '\n'));
    if (slo_ig_profile_parse(one, "v.json", &p, &err))
        fail_msg("%s: %s", err.source, err.text);
    assert_string_equal(p.gpu_model, "V100");
    assert_int_equal(p.n_models, fx->fitted.n_models);
    for (size_t i = 0; i < p.n_models; i++)
        for (int j = 0; j < 5; j++)
            assert_true(p.models[i].k[j] == fx->fitted.models[i].k[j]);
    slo_ig_profile_free(&p);
    free(one);
    expect_profile_error("[1, 2]\n", "expected a JSON object of sections");
}

/* --workloads files: slo_ig_workloads_parse / _load. */
static void test_workloads_file(void **state)
{
    struct slo_ig_workload *w;
    size_t n;
    slo_error_t err;
    static const struct {
        const char *text, *needle;
    } bad[] = {
        {"{\"workloads\": [{\"model\": \"vgg19\", \"rate_rps\": 200, \"slo_ms\": 60, \"foo\": 1}]}",
         "workloads[0]: \"foo\": unknown field; expected one of: model, rate_rps, slo_ms"},
        {"{\"workloads\": [{\"model\": \"vgg19\", \"rate_rps\": 200, \"slo_ms\": 60}], \"x\": 1}",
         "\"x\": unknown field; expected one of: workloads"},
        {"{\"workloads\": [{\"model\": \"vgg19\", \"rate_rps\": 0, \"slo_ms\": 60}]}",
         "workloads[0].rate_rps: expected a rate > 0 req/s, found 0"},
        {"{\"workloads\": [{\"model\": \"vgg19\", \"rate_rps\": 1, \"slo_ms\": \"60\"}]}",
         "workloads[0].slo_ms: expected an SLO > 0 ms, found the string \"60\""},
        {"{\"workloads\": [{\"rate_rps\": 1, \"slo_ms\": 60}]}",
         "workloads[0].model: expected a non-empty string"},
        {"{\"workloads\": []}", "workloads: expected a non-empty array"},
        {"{\"workloads\": [1]}", "workloads[0]: expected an object"},
        {"{\"workloads\": [}", "line 1, column 16: malformed JSON"},
        {"42", "expected a JSON object {\"workloads\": [...]} or an array, found 42"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(slo_ig_workloads_parse(bad[i].text, "wk.json", &w, &n, &err),
                         SLO_ERR_INVALID);
        assert_null(w);
        assert_int_equal(n, 0);
        assert_string_equal(err.source, "wk.json");
        if (!strstr(err.text, bad[i].needle))
            fail_msg("expected \"%s\" in \"%s\"", bad[i].needle, err.text);
    }
    assert_int_equal(slo_ig_workloads_parse(
                         "{\"_about\": \"x\", \"workloads\": [{\"model\": \"ssd\", \"rate_rps\": "
                         "150, \"slo_ms\": 25, \"_note\": 1}, {\"model\": \"vgg19\", "
                         "\"rate_rps\": 200.5, \"slo_ms\": 40}]}",
                         "wk.json", &w, &n, &err),
                     SLO_OK);
    assert_int_equal(n, 2);
    assert_string_equal(w[1].model, "vgg19");
    assert_true(w[1].rate_rps == 200.5 && w[1].slo_ms == 40.0);
    free(w);
    assert_int_equal(slo_ig_workloads_parse("[{\"model\": \"ssd\", \"rate_rps\": 1, \"slo_ms\": 2}]",
                                            "wk.json", &w, &n, &err),
                     SLO_OK);
    assert_int_equal(n, 1);
    free(w);
    assert_int_equal(slo_ig_workloads_load("/nonexistent/wk.json", &w, &n, &err), SLO_ERR_IO);
    assert_non_null(strstr(err.text, "cannot open"));
    assert_int_not_equal(slo_ig_workloads_load("/", &w, &n, &err), SLO_OK);
    assert_null(w);
}

/* ------------------------------------------------------------------ */
/* slo_infer_solve                                                     */
/* ------------------------------------------------------------------ */

/* Solve on the fitted upstream profile (it has no gpu section) priced as a
 * p3.2xlarge of the embedded aws-table3 catalog (on demand 3.06 USD/h). */
static int solve_on(const struct slo_ig_profile *fitted, const struct slo_ig_workload *w,
                    size_t n, int policy, struct slo_infer_result *res, slo_error_t *err)
{
    struct slo_ig_profile p = *fitted; /* shallow: the models stay the fixture's */
    struct slo_catalog cat;
    const char *it[1] = {"p3.2xlarge"};
    struct slo_infer_problem pb = {0};
    struct slo_infer_options opt;
    int rv;

    p.usd_per_gpu_h = -1.0; /* priced by the catalog, rule 2 */
    assert_int_equal(slo_catalog_open("aws-table3", NULL, &cat, NULL), SLO_OK);
    pb.profiles = &p;
    pb.n_types = 1;
    pb.catalog = &cat;
    pb.pricing = SLO_PRICING_ON_DEMAND;
    pb.instance_types = it;
    pb.workloads = w;
    pb.n_workloads = n;
    slo_infer_options_init(&opt);
    assert_int_equal(opt.policy, SLO_IG_POLICY_IGNITER);
    opt.policy = policy;
    rv = slo_infer_solve(&pb, &opt, res, err);
    slo_catalog_free(&cat);
    return rv;
}

/* The solve result and slo_ig_plan's plan agree placement by placement. */
static void same_as_plan(const struct slo_infer_result *res, const struct slo_ig_plan *plan)
{
    assert_int_equal(res->n_gpus, plan->n_gpus);
    assert_int_equal(res->n_placements, plan->n_placements);
    assert_true(res->cost_usd_per_h == plan->cost_usd_per_h);
    assert_int_equal(res->n_violations, plan->n_violations);
    for (size_t j = 0; j < plan->n_gpus; j++) {
        assert_int_equal(res->gpus[j].type, plan->gpus[j].type);
        assert_int_equal(res->gpus[j].first, plan->gpus[j].first);
        assert_int_equal(res->gpus[j].count, plan->gpus[j].count);
        assert_int_equal(res->gpus[j].dedicated, plan->gpus[j].dedicated);
        assert_true(res->gpus[j].share_pct == plan->gpus[j].share_pct);
        assert_true(res->gpus[j].usd_per_gpu_h == plan->gpus[j].usd_per_gpu_h);
    }
    for (size_t k = 0; k < plan->n_placements; k++) {
        const struct slo_infer_placement *a = &res->placements[k];
        const struct slo_ig_placement *b = &plan->placements[k];
        assert_int_equal(a->workload, b->workload);
        assert_int_equal(a->batch, b->batch);
        assert_true(a->share_pct == b->share_pct);
        assert_true(a->rate_rps == b->rate_rps);
        assert_true(a->latency_ms == b->latency_ms);
        assert_true(a->throughput_rps == b->throughput_rps);
    }
}

/*
 * The solve call on the authors' cases: golden_vectors.json "algorithm_cases"
 * 0-2 (README = config_gpu1.json, Experiments 4 and 5) give the authors'
 * plans (models, shares, batches per GPU) and the same placements as
 * slo_ig_plan; the README plan's Slurm mapping is the CLI's (37.5 % ->
 * gres mps:38 = CUDA_MPS_ACTIVE_THREAD_PERCENTAGE 38: 38 + 30 + 10 <= 100,
 * slo_infer_mps_round), each placement meets
 * its SLO, and one GPU is the least any plan needs: optimal. Random requests
 * (as test_verifier_random) agree with slo_ig_plan too.
 */
static void test_solve_reference_cases(void **state)
{
    struct fixture *fx = *state;
    json_t *cases = json_object_get(fx->gv, "algorithm_cases");
    static const int gres[3] = {38, 30, 10}, mps[3] = {38, 30, 10};
    uint64_t s = 7;

    for (size_t c = 0; c < 3; c++) {
        json_t *gpus = json_object_get(json_array_get(cases, c), "output_gpus");
        struct slo_ig_workload w[16];
        struct slo_infer_result res;
        struct slo_ig_plan plan;
        slo_error_t err;
        size_t n = load_workloads(json_object_get(json_array_get(cases, c), "input"), w, 16);

        if (solve_on(&fx->fitted, w, n, SLO_IG_POLICY_IGNITER, &res, &err))
            fail_msg("case %zu: %s", c, err.text);
        assert_int_equal(res.n_gpus, json_array_size(gpus));
        for (size_t j = 0; j < res.n_gpus; j++) {
            json_t *g = json_array_get(gpus, j);
            assert_int_equal(res.gpus[j].count, json_array_size(json_object_get(g, "models")));
            for (size_t i = 0; i < res.gpus[j].count; i++) {
                const struct slo_infer_placement *pl = &res.placements[res.gpus[j].first + i];
                assert_string_equal(w[pl->workload].model, json_string_value(json_array_get(
                                                               json_object_get(g, "models"), i)));
                assert_true(pl->share_pct == json_number_value(json_array_get(
                                                 json_object_get(g, "resources"), i)));
                assert_int_equal(pl->batch, json_integer_value(json_array_get(
                                                json_object_get(g, "batches"), i)));
                assert_true(pl->meets_slo);
                assert_true(pl->usd_per_gpu_h == 3.06);
                assert_true(pl->slo_half_ms == w[pl->workload].slo_ms / 2.0);
                if (c == 0) { /* README: vgg19, resnet50, alexnet on GPU 1 */
                    assert_int_equal(pl->mps_gres_count, gres[i]);
                    assert_int_equal(pl->mps_active_thread_pct, mps[i]);
                }
            }
        }
        assert_int_equal(res.n_types, 1);
        assert_string_equal(res.types[0].instance_type, "p3.2xlarge");
        assert_true(res.types[0].usd_per_gpu_h == 3.06);
        assert_int_equal(res.n_violations, 0);
        assert_true(res.cost_usd_per_h == 3.06 * (double)res.n_gpus);
        if (res.n_gpus == 1) {
            assert_int_equal(res.status, SLO_STATUS_OPTIMAL);
            assert_string_equal(res.reason, "");
        }
        assert_int_equal(slo_ig_plan(&fx->fitted, 1, w, n, SLO_IG_POLICY_IGNITER, &plan, NULL),
                         SLO_OK);
        same_as_plan(&res, &plan);
        slo_ig_plan_free(&plan);
        slo_infer_result_free(&res);
    }
    for (int trial = 0; trial < 20; trial++) {
        struct slo_ig_workload w[24];
        struct slo_infer_result res;
        struct slo_ig_plan plan;
        slo_error_t err;
        size_t n = random_request(&s, w, 24);
        int policy = trial % 4;
        if (solve_on(&fx->fitted, w, n, policy, &res, &err))
            fail_msg("trial %d: %s", trial, err.text);
        assert_int_equal(slo_ig_plan(&fx->fitted, 1, w, n, policy, &plan, &err), SLO_OK);
        if (res.mps_repaired_gpus) /* GPUs re-planned at whole MPS units (test_infer_mps) */
            assert_int_equal(res.n_gpus, plan.n_gpus + res.mps_extra_gpus);
        else
            same_as_plan(&res, &plan);
        assert_true(res.cost_lower_bound_usd_per_h <= res.cost_usd_per_h + 1e-9);
        if (policy == SLO_IG_POLICY_IGNITER)
            assert_true(slo_status_feasible(res.status));
        if (res.n_violations)
            assert_int_equal(res.status, SLO_STATUS_INFEASIBLE_UNPROVEN);
        slo_ig_plan_free(&plan);
        slo_infer_result_free(&res);
    }
}

/* Each status. Hand-worked against slo_ig_predict, not the solve code. */
static void test_solve_status(void **state)
{
    struct fixture *fx = *state;
    const struct slo_ig_profile *p = &fx->fitted;
    struct slo_ig_workload readme[3] = {
        {"alexnet", 500, 15}, {"resnet50", 400, 40}, {"vgg19", 200, 60}};
    struct slo_ig_workload vgg3[3] = {{"vgg19", 200, 60}, {"vgg19", 200, 60}, {"vgg19", 200, 60}};
    struct slo_ig_workload one;
    struct slo_ig_tenant t;
    struct slo_ig_prediction o;
    struct slo_infer_result res;
    slo_error_t err;
    int vgg = slo_ig_find_model(p, "vgg19"), ssd = slo_ig_find_model(p, "ssd");

    /* feasible, proven: the README plan is one GPU */
    assert_int_equal(solve_on(p, readme, 3, SLO_IG_POLICY_IGNITER, &res, &err), SLO_OK);
    assert_int_equal(res.status, SLO_STATUS_OPTIMAL);
    assert_true(res.cost_lower_bound_usd_per_h == 3.06);
    slo_infer_result_free(&res);

    /* optimal on two GPUs: vgg19 at 200 req/s, SLO 60 ms misses SLO/2 or its
     * rate alone at 32.5 % at every batch (checked here with the model), so
     * three need > 97.5 % + interference-free shares: more than one GPU. */
    for (int b = 1; b <= SLO_IG_MAX_BATCH; b++) {
        t.model = vgg;
        t.batch = b;
        t.share_pct = 32.5;
        assert_int_equal(slo_ig_predict(p, &t, 1, &o, NULL, NULL), SLO_OK);
        assert_false(o.latency_ms <= 30.0 && o.throughput_rps >= 200.0);
    }
    assert_int_equal(solve_on(p, vgg3, 3, SLO_IG_POLICY_IGNITER, &res, &err), SLO_OK);
    assert_int_equal(res.n_gpus, 2);
    assert_int_equal(res.status, SLO_STATUS_OPTIMAL);
    assert_true(fabs(res.cost_lower_bound_usd_per_h - 6.12) < 1e-12);
    slo_infer_result_free(&res);

    /* feasible, unproven: ssd at 600 req/s needs dedicated GPUs (3 in all);
     * only the one-GPU bound holds for a split workload */
    snprintf(one.model, sizeof one.model, "ssd");
    one.rate_rps = 600;
    one.slo_ms = 25;
    assert_int_equal(solve_on(p, &one, 1, SLO_IG_POLICY_IGNITER, &res, &err), SLO_OK);
    assert_int_equal(res.status, SLO_STATUS_FEASIBLE_UNPROVEN);
    {
        size_t ded = 0;
        for (size_t j = 0; j < res.n_gpus; j++)
            ded += res.gpus[j].dedicated;
        assert_true(res.n_gpus > 1 && ded >= 1);
    }
    assert_true(res.cost_lower_bound_usd_per_h == 3.06);
    assert_non_null(strstr(res.reason, "lower bound is 3.06 USD/h"));
    slo_infer_result_free(&res);

    /* infeasible, proven: SLO 12 ms, SLO/2 = 6 ms; ssd batch 1 alone on the
     * whole GPU takes 6.15 ms (research notes; slo_ig_predict) */
    t.model = ssd;
    t.batch = 1;
    t.share_pct = 100.0;
    assert_int_equal(slo_ig_predict(p, &t, 1, &o, NULL, NULL), SLO_OK);
    assert_true(o.latency_ms > 6.15 && o.latency_ms < 6.16);
    one.rate_rps = 100;
    one.slo_ms = 12;
    assert_int_equal(solve_on(p, &one, 1, SLO_IG_POLICY_IGNITER, &res, &err), SLO_OK);
    assert_int_equal(res.status, SLO_STATUS_INFEASIBLE);
    assert_int_equal(res.n_gpus, 0);
    assert_non_null(strstr(res.reason, "workload 1 (ssd, 100 req/s, SLO 12 ms): no GPU type "
                                       "can serve it"));
    assert_non_null(strstr(res.reason, "takes 6.15"));
    slo_infer_result_free(&res);
    /* SLO 0.5 ms: SLO/2 is shorter than one request's PCIe transfer */
    one.slo_ms = 0.5;
    assert_int_equal(solve_on(p, &one, 1, SLO_IG_POLICY_IGNITER, &res, &err), SLO_OK);
    assert_int_equal(res.status, SLO_STATUS_INFEASIBLE);
    assert_non_null(strstr(res.reason, "shorter than moving one request over PCIe"));
    slo_infer_result_free(&res);

    /* infeasible, unproven: 6.1 ms is above the model's latency lower bound
     * (co-runners with a negative L2 intercept could speed it up), yet the
     * planner finds no batch: no proof */
    one.slo_ms = 12.2;
    assert_int_equal(solve_on(p, &one, 1, SLO_IG_POLICY_IGNITER, &res, &err), SLO_OK);
    assert_int_equal(res.status, SLO_STATUS_INFEASIBLE_UNPROVEN);
    assert_non_null(strstr(res.reason, "workload 1 (ssd"));
    slo_infer_result_free(&res);
    /* and a rate no million GPUs serve */
    snprintf(one.model, sizeof one.model, "alexnet");
    one.rate_rps = 1e12;
    one.slo_ms = 20;
    assert_int_equal(solve_on(p, &one, 1, SLO_IG_POLICY_IGNITER, &res, &err), SLO_OK);
    assert_int_equal(res.status, SLO_STATUS_INFEASIBLE_UNPROVEN);
    assert_non_null(strstr(res.reason, "at most a million dedicated GPUs"));
    slo_infer_result_free(&res);

    /* a baseline that the model says misses (FFD on the README: 72.5 %): the
     * plan is returned, unproven infeasible, its misses counted */
    assert_int_equal(solve_on(p, readme, 3, SLO_IG_POLICY_FFD, &res, &err), SLO_OK);
    assert_int_equal(res.status, SLO_STATUS_INFEASIBLE_UNPROVEN);
    assert_int_equal(res.n_gpus, 1);
    assert_true(res.gpus[0].share_pct == 72.5);
    assert_true(res.n_violations > 0);
    {
        size_t misses = 0;
        for (size_t k = 0; k < res.n_placements; k++)
            misses += !res.placements[k].meets_slo;
        assert_int_equal(misses, res.n_violations);
    }
    slo_infer_result_free(&res);

    /* invalid input is a return code, not a status */
    one.rate_rps = -1;
    assert_int_equal(solve_on(p, &one, 1, SLO_IG_POLICY_IGNITER, &res, &err), SLO_ERR_INVALID);
    assert_null(res.types);
    snprintf(one.model, sizeof one.model, "bert");
    one.rate_rps = 10;
    assert_int_equal(solve_on(p, &one, 1, SLO_IG_POLICY_IGNITER, &res, &err),
                     SLO_ERR_NOT_FOUND);
    assert_non_null(strstr(err.text, "found \"bert\""));
    assert_int_equal(solve_on(p, readme, 3, 9, &res, &err), SLO_ERR_INVALID);
}

/* The three pricing rules on a hand-worked catalog:
 *   v-one  1 x V100  on demand 3.00, spot 1.00 -> 3.00 / 1.00 per GPU
 *   v-four 4 x V100  on demand 10.0, spot 6.00 -> 2.50 / 1.50 per GPU
 *   t4     2 x T4    on demand 1.00, spot 0.50 -> 0.50 / 0.25 per GPU
 *   onp    2 x V100  on-prem 8.00 (both)       -> 4.00 / 4.00 per GPU */
static void test_solve_pricing(void **state)
{
    struct fixture *fx = *state;
    static const char cat_json[] =
        "{\"name\": \"hand\", \"types\": ["
        "{\"name\": \"v-one\", \"gpu_model\": \"V100\", \"gpus\": 1, \"spot_usd_per_h\": 1.0,"
        " \"on_demand_usd_per_h\": 3.0, \"quota\": 4},"
        "{\"name\": \"v-four\", \"gpu_model\": \"V100\", \"gpus\": 4, \"spot_usd_per_h\": 6.0,"
        " \"on_demand_usd_per_h\": 10.0, \"quota\": 4},"
        "{\"name\": \"t4\", \"gpu_model\": \"T4\", \"gpus\": 2, \"spot_usd_per_h\": 0.5,"
        " \"on_demand_usd_per_h\": 1.0, \"quota\": 4},"
        "{\"name\": \"onp\", \"gpu_model\": \"V100\", \"gpus\": 2, \"site\": \"onprem\","
        " \"usd_per_h\": 8.0, \"quota\": 1}]}";
    struct slo_ig_workload readme[3] = {
        {"alexnet", 500, 15}, {"resnet50", 400, 40}, {"vgg19", 200, 60}};
    struct slo_catalog cat;
    struct slo_ig_profile p = fx->fitted; /* shallow */
    struct slo_infer_gpu_type ty;
    struct slo_infer_problem pb = {0};
    struct slo_infer_result res;
    slo_error_t err;

    assert_int_equal(slo_catalog_parse(cat_json, "hand.json", &cat, NULL), SLO_OK);
    snprintf(p.source, sizeof p.source, "hand-profile");
    /* rule 1: the profile's price, whatever the catalog says */
    p.usd_per_gpu_h = 2.0;
    p.instance_type[0] = '\0';
    snprintf(p.gpu_model, sizeof p.gpu_model, "V100");
    assert_int_equal(slo_infer_price_gpu(&p, &cat, SLO_PRICING_SPOT, "v-four", &ty, &err), SLO_OK);
    assert_true(ty.usd_per_gpu_h == 2.0);
    assert_string_equal(ty.instance_type, "");
    assert_int_equal(slo_infer_price_gpu(&p, NULL, SLO_PRICING_SPOT, NULL, &ty, &err), SLO_OK);
    assert_true(ty.usd_per_gpu_h == 2.0);
    /* rule 2: the named type's price / its GPUs; the profile's name wins */
    p.usd_per_gpu_h = -1.0;
    assert_int_equal(slo_infer_price_gpu(&p, &cat, SLO_PRICING_ON_DEMAND, "v-four", &ty, &err),
                     SLO_OK);
    assert_true(ty.usd_per_gpu_h == 2.5);
    assert_string_equal(ty.instance_type, "v-four");
    assert_int_equal(slo_infer_price_gpu(&p, &cat, SLO_PRICING_SPOT, "v-four", &ty, &err), SLO_OK);
    assert_true(ty.usd_per_gpu_h == 1.5);
    assert_int_equal(slo_infer_price_gpu(&p, &cat, SLO_PRICING_SPOT, "onp", &ty, &err), SLO_OK);
    assert_true(ty.usd_per_gpu_h == 4.0);
    snprintf(p.instance_type, sizeof p.instance_type, "v-one");
    assert_int_equal(slo_infer_price_gpu(&p, &cat, SLO_PRICING_ON_DEMAND, "v-four", &ty, &err),
                     SLO_OK);
    assert_true(ty.usd_per_gpu_h == 3.0);
    assert_string_equal(ty.instance_type, "v-one");
    /* ... and names the GPU model when the profile has none */
    p.instance_type[0] = '\0';
    p.gpu_model[0] = '\0';
    assert_int_equal(slo_infer_price_gpu(&p, &cat, SLO_PRICING_SPOT, "t4", &ty, &err), SLO_OK);
    assert_true(ty.usd_per_gpu_h == 0.25);
    assert_string_equal(ty.gpu_model, "T4");
    /* rule 3: the cheapest per-GPU type of the model: v-four on demand
     * (2.50 < 3.00 < 4.00), v-one on spot (1.00 < 1.50 < 4.00) */
    snprintf(p.gpu_model, sizeof p.gpu_model, "V100");
    assert_int_equal(slo_infer_price_gpu(&p, &cat, SLO_PRICING_ON_DEMAND, NULL, &ty, &err), SLO_OK);
    assert_true(ty.usd_per_gpu_h == 2.5);
    assert_string_equal(ty.instance_type, "v-four");
    assert_int_equal(slo_infer_price_gpu(&p, &cat, SLO_PRICING_SPOT, NULL, &ty, &err), SLO_OK);
    assert_true(ty.usd_per_gpu_h == 1.0);
    assert_string_equal(ty.instance_type, "v-one");
    /* errors, as `slo infer` prints them */
    assert_int_equal(slo_infer_price_gpu(&p, &cat, SLO_PRICING_SPOT, "p3.2xlarge", &ty, &err),
                     SLO_ERR_NOT_FOUND);
    assert_string_equal(err.source, "hand-profile");
    assert_string_equal(err.text, "gpu.instance_type: expected an instance type of catalog "
                                  "hand, found \"p3.2xlarge\"");
    snprintf(p.gpu_model, sizeof p.gpu_model, "H100");
    assert_int_equal(slo_infer_price_gpu(&p, &cat, SLO_PRICING_SPOT, NULL, &ty, &err),
                     SLO_ERR_INVALID);
    assert_string_equal(err.text, "gpu: expected a price for this GPU type (gpu.usd_per_h, "
                                  "gpu.instance_type or a gpu.model of catalog hand), found a "
                                  "GPU model the catalog lacks; pass --instance-type TYPE");
    p.gpu_model[0] = '\0';
    assert_int_equal(slo_infer_price_gpu(&p, &cat, SLO_PRICING_SPOT, NULL, &ty, &err),
                     SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "found none; pass --instance-type TYPE"));

    /* through the solve call: the README plan (one GPU) costs one GPU of
     * the type rule 3 picks, on demand and on spot */
    snprintf(p.gpu_model, sizeof p.gpu_model, "V100");
    pb.profiles = &p;
    pb.n_types = 1;
    pb.catalog = &cat;
    pb.workloads = readme;
    pb.n_workloads = 3;
    pb.pricing = SLO_PRICING_ON_DEMAND;
    assert_int_equal(slo_infer_solve(&pb, NULL, &res, &err), SLO_OK);
    assert_int_equal(res.n_gpus, 1);
    assert_true(res.cost_usd_per_h == 2.5);
    assert_true(res.placements[0].usd_per_gpu_h == 2.5);
    assert_string_equal(res.types[0].instance_type, "v-four");
    slo_infer_result_free(&res);
    pb.pricing = SLO_PRICING_SPOT;
    assert_int_equal(slo_infer_solve(&pb, NULL, &res, &err), SLO_OK);
    assert_true(res.cost_usd_per_h == 1.0);
    assert_string_equal(res.types[0].instance_type, "v-one");
    slo_infer_result_free(&res);
    /* no catalog and no price: an error, not a plan */
    pb.catalog = NULL;
    assert_int_equal(slo_infer_solve(&pb, NULL, &res, &err), SLO_ERR_INVALID);
    assert_string_equal(err.source, "hand-profile");
    slo_catalog_free(&cat);
}

/* slo_ig_profile_open: an embedded name, a file, and the CLI's error text. */
static void test_profile_open(void **state)
{
    struct slo_ig_profile p;
    slo_error_t err;
    char path[4200];
    (void)state;

    assert_int_equal(slo_ig_profile_open("v100", NULL, &p, &err), SLO_OK);
    assert_string_equal(p.source, "embedded profile v100");
    assert_string_equal(p.instance_type, "p3.2xlarge");
    slo_ig_profile_free(&p);
    path_of(path, sizeof path, PROFILE);
    assert_int_equal(slo_ig_profile_open(path, "--profile", &p, &err), SLO_OK);
    assert_true(p.usd_per_gpu_h < 0.0);
    slo_ig_profile_free(&p);
    assert_int_equal(slo_ig_profile_open("a100", "--profile", &p, &err), SLO_ERR_NOT_FOUND);
    assert_string_equal(err.source, "--profile");
    assert_string_equal(err.text,
                        "expected an embedded profile (v100, v100-calibrated) or a JSON file path, found \"a100\"");
    assert_int_equal(slo_ig_profile_open("/nonexistent/p.json", "PROFILE", &p, &err), SLO_ERR_IO);
}

int main(void)
{
    const char *dir = getenv("SLO_REFERENCE_DATA");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_hardware),
        cmocka_unit_test(test_fit_models),
        cmocka_unit_test(test_predict_golden_coefficients),
        cmocka_unit_test(test_predict_fitted),
        cmocka_unit_test(test_predict_figure11_printed),
        cmocka_unit_test(test_algorithm_readme_cases),
        cmocka_unit_test(test_algorithm_config_gpu1),
        cmocka_unit_test(test_algorithm_twelve_fixed),
        cmocka_unit_test(test_algorithm_launch_config),
        cmocka_unit_test(test_verifier_random),
        cmocka_unit_test(test_baselines),
        cmocka_unit_test(test_accuracy_testcon),
        cmocka_unit_test(test_accuracy_gpulet),
        cmocka_unit_test(test_bad_profiles),
        cmocka_unit_test(test_jsonlines_later_lines_win),
        cmocka_unit_test(test_bad_requests),
        cmocka_unit_test(test_coefficients_roundtrip),
        cmocka_unit_test(test_profile_undetermined),
        cmocka_unit_test(test_coefficients_ranges),
        cmocka_unit_test(test_workloads_ranges),
        cmocka_unit_test(test_fit_readback_property),
        cmocka_unit_test(test_embedded_profile),
        cmocka_unit_test(test_gpu_types_with_prices),
        cmocka_unit_test(test_loose_slo),
        cmocka_unit_test(test_relaxed_slo_rarely_costs_more),
        cmocka_unit_test(test_one_line_profile),
        cmocka_unit_test(test_workloads_file),
        cmocka_unit_test(test_solve_reference_cases),
        cmocka_unit_test(test_solve_status),
        cmocka_unit_test(test_solve_pricing),
        cmocka_unit_test(test_profile_open),
    };

    if (!dir || !*dir || strcmp(dir, "no") == 0) {
        printf("test_igniter: skipped: SLO_REFERENCE_DATA is unset or empty (configure "
               "--with-reference-data=DIR pointing at shared/data)\n");
        return 77;
    }
    snprintf(ref_dir, sizeof ref_dir, "%s", dir);
    return cmocka_run_group_tests(tests, setup, teardown);
}
