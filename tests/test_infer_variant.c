/*
 * test_infer_variant.c - the igniter-calibrated model variant (issue 18)
 * against the reference data in $SLO_REFERENCE_DATA/igniter/:
 *   upstream-history/9901e6b/.../testcon.log      (540 measured co-located latencies)
 *   upstream-HEAD/.../Profile/tools/gpulet.config (solo latency tables; 1500 in
 *                                                  the interference block)
 *   derived/golden_vectors.json                   (the faithful model's errors and
 *                                                  Figure 11 prediction)
 * and the embedded profile v100-calibrated (v100 + gpulet.config's solo
 * tables and pair runs, copied unchanged). Exit 77 (skipped) when
 * SLO_REFERENCE_DATA is unset or empty.
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

#define GOLDEN "igniter/derived/golden_vectors.json"
#define TESTCON "igniter/upstream-history/9901e6b/i-Gniter/Profile/tools/testcon.log"
#define GPULET "igniter/upstream-HEAD/i-Gniter/Profile/tools/gpulet.config"

static char ref_dir[4096];

static char *slurp(const char *rel)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", ref_dir, rel);
    return refdata_read_file(path);
}

static void open_profile(const char *name, struct slo_ig_profile *p)
{
    slo_error_t err;
    if (slo_ig_profile_open(name, NULL, p, &err))
        fail_msg("%s: %s", err.source, err.text);
}

/* The JSON-lines line of text holding section "interference" key "latency". */
static json_t *interference_rows(const char *text, json_t **holder)
{
    const char *line = text;
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        json_t *o = json_loadb(line, len, 0, NULL), *lat;
        lat = o ? json_object_get(json_object_get(o, "interference"), "latency") : NULL;
        if (json_is_array(lat)) {
            *holder = o;
            return lat;
        }
        json_decref(o);
        if (!end)
            break;
        line = end + 1;
    }
    fail_msg("no interference.latency line");
    return NULL;
}

/* The faithful model's figure from golden_vectors.json for set key. */
static json_t *golden_accuracy(json_t *gv, const char *set)
{
    const char *key;
    json_t *v, *acc = json_object_get(gv, "model_accuracy_my_computation");
    json_object_foreach(acc, key, v)
        if (strstr(key, set))
            return v;
    fail_msg("golden vectors: no accuracy for %s", set);
    return NULL;
}

/*
 * Leave-one-pair-out errors of both variants. igniter-2023 fits nothing on
 * pair runs, so its figures must be the research notes' (golden_vectors.json,
 * computed by the upstream Python): unchanged. igniter-calibrated measured
 * 2.66 % / 2.92 % MAPE and p90 6.02 % / 5.99 % when written (make bench);
 * the bounds are the target (MAPE < 3.0 %) and p90 < 7.0 %, 1.5
 * points under the faithful model's 8.70 / 8.55 %.
 */
static void lopo_on(const char *rel, const char *set, size_t n_want)
{
    struct slo_ig_profile p;
    char *text = slurp(rel), *gtext = slurp(GOLDEN);
    json_t *gv = json_loads(gtext, 0, NULL), *g;
    double *ape, mean[2], median[2], p90[2], max[2];
    size_t n;
    slo_error_t err;

    assert_non_null(gv);
    g = golden_accuracy(gv, set);
    open_profile("v100-calibrated", &p);
    for (int v = 0; v < 2; v++) {
        if (slo_ig_colocation_errors_lopo(&p, v, text, rel, &ape, &n, &err))
            fail_msg("%s: %s", err.source, err.text);
        assert_int_equal(n, n_want);
        slo_ig_error_summary(ape, n, &mean[v], &median[v], &p90[v], &max[v]);
        print_message("%s %s lopo: MAPE %.3f %%, median %.3f %%, p90 %.3f %%, max %.2f %%\n",
                      set, slo_ig_variant_name(v), mean[v], median[v], p90[v], max[v]);
        free(ape);
    }
    assert_true(fabs(mean[0] - json_number_value(json_object_get(g, "mean_abs_pct_err"))) <
                0.005);
    assert_true(fabs(p90[0] - json_number_value(json_object_get(g, "p90"))) < 0.005);
    assert_true(mean[1] < 3.0);
    assert_true(p90[1] < 7.0);
    assert_true(median[1] < median[0]);
    slo_ig_profile_free(&p);
    json_decref(gv);
    free(text);
    free(gtext);
}

static void test_lopo_testcon(void **state)
{
    (void)state;
    lopo_on(TESTCON, "testcon.log", 540);
}

static void test_lopo_gpulet(void **state)
{
    (void)state;
    lopo_on(GPULET, "gpulet.config", 1500);
}

/*
 * Leave-one-pair-out is what it says, checked by another route: for the
 * held-out pair {alexnet, ssd} of testcon.log, build a profile whose
 * model_variant.pair_latency holds only the other pairs' rows (so the pair
 * terms are fitted by profile parsing), predict the held-out rows with
 * slo_ig_predict and compare with the lopo errors of those rows.
 */
static void test_lopo_is_held_out(void **state)
{
    char *text = slurp(TESTCON), *dumped;
    const char *prof_text = slo_embedded_gpu_profile("v100-calibrated");
    json_t *holder = NULL, *rows = interference_rows(text, &holder), *prof, *train = json_array();
    struct slo_ig_profile base, q;
    double *ape;
    size_t n, checked = 0;
    slo_error_t err;

    (void)state;
    prof = json_loads(prof_text, 0, NULL);
    assert_non_null(prof);
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        const char *a = json_string_value(json_array_get(r, 0)),
                   *b = json_string_value(json_array_get(r, 1));
        if (!((!strcmp(a, "alexnet") && !strcmp(b, "ssd")) ||
              (!strcmp(a, "ssd") && !strcmp(b, "alexnet"))))
            json_array_append(train, r);
    }
    assert_true(json_array_size(train) < json_array_size(rows));
    json_object_set_new(json_object_get(prof, "model_variant"), "pair_latency", train);
    dumped = json_dumps(prof, JSON_COMPACT);
    assert_non_null(dumped);
    if (slo_ig_profile_parse(dumped, "held-out.json", &q, &err))
        fail_msg("%s", err.text);
    assert_int_equal(q.model_variant, SLO_IG_VARIANT_CALIBRATED);
    open_profile("v100-calibrated", &base);
    if (slo_ig_colocation_errors_lopo(&base, SLO_IG_VARIANT_CALIBRATED, text, TESTCON, &ape, &n,
                                      &err))
        fail_msg("%s", err.text);
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        struct slo_ig_tenant t[2];
        struct slo_ig_prediction o[2];
        if (strcmp(json_string_value(json_array_get(r, 0)), "alexnet") ||
            strcmp(json_string_value(json_array_get(r, 1)), "ssd"))
            continue;
        for (int k = 0; k < 2; k++) {
            t[k].model = slo_ig_find_model(&q, json_string_value(json_array_get(r, (size_t)k)));
            t[k].batch = (int)json_integer_value(json_array_get(r, 2 + (size_t)k));
        }
        t[0].share_pct = json_number_value(json_array_get(r, 4));
        t[1].share_pct = 100.0 - t[0].share_pct;
        assert_int_equal(slo_ig_predict(&q, t, 2, o, NULL, &err), SLO_OK);
        for (int k = 0; k < 2; k++) {
            double meas = json_number_value(json_array_get(r, 5 + (size_t)k));
            double want = fabs(meas - o[k].latency_ms) / meas * 100.0;
            assert_true(fabs(ape[2 * i + (size_t)k] - want) < 1e-9);
            checked++;
        }
    }
    assert_int_equal(checked, 90); /* 45 alexnet+ssd rows, two latencies each */
    free(ape);
    free(dumped);
    slo_ig_profile_free(&q);
    slo_ig_profile_free(&base);
    json_decref(prof);
    json_decref(holder);
    free(text);
}

/*
 * Term 1: at every point of gpulet.config's solo latency tables the
 * calibrated solo prediction (one tenant) is the measurement (the tables
 * are the profile's grid, also where the modelled power is above the cap and
 * the clock drops), while the paper's surface is off by more than 10 % at
 * some of them.
 */
static void test_solo_grid_reproduced(void **state)
{
    char *text = slurp(GPULET);
    const char *line = text;
    struct slo_ig_profile p, f;
    size_t points = 0, capped = 0;
    double worst_faithful = 0.0;

    (void)state;
    open_profile("v100-calibrated", &p);
    open_profile("v100-calibrated", &f);
    f.model_variant = SLO_IG_VARIANT_IGNITER_2023;
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        json_t *o = json_loadb(line, len, 0, NULL), *sec;
        const char *model;
        json_object_foreach(o, model, sec) {
            json_t *tab = json_object_get(sec, "latency"), *row;
            const char *bk;
            if (!strcmp(model, "interference") || !tab)
                continue;
            json_object_foreach(tab, bk, row) {
                const char *rk;
                json_t *cell;
                json_object_foreach(row, rk, cell) {
                    struct slo_ig_tenant t = {slo_ig_find_model(&p, model), atoi(bk), atof(rk)};
                    struct slo_ig_prediction pc, pf;
                    struct slo_ig_gpu_state st;
                    slo_error_t err;
                    double meas = json_number_value(cell);
                    assert_true(t.model >= 0);
                    assert_int_equal(slo_ig_predict(&p, &t, 1, &pc, &st, &err), SLO_OK);
                    assert_int_equal(slo_ig_predict(&f, &t, 1, &pf, NULL, &err), SLO_OK);
                    capped += st.clock_mhz < p.max_clock_mhz;
                    assert_true(fabs(pc.latency_ms - meas) < 1e-9 * meas);
                    if (fabs(pf.latency_ms - meas) / meas > worst_faithful)
                        worst_faithful = fabs(pf.latency_ms - meas) / meas;
                    points++;
                }
            }
        }
        json_decref(o);
        if (!end)
            break;
        line = end + 1;
    }
    print_message("solo grid: %zu points reproduced (%zu above the power cap); igniter-2023 "
                  "worst %.1f %% there\n",
                  points, capped, 100 * worst_faithful);
    assert_int_equal(points, 4 * (32 * 5 + 2)); /* 4 models, b 1..32 x 5 shares, +10/100 % at b 1 */
    assert_true(worst_faithful > 0.10);
    slo_ig_profile_free(&p);
    slo_ig_profile_free(&f);
    free(text);
}

/* The faithful variant of the calibrated profile is the paper's model:
 * Figure 11 (VGG-19 20 % + SSD 80 %, b = 3) as the paper prints it and the
 * upstream Python computes it (research notes 1.4). */
static void test_faithful_exact(void **state)
{
    struct slo_ig_profile p;
    slo_error_t err;
    struct slo_ig_tenant t[2];
    struct slo_ig_prediction o[2];

    (void)state;
    open_profile("v100-calibrated", &p);
    assert_int_equal(p.model_variant, SLO_IG_VARIANT_CALIBRATED);
    assert_int_equal(slo_ig_profile_set_variant(&p, "igniter-2023", &err), SLO_OK);
    t[0] = (struct slo_ig_tenant){slo_ig_find_model(&p, "vgg19"), 3, 20.0};
    t[1] = (struct slo_ig_tenant){slo_ig_find_model(&p, "ssd"), 3, 80.0};
    assert_int_equal(slo_ig_predict(&p, t, 2, o, NULL, &err), SLO_OK);
    /* research notes 1.4 / paper Fig. 11: 28.04963 and 13.64733 ms */
    assert_true(fabs(o[0].latency_ms - 28.04963) < 1e-4);
    assert_true(fabs(o[1].latency_ms - 13.64733) < 1e-4);
    slo_ig_profile_free(&p);
}

static void expect_error(int rv, const slo_error_t *err, const char *needle)
{
    if (rv == SLO_OK)
        fail_msg("expected an error containing \"%s\", got success", needle);
    if (!strstr(err->text, needle))
        fail_msg("expected \"%s\" in \"%s\"", needle, err->text);
}

/* A copy of the embedded v100-calibrated profile with its model_variant
 * section changed by edit, parsed. */
static int parse_edited(void (*edit)(json_t *mv), struct slo_ig_profile *q, slo_error_t *err)
{
    json_t *prof = json_loads(slo_embedded_gpu_profile("v100-calibrated"), 0, NULL);
    char *text;
    int rv;
    assert_non_null(prof);
    edit(json_object_get(prof, "model_variant"));
    text = json_dumps(prof, JSON_COMPACT);
    rv = slo_ig_profile_parse(text, "edited.json", q, err);
    free(text);
    json_decref(prof);
    return rv;
}

static void drop_ssd_grid(json_t *mv) { json_object_del(json_object_get(mv, "solo_latency"), "ssd"); }
static void drop_pairs(json_t *mv) { json_object_del(mv, "pair_latency"); }
static void bad_name(json_t *mv) { json_object_set_new(mv, "name", json_string("igniter-2024")); }
static void bad_share(json_t *mv)
{
    json_t *row = json_object_get(json_object_get(json_object_get(mv, "solo_latency"), "vgg19"),
                                  "4");
    json_object_set_new(row, "120", json_real(3.0));
}
static void no_vgg_pairs(json_t *mv)
{
    json_t *rows = json_object_get(mv, "pair_latency"), *keep = json_array();
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *r = json_array_get(rows, i);
        if (strcmp(json_string_value(json_array_get(r, 0)), "vgg19") &&
            strcmp(json_string_value(json_array_get(r, 1)), "vgg19"))
            json_array_append(keep, r);
    }
    json_object_set_new(mv, "pair_latency", keep);
}
static void grid_only(json_t *mv)
{
    json_object_del(mv, "pair_latency");
    json_object_del(mv, "name");
}

/* Bad input: each names what is missing or wrong. */
static void test_bad_input(void **state)
{
    struct slo_ig_profile p, q;
    slo_error_t err;
    char *text = slurp(TESTCON);
    double *ape;
    size_t n;

    (void)state;
    open_profile("v100", &p);
    expect_error(slo_ig_profile_set_variant(&p, "igniter-2024", &err), &err,
                 "expected igniter-2023 or igniter-calibrated, found \"igniter-2024\"");
    expect_error(slo_ig_profile_set_variant(&p, "igniter-calibrated", &err), &err,
                 "found no model_variant section");
    assert_int_equal(p.model_variant, SLO_IG_VARIANT_IGNITER_2023);
    expect_error(slo_ig_colocation_errors_lopo(&p, SLO_IG_VARIANT_CALIBRATED, text, TESTCON, &ape,
                                               &n, &err),
                 &err, "expected a solo latency grid for model");
    assert_null(ape);
    slo_ig_profile_free(&p);
    expect_error(parse_edited(drop_ssd_grid, &q, &err), &err,
                 "expected a solo latency grid for model \"ssd\"");
    expect_error(parse_edited(drop_pairs, &q, &err), &err,
                 "model_variant.pair_latency: expected pair co-location runs");
    expect_error(parse_edited(bad_name, &q, &err), &err,
                 "model_variant.name: expected igniter-2023 or igniter-calibrated");
    expect_error(parse_edited(bad_share, &q, &err), &err,
                 "model_variant.solo_latency.vgg19.4: expected share keys in (0, 100]");
    expect_error(parse_edited(no_vgg_pairs, &q, &err), &err,
                 "expected at least 3 co-location latencies of model \"vgg19\"");
    /* a grid without runs and without a name: faithful, and the variant refused */
    assert_int_equal(parse_edited(grid_only, &q, &err), SLO_OK);
    assert_int_equal(q.model_variant, SLO_IG_VARIANT_IGNITER_2023);
    expect_error(slo_ig_profile_set_variant(&q, "igniter-calibrated", &err), &err,
                 "model_variant.pair_latency: expected pair co-location runs");
    slo_ig_profile_free(&q);
    free(text);
}


/*
 * The planner with the variant: plans pass the independent verifier (it
 * re-predicts every GPU with slo_ig_predict under the same variant), and
 * slo_infer_solve with options.model_variant gives the same plan as a
 * profile that names the variant itself; its lower bound never exceeds the
 * cost.
 */
static void test_planner(void **state)
{
    struct slo_ig_profile c, f;
    struct slo_ig_workload w[100];
    struct slo_ig_plan plan;
    struct slo_infer_problem pb = {0};
    struct slo_infer_options opt;
    struct slo_infer_result res;
    slo_error_t err;

    (void)state;
    open_profile("v100-calibrated", &c);
    open_profile("v100", &f);
    c.usd_per_gpu_h = f.usd_per_gpu_h = 3.06;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        refdata_seeded_workloads(w, 100, seed);
        if (slo_ig_plan(&c, 1, w, 100, SLO_IG_POLICY_IGNITER, &plan, &err))
            fail_msg("%s", err.text);
        if (slo_ig_plan_verify(&c, 1, w, 100, &plan, &err))
            fail_msg("seed %d: %s", (int)seed, err.text);
        slo_ig_plan_free(&plan);
    }
    refdata_seeded_workloads(w, 20, 11);
    pb.profiles = &c;
    pb.n_types = 1;
    pb.workloads = w;
    pb.n_workloads = 20;
    slo_infer_options_init(&opt);
    assert_null(opt.model_variant);
    assert_int_equal(slo_infer_solve(&pb, &opt, &res, &err), SLO_OK);
    {
        double cost = res.cost_usd_per_h;
        size_t gpus = res.n_gpus;
        assert_true(res.cost_lower_bound_usd_per_h <= cost + 1e-9);
        slo_infer_result_free(&res);
        /* the plain profile told to use the variant: refused (no runs) */
        pb.profiles = &f;
        opt.model_variant = "igniter-calibrated";
        expect_error(slo_infer_solve(&pb, &opt, &res, &err), &err,
                     "found no model_variant section");
        /* the calibrated profile told to use igniter-2023 plans as v100 does */
        pb.profiles = &c;
        opt.model_variant = "igniter-2023";
        assert_int_equal(slo_infer_solve(&pb, &opt, &res, &err), SLO_OK);
        {
            struct slo_infer_result r2;
            pb.profiles = &f;
            opt.model_variant = NULL;
            assert_int_equal(slo_infer_solve(&pb, &opt, &r2, &err), SLO_OK);
            assert_int_equal(res.n_gpus, r2.n_gpus);
            assert_true(res.cost_usd_per_h == r2.cost_usd_per_h);
            print_message("20 seeded workloads: igniter-2023 %zu GPUs, igniter-calibrated %zu\n",
                          r2.n_gpus, gpus);
            slo_infer_result_free(&r2);
        }
        slo_infer_result_free(&res);
    }
    slo_ig_profile_free(&c);
    slo_ig_profile_free(&f);
}

int main(void)
{
    const char *dir = getenv("SLO_REFERENCE_DATA");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lopo_testcon),         cmocka_unit_test(test_lopo_gpulet),
        cmocka_unit_test(test_lopo_is_held_out),     cmocka_unit_test(test_solo_grid_reproduced),
        cmocka_unit_test(test_faithful_exact),       cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_planner),
    };

    if (!dir || !*dir || strcmp(dir, "no") == 0) {
        printf("test_infer_variant: skipped: SLO_REFERENCE_DATA is unset or empty (configure "
               "--with-reference-data=DIR pointing at shared/data)\n");
        return 77;
    }
    snprintf(ref_dir, sizeof ref_dir, "%s", dir);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
