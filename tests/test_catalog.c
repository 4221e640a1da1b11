/*
 * test_catalog.c - catalog and workload JSON: the embedded defaults match
 * the reference data they were transcribed from, and every kind of bad
 * input gives one message naming the field, what was expected and what
 * was found.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "refdata.h"
#include "slo.h"

/* The aws-table3 catalog equals the paper's Table III
 * (shared/data/spotdnn/paper_instances_table3.csv, Jan-2023 spot prices). */
static void test_embedded_table3(void **state)
{
    struct slo_catalog cat;
    struct csv c;
    slo_error_t err = {0};
    (void)state;
    assert_int_equal(slo_catalog_parse(slo_embedded_catalog("aws-table3"), "aws-table3", &cat,
                                       &err),
                     SLO_OK);
    csv_read(refdata_path("spotdnn/paper_instances_table3.csv"), &c);
    assert_int_equal(cat.n_types, c.n_rows);
    for (size_t r = 0; r < c.n_rows; r++) {
        int k = slo_catalog_find(&cat, csv_str(&c, r, "instance_type"));
        assert_true(k >= 0);
        assert_string_equal(cat.types[k].gpu_model, csv_str(&c, r, "gpu_model"));
        assert_int_equal(cat.types[k].gpus, (int)csv_num(&c, r, "gpus_per_instance"));
        assert_int_equal(cat.types[k].quota, (int)csv_num(&c, r, "max_quota"));
        assert_float_equal(cat.types[k].spot_usd_per_h,
                           csv_num(&c, r, "spot_price_usd_per_hour_final_jan2023"), 1e-12);
        assert_float_equal(cat.types[k].on_demand_usd_per_h,
                           csv_num(&c, r, "on_demand_price_usd_per_hour"), 1e-12);
    }
    csv_free(&c);
    slo_catalog_free(&cat);
}

/* The resnet110 workload equals the authors' constants
 * (repo_resnet110_scalars.csv and repo_resnet110_instances.csv). */
static void test_embedded_resnet110(void **state)
{
    struct slo_workload wl;
    struct csv c;
    (void)state;
    assert_int_equal(slo_workload_parse(slo_embedded_workload("resnet110"), "resnet110", &wl,
                                        NULL),
                     SLO_OK);
    csv_read(refdata_path("spotdnn/repo_resnet110_scalars.csv"), &c);
    for (size_t r = 0; r < c.n_rows; r++) {
        const char *sym = csv_str(&c, r, "paper_symbol");
        double v = csv_num(&c, r, "value");
        double got = strcmp(sym, "S_parm") == 0   ? wl.s_parm_mb
                     : strcmp(sym, "B_req") == 0  ? wl.b_req_mbps
                     : strcmp(sym, "B_ps") == 0   ? wl.b_ps_mbps
                     : strcmp(sym, "B_pcie") == 0 ? wl.b_pcie_mbps
                     : strcmp(sym, "alpha1") == 0 ? wl.alpha1
                     : strcmp(sym, "-beta1") == 0 ? -wl.beta1
                     : strcmp(sym, "gamma1") == 0 ? wl.loss.gamma1
                     : strcmp(sym, "gamma2") == 0 ? wl.loss.gamma2
                     : strcmp(sym, "gamma3") == 0 ? wl.loss.gamma3
                     : strcmp(sym, "gamma5") == 0 ? wl.loss.gamma5
                                                  : v; /* the PS type row */
        assert_float_equal(got, v, 1e-12);
    }
    csv_free(&c);
    csv_read(refdata_path("spotdnn/repo_resnet110_instances.csv"), &c);
    assert_int_equal(wl.n_instances, c.n_rows);
    for (size_t r = 0; r < c.n_rows; r++) {
        assert_string_equal(wl.instances[r].type, csv_str(&c, r, "inferred_instance_type"));
        assert_int_equal(wl.instances[r].batch_per_gpu, (int)csv_num(&c, r, "batch_per_gpu"));
        assert_float_equal(wl.instances[r].speed, csv_num(&c, r, "profiled_speed_samples_per_s"),
                           1e-12);
    }
    csv_free(&c);
    slo_workload_free(&wl);
}

#define TYPE_OK "{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 1, \"spot_usd_per_h\": 1, " \
                "\"on_demand_usd_per_h\": 3, \"quota\": 2}"

/* Bad catalogs: each gives SLO_ERR_INVALID, names the field in the text and
 * says what was expected and found. */
static void test_bad_catalogs(void **state)
{
    static const struct { const char *json, *field, *found; } cases[] = {
        {"{\"name\": \"x\", \"types\": [", "line 1", "malformed JSON"},
        {"[1, 2]", "expected a JSON object", "an array"},
        {"{\"types\": [" TYPE_OK "]}", "name", "missing"},
        {"{\"name\": \"x\"}", "types", "nothing"},
        {"{\"name\": \"x\", \"types\": []}", "types", "an empty array"},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 1.0, "
         "\"spot_usd_per_h\": 1, \"on_demand_usd_per_h\": 3, \"quota\": 1}]}",
         "gpus", "found 1.0"},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"p3=2,x\", \"gpu_model\": \"V100\", "
         "\"gpus\": 1, \"spot_usd_per_h\": 1, \"on_demand_usd_per_h\": 3, \"quota\": 1}]}",
         "types[0].name", "\"p3=2,x\""},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 1, "
         "\"spot_usd_per_h\": 1e300, \"on_demand_usd_per_h\": 3, \"quota\": 1}]}",
         "spot_usd_per_h", "found 1e+300"},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 1, "
         "\"spot_usd_per_h\": 1, \"on_demand_usd_per_h\": 3, \"quota\": 1, \"pcie_mbps\": 0}]}",
         "pcie_mbps", "found 0"},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 1, "
         "\"spot_usd_per_h\": -1, \"on_demand_usd_per_h\": 3, \"quota\": 2}]}",
         "types[0] (a).spot_usd_per_h", "found -1"},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 1, "
         "\"on_demand_usd_per_h\": 3, \"quota\": 2}]}",
         "types[0] (a).spot_usd_per_h", "missing"},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 1, "
         "\"spot_usd_per_h\": \"cheap\", \"on_demand_usd_per_h\": 3, \"quota\": 2}]}",
         "spot_usd_per_h", "the string \"cheap\""},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 1, "
         "\"spot_usd_per_h\": 1, \"on_demand_usd_per_h\": 3, \"quota\": 0}]}",
         "quota", "every quota 0"},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 0, "
         "\"spot_usd_per_h\": 1, \"on_demand_usd_per_h\": 3, \"quota\": 1}]}",
         "types[0] (a).gpus", "found 0"},
        {"{\"name\": \"x\", \"types\": [" TYPE_OK ", " TYPE_OK "]}", "types[1].name", "again"},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 1, "
         "\"spot_usd_per_h\": 1, \"on_demand_usd_per_h\": 3, \"quota\": 1, \"qouta\": 4}]}",
         "\"qouta\"", "unknown field"},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 1, "
         "\"site\": \"moon\", \"usd_per_h\": 1, \"quota\": 1}]}",
         "site", "\"moon\""},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 1, "
         "\"site\": \"onprem\", \"spot_usd_per_h\": 1, \"quota\": 1}]}",
         "on-prem", "usd_per_h"},
        {"{\"name\": \"x\", \"name\": \"y\", \"types\": []}", "line 1", "duplicate"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct slo_catalog cat;
        slo_error_t err = {0};
        int rv = slo_catalog_parse(cases[i].json, "bad.json", &cat, &err);
        if (rv != SLO_ERR_INVALID || !strstr(err.text, cases[i].field) ||
            !strstr(err.text, cases[i].found) || strcmp(err.source, "bad.json") != 0) {
            fprintf(stderr, "case %zu: rv %d, source \"%s\", text \"%s\"\n", i, rv, err.source,
                    err.text);
            fail();
        }
        assert_null(cat.types); /* nothing half-built */
    }
}

#define WL_HEAD "{\"name\": \"w\", \"s_parm_mb\": 10, \"b_req_mbps\": 100, \"b_ps_mbps\": 1000, " \
                "\"contention\": {\"alpha1\": 0.8, \"beta1\": -1.9}, "
#define WL_INST "\"instances\": [{\"type\": \"a\", \"batch_per_gpu\": 64, \"speed_samples_per_s\": 100}]}"

static void test_bad_workloads(void **state)
{
    static const struct { const char *json, *field, *found; } cases[] = {
        {WL_HEAD "\"loss_model\": {\"form\": \"optimus\", \"gamma1\": 1, \"gamma2\": 0, "
                 "\"gamma3\": 1, \"gamma5\": 0}, " WL_INST,
         "loss_model.form", "\"optimus\""},
        {WL_HEAD "\"loss_model\": {\"form\": \"spotdnn-2022\", \"gamma1\": 1, \"gamma2\": 0, "
                 "\"gamma3\": 1, \"gamma4\": 1, \"gamma5\": 0}, " WL_INST,
         "gamma4", "spotdnn-2022"},
        {WL_HEAD "\"loss_model\": {\"form\": \"spotdnn-2023\", \"gamma1\": 1, \"gamma2\": 0, "
                 "\"gamma3\": 1, \"gamma5\": 0}, " WL_INST,
         "loss_model.gamma4", "missing"},
        {WL_HEAD "\"loss_model\": {\"form\": \"spotdnn-2022\", \"gamma1\": 1, \"gamma2\": -0.1, "
                 "\"gamma3\": -1, \"gamma5\": 0}, " WL_INST,
         "loss_model", "decays"},
        {WL_HEAD "\"loss_model\": {\"form\": \"spotdnn-2022\", \"gamma1\": 1, \"gamma2\": 0, "
                 "\"gamma3\": 1, \"gamma5\": 0}, \"instances\": []}",
         "instances", "an empty array"},
        {WL_HEAD "\"loss_model\": {\"form\": \"spotdnn-2022\", \"gamma1\": 1, \"gamma2\": 0, "
                 "\"gamma3\": 1, \"gamma5\": 0}, \"instances\": [{\"type\": \"a\", "
                 "\"batch_per_gpu\": 64, \"speed_samples_per_s\": 0}]}",
         "instances[0].speed_samples_per_s", "found 0"},
        {"{\"name\": \"w\", \"s_parm_mb\": 10, \"b_req_mbps\": 100, \"b_ps_mbps\": 1000, "
         "\"loss_model\": {}, " WL_INST,
         "contention", "nothing"},
        {WL_HEAD "\"compat\": \"tf1\", \"loss_model\": {}, " WL_INST, "compat", "\"tf1\""},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct slo_workload wl;
        slo_error_t err = {0};
        int rv = slo_workload_parse(cases[i].json, "w.json", &wl, &err);
        if (rv != SLO_ERR_INVALID || !strstr(err.text, cases[i].field) ||
            !strstr(err.text, cases[i].found)) {
            fprintf(stderr, "case %zu: rv %d, text \"%s\"\n", i, rv, err.text);
            fail();
        }
        assert_null(wl.instances);
    }
}

static void test_files(void **state)
{
    struct slo_catalog cat;
    slo_error_t err = {0};
    (void)state;
    assert_int_equal(slo_catalog_load("/nonexistent/catalog.json", &cat, &err), SLO_ERR_IO);
    assert_string_equal(err.source, "/nonexistent/catalog.json");
    assert_non_null(strstr(err.text, "cannot open"));
}

/* The workload serializes to JSON that parses back to the same values. */
static void test_workload_roundtrip(void **state)
{
    struct slo_workload a, b;
    (void)state;
    assert_int_equal(slo_workload_parse(slo_embedded_workload("resnet110"), "r", &a, NULL), 0);
    char *text = slo_workload_to_json(&a);
    assert_non_null(text);
    assert_int_equal(slo_workload_parse(text, "roundtrip", &b, NULL), SLO_OK);
    assert_float_equal(a.loss.gamma3, b.loss.gamma3, 0);
    assert_int_equal(a.compat, b.compat);
    assert_int_equal(a.n_instances, b.n_instances);
    assert_float_equal(a.instances[4].speed, b.instances[4].speed, 0);
    free(text);
    slo_workload_free(&a);
    slo_workload_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_embedded_table3),
        cmocka_unit_test(test_embedded_resnet110),
        cmocka_unit_test(test_bad_catalogs),
        cmocka_unit_test(test_bad_workloads),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_workload_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
