/*
 * test_train_solve.c - slo_train_solve, the job-level training planner, and
 * the cluster list parser, checked against independent references: the
 * authors' provisioner outputs (shared/data/spotdnn/
 * repo_provisioner_reference_outputs.csv), exhaustive enumeration
 * (slo__plan_brute_force) with the same max_workers, and hand-made lists.
 * Every status is reached: optimal, feasible_unproven (window only; a node
 * limit of one), infeasible (deadline, budget, unreachable loss) and
 * infeasible_unproven (a node limit of one on an infeasible SLO).
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

#include "refdata.h"
#include "slo.h"
#include "train_oracle.h"

static const char *const count_cols[5] = {"n_p3_2xl", "n_g4dn_4xl", "n_g3_8xl", "n_g3_16xl",
                                          "n_p2_8xl"};

struct fixture {
    struct slo_catalog cat;
    struct slo_workload wl;
};

static int setup(void **state)
{
    static struct fixture f;
    load_embedded("spotdnn-resnet110", "resnet110", &f.cat, &f.wl);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    slo_catalog_free(&f->cat);
    slo_workload_free(&f->wl);
    return 0;
}

static struct slo_train_problem problem(const struct fixture *f, double loss, double deadline_s,
                                        double budget_usd)
{
    struct slo_train_problem pb = {.catalog = &f->cat, .workload = &f->wl,
                                   .pricing = SLO_PRICING_SPOT, .target_loss = loss,
                                   .deadline_s = deadline_s, .budget_usd = budget_usd};
    return pb;
}

/* --------------------------------------------------- the authors' outputs */

/* Every feasible row is the plan of both searches (the authors' provisioner
 * is the window; the exact search proves the same plan cheapest); the two
 * infeasible rows give the fastest plan as the closest point. */
static void test_reference(void **state)
{
    struct fixture *f = *state;
    const char *dir = getenv("SLO_REFERENCE_DATA");
    struct csv c;

    if (!dir || !dir[0] || strcmp(dir, "no") == 0)
        skip();
    csv_read(refdata_path("spotdnn/repo_provisioner_reference_outputs.csv"), &c);
    assert_int_equal(c.n_rows, 7);
    for (size_t r = 0; r < c.n_rows; r++) {
        struct slo_train_problem pb = problem(f, csv_num(&c, r, "target_loss"),
                                              csv_num(&c, r, "target_time_s"), 0);
        struct slo_train_result res;
        slo_error_t err = {0};
        assert_int_equal(slo_train_solve(&pb, NULL, &res, &err), SLO_OK);
        if (strcmp(csv_str(&c, r, "feasible"), "yes") == 0) {
            assert_int_equal(res.status, SLO_STATUS_OPTIMAL);
            assert_string_equal(res.reason, "");
            assert_int_equal(res.method, SLO_TRAIN_SEARCH_EXACT);
            assert_true(res.have_window && res.have_exact && res.have_homogeneous);
            for (int i = 0; i < 5; i++) {
                assert_int_equal(res.plan.counts[i], (int)csv_num(&c, r, count_cols[i]));
                assert_int_equal(res.window.counts[i], (int)csv_num(&c, r, count_cols[i]));
            }
            assert_float_equal(res.plan.eval.time_s, csv_num(&c, r, "train_time_s"), 1e-9);
            assert_float_equal(res.plan.eval.cost_usd, csv_num(&c, r, "cost_usd"), 1e-9);
            assert_float_equal(res.plan.eval.iterations, csv_num(&c, r, "normalized_iters_j"),
                               0);
            /* on-demand prices cost at least as much */
            if (res.have_on_demand)
                assert_true(res.on_demand.eval.cost_usd >= res.plan.eval.cost_usd - 1e-9);
        } else {
            assert_int_equal(res.status, SLO_STATUS_INFEASIBLE);
            assert_int_equal(res.closest_kind, SLO_TRAIN_CLOSEST_FASTEST);
            assert_true(res.closest.eval.time_s > pb.deadline_s);
            assert_non_null(strstr(res.cause, "no plan meets the SLO"));
            assert_non_null(strstr(res.reason, "; the fastest plan, "));
            assert_false(res.have_on_demand || res.have_homogeneous);
        }
        slo_train_result_free(&res);
    }
    csv_free(&c);
}

/* -------------------------------------------------------- vs brute force */

/* The solve's plan against exhaustive enumeration of the same request
 * (max_workers, survivors, re-planning): same counts, same cost; no plan
 * exactly when brute force has none. */
static void check_vs_brute(const struct fixture *f, const struct slo_train_problem *pb,
                           int max_workers)
{
    struct slo_train_options opt;
    struct slo_train_result res;
    struct slo_train_setup s;
    struct slo_train_plan b = {0};
    slo_error_t err = {0};
    int existing[5] = {0};

    slo_train_options_init(&opt);
    opt.max_workers = max_workers;
    assert_int_equal(slo_train_solve(pb, &opt, &res, &err), SLO_OK);
    assert_int_equal(slo_train_setup_init(&s, &f->cat, &f->wl, pb->pricing, &err), SLO_OK);
    if (pb->existing)
        for (size_t i = 0; i < pb->existing->n; i++)
            existing[slo_catalog_find(&f->cat, pb->existing->entry[i].type)] =
                (int)pb->existing->entry[i].count;
    struct slo_train_request req = {.target_loss = pb->target_loss,
                                    .deadline_s = pb->deadline_s - pb->elapsed_s,
                                    .budget_usd = pb->budget_usd, .loss_now = pb->loss_now,
                                    .overhead_s = pb->overhead_s, .existing = existing,
                                    .max_workers = max_workers};
    int rb = slo__plan_brute_force(&s, &req, &b, NULL);
    if (rb == SLO_OK) {
        if (res.status != SLO_STATUS_OPTIMAL)
            fprintf(stderr, "loss %g, %g s, max_workers %d: %s\n", pb->target_loss,
                    pb->deadline_s, max_workers, res.reason);
        assert_int_equal(res.status, SLO_STATUS_OPTIMAL);
        assert_memory_equal(res.plan.counts, b.counts, 5 * sizeof(int));
        assert_float_equal(res.plan.eval.cost_usd, b.eval.cost_usd, 1e-9);
        long n = 0;
        for (int k = 0; k < 5; k++) {
            n += res.plan.counts[k];
            assert_true(res.plan.counts[k] >= existing[k]);
        }
        assert_true(max_workers <= 0 || n <= max_workers);
        /* The on-demand comparison (seeded by the spot plan) against brute
         * force at on-demand prices. */
        if (pb->pricing == SLO_PRICING_SPOT) {
            struct slo_train_setup od;
            struct slo_train_plan bo = {0};
            assert_int_equal(slo_train_setup_init(&od, &f->cat, &f->wl, SLO_PRICING_ON_DEMAND,
                                                  &err), SLO_OK);
            int ro = slo__plan_brute_force(&od, &req, &bo, NULL);
            assert_int_equal(res.have_on_demand, ro == SLO_OK);
            if (ro == SLO_OK) {
                assert_true(res.on_demand.proven);
                assert_float_equal(res.on_demand.eval.cost_usd, bo.eval.cost_usd, 1e-9);
            }
            slo_train_plan_free(&bo);
            slo_train_setup_free(&od);
        }
    } else {
        assert_false(slo_status_feasible(res.status));
        assert_int_equal(res.status, SLO_STATUS_INFEASIBLE);
        assert_true(res.reason[0] != '\0');
        /* the closest point keeps the limit too */
        if (res.closest_kind != SLO_TRAIN_CLOSEST_NONE && max_workers > 0)
            assert_true(res.closest.eval.n_workers <= max_workers);
    }
    slo_train_plan_free(&b);
    slo_train_setup_free(&s);
    slo_train_result_free(&res);
}

static void test_vs_brute_force(void **state)
{
    struct fixture *f = *state;
    static const double losses[] = {0.7, 0.75, 0.8, 0.9};
    static const double deadlines[] = {1300, 1900, 2400, 3600, 5000};
    static const int limits[] = {0, 1, 3, 5, 8};

    for (int pr = 0; pr < 2; pr++)
        for (size_t i = 0; i < sizeof losses / sizeof *losses; i++)
            for (size_t j = 0; j < sizeof deadlines / sizeof *deadlines; j++)
                for (size_t m = 0; m < sizeof limits / sizeof *limits; m++) {
                    struct slo_train_problem pb = problem(f, losses[i], deadlines[j], 0);
                    pb.pricing = pr ? SLO_PRICING_ON_DEMAND : SLO_PRICING_SPOT;
                    check_vs_brute(f, &pb, limits[m]);
                    pb.budget_usd = 3.5; /* binds for some */
                    check_vs_brute(f, &pb, limits[m]);
                }
}

/* Re-planning (paper Fig. 9): three g3.16xlarge survive at 1790 s of 2600 s
 * with loss 0.9 reached; 30 s restart overhead. */
static void test_replan_vs_brute_force(void **state)
{
    struct fixture *f = *state;
    struct slo_cluster kept;
    assert_int_equal(slo_cluster_parse("g3.16xlarge=3", &kept, NULL), SLO_OK);
    for (int m = 0; m <= 8; m += 4) {
        struct slo_train_problem pb = problem(f, 0.8, 2600, 0);
        pb.elapsed_s = 1790;
        pb.loss_now = 0.9;
        pb.overhead_s = 30;
        pb.existing = &kept;
        check_vs_brute(f, &pb, m);
    }
}

/* ------------------------------------------------------------- statuses */

static void test_feasible_unproven(void **state)
{
    struct fixture *f = *state;
    struct slo_train_problem pb = problem(f, 0.8, 2400, 0);
    struct slo_train_options opt;
    struct slo_train_result res;

    /* The window alone: a heuristic, never proven. */
    slo_train_options_init(&opt);
    opt.search = SLO_TRAIN_SEARCH_WINDOW;
    assert_int_equal(slo_train_solve(&pb, &opt, &res, NULL), SLO_OK);
    assert_int_equal(res.status, SLO_STATUS_FEASIBLE_UNPROVEN);
    assert_int_equal(res.method, SLO_TRAIN_SEARCH_WINDOW);
    assert_true(res.have_window && !res.have_exact);
    assert_true(res.reason[0] != '\0');
    assert_true(res.plan.eval.time_s <= 2400);
    slo_train_result_free(&res);

    /* The exact search stopped after one node: the window's plan as its
     * incumbent, unproven. */
    slo_train_options_init(&opt);
    opt.node_limit = 1;
    assert_int_equal(slo_train_solve(&pb, &opt, &res, NULL), SLO_OK);
    assert_int_equal(res.status, SLO_STATUS_FEASIBLE_UNPROVEN);
    assert_int_equal(res.plan.proven, 0);
    assert_string_equal(res.reason, "exact search stopped at its node limit: the cheapest "
                                    "plan found, not proven");
    assert_true(res.plan.eval.time_s <= 2400);
    slo_train_result_free(&res);
}

static void test_infeasible(void **state)
{
    struct fixture *f = *state;
    struct slo_train_problem pb = problem(f, 0.8, 2400, 1);
    struct slo_train_result res;

    /* The budget binds: the closest point is the reference plan for (0.8,
     * 2400 s), 2.985872 USD (repo_provisioner_reference_outputs.csv). */
    assert_int_equal(slo_train_solve(&pb, NULL, &res, NULL), SLO_OK);
    assert_int_equal(res.status, SLO_STATUS_INFEASIBLE);
    assert_int_equal(res.closest_kind, SLO_TRAIN_CLOSEST_CHEAPEST);
    assert_memory_equal(res.closest.counts, ((int[]){2, 0, 4, 0, 0}), 5 * sizeof(int));
    assert_float_equal(res.closest.eval.cost_usd, 2.985872, 1e-9);
    assert_string_equal(res.reason,
                        "no plan meets the SLO: loss 0.8 within 2400 s at a cost of at most 1 "
                        "USD; the cheapest plan that meets the deadline, "
                        "p3.2xlarge=2,g3.8xlarge=4, costs 2.985872 USD");
    /* both searches ran: the exact one is the proof */
    assert_int_equal(res.have_window, 1);
    assert_int_equal(res.have_exact, 1);
    slo_train_result_free(&res);

    /* The deadline binds: 60 s is less than any cluster needs. */
    pb = problem(f, 0.8, 60, 0);
    assert_int_equal(slo_train_solve(&pb, NULL, &res, NULL), SLO_OK);
    assert_int_equal(res.status, SLO_STATUS_INFEASIBLE);
    assert_int_equal(res.closest_kind, SLO_TRAIN_CLOSEST_FASTEST);
    assert_true(res.closest.eval.time_s > 60);
    assert_true(res.closest.proven);
    assert_string_equal(res.cause, "no plan meets the SLO: loss 0.8 within 60 s");
    slo_train_result_free(&res);

    /* Below the asymptote gamma5 = 0.5: unreachable, no closest point. */
    pb = problem(f, 0.4, 2400, 0);
    assert_int_equal(slo_train_solve(&pb, NULL, &res, NULL), SLO_OK);
    assert_int_equal(res.status, SLO_STATUS_INFEASIBLE);
    assert_int_equal(res.closest_kind, SLO_TRAIN_CLOSEST_NONE);
    assert_string_equal(res.cause, "");
    assert_non_null(strstr(res.unreachable, "asymptotic loss 0.5"));
    assert_non_null(strstr(res.reason, "--slo-loss: target loss 0.4"));
    slo_train_result_free(&res);
}

static void test_infeasible_unproven(void **state)
{
    struct fixture *f = *state;
    struct slo_train_problem pb = problem(f, 0.6, 5000, 0);
    struct slo_train_options opt;
    struct slo_train_result res;

    /* The reference's infeasible row; a search of one node proves nothing. */
    slo_train_options_init(&opt);
    opt.node_limit = 1;
    assert_int_equal(slo_train_solve(&pb, &opt, &res, NULL), SLO_OK);
    assert_int_equal(res.status, SLO_STATUS_INFEASIBLE_UNPROVEN);
    assert_non_null(strstr(res.cause, "without proving that none exists"));
    assert_int_equal(res.closest_kind, SLO_TRAIN_CLOSEST_FASTEST);
    slo_train_result_free(&res);

    /* The window alone finds nothing: not proven either. */
    slo_train_options_init(&opt);
    opt.search = SLO_TRAIN_SEARCH_WINDOW;
    assert_int_equal(slo_train_solve(&pb, &opt, &res, NULL), SLO_OK);
    assert_int_equal(res.status, SLO_STATUS_INFEASIBLE_UNPROVEN);
    slo_train_result_free(&res);
}

static void test_errors(void **state)
{
    struct fixture *f = *state;
    struct slo_train_problem pb = problem(f, 0.8, 2400, 0);
    struct slo_train_result res;
    struct slo_cluster kept;
    slo_error_t err = {0};

    assert_int_equal(slo_cluster_parse("p9.xlarge=2", &kept, NULL), SLO_OK);
    pb.existing = &kept;
    assert_int_equal(slo_train_solve(&pb, NULL, &res, &err), SLO_ERR_NOT_FOUND);
    assert_string_equal(err.source, "--existing");
    assert_string_equal(err.text, "expected an instance type of the catalog that the workload "
                                  "profiles, found \"p9.xlarge\"");
    slo_train_result_free(&res);

    assert_int_equal(slo_cluster_parse("g3.16xlarge=9", &kept, NULL), SLO_OK);
    assert_int_equal(slo_train_solve(&pb, NULL, &res, &err), SLO_ERR_INVALID);
    assert_string_equal(err.text, "g3.16xlarge: expected a count from 0 to the catalog's quota "
                                  "8, found \"9\"");
    slo_train_result_free(&res);

    /* More survivors than max_workers allows. */
    struct slo_train_options opt;
    slo_train_options_init(&opt);
    opt.max_workers = 2;
    assert_int_equal(slo_cluster_parse("g3.16xlarge=3", &kept, NULL), SLO_OK);
    assert_int_equal(slo_train_solve(&pb, &opt, &res, &err), SLO_ERR_INVALID);
    slo_train_result_free(&res);

    pb.existing = NULL;
    pb.catalog = NULL;
    assert_int_equal(slo_train_solve(&pb, NULL, &res, &err), SLO_ERR_INVALID);
    slo_train_result_free(&res);
    slo_train_result_free(&res); /* twice is safe */

    /* Numbers the model cannot take, each named by its field (trial: a NaN
     * budget was "infeasible", a negative elapsed time added time). */
    const struct {
        double *field;
        double v;
        const char *name;
    } bad[] = {
        {&pb.budget_usd, NAN, "budget_usd"},    {&pb.elapsed_s, -5, "elapsed_s"},
        {&pb.loss_now, NAN, "loss_now"},        {&pb.overhead_s, INFINITY, "overhead_s"},
        {&pb.deadline_s, INFINITY, "deadline_s"}, {&pb.target_loss, NAN, "target_loss"},
        {&pb.elapsed_s, 2400, "elapsed_s"}, /* no time left */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pb = problem(f, 0.8, 2400, 0);
        *bad[i].field = bad[i].v; /* a field of pb, which stays the same object */
        memset(&err, 0, sizeof err);
        assert_int_equal(slo_train_solve(&pb, NULL, &res, &err), SLO_ERR_INVALID);
        assert_string_equal(err.source, bad[i].name);
        assert_int_equal(res.status, SLO_STATUS_INFEASIBLE_UNPROVEN);
        slo_train_result_free(&res);
    }
    pb = problem(f, 0.8, 2400, 0);
    pb.pricing = (enum slo_pricing)7;
    assert_int_equal(slo_train_solve(&pb, NULL, &res, &err), SLO_ERR_INVALID);
    assert_string_equal(err.source, "pricing");
    slo_train_result_free(&res);
}

/* ------------------------------------------------------------ cluster list */

static void test_cluster_parse(void **state)
{
    struct slo_cluster c;
    slo_error_t err = {0};
    char buf[64];
    (void)state;

    assert_int_equal(slo_cluster_parse(" p3.2xlarge=1, g3.8xlarge = 12 ", &c, &err), SLO_OK);
    assert_int_equal(c.n, 2);
    assert_string_equal(c.entry[0].type, "p3.2xlarge");
    assert_int_equal(c.entry[0].count, 1);
    assert_string_equal(c.entry[1].type, "g3.8xlarge");
    assert_int_equal(c.entry[1].count, 12);
    assert_int_equal(slo_cluster_format(&c, '=', buf, sizeof buf), 0);
    assert_string_equal(buf, "p3.2xlarge=1,g3.8xlarge=12");
    assert_int_equal(slo_cluster_format(&c, ':', buf, sizeof buf), 0);
    assert_string_equal(buf, "p3.2xlarge:1,g3.8xlarge:12");
    /* too short: what fit, and -1 */
    assert_int_equal(slo_cluster_format(&c, '=', buf, 16), -1);
    assert_string_equal(buf, "p3.2xlarge=1,g3");

    /* a count that is not a number is kept for the caller's message */
    assert_int_equal(slo_cluster_parse("a=x", &c, &err), SLO_OK);
    assert_int_equal(c.entry[0].count, -1);
    assert_string_equal(c.entry[0].count_text, "x");
    assert_int_equal(slo_cluster_parse("a=-1", &c, &err), SLO_OK);
    assert_int_equal(c.entry[0].count, -1);
    /* leading zeros are the number's own, however many (trial: 119 zeros
     * then 3 was refused, and shown cut to 31 zeros) */
    char zeros[160];
    memset(zeros, '0', 122);
    memcpy(zeros, "a=", 2);
    strcpy(zeros + 121, "3");
    assert_int_equal(slo_cluster_parse(zeros, &c, &err), SLO_OK);
    assert_int_equal(c.entry[0].count, 3);
    assert_int_equal(slo_cluster_parse("a=0003", &c, &err), SLO_OK);
    assert_int_equal(c.entry[0].count, 3);
    /* too many digits: no count, and the text shown says it was cut */
    assert_int_equal(slo_cluster_parse("a=12345678901234567890123456789012345", &c, &err), SLO_OK);
    assert_int_equal(c.entry[0].count, -1);
    assert_non_null(strstr(c.entry[0].count_text, "..."));
    /* blanks inside a count or a type: not a count, not a type (review) */
    assert_int_equal(slo_cluster_parse("a = 1 0", &c, &err), SLO_OK);
    assert_int_equal(c.entry[0].count, -1);
    assert_int_equal(slo_cluster_parse("a b=1", &c, &err), SLO_ERR_INVALID);
    /* NULL is an error, not a crash (trial) */
    assert_int_equal(slo_cluster_parse(NULL, &c, &err), SLO_ERR_INVALID);
    assert_int_equal(slo_cluster_parse("a=1", NULL, &err), SLO_ERR_INVALID);
    /* zero entries are not written */
    assert_int_equal(slo_cluster_parse("a=0,b=2", &c, &err), SLO_OK);
    assert_int_equal(slo_cluster_format(&c, '=', buf, sizeof buf), 0);
    assert_string_equal(buf, "b=2");

    assert_int_equal(slo_cluster_parse(",", &c, &err), SLO_ERR_INVALID);
    assert_string_equal(err.text, "expected TYPE=N[,TYPE=N...], found \",\"");
    assert_int_equal(slo_cluster_parse("a=1,", &c, &err), SLO_ERR_INVALID);
    assert_string_equal(err.text, "expected TYPE=N[,TYPE=N...], found \"a=1,\"");
    assert_int_equal(slo_cluster_parse("a=1,b", &c, &err), SLO_ERR_INVALID);
    assert_string_equal(err.text, "expected TYPE=N[,TYPE=N...], found \"b\"");
    assert_int_equal(slo_cluster_parse("=1", &c, &err), SLO_ERR_INVALID);
    assert_int_equal(slo_cluster_parse("a=1,a=2", &c, &err), SLO_ERR_INVALID);
    assert_string_equal(err.text, "expected each instance type once, found a again");

    char many[65 * 8] = "";
    for (int i = 0; i < 65; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%st%d=1", i ? "," : "", i);
    assert_int_equal(slo_cluster_parse(many, &c, &err), SLO_ERR_INVALID);
    assert_string_equal(err.text, "expected at most 64 instance types");
    char longname[SLO_NAME_LENGTH + 8];
    memset(longname, 'x', SLO_NAME_LENGTH);
    strcpy(longname + SLO_NAME_LENGTH, "=1");
    assert_int_equal(slo_cluster_parse(longname, &c, &err), SLO_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cluster_parse),
        cmocka_unit_test(test_feasible_unproven),
        cmocka_unit_test(test_infeasible),
        cmocka_unit_test(test_infeasible_unproven),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_vs_brute_force),
        cmocka_unit_test(test_replan_vs_brute_force),
        cmocka_unit_test(test_reference),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
