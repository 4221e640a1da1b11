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

/* One cloud type "a" whose spot pools are POOLS (JSON objects). */
#define POOLED(POOLS) "{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": " \
                      "\"V100\", \"gpus\": 1, \"on_demand_usd_per_h\": 3, \"pools\": [" POOLS "]}]}"

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
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a@b\", \"gpu_model\": \"V100\", "
         "\"gpus\": 1, \"spot_usd_per_h\": 1, \"on_demand_usd_per_h\": 3, \"quota\": 1}]}",
         "types[0].name", "'@' names a spot pool"},
        /* Spot pools (issue 20). */
        {POOLED("{\"zone\": \"z1\", \"spot_usd_per_h\": -0.5, \"quota\": 1}"),
         "types[0] (a).pools[0] (z1).spot_usd_per_h", "found -0.5"},
        {POOLED("{\"zone\": \"z1\", \"spot_usd_per_h\": 0.5, \"quota\": -2}"),
         "types[0] (a).pools[0] (z1).quota", "found -2"},
        {POOLED("{\"zone\": \"z1\", \"spot_usd_per_h\": 0.5, \"quota\": 1}, "
                "{\"zone\": \"z2\", \"spot_usd_per_h\": 0.6, \"quota\": 1}, "
                "{\"zone\": \"z1\", \"spot_usd_per_h\": 0.7, \"quota\": 1}"),
         "types[0] (a).pools[2].zone", "\"z1\" again (first at pools[0])"},
        {POOLED("{\"zone\": \"z1\", \"spot_usd_per_h\": 0.5, \"quota\": 1, "
                "\"on_demand_usd_per_h\": -1}"),
         "pools[0] (z1).on_demand_usd_per_h", "found -1"},
        {POOLED("{\"spot_usd_per_h\": 0.5, \"quota\": 1}"), "pools[0].zone", "missing"},
        {POOLED("{\"zone\": \"us east\", \"spot_usd_per_h\": 0.5, \"quota\": 1}"),
         "pools[0].zone", "\"us east\""},
        {POOLED("{\"zone\": \"z1\", \"spot_usd_per_h\": 0.5, \"quota\": 1, \"price\": 1}"),
         "\"price\"", "unknown field"},
        {POOLED("{\"zone\": \"z1\", \"spot_usd_per_h\": 0.5, \"quota\": 0}"), "quota",
         "every quota 0"},
        {POOLED("7"), "types[0] (a).pools[0]", "expected an object"},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 1, "
         "\"on_demand_usd_per_h\": 3, \"pools\": []}]}",
         "types[0] (a).pools", "an empty array"},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 1, "
         "\"spot_usd_per_h\": 1, \"on_demand_usd_per_h\": 3, \"pools\": "
         "[{\"zone\": \"z\", \"spot_usd_per_h\": 1, \"quota\": 1}]}]}",
         "types[0] (a).spot_usd_per_h", "pools[]"},
        {"{\"name\": \"x\", \"types\": [{\"name\": \"a\", \"gpu_model\": \"V100\", \"gpus\": 1, "
         "\"site\": \"onprem\", \"usd_per_h\": 0, \"pools\": "
         "[{\"zone\": \"z\", \"spot_usd_per_h\": 1, \"quota\": 1}]}]}",
         "types[0] (a).pools", "only cloud types"},
        {"{\"name\": \"x\", \"types\": [" TYPE_OK ", {\"name\": \"a\", \"gpu_model\": \"V100\", "
         "\"gpus\": 1, \"on_demand_usd_per_h\": 3, \"pools\": "
         "[{\"zone\": \"z\", \"spot_usd_per_h\": 1, \"quota\": 1}]}]}",
         "types[1].name", "\"a\" again (first at types[0])"},
        {POOLED("{\"zone\": \"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\", "
                "\"spot_usd_per_h\": 1, \"quota\": 1}"),
         "pools[0].zone", "at most 63 characters"},
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

/* spotdnn-resnet110 (etc/slo/catalogs/spotdnn-resnet110.json: the authors'
 * five types, quotas and Sep-2022 spot prices) with three of its types split
 * into spot pools of the same price whose quotas add up to the type's:
 * p3.2xlarge 2 = 1 + 1, g3.8xlarge 5 = 2 + 3, g3.16xlarge 8 = 3 + 5. */
#define RESNET110_POOLS                                                                       \
    "{\"name\": \"resnet110-pools\", \"types\": ["                                            \
    "{\"name\": \"p3.2xlarge\", \"gpu_model\": \"V100\", \"gpus\": 1, \"gpu_memory_gb\": 16, " \
    "\"on_demand_usd_per_h\": 3.06, \"network_mbps\": 1250, \"pcie_mbps\": 10000, "           \
    "\"pools\": [{\"zone\": \"us-east-1a\", \"spot_usd_per_h\": 0.918, \"quota\": 1}, "       \
    "{\"zone\": \"us-east-1b\", \"spot_usd_per_h\": 0.918, \"quota\": 1}]}, "                 \
    "{\"name\": \"g4dn.4xlarge\", \"gpu_model\": \"T4\", \"gpus\": 1, \"gpu_memory_gb\": 16, " \
    "\"on_demand_usd_per_h\": 1.20, \"network_mbps\": 3125, \"pcie_mbps\": 10000, "           \
    "\"pools\": [{\"zone\": \"us-east-1d\", \"spot_usd_per_h\": 0.3612, \"quota\": 5}]}, "    \
    "{\"name\": \"g3.8xlarge\", \"gpu_model\": \"M60\", \"gpus\": 2, \"gpu_memory_gb\": 8, "   \
    "\"on_demand_usd_per_h\": 2.28, \"network_mbps\": 1250, \"pcie_mbps\": 10000, "           \
    "\"pools\": [{\"zone\": \"us-east-1a\", \"spot_usd_per_h\": 0.684, \"quota\": 2}, "       \
    "{\"zone\": \"us-east-1b\", \"spot_usd_per_h\": 0.684, \"quota\": 3}]}, "                 \
    "{\"name\": \"g3.16xlarge\", \"gpu_model\": \"M60\", \"gpus\": 4, \"gpu_memory_gb\": 8, "  \
    "\"on_demand_usd_per_h\": 4.56, \"network_mbps\": 3125, \"pcie_mbps\": 10000, "           \
    "\"pools\": [{\"zone\": \"us-east-1a\", \"spot_usd_per_h\": 1.5676, \"quota\": 3}, "      \
    "{\"zone\": \"us-east-1c\", \"spot_usd_per_h\": 1.5676, \"quota\": 5}]}, "                \
    "{\"name\": \"p2.8xlarge\", \"gpu_model\": \"K80\", \"gpus\": 8, \"gpu_memory_gb\": 12, "  \
    "\"spot_usd_per_h\": 2.16, \"on_demand_usd_per_h\": 7.20, \"quota\": 5, "                 \
    "\"network_mbps\": 1250, \"pcie_mbps\": 10000}]}"

/* Pools expand to one entry each, TYPE@ZONE, with the type's GPUs and
 * bandwidths and their own price and quota (hand-checked against the text). */
static void test_pools_expand(void **state)
{
    struct slo_catalog cat;
    slo_error_t err = {0};
    (void)state;
    assert_int_equal(slo_catalog_parse(RESNET110_POOLS, "pools.json", &cat, &err), SLO_OK);
    assert_int_equal(cat.n_types, 8); /* 2 + 1 + 2 + 2 pools + 1 plain type */
    static const char *const names[] = {
        "p3.2xlarge@us-east-1a", "p3.2xlarge@us-east-1b", "g4dn.4xlarge@us-east-1d",
        "g3.8xlarge@us-east-1a", "g3.8xlarge@us-east-1b", "g3.16xlarge@us-east-1a",
        "g3.16xlarge@us-east-1c", "p2.8xlarge"};
    for (size_t k = 0; k < 8; k++)
        assert_string_equal(cat.types[k].name, names[k]);
    const struct slo_instance_type *t = &cat.types[slo_catalog_find(&cat, "g3.16xlarge@us-east-1c")];
    assert_string_equal(t->type, "g3.16xlarge");
    assert_string_equal(slo_instance_profile(t), "g3.16xlarge");
    assert_string_equal(t->zone, "us-east-1c");
    assert_string_equal(t->gpu_model, "M60");
    assert_int_equal(t->gpus, 4);
    assert_int_equal(t->quota, 5);
    assert_float_equal(t->spot_usd_per_h, 1.5676, 0);
    assert_float_equal(t->on_demand_usd_per_h, 4.56, 0);
    assert_float_equal(t->network_mbps, 3125, 0);
    assert_int_equal(t->site, SLO_SITE_CLOUD);
    /* a plain type: its own name is its profile, no zone */
    assert_string_equal(cat.types[7].type, "p2.8xlarge");
    assert_string_equal(cat.types[7].zone, "");
    assert_int_equal(slo_catalog_find(&cat, "g3.16xlarge"), -1);
    assert_int_equal(slo_catalog_find_type(&cat, "g3.16xlarge"), 5);
    assert_int_equal(slo_catalog_find_type(&cat, "p2.8xlarge"), 7);
    assert_int_equal(slo_catalog_find_type(&cat, "p3.8xlarge"), -1);
    slo_catalog_free(&cat);

    /* a pool's own on-demand price overrides the type's */
    assert_int_equal(slo_catalog_parse(POOLED("{\"zone\": \"z1\", \"spot_usd_per_h\": 0.5, "
                                              "\"quota\": 1, \"on_demand_usd_per_h\": 3.5}, "
                                              "{\"zone\": \"z2\", \"spot_usd_per_h\": 0.25, "
                                              "\"quota\": 0}"),
                                       "p.json", &cat, &err),
                     SLO_OK);
    assert_int_equal(cat.n_types, 2);
    assert_float_equal(cat.types[0].on_demand_usd_per_h, 3.5, 0);
    assert_float_equal(cat.types[1].on_demand_usd_per_h, 3, 0);
    assert_float_equal(cat.types[1].spot_usd_per_h, 0.25, 0);
    assert_int_equal(cat.types[1].quota, 0);
    slo_catalog_free(&cat);
}

/* Splitting a type into same-priced pools whose quotas add up to the type's
 * changes no plan's cost: on a 5 x 5 grid of SLOs the exact search on the
 * pooled catalog gives the status and the cost it gives on
 * spotdnn-resnet110 itself (the reference: that catalog's plans are checked
 * against the authors' outputs in test_train_solve), each pool within its
 * quota and each type, summed over its pools, within the type's quota. */
static void test_pools_plan(void **state)
{
    struct slo_catalog plain, pooled;
    struct slo_workload wl;
    static const double losses[] = {0.6, 0.7, 0.8, 1.0, 1.2};
    static const double deadlines[] = {1200, 2000, 2600, 3600, 6000};
    int feasible = 0;
    (void)state;
    assert_int_equal(slo_catalog_parse(slo_embedded_catalog("spotdnn-resnet110"), "plain", &plain,
                                       NULL),
                     SLO_OK);
    assert_int_equal(slo_catalog_parse(RESNET110_POOLS, "pooled", &pooled, NULL), SLO_OK);
    assert_int_equal(slo_workload_parse(slo_embedded_workload("resnet110"), "resnet110", &wl,
                                        NULL),
                     SLO_OK);
    for (size_t i = 0; i < sizeof losses / sizeof losses[0]; i++)
        for (size_t j = 0; j < sizeof deadlines / sizeof deadlines[0]; j++) {
            struct slo_train_problem pb = {.catalog = &plain, .workload = &wl,
                                           .pricing = SLO_PRICING_SPOT,
                                           .target_loss = losses[i],
                                           .deadline_s = deadlines[j]};
            struct slo_train_options opt;
            struct slo_train_result a, b;
            slo_train_options_init(&opt);
            opt.search = SLO_TRAIN_SEARCH_EXACT;
            opt.comparisons = 0;
            assert_int_equal(slo_train_solve(&pb, &opt, &a, NULL), SLO_OK);
            pb.catalog = &pooled;
            assert_int_equal(slo_train_solve(&pb, &opt, &b, NULL), SLO_OK);
            assert_int_equal(b.setup.n_types, 8);
            if (a.status != b.status)
                fail_msg("loss %g, %g s: status %d plain, %d pooled", losses[i], deadlines[j],
                         a.status, b.status);
            if (slo_status_feasible(a.status)) {
                feasible++;
                assert_float_equal(a.plan.eval.cost_usd, b.plan.eval.cost_usd, 1e-9);
                int per_type[5] = {0}, total_a = 0, total_b = 0;
                for (size_t k = 0; k < b.setup.n_types; k++) {
                    const struct slo_instance_type *it =
                        &pooled.types[b.setup.types[k].catalog_index];
                    int t = slo_catalog_find(&plain, slo_instance_profile(it));
                    assert_true(t >= 0 && t < 5);
                    assert_true(b.plan.counts[k] <= it->quota);
                    per_type[t] += b.plan.counts[k];
                    total_b += b.plan.counts[k];
                }
                for (size_t k = 0; k < a.setup.n_types; k++) {
                    int t = a.setup.types[k].catalog_index;
                    assert_true(per_type[t] <= plain.types[t].quota);
                    total_a += a.plan.counts[k];
                }
                assert_true(total_a > 0 && total_b > 0);
            }
            slo_train_result_free(&a);
            slo_train_result_free(&b);
        }
    assert_true(feasible > 0 && feasible < 25); /* the grid has both kinds */
    slo_workload_free(&wl);
    slo_catalog_free(&plain);
    slo_catalog_free(&pooled);
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
        cmocka_unit_test(test_pools_expand),
        cmocka_unit_test(test_pools_plan),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_workload_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
