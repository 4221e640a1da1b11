/*
 * test_spank_plan.c - spank_slo.so's pure planning part (spank_plugin/plan.c):
 * node inventory -> quotas, the plan on the Slurm test cluster's catalog and
 * workload (tests/slurm/), and the SLO_* records of the contract
 * (/work/coord/PLAN-CONTRACT.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Hand-worked reference for tests/slurm/workloads/testnet.json (paper compat,
 * loss form spotdnn-2022; spotDNN IWQoS 2023 Eqs. 1-4, draft Eq. 3):
 *  - One instance alone iterates in T = gpus * batch_per_gpu / speed:
 *    a100-node 2*256/2000 = 0.256 s; t4-node and g4dn.12xlarge 512/1200 =
 *    0.426667 s. Up to 5 workers draw 5 * 500 <= 2500 MB/s from the PS: no
 *    contention, so (paper compat) each worker's Eq. 6-7 time is T again.
 *  - Eq. 2: T_exp = 1 / sum 1/T_i. Every worker's batch is 512 samples, so
 *    the weighted-average batch b_w = 512 and g2 b_w + g3 = -0.0001 * 512 +
 *    2000 = 1999.9488.
 *  - Draft Eq. 3 inverted: j = 1999.9488 sqrt(n) / (L - 0.5) - 100, rounded
 *    up. For L = 0.8: n=1 6566.5 -> 6567; n=2 9327.8 -> 9328; n=3 11446.6 ->
 *    11447; n=4 13233.0 -> 13233.
 *  - Eq. 1: time = j T_exp:
 *      a100 alone                 6567 * 0.256                  = 1681.152 s
 *      a100 + t4                  9328 / (3.90625 + 2.34375)    = 1492.48 s
 *      a100 + t4 + g4dn           11447 / (3.90625 + 2 * 2.34375) = 1332.01 s
 *      a100 + t4 + 2 g4dn         13233 / (3.90625 + 3 * 2.34375) = 1209.87 s
 *      t4 + g4dn (or 2 g4dn)      9328 * 0.426667 / 2           = 1989.97 s
 *      t4 alone                   6567 * 0.426667               = 2801.92 s
 *  - Eq. 11: cost = time * sum of USD/h / 3600 (catalog: a100 1.10, t4 0.35,
 *    g4dn spot 1.25, on-demand 3.912).
 * With the test cluster's 4 nodes (n1 a100, n2 t4, c1/c2 g4dn spot):
 *  40:00 (2400 s): t4 alone misses it; a100 alone is the cheapest that meets
 *    it: 1681.152 * 1.10 / 3600 = 0.513685 USD (a100 + t4 costs 0.601).
 *  23:00 (1380 s): only 3- and 4-worker plans with the a100 meet it; the
 *    cheapest is a100 + t4 + g4dn: 1332.01 * 2.70 / 3600 = 0.999 USD.
 *  15:00 (900 s): nothing; the fastest cluster is all four, 1209.87 s.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "plan.h"

#define CLOUD_DOWN (NODE_STATE_IDLE | NODE_STATE_CLOUD | NODE_STATE_POWERED_DOWN)

/* The contract's test cluster, plus nodes that must not count. */
static const struct sslo_node cluster[] = {
    {"n1", "a100-node", NODE_STATE_IDLE},
    {"n2", "t4-node", NODE_STATE_ALLOCATED},
    {"c1", "g4dn.12xlarge,spot", CLOUD_DOWN},
    {"c2", "g4dn.12xlarge,spot", CLOUD_DOWN | NODE_STATE_POWERING_UP},
};
static const struct sslo_node not_counted[] = {
    {NULL, NULL, 0},                                          /* hidden CLOUD node */
    {NULL, "a100-node", NODE_STATE_IDLE},                     /* hidden, features kept */
    {"n3", "a100-node", NODE_STATE_DOWN},
    {"n4", "a100-node", NODE_STATE_IDLE | NODE_STATE_DRAIN},
    {"n5", "a100-node", NODE_STATE_MIXED | NODE_STATE_FAIL},
    {"n6", "a100-node-x,t4", NODE_STATE_IDLE},                /* not the exact feature */
    {"n7", NULL, NODE_STATE_IDLE},
    {"n8", "a100-node", NODE_STATE_FUTURE},
    {"c9", "g4dn.12xlarge,spot",                             /* failed resume */
     NODE_STATE_DOWN | NODE_STATE_CLOUD | NODE_STATE_POWERED_DOWN},
};

struct fixture {
    struct slo_catalog cat;
    struct slo_workload wl;
    struct sslo_config cfg;
};

static int setup(void **state)
{
    const char *src = getenv("SLO_SRCDIR");
    char path[1024];
    slo_error_t err = {0};
    struct fixture *f = calloc(1, sizeof *f);

    if (!f)
        return -1;
    if (!src)
        src = ".";
    snprintf(path, sizeof path, "%s/tests/slurm/catalog.json", src);
    if (slo_catalog_load(path, &f->cat, &err) != SLO_OK) {
        fprintf(stderr, "%s: %s\n", path, err.text);
        free(f);
        return -1;
    }
    snprintf(path, sizeof path, "%s/tests/slurm/workloads/testnet.json", src);
    if (slo_workload_load(path, &f->wl, &err) != SLO_OK) {
        fprintf(stderr, "%s: %s\n", path, err.text);
        slo_catalog_free(&f->cat);
        free(f);
        return -1;
    }
    if (sslo_config_parse(&f->cfg, 0, NULL, NULL, 0)) {
        slo_catalog_free(&f->cat);
        slo_workload_free(&f->wl);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    slo_catalog_free(&f->cat);
    slo_workload_free(&f->wl);
    free(f);
    return 0;
}

/* Catalog order of the test catalog: a100-node, t4-node, g4dn.12xlarge. */
static void expect_types(const struct slo_catalog *cat)
{
    assert_int_equal(cat->n_types, 3);
    assert_string_equal(cat->types[0].name, "a100-node");
    assert_string_equal(cat->types[1].name, "t4-node");
    assert_string_equal(cat->types[2].name, "g4dn.12xlarge");
}

static void test_features(void **state)
{
    (void)state;
    assert_true(sslo_features_have("g4dn.12xlarge,spot", "spot"));
    assert_true(sslo_features_have("g4dn.12xlarge,spot", "g4dn.12xlarge"));
    assert_false(sslo_features_have("g4dn.12xlarge,spot", "g4dn"));
    assert_false(sslo_features_have("a100-node-x", "a100-node"));
    assert_false(sslo_features_have("xa100-node", "a100-node"));
    assert_false(sslo_features_have(NULL, "a100-node"));
    assert_false(sslo_features_have("", "a100-node"));
    assert_true(sslo_features_have("a,,b", "b"));
}

static void test_node_states(void **state)
{
    (void)state;
    /* Usable now or after a power-up. */
    assert_true(sslo_node_usable(NODE_STATE_IDLE));
    assert_true(sslo_node_usable(NODE_STATE_ALLOCATED));
    assert_true(sslo_node_usable(NODE_STATE_MIXED | NODE_STATE_COMPLETING));
    assert_true(sslo_node_usable(CLOUD_DOWN));
    assert_true(sslo_node_usable(NODE_STATE_IDLE | NODE_STATE_CLOUD | NODE_STATE_POWERING_UP));
    /* DOWN, DRAIN (drained or draining), FAIL, FUTURE: not usable. */
    assert_false(sslo_node_usable(NODE_STATE_DOWN));
    assert_false(sslo_node_usable(NODE_STATE_DOWN | NODE_STATE_CLOUD | NODE_STATE_POWERED_DOWN));
    assert_false(sslo_node_usable(NODE_STATE_IDLE | NODE_STATE_DRAIN));
    assert_false(sslo_node_usable(NODE_STATE_ALLOCATED | NODE_STATE_DRAIN));
    assert_false(sslo_node_usable(NODE_STATE_IDLE | NODE_STATE_FAIL));
    assert_false(sslo_node_usable(NODE_STATE_FUTURE));
}

static void test_inventory(void **state)
{
    struct fixture *f = *state;
    struct sslo_node nodes[sizeof cluster / sizeof cluster[0] +
                           sizeof not_counted / sizeof not_counted[0] + 2];
    size_t n = 0;
    int usable[3];

    expect_types(&f->cat);
    for (size_t i = 0; i < sizeof cluster / sizeof cluster[0]; i++)
        nodes[n++] = cluster[i];
    for (size_t i = 0; i < sizeof not_counted / sizeof not_counted[0]; i++)
        nodes[n++] = not_counted[i];
    /* Cloud nodes by pricing: "ondemand" only -> on-demand; neither -> both. */
    nodes[n++] = (struct sslo_node){"c3", "g4dn.12xlarge,ondemand", CLOUD_DOWN};
    nodes[n++] = (struct sslo_node){"c4", "g4dn.12xlarge", CLOUD_DOWN};

    sslo_inventory_count(&f->cat, nodes, n, SLO_PRICING_SPOT, usable);
    assert_int_equal(usable[0], 1); /* n1 */
    assert_int_equal(usable[1], 1); /* n2 */
    assert_int_equal(usable[2], 3); /* c1, c2, c4 */
    sslo_inventory_count(&f->cat, nodes, n, SLO_PRICING_ON_DEMAND, usable);
    assert_int_equal(usable[0], 1);
    assert_int_equal(usable[1], 1);
    assert_int_equal(usable[2], 2); /* c3, c4 */

    /* Quota = min(catalog quota 1, 1, 10; usable; max_nodes). */
    sslo_inventory_count(&f->cat, cluster, 4, SLO_PRICING_SPOT, usable);
    sslo_apply_inventory(&f->cat, usable, 64);
    assert_int_equal(f->cat.types[0].quota, 1);
    assert_int_equal(f->cat.types[1].quota, 1);
    assert_int_equal(f->cat.types[2].quota, 2);
    sslo_apply_inventory(&f->cat, (int[]){0, 5, 7}, 1);
    assert_int_equal(f->cat.types[0].quota, 0);
    assert_int_equal(f->cat.types[1].quota, 1);
    assert_int_equal(f->cat.types[2].quota, 1);
}

/* Plan on fresh quotas from nodes[]; returns sslo_plan's code. */
static int plan_on(struct fixture *f, const struct sslo_node *nodes, size_t n, double loss,
                   double deadline_s, double budget, enum slo_pricing pricing,
                   struct sslo_plan_result *res)
{
    struct slo_catalog cat = {0};
    slo_error_t err = {0};
    const char *src = getenv("SLO_SRCDIR");
    char path[1024];
    int usable[3], rv;
    struct sslo_plan_request req = {.workload = "testnet", .loss = loss,
                                    .deadline_s = deadline_s, .budget_usd = budget,
                                    .pricing = pricing, .mode = SSLO_MODE_ENFORCE};

    snprintf(path, sizeof path, "%s/tests/slurm/catalog.json", src ? src : ".");
    assert_int_equal(slo_catalog_load(path, &cat, &err), SLO_OK);
    sslo_inventory_count(&cat, nodes, n, pricing, usable);
    sslo_apply_inventory(&cat, usable, f->cfg.max_nodes);
    rv = sslo_plan(&f->cfg, &cat, usable, &f->wl, &req, res, &err);
    slo_catalog_free(&cat);
    return rv;
}

static void expect(const struct sslo_plan_result *r, const char *name, const char *value)
{
    const char *v = sslo_plan_value(r, name);
    assert_non_null(v);
    if (strcmp(v, value) != 0)
        fail_msg("%s: expected \"%s\", found \"%s\"", name, value, v);
}

static void expect_num(const struct sslo_plan_result *r, const char *name, double value,
                       double tol)
{
    const char *v = sslo_plan_value(r, name);
    assert_non_null(v);
    if (!(fabs(atof(v) - value) <= tol))
        fail_msg("%s: expected %.6f +- %g, found \"%s\"", name, value, tol, v);
}

static void test_plan_onprem(void **state)
{
    struct fixture *f = *state;
    struct sslo_plan_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    assert_int_equal(plan_on(f, cluster, 4, 0.8, 2400, 0, SLO_PRICING_SPOT, r), SLO_OK);
    assert_true(r->feasible);
    expect(r, "SLO_PLAN_VERSION", "1");
    expect(r, "SLO_MODE", "enforce");
    expect(r, "SLO_PARTITION", "onprem");
    expect(r, "SLO_NODES", "1");
    expect(r, "SLO_INSTANCES", "a100-node:1");
    expect(r, "SLO_CONSTRAINT", "a100-node");
    expect(r, "SLO_GRES", "gpu:2");
    expect(r, "SLO_SPOT", "0");
    expect(r, "SLO_PRICING", "spot");
    expect_num(r, "SLO_TIME_S", 1681.152, 0.006);
    expect_num(r, "SLO_COST_USD", 0.513685, 1e-6);
    expect_num(r, "SLO_COST_USD_PER_H", 1.10, 1e-9);
    expect(r, "SLO_DEADLINE_S", "2400");
    expect(r, "SLO_LOSS", "0.8");
    expect(r, "SLO_ITERATIONS", "6567");
    expect(r, "SLO_WORKERS", "1");
    expect(r, "SLO_WORKLOAD", "testnet");
    /* Values carry no spaces (contract); the table names the partition. */
    for (int i = 0; i < SSLO_N_RECORDS; i++) {
        assert_true(r->values[i][0] != '\0');
        assert_null(strchr(r->values[i], ' '));
    }
    assert_non_null(strstr(r->table, "partition onprem, 1 node, gpu:2 per node"));
    free(r);
}

static void test_plan_burst(void **state)
{
    struct fixture *f = *state;
    struct sslo_plan_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    assert_int_equal(plan_on(f, cluster, 4, 0.8, 1380, 0, SLO_PRICING_SPOT, r), SLO_OK);
    expect(r, "SLO_PARTITION", "burst");
    expect(r, "SLO_NODES", "3");
    expect(r, "SLO_INSTANCES", "a100-node:1,t4-node:1,g4dn.12xlarge:1");
    expect(r, "SLO_CONSTRAINT", "[a100-node*1&t4-node*1&g4dn.12xlarge*1]");
    expect(r, "SLO_GRES", "gpu:2");
    expect(r, "SLO_SPOT", "1");
    expect_num(r, "SLO_TIME_S", 11447.0 / 8.59375, 0.006);
    expect_num(r, "SLO_COST_USD", 11447.0 / 8.59375 * 2.70 / 3600, 1e-5);
    expect(r, "SLO_ITERATIONS", "11447");
    expect(r, "SLO_WORKERS", "3");

    /* Without n1 the loose SLO needs t4 + one cloud node: 1989.97 s at
     * 1.60 USD/h (cheaper than 2 g4dn at 2.50 USD/h, same time). */
    assert_int_equal(plan_on(f, cluster + 1, 3, 0.8, 2400, 0, SLO_PRICING_SPOT, r), SLO_OK);
    expect(r, "SLO_INSTANCES", "t4-node:1,g4dn.12xlarge:1");
    expect(r, "SLO_PARTITION", "burst");
    expect_num(r, "SLO_TIME_S", 9328 * 512.0 / 1200 / 2, 0.006);

    /* Cloud nodes only: 2 g4dn, the spot partition. */
    assert_int_equal(plan_on(f, cluster + 2, 2, 0.8, 2400, 0, SLO_PRICING_SPOT, r), SLO_OK);
    expect(r, "SLO_INSTANCES", "g4dn.12xlarge:2");
    expect(r, "SLO_CONSTRAINT", "g4dn.12xlarge");
    expect(r, "SLO_PARTITION", "cloud-spot");
    expect(r, "SLO_SPOT", "1");
    expect_num(r, "SLO_COST_USD_PER_H", 2.50, 1e-9);

    /* The same with on-demand prices and nodes without a spot feature. */
    const struct sslo_node od[] = {{"c1", "g4dn.12xlarge,ondemand", CLOUD_DOWN},
                                   {"c2", "g4dn.12xlarge", CLOUD_DOWN}};
    assert_int_equal(plan_on(f, od, 2, 0.8, 2400, 0, SLO_PRICING_ON_DEMAND, r), SLO_OK);
    expect(r, "SLO_PARTITION", "cloud-ondemand");
    expect(r, "SLO_SPOT", "0");
    expect(r, "SLO_PRICING", "on-demand");
    expect_num(r, "SLO_COST_USD_PER_H", 2 * 3.912, 1e-9);
    free(r);
}

static void test_plan_infeasible(void **state)
{
    struct fixture *f = *state;
    struct sslo_plan_result *r = calloc(1, sizeof *r);
    assert_non_null(r);

    /* 15:00: the closest point is the fastest cluster, all four nodes. */
    assert_int_equal(plan_on(f, cluster, 4, 0.8, 900, 0, SLO_PRICING_SPOT, r),
                     SLO_ERR_INFEASIBLE);
    assert_false(r->feasible);
    assert_non_null(strstr(r->reason, "a100-node:1,t4-node:1,g4dn.12xlarge:2, needs 1209.87 s "
                                      "(00:20:10)"));
    assert_string_equal(sslo_plan_value(r, "SLO_PLAN_VERSION"), "");

    /* A budget below the cheapest plan that meets 23:00 (0.999 USD). */
    assert_int_equal(plan_on(f, cluster, 4, 0.8, 1380, 0.5, SLO_PRICING_SPOT, r),
                     SLO_ERR_INFEASIBLE);
    assert_non_null(strstr(r->reason, "a100-node:1,t4-node:1,g4dn.12xlarge:1, costs 0.99"));

    /* Loss 0.4 is below the asymptote gamma5 = 0.5. */
    assert_int_equal(plan_on(f, cluster, 4, 0.4, 2400, 0, SLO_PRICING_SPOT, r),
                     SLO_ERR_UNREACHABLE);
    assert_true(r->reason[0] != '\0');

    /* No node at all (e.g. CLOUD nodes hidden, on-prem nodes down). */
    assert_int_equal(plan_on(f, not_counted, sizeof not_counted / sizeof not_counted[0], 0.8,
                             2400, 0, SLO_PRICING_SPOT, r),
                     SLO_ERR_INFEASIBLE);
    assert_non_null(strstr(r->reason, "no usable Slurm node"));

    /* 22:00 (1320 s) needs all four nodes; the site allows 2 per job. */
    f->cfg.max_nodes = 2;
    assert_int_equal(plan_on(f, cluster, 4, 0.8, 1320, 0, SLO_PRICING_SPOT, r),
                     SLO_ERR_INFEASIBLE);
    f->cfg.max_nodes = 64;
    assert_int_equal(plan_on(f, cluster, 4, 0.8, 1320, 0, SLO_PRICING_SPOT, r), SLO_OK);
    expect(r, "SLO_INSTANCES", "a100-node:1,t4-node:1,g4dn.12xlarge:2");
    expect(r, "SLO_CONSTRAINT", "[a100-node*1&t4-node*1&g4dn.12xlarge*2]");
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_features),
        cmocka_unit_test(test_node_states),
        cmocka_unit_test_setup_teardown(test_inventory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plan_onprem, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plan_burst, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plan_infeasible, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
