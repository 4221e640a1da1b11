/*
 * test_sync.c - the synchronous data-parallel model and planner (issue 17,
 * doc/model.md "Synchronous data-parallel"):
 *  - hand-worked: one mixed cluster's step (equal and uneven shares), ring
 *    allreduce, exposed part, Pollux efficiency, steps, time and cost, each
 *    written out here from the formulas with the numbers of the case;
 *  - the exact search (slo_sync_plan_exact, and slo_train_solve's dispatch)
 *    equals an exhaustive enumeration with an evaluation written here
 *    independently of the library, on 400 seeded random catalogs and
 *    profiles (fixed and growing batches, equal and uneven shares, on-prem
 *    types, budgets, survivors, max nodes);
 *  - bad input: a profile without gradient bytes, without link data, with an
 *    unknown mode: one error naming the field.
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

static uint64_t rng = 0x5eed17ULL;
#include "xorshift.h"

static const char *const HAND =
    "{\"name\": \"hand\", \"mode\": \"sync-allreduce\", \"gradient_bytes\": 1e8,"
    " \"global_batch\": 300, \"uneven_batches\": %s,"
    " \"allreduce\": {\"latency_s\": 0.01, \"overlap\": 0.5},"
    " \"efficiency\": {\"b0\": 100, \"phi\": 200},"
    " \"loss_model\": {\"form\": \"sync-b0\", \"gamma1\": 10, \"gamma3\": 100, \"gamma5\": 0.5},"
    " \"instances\": [{\"type\": \"A\", \"speed_samples_per_s\": 200, \"gpu_link_mbps\": 1000},"
    "                {\"type\": \"B\", \"speed_samples_per_s\": 50}]}";

static void hand_catalog(struct slo_catalog *cat, struct slo_instance_type *t)
{
    memset(cat, 0, sizeof *cat);
    memset(t, 0, 2 * sizeof *t);
    snprintf(cat->name, sizeof cat->name, "hand");
    snprintf(t[0].name, sizeof t[0].name, "A");
    t[0].gpus = 2;
    t[0].on_demand_usd_per_h = t[0].spot_usd_per_h = 2;
    t[0].quota = 2;
    t[0].network_mbps = 100;
    snprintf(t[1].name, sizeof t[1].name, "B");
    t[1].gpus = 1;
    t[1].on_demand_usd_per_h = t[1].spot_usd_per_h = 1;
    t[1].quota = 2;
    t[1].network_mbps = 100;
    cat->types = t;
    cat->n_types = 2;
}

static void hand_worked(void **state)
{
    (void)state;
    for (int uneven = 0; uneven <= 1; uneven++) {
        char text[2048];
        struct slo_workload wl;
        struct slo_catalog cat;
        struct slo_instance_type t[2];
        struct slo_train_setup s;
        struct slo_sync_eval e;
        struct slo_train_eval pe;
        slo_error_t err = {0};
        snprintf(text, sizeof text, HAND, uneven ? "true" : "false");
        assert_int_equal(slo_workload_parse(text, "hand", &wl, &err), SLO_OK);
        assert_int_equal(wl.mode, SLO_TRAIN_SYNC_ALLREDUCE);
        hand_catalog(&cat, t);
        assert_int_equal(slo_sync_setup_init(&s, &cat, &wl, SLO_PRICING_ON_DEMAND, &err), SLO_OK);
        int counts[2] = {1, 1};
        struct slo_train_request req = {.target_loss = 1.0, .deadline_s = 1e9};
        assert_int_equal(slo_sync_evaluate(&s, counts, &req, &e, &pe, &err), SLO_OK);
        /* N = 3 GPUs. Equal shares: 100 samples each; A's GPU does 100
         * samples/s (1 s), B's 50 (2 s): 2 s. Uneven: 300 / 250 = 1.2 s. */
        double comp = uneven ? 300.0 / 250.0 : 2.0;
        /* ring over 3 GPUs, slowest link min(1000, 100, 100) = 100 MB/s */
        double ar = 2.0 * 2 / 3 * 1e8 / 100e6 + 2 * 2 * 0.01;
        double exposed = ar - 0.5 * comp;
        double step = comp + exposed;
        /* j0 = 100 / (1 - 0.5) - 10 = 190 at B0 = 100; at B = 300:
         * 190 * 100 (200 + 300) / ((200 + 100) 300) = 105.6 -> 106 */
        double steps = ceil(190.0 * 100 * 500 / (300.0 * 300));
        assert_int_equal(e.gpus, 3);
        assert_int_equal(e.nodes, 2);
        assert_true(fabs(e.t_comp_s - comp) < 1e-12);
        assert_true(fabs(e.link_mbps - 100) < 1e-12);
        assert_true(fabs(e.t_allreduce_s - ar) < 1e-12);
        assert_true(fabs(e.t_exposed_s - exposed) < 1e-12);
        assert_true(fabs(e.step_s - step) < 1e-12);
        assert_true(fabs(e.efficiency - 300.0 / 500) < 1e-12);
        assert_true(e.iterations == 106 && steps == 106);
        assert_true(fabs(e.time_s - 106 * step) < 1e-9);
        assert_true(fabs(e.cost_usd - 106 * step * 3 / 3600) < 1e-12);
        assert_int_equal(pe.n_workers, 3);
        assert_true(fabs(pe.samples - 106 * 300) < 1e-9);
        /* one A alone: 2 GPUs on the 1000 MB/s link, 150 samples each */
        int one[2] = {1, 0};
        assert_int_equal(slo_sync_evaluate(&s, one, &req, &e, NULL, &err), SLO_OK);
        double ar1 = 2.0 * 1 / 2 * 1e8 / 1000e6 + 2 * 1 * 0.01;
        assert_true(fabs(e.t_comp_s - 300.0 / 200) < 1e-12);
        assert_true(fabs(e.t_allreduce_s - ar1) < 1e-12);
        assert_true(e.t_exposed_s == 0); /* 0.12 s < 0.5 x 1.5 s */
        /* unreachable: the loss floor */
        req.target_loss = 0.5;
        assert_int_equal(slo_sync_evaluate(&s, one, &req, &e, NULL, &err), SLO_ERR_UNREACHABLE);
        assert_non_null(strstr(err.text, "loss floor"));
        /* serialization reads back the same profile */
        char *json = slo_workload_to_json(&wl);
        struct slo_workload back;
        assert_non_null(json);
        assert_int_equal(slo_workload_parse(json, "back", &back, &err), SLO_OK);
        assert_int_equal(back.sync->uneven_batches, uneven);
        assert_true(back.sync->phi == 200 && back.sync->gradient_bytes == 1e8);
        free(json);
        slo_workload_free(&back);
        slo_train_setup_free(&s);
        slo_workload_free(&wl);
    }
}

/* ---- an independent evaluation and exhaustive search ------------------ */

struct ref_type {
    int gpus, quota, onprem;
    double speed, price, link, nic, t0;
};
struct ref_prof {
    double bytes, gbatch, lat, overlap, b0, phi, g1, g3, g5;
    int bpg, uneven;
};

/* time (s) and cost (USD) of counts, or -1 when not a cluster */
static int ref_eval(const struct ref_type *t, size_t n, const struct ref_prof *p,
                    const int *c, double target, double *time, double *cost)
{
    int nodes = 0, N = 0;
    double sp = 0, link = 1e300, price = 0, t0 = 0;
    for (size_t k = 0; k < n; k++) {
        if (!c[k])
            continue;
        nodes += c[k];
        N += c[k] * t[k].gpus;
        sp += c[k] * t[k].speed;
        price += c[k] * t[k].price;
        if (t[k].t0 > t0)
            t0 = t[k].t0;
        if (t[k].gpus > 1 && t[k].link < link)
            link = t[k].link;
    }
    if (!nodes)
        return -1;
    for (size_t k = 0; k < n; k++)
        if (c[k] && nodes > 1 && t[k].nic < link)
            link = t[k].nic;
    double B = p->gbatch > 0 ? p->gbatch : (double)N * p->bpg;
    if (B < N)
        return -1;
    double comp = 0;
    if (p->uneven)
        comp = t0 + B / sp;
    else
        for (size_t k = 0; k < n; k++)
            if (c[k] && t[k].t0 + B / N * t[k].gpus / t[k].speed > comp)
                comp = t[k].t0 + B / N * t[k].gpus / t[k].speed;
    double ar = N > 1 ? 2.0 * (N - 1) / N * p->bytes / (link * 1e6) + 2.0 * (N - 1) * p->lat : 0;
    double step = comp + fmax(0, ar - p->overlap * comp);
    double j0 = p->g3 / (target - p->g5) - p->g1;
    double j = j0 * p->b0 * (p->phi + B) / ((p->phi + p->b0) * B);
    if (j < 1)
        j = 1;
    *time = ceil(j - 1e-9) * step;
    *cost = *time * price / 3600;
    return 0;
}

static void random_case(struct ref_type *t, size_t n, struct ref_prof *p)
{
    for (size_t k = 0; k < n; k++) {
        t[k].gpus = (int[]){1, 2, 4, 8}[irand(0, 3)];
        t[k].quota = irand(0, 4);
        t[k].onprem = urand() < 0.15;
        t[k].speed = uni(20, 400) * t[k].gpus;
        t[k].price = t[k].onprem ? 0 : uni(0.2, 4) * t[k].gpus;
        t[k].link = uni(500, 50000);
        t[k].nic = uni(50, 5000);
        t[k].t0 = urand() < 0.5 ? 0 : uni(0, 0.05);
    }
    p->bytes = uni(1e6, 5e8);
    p->uneven = urand() < 0.5;
    if (urand() < 0.5) {
        p->gbatch = irand(32, 2048);
        p->bpg = 0;
    } else {
        p->gbatch = 0;
        p->bpg = irand(4, 128);
    }
    p->lat = uni(0, 1e-3);
    p->overlap = urand() < 0.3 ? 0 : uni(0, 1);
    p->b0 = irand(32, 1024);
    p->phi = uni(0, 5000);
    p->g1 = uni(1, 500);
    p->g3 = uni(100, 5000);
    p->g5 = uni(0.1, 0.5);
}

static char *profile_json(const struct ref_type *t, size_t n, const struct ref_prof *p)
{
    size_t len = 4096 + n * 256;
    char *s = malloc(len);
    int w;
    assert_non_null(s);
    w = snprintf(s, len,
                 "{\"name\": \"rand\", \"mode\": \"sync-allreduce\", \"gradient_bytes\": %.17g,"
                 " \"%s\": %.17g, \"uneven_batches\": %s,"
                 " \"allreduce\": {\"latency_s\": %.17g, \"overlap\": %.17g},"
                 " \"efficiency\": {\"b0\": %.17g, \"phi\": %.17g},"
                 " \"loss_model\": {\"form\": \"sync-b0\", \"gamma1\": %.17g, \"gamma3\": %.17g,"
                 " \"gamma5\": %.17g}, \"instances\": [",
                 p->bytes, p->gbatch > 0 ? "global_batch" : "batch_per_gpu",
                 p->gbatch > 0 ? p->gbatch : (double)p->bpg, p->uneven ? "true" : "false",
                 p->lat, p->overlap, p->b0, p->phi, p->g1, p->g3, p->g5);
    for (size_t k = 0; k < n; k++)
        w += snprintf(s + w, len - (size_t)w,
                      "%s{\"type\": \"T%zu\", \"speed_samples_per_s\": %.17g,"
                      " \"gpu_link_mbps\": %.17g, \"step_overhead_s\": %.17g}",
                      k ? "," : "", k, t[k].speed, t[k].link, t[k].t0);
    snprintf(s + w, len - (size_t)w, "]}");
    return s;
}

static void exact_vs_brute(void **state)
{
    (void)state;
    int feasible = 0, infeasible = 0, pruned = 0;
    for (int cs = 0; cs < 400; cs++) {
        size_t n = (size_t)irand(1, 4);
        struct ref_type t[4];
        struct ref_prof p;
        struct slo_instance_type it[4];
        struct slo_catalog cat = {0};
        struct slo_workload wl;
        struct slo_train_setup s;
        slo_error_t err = {0};
        random_case(t, n, &p);
        memset(it, 0, sizeof it);
        for (size_t k = 0; k < n; k++) {
            snprintf(it[k].name, sizeof it[k].name, "T%zu", k);
            it[k].gpus = t[k].gpus;
            it[k].quota = t[k].quota;
            it[k].site = t[k].onprem ? SLO_SITE_ONPREM : SLO_SITE_CLOUD;
            it[k].on_demand_usd_per_h = it[k].spot_usd_per_h = t[k].price;
            it[k].network_mbps = t[k].nic;
        }
        cat.types = it;
        cat.n_types = n;
        snprintf(cat.name, sizeof cat.name, "rand%d", cs);
        char *json = profile_json(t, n, &p);
        assert_int_equal(slo_workload_parse(json, "rand", &wl, &err), SLO_OK);
        free(json);
        assert_int_equal(slo_sync_setup_init(&s, &cat, &wl, SLO_PRICING_SPOT, &err), SLO_OK);

        /* a target with some steps to go; a deadline from a random cluster's time */
        double target = p.g5 + uni(0.05, 2);
        int c[4] = {0}, exist[4] = {0};
        int max_nodes = urand() < 0.3 ? irand(1, 6) : 0;
        if (urand() < 0.2)
            for (size_t k = 0; k < n; k++)
                exist[k] = t[k].quota ? irand(0, 1) : 0;
        int used0 = 0;
        for (size_t k = 0; k < n; k++)
            used0 += exist[k];
        if (max_nodes && used0 > max_nodes)
            max_nodes = used0;
        double ref_t = 0, ref_c = 0;
        for (size_t k = 0; k < n; k++)
            c[k] = t[k].quota ? irand(exist[k], t[k].quota) : 0;
        double deadline = 1e6;
        if (ref_eval(t, n, &p, c, target, &ref_t, &ref_c) == 0)
            deadline = ref_t * uni(0.7, 1.5);
        double budget = urand() < 0.3 ? ref_c * uni(0.5, 1.5) : 0;

        /* exhaustive */
        int best = 0;
        double bc = 0, bt = 0;
        for (size_t k = 0; k < n; k++)
            c[k] = exist[k];
        for (;;) {
            int nodes = 0;
            for (size_t k = 0; k < n; k++)
                nodes += c[k];
            double tt, cc;
            if ((!max_nodes || nodes <= max_nodes) &&
                ref_eval(t, n, &p, c, target, &tt, &cc) == 0 && tt <= deadline &&
                !(budget > 0 && cc > budget) && (!best || cc < bc)) {
                best = 1;
                bc = cc;
                bt = tt;
            }
            size_t k = 0;
            while (k < n && c[k] == t[k].quota) {
                c[k] = exist[k];
                k++;
            }
            if (k == n)
                break;
            c[k]++;
        }

        struct slo_train_request req = {.target_loss = target, .deadline_s = deadline,
                                        .budget_usd = budget, .existing = exist,
                                        .max_workers = max_nodes};
        struct slo_train_plan plan;
        int rv = slo_sync_plan_exact(&s, &req, 0, &plan, &err);
        if (best) {
            assert_int_equal(rv, SLO_OK);
            assert_true(plan.proven);
            double tt, cc;
            assert_int_equal(ref_eval(t, n, &p, plan.counts, target, &tt, &cc), 0);
            if (!(fabs(cc - bc) <= 1e-9 * fmax(1, bc))) {
                print_error("case %d: planner %.12g USD, brute force %.12g USD\n", cs, cc, bc);
                fail();
            }
            assert_true(fabs(plan.eval.cost_usd - cc) <= 1e-9 * fmax(1, cc));
            assert_true(tt <= deadline * (1 + 1e-12));
            (void)bt;
            feasible++;
            long space = 1;
            for (size_t k = 0; k < n; k++)
                space *= t[k].quota - exist[k] + 1;
            if (plan.evaluations < space)
                pruned++;
        } else {
            assert_int_equal(rv, SLO_ERR_INFEASIBLE);
            infeasible++;
        }
        slo_train_plan_free(&plan);

        /* slo_train_solve dispatches to the same search */
        struct slo_train_problem pb = {.catalog = &cat, .workload = &wl,
                                       .pricing = SLO_PRICING_SPOT, .target_loss = target,
                                       .deadline_s = deadline, .budget_usd = budget};
        struct slo_train_options opt;
        struct slo_train_result res;
        slo_train_options_init(&opt);
        opt.max_workers = max_nodes;
        if (!used0) {
            assert_int_equal(slo_train_solve(&pb, &opt, &res, &err), SLO_OK);
            if (best) {
                assert_int_equal(res.status, SLO_STATUS_OPTIMAL);
                assert_true(fabs(res.plan.eval.cost_usd - bc) <= 1e-9 * fmax(1, bc));
            } else {
                assert_int_equal(res.status, SLO_STATUS_INFEASIBLE);
            }
            slo_train_result_free(&res);
        }
        slo_train_setup_free(&s);
        slo_workload_free(&wl);
    }
    /* the seeds exercise both outcomes and the pruning */
    assert_true(feasible > 100);
    assert_true(infeasible > 20);
    assert_true(pruned > 20);
}

static void expect_error(const char *json, const char *needle)
{
    struct slo_workload wl;
    slo_error_t err = {0};
    int rv = slo_workload_parse(json, "bad.json", &wl, &err);
    assert_int_equal(rv, SLO_ERR_INVALID);
    if (!strstr(err.text, needle)) {
        print_error("expected \"%s\" in \"%s\"\n", needle, err.text);
        fail();
    }
}

static void bad_input(void **state)
{
    (void)state;
    char text[2048];
    expect_error("{\"name\": \"x\", \"mode\": \"sync-allreduce\", \"global_batch\": 8,"
                 " \"allreduce\": {\"latency_s\": 0}, \"efficiency\": {\"b0\": 8, \"phi\": 1},"
                 " \"loss_model\": {\"form\": \"sync-b0\", \"gamma1\": 1, \"gamma3\": 1,"
                 " \"gamma5\": 0}, \"instances\": [{\"type\": \"A\","
                 " \"speed_samples_per_s\": 1}]}",
                 "gradient_bytes");
    expect_error("{\"name\": \"x\", \"mode\": \"ddp\"}", "mode: expected");
    expect_error("{\"name\": \"x\", \"mode\": \"sync-allreduce\", \"gradient_bytes\": 8,"
                 " \"global_batch\": 8, \"batch_per_gpu\": 2}",
                 "global_batch, batch_per_gpu");
    /* link data: a 2-GPU type without gpu_link_mbps nor pcie_mbps */
    struct slo_workload wl;
    struct slo_catalog cat;
    struct slo_instance_type t[2];
    struct slo_train_setup s;
    slo_error_t err = {0};
    snprintf(text, sizeof text, HAND, "false");
    char *link = strstr(text, ", \"gpu_link_mbps\": 1000");
    assert_non_null(link);
    memmove(link, link + strlen(", \"gpu_link_mbps\": 1000"),
            strlen(link + strlen(", \"gpu_link_mbps\": 1000")) + 1);
    assert_int_equal(slo_workload_parse(text, "nolink", &wl, &err), SLO_OK);
    hand_catalog(&cat, t);
    assert_int_equal(slo_sync_setup_init(&s, &cat, &wl, SLO_PRICING_SPOT, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "gpu_link_mbps"));
    t[0].pcie_mbps = 500; /* the catalog's PCIe replaces it */
    assert_int_equal(slo_sync_setup_init(&s, &cat, &wl, SLO_PRICING_SPOT, &err), SLO_OK);
    slo_train_setup_free(&s);
    t[1].network_mbps = 0; /* quota 2, no NIC */
    assert_int_equal(slo_sync_setup_init(&s, &cat, &wl, SLO_PRICING_SPOT, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "network_mbps"));
    /* spotDNN's setup refuses a sync workload instead of dividing by zero */
    assert_int_equal(slo_train_setup_init(&s, &cat, &wl, SLO_PRICING_SPOT, &err),
                     SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "sync-allreduce"));
    slo_workload_free(&wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_worked),
        cmocka_unit_test(exact_vs_brute),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
