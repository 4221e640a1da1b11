/*
 * test_fit_network.c - the per-type network of issue 12 (workload
 * "worker_network": "catalog", doc/model.md "Per-type network"):
 *  - hand-worked: B_req^k = min(network_mbps, b_req_mbps), Eqs. 6-8 per
 *    type computed here from the formulas, a type without network_mbps
 *    keeps b_req_mbps, the paper mode ignores network_mbps;
 *  - the exact search still equals exhaustive search (slo__plan_brute_force)
 *    and the fastest plan the least time of an enumeration written here, on
 *    400 seeded random catalogs whose types have their own NICs, so the
 *    searches' classes and bounds hold with per-type bandwidths.
 * SPDX-License-Identifier: GPL-2.0-or-later
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

#include "slo.h"
#include "train_oracle.h"

static uint64_t rng = 0x12f17ca7a1ULL;
#include "xorshift.h"
#include "train_cases.h"

struct two_types {
    struct slo_instance_type types[3];
    struct slo_workload_instance inst[3];
    struct slo_catalog cat;
    struct slo_workload wl;
};

/* Three types: a fast NIC (p4d-like, 50000 MB/s), a slow one (g5-like,
 * 1250 MB/s) and one without network_mbps; b_req 20000, B_ps 30000 MB/s,
 * S 100 MB, alpha1 0.5, beta1 -0.8. */
static void make_three(struct two_types *c, int per_type)
{
    static const char *names[3] = {"fast", "slow", "plain"};
    static const double net[3] = {50000, 1250, 0}, speed[3] = {8000, 300, 2000};
    static const int gpus[3] = {8, 1, 4};
    memset(c, 0, sizeof *c);
    snprintf(c->cat.name, sizeof c->cat.name, "three");
    snprintf(c->wl.name, sizeof c->wl.name, "three");
    c->wl.s_parm_mb = 100;
    c->wl.b_req_mbps = 20000;
    c->wl.b_ps_mbps = 30000;
    c->wl.b_pcie_mbps = 10000;
    c->wl.alpha1 = 0.5;
    c->wl.beta1 = -0.8;
    c->wl.loss = (struct slo_loss_model){SLO_LOSS_SPOTDNN_2022, 50, -0.01, 100, 0, 0.3};
    c->wl.worker_network_catalog = per_type;
    for (int k = 0; k < 3; k++) {
        struct slo_instance_type *t = &c->types[k];
        snprintf(t->name, sizeof t->name, "%s", names[k]);
        snprintf(t->gpu_model, sizeof t->gpu_model, "gpu");
        t->gpus = gpus[k];
        t->quota = 4;
        t->spot_usd_per_h = t->on_demand_usd_per_h = 1 + k;
        t->network_mbps = net[k];
        snprintf(c->inst[k].type, sizeof c->inst[k].type, "%s", names[k]);
        c->inst[k].batch_per_gpu = 256;
        c->inst[k].speed = speed[k];
    }
    c->cat.n_types = 3;
    c->cat.types = c->types;
    c->wl.n_instances = 3;
    c->wl.instances = c->inst;
}

/* Eqs. 6-8 written out for type k of make_three at n workers. */
static double by_hand(const struct two_types *c, int k, int n, double b_req)
{
    const double S = 100, bps = 30000;
    double t_prof = c->types[k].gpus * 256.0 / c->inst[k].speed;
    double t_pcie = 2 * c->types[k].gpus * S / 10000;
    double t_comp = t_prof - 2 * S / b_req - t_pcie;
    double bwk = b_req;
    if (n * b_req > bps) {
        double p = 0.5 * sqrt((double)n) - 0.8;
        p = p < 0 ? 0 : p > 1 ? 1 : p;
        bwk = p * bps / n + (1 - p) * b_req;
    }
    return t_comp + 2 * S / bwk + t_pcie;
}

static void test_per_type_by_hand(void **state)
{
    struct two_types c;
    struct slo_train_setup s;
    static const double expect_breq[3] = {20000, 1250, 20000};
    (void)state;
    make_three(&c, 1);
    assert_int_equal(slo_train_setup_init(&s, &c.cat, &c.wl, SLO_PRICING_SPOT, NULL), SLO_OK);
    for (int k = 0; k < 3; k++) {
        assert_float_equal(s.types[k].b_req_mbps, expect_breq[k], 0);
        for (int n = 1; n <= 30; n++) {
            double T = slo_train_iteration_time(&s, (size_t)k, n);
            assert_float_equal(T, by_hand(&c, k, n, expect_breq[k]), 1e-12 * T);
        }
    }
    /* The slow NIC contends only from n = 25 (25 x 1250 > 30000), the others
     * from n = 2: at n = 4 P = 0.2 for them, none for the slow type. */
    double p;
    assert_float_equal(slo_train_type_bandwidth(&s, 1, 24, &p), 1250, 0);
    assert_true(p < 0);
    assert_float_equal(slo_train_type_bandwidth(&s, 0, 4, &p), 0.2 * 7500 + 0.8 * 20000, 1e-9);
    assert_float_equal(p, 0.2, 1e-12);
    /* A cluster's evaluation: b_wk the smallest, P from the types that contend. */
    int counts[3] = {2, 1, 1};
    struct slo_train_request req = {.target_loss = 0.5, .deadline_s = 1e9};
    struct slo_train_eval ev;
    assert_int_equal(slo_train_evaluate(&s, counts, &req, &ev, NULL), SLO_OK);
    assert_float_equal(ev.b_wk_mbps, 1250, 0);
    assert_float_equal(ev.p_contention, 0.2, 1e-12);
    double rate = 2 / by_hand(&c, 0, 4, 20000) + 1 / by_hand(&c, 1, 4, 1250) +
                  1 / by_hand(&c, 2, 4, 20000);
    assert_float_equal(ev.t_exp_s, 1 / rate, 1e-12 / rate);
    slo_train_setup_free(&s);

    /* The paper's model (worker_network "profile"): network_mbps is ignored,
     * every type draws b_req_mbps, exactly slo_worker_bandwidth. */
    make_three(&c, 0);
    assert_int_equal(slo_train_setup_init(&s, &c.cat, &c.wl, SLO_PRICING_SPOT, NULL), SLO_OK);
    for (int k = 0; k < 3; k++) {
        assert_float_equal(s.types[k].b_req_mbps, 20000, 0);
        for (int n = 1; n <= 30; n++)
            assert_true(slo_train_type_bandwidth(&s, (size_t)k, n, NULL) ==
                        slo_worker_bandwidth(&c.wl, n, NULL));
    }
    slo_train_setup_free(&s);
}

/* The slow NIC leaves a type no compute time in per-type mode: refused,
 * naming the type and the catalog's network_mbps. */
static void test_per_type_refusal(void **state)
{
    struct two_types c;
    struct slo_train_setup s;
    slo_error_t err = {0};
    (void)state;
    make_three(&c, 1);
    c.inst[1].speed = 1500; /* 256 / 1500 = 0.17 s < 2 x 100 / 1250 = 0.16 s + PCIe */
    assert_int_equal(slo_train_setup_init(&s, &c.cat, &c.wl, SLO_PRICING_SPOT, &err),
                     SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "instances (slow)"));
    assert_non_null(strstr(err.text, "b_req_mbps 1250 (the catalog's network_mbps)"));
}

/* The least time over every count vector within the quotas (an enumeration
 * written here, independent of the planners). */
static double fastest_by_enumeration(const struct slo_train_setup *s,
                                     const struct slo_train_request *req)
{
    int x[5] = {0};
    double best = INFINITY;
    for (;;) {
        struct slo_train_eval ev;
        if (slo_train_evaluate(s, x, req, &ev, NULL) == SLO_OK && ev.time_s < best)
            best = ev.time_s;
        size_t k = 0;
        while (k < s->n_types && x[k] == s->types[k].quota)
            x[k] = 0, k++;
        if (k == s->n_types)
            break;
        x[k]++;
    }
    return best;
}

static void test_random_exact_equals_brute_force(void **state)
{
    int cases = 0, feasible = 0, split = 0, fastest = 0;
    (void)state;
    for (int iter = 0; iter < 400; iter++) {
        struct slo_instance_type types[5];
        struct slo_workload_instance inst[5];
        struct slo_catalog cat = {0};
        struct slo_workload wl = {0};
        struct slo_train_setup s;
        int M = irand(2, 5), any = 0;
        static const int gp[] = {1, 2, 4, 8};
        memset(types, 0, sizeof types);
        memset(inst, 0, sizeof inst);
        snprintf(cat.name, sizeof cat.name, "random");
        snprintf(wl.name, sizeof wl.name, "random");
        wl.s_parm_mb = uni(5, 100);
        wl.b_req_mbps = uni(200, 5000);
        wl.b_ps_mbps = uni(300, 8000);
        wl.b_pcie_mbps = 10000;
        wl.alpha1 = uni(0.3, 1.0);
        wl.beta1 = uni(-2, -0.2);
        wl.worker_network_catalog = 1;
        wl.loss = (struct slo_loss_model){urand() < 0.5 ? SLO_LOSS_SPOTDNN_2022
                                                        : SLO_LOSS_SPOTDNN_2023,
                                          uni(100, 2000), uni(-0.2, 0), uni(1000, 5000), 0,
                                          uni(0.1, 1)};
        if (wl.loss.form == SLO_LOSS_SPOTDNN_2023)
            wl.loss.gamma4 = uni(0, 1);
        for (int k = 0; k < M; k++) {
            struct slo_instance_type *t = &types[k];
            snprintf(t->name, sizeof t->name, "type%d", k);
            snprintf(t->gpu_model, sizeof t->gpu_model, "gpu");
            t->gpus = gp[irand(0, 3)];
            t->quota = irand(0, 4);
            any |= t->quota;
            t->site = urand() < 0.15 ? SLO_SITE_ONPREM : SLO_SITE_CLOUD;
            t->spot_usd_per_h = t->gpus * uni(0.05, 1.5);
            t->on_demand_usd_per_h = t->spot_usd_per_h * uni(1, 3);
            /* a NIC below, above or absent against b_req */
            double r = urand();
            t->network_mbps = r < 0.25 ? 0 : r < 0.7 ? wl.b_req_mbps * uni(0.05, 1)
                                                     : wl.b_req_mbps * uni(1, 20);
            snprintf(inst[k].type, sizeof inst[k].type, "type%d", k);
            inst[k].batch_per_gpu = 1 << irand(5, 10);
            double breq = t->network_mbps > 0 && t->network_mbps < wl.b_req_mbps
                              ? t->network_mbps : wl.b_req_mbps;
            double comm = 2 * wl.s_parm_mb / breq + 2 * t->gpus * wl.s_parm_mb / 10000;
            inst[k].speed = t->gpus * inst[k].batch_per_gpu / (comm + uni(0.05, 3));
        }
        if (!any)
            types[0].quota = 3;
        cat.n_types = (size_t)M;
        cat.types = types;
        wl.n_instances = (size_t)M;
        wl.instances = inst;
        assert_int_equal(slo_train_setup_init(&s, &cat, &wl, SLO_PRICING_SPOT, NULL), SLO_OK);
        for (size_t a = 0; a < s.n_types; a++)
            for (size_t b = a + 1; b < s.n_types; b++)
                split += s.types[a].b_req_mbps != s.types[b].b_req_mbps;
        struct slo_train_request req = {.target_loss = wl.loss.gamma5 + uni(0.05, 2)};
        int probe[5] = {0};
        random_cluster(&s, NULL, probe);
        struct slo_train_eval pe;
        if (deadline_around(&s, probe, &req, 0.5, 1.5, &pe)) {
            slo_train_setup_free(&s);
            continue;
        }
        cases++;
        struct slo_train_plan brute, exact;
        int rb = slo__plan_brute_force(&s, &req, &brute, NULL);
        int re = slo_plan_exact(&s, &req, &exact, NULL);
        assert_int_equal(exact.proven, 1);
        if (re != rb)
            fprintf(stderr, "case %d: exact %d, brute force %d\n", iter, re, rb);
        assert_int_equal(re, rb);
        if (rb == SLO_OK) {
            feasible++;
            if (fabs(exact.eval.cost_usd - brute.eval.cost_usd) >
                1e-9 * (1 + brute.eval.cost_usd)) {
                fprintf(stderr, "case %d: exact %.9g, brute force %.9g\n", iter,
                        exact.eval.cost_usd, brute.eval.cost_usd);
                fail();
            }
            assert_true(exact.eval.time_s <= req.deadline_s);
        }
        struct slo_train_plan fast = {0};
        if (slo_plan_fastest(&s, &req, &fast, NULL) == SLO_OK) {
            assert_int_equal(fast.proven, 1);
            assert_float_equal(fast.eval.time_s, fastest_by_enumeration(&s, &req),
                               1e-9 * fast.eval.time_s);
            fastest++;
        }
        slo_train_plan_free(&fast);
        slo_train_plan_free(&brute);
        slo_train_plan_free(&exact);
        slo_train_setup_free(&s);
    }
    printf("per-type network: %d cases (%d feasible), exact = brute force in all, the "
           "fastest plan = the enumerated least time in %d; %d type pairs with different "
           "B_req\n",
           cases, feasible, fastest, split);
    assert_true(cases > 200 && feasible > 50 && fastest > 200 && split > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_type_by_hand),
        cmocka_unit_test(test_per_type_refusal),
        cmocka_unit_test(test_random_exact_equals_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
