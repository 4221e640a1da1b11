/*
 * test_model_reference.c - the spotDNN model against the authors' reference
 * outputs: shared/data/spotdnn/repo_model_reference_evaluations.csv (their
 * predictor run on 16 clusters x 2 target losses) and the per-instance
 * values of repo_resnet110_instances.csv, plus the convergence coefficients
 * of the paper's Table VI (paper_plans_tables_1_5_6.csv).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "refdata.h"
#include "slo.h"

/* Column names of the five instance types, in the files' index order. */
static const char *const count_cols[5] = {"n_p3_2xl", "n_g4dn_4xl", "n_g3_8xl", "n_g3_16xl",
                                          "n_p2_8xl"};
static const char *const type_names[5] = {"p3.2xlarge", "g4dn.4xlarge", "g3.8xlarge",
                                          "g3.16xlarge", "p2.8xlarge"};

struct fixture {
    struct slo_catalog cat;
    struct slo_workload wl;
    struct slo_train_setup s;
    int map[5]; /* file index -> setup type index */
};

static int setup(void **state)
{
    static struct fixture f;
    slo_error_t err = {0};
    load_embedded("spotdnn-resnet110", "resnet110", &f.cat, &f.wl);
    if (slo_train_setup_init(&f.s, &f.cat, &f.wl, SLO_PRICING_SPOT, &err))
        return -1;
    for (int i = 0; i < 5; i++) {
        f.map[i] = -1;
        for (size_t k = 0; k < f.s.n_types; k++)
            if (strcmp(f.s.types[k].name, type_names[i]) == 0)
                f.map[i] = (int)k;
        if (f.map[i] < 0)
            return -1;
    }
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    slo_train_setup_free(&f->s);
    slo_catalog_free(&f->cat);
    slo_workload_free(&f->wl);
    return 0;
}

/* |got - want| within half a unit of the reference's last printed digit. */
static void near(double got, double want, double half_unit, const char *what, size_t row)
{
    if (!(fabs(got - want) <= half_unit * (1 + 1e-9))) {
        fprintf(stderr, "row %zu %s: got %.9g, reference %.9g (tolerance %g)\n", row, what, got,
                want, half_unit);
        fail();
    }
}

/* All 32 rows: P, B_wk, b_w, v, j, T and cost, to the file's rounding. */
static void test_reference_evaluations(void **state)
{
    struct fixture *f = *state;
    struct csv c;
    csv_read(refdata_path("spotdnn/repo_model_reference_evaluations.csv"), &c);
    assert_int_equal(c.n_rows, 32);
    for (size_t r = 0; r < c.n_rows; r++) {
        int counts[5] = {0};
        for (int i = 0; i < 5; i++)
            counts[f->map[i]] = (int)csv_num(&c, r, count_cols[i]);
        struct slo_train_request req = {.target_loss = csv_num(&c, r, "target_loss"),
                                        .deadline_s = 1e9};
        struct slo_train_eval ev;
        slo_error_t err = {0};
        assert_int_equal(slo_train_evaluate(&f->s, counts, &req, &ev, &err), SLO_OK);
        assert_int_equal(ev.n_workers, (int)csv_num(&c, r, "n_workers"));
        double P = csv_num(&c, r, "P_contention");
        if (isnan(P))
            assert_true(ev.p_contention < 0); /* blank: n B_req <= B_ps */
        else
            near(ev.p_contention, P, 5e-7, "P", r);
        near(ev.b_wk_mbps, csv_num(&c, r, "B_wk_MBps"), 5e-5, "B_wk", r);
        near(ev.wa_batch, csv_num(&c, r, "wa_batch_bw"), 1e-9, "b_w", r);
        near(ev.speed, csv_num(&c, r, "cluster_speed_v_samples_per_s"), 5e-4, "v", r);
        near(ev.iterations, csv_num(&c, r, "normalized_iters_j"), 0, "j", r);
        near(ev.time_s, csv_num(&c, r, "train_time_s"), 1e-9, "T", r);
        near(ev.cost_usd, csv_num(&c, r, "cost_usd"), 1e-9, "cost", r);
        /* Identity of Eq. 4 (research notes 5.4): b_w sum(1/T^i) = v. */
        if (f->wl.compat != SLO_COMPAT_SPOTDNN_CODE)
            near(ev.wa_batch / ev.t_exp_s, ev.speed, 1e-9 * ev.speed, "bw/T_exp", r);
    }
    csv_free(&c);
}

/* Per-instance compute time under both conventions and the no-contention
 * iteration time and speed (repo_resnet110_instances.csv). */
static void test_reference_instances(void **state)
{
    struct fixture *f = *state;
    struct csv c;
    struct slo_train_setup paper;
    struct slo_workload wl_paper = f->wl;
    slo_error_t err = {0};

    wl_paper.compat = SLO_COMPAT_PAPER;
    assert_int_equal(slo_train_setup_init(&paper, &f->cat, &wl_paper, SLO_PRICING_SPOT, &err),
                     SLO_OK);
    csv_read(refdata_path("spotdnn/repo_resnet110_instances.csv"), &c);
    assert_int_equal(c.n_rows, 5);
    for (size_t r = 0; r < c.n_rows; r++) {
        int k = f->map[(int)csv_num(&c, r, "index")];
        assert_string_equal(f->s.types[k].name, csv_str(&c, r, "inferred_instance_type"));
        near(f->s.types[k].t_comp_s, csv_num(&c, r, "t_comp_as_coded_s"), 5e-7, "T_comp code",
             r);
        near(paper.types[k].t_comp_s, csv_num(&c, r, "t_comp_per_paper_eq6_7_s"), 5e-7,
             "T_comp paper", r);
        double T = slo_train_iteration_time(&f->s, (size_t)k, 1);
        near(T, csv_num(&c, r, "predicted_iter_time_no_contention_s"), 5e-7, "T^i", r);
        near(f->s.types[k].batch / T, csv_num(&c, r, "predicted_speed_no_contention_samples_per_s"),
             5e-4, "v^i", r);
        /* Under the paper's Eqs. 6-7 the no-contention prediction is the
         * profiled iteration time itself. */
        near(slo_train_iteration_time(&paper, (size_t)k, 1), csv_num(&c, r, "iter_time_s"), 5e-7,
             "T^i paper", r);
        near(f->s.types[k].usd_per_h, csv_num(&c, r, "spot_price_usd_per_hour"), 1e-12, "price",
             r);
        assert_int_equal(f->s.types[k].quota, (int)csv_num(&c, r, "quota"));
    }
    csv_free(&c);
    slo_train_setup_free(&paper);
}

/* Research notes 2.5: 10 x g3.16xlarge gives P = 0.6098, B_wk = 128.58 MB/s,
 * T^i = 1.052666 s. */
static void test_contention_example(void **state)
{
    struct fixture *f = *state;
    double p;
    double bwk = slo_worker_bandwidth(&f->wl, 10, &p);
    assert_float_equal(p, 0.8 * sqrt(10) - 1.92, 1e-12);
    assert_float_equal(bwk, p * 120 + (1 - p) * 142, 1e-9);
    near(slo_train_iteration_time(&f->s, (size_t)f->map[3], 10), 1.052666, 5e-7, "T^i(10)", 0);
    /* Eq. 9 clamps P to [0, 1]: the code never floors it (research 1.3). */
    assert_float_equal(slo_contention_probability(0.8, -1.92, 0, 1), 0, 0);
    assert_float_equal(slo_contention_probability(0.8, -1.92, 0, 100), 1, 0);
}

static double cc_of(const double *speeds, size_t n)
{
    return slo_convergence_coefficient(speeds, n);
}

/*
 * Table VI's convergence coefficients (printed to 2 decimals):
 *  - homogeneous clusters give sqrt((n-1)/n): 0.71, 0.82, 0.87 (every
 *    Homo-slow/Homo-fast row);
 *  - VGG-19 spotDNN [1,1] -> 0.51 fixes the p3.2xl : g4dn.4xl speed ratio;
 *    the same ratio must give [2,1] -> 0.75 (two rows of the table). Worked
 *    by hand: any ratio consistent with the printed 0.51 (0.505..0.515)
 *    gives R in [0.7555, 0.7579] for [2,1], which rounds to 0.76; the paper
 *    prints 0.75, so these two cells are checked to 0.01, the rest to the
 *    printed rounding (0.005);
 *  - EsperBERTo [0,0,1,3,0] -> 0.83 with g3.16xl = 2 x g3.8xl (4 vs 2 M60
 *    GPUs of the same model).
 *  - EsperBERTo [0,0,1,2,0] -> 0.59 is NOT reproducible: a 3-worker cluster
 *    whose two fastest workers are identical has R >= sqrt(1/2) = 0.707 for
 *    any speed ratio (research notes 1.7). We check that bound instead of
 *    fudging the value.
 */
static void test_table_vi_cc(void **state)
{
    struct csv c;
    (void)state;
    csv_read(refdata_path("spotdnn/paper_plans_tables_1_5_6.csv"), &c);
    /* VGG-19 [1,1] = 0.51: R = sqrt(2) (1 - w1) => w1 = 1 - 0.51/sqrt(2). */
    double w1 = 1 - 0.51 / sqrt(2), ratio = w1 / (1 - w1);
    int checked = 0;
    for (size_t r = 0; r < c.n_rows; r++) {
        if (strcmp(csv_str(&c, r, "table"), "VI") != 0)
            continue;
        int n[5];
        double speeds[64];
        size_t nw = 0;
        for (int i = 0; i < 5; i++)
            n[i] = (int)csv_num(&c, r, count_cols[i]);
        const char *wl = csv_str(&c, r, "workload");
        const char *strategy = csv_str(&c, r, "strategy");
        double want = csv_num(&c, r, "cc");
        if (strcmp(strategy, "spotDNN") != 0) {
            for (int i = 0; i < 5; i++)
                for (int k = 0; k < n[i]; k++)
                    speeds[nw++] = 1.0;
        } else if (strcmp(wl, "VGG-19") == 0) {
            for (int k = 0; k < n[0]; k++)
                speeds[nw++] = ratio; /* p3.2xlarge */
            for (int k = 0; k < n[1]; k++)
                speeds[nw++] = 1.0;   /* g4dn.4xlarge */
        } else {
            for (int k = 0; k < n[2]; k++)
                speeds[nw++] = 1.0;   /* g3.8xlarge: 2 M60 */
            for (int k = 0; k < n[3]; k++)
                speeds[nw++] = 2.0;   /* g3.16xlarge: 4 M60 */
        }
        double R = cc_of(speeds, nw);
        if (strcmp(wl, "EsperBERTo") == 0 && n[2] == 1 && n[3] == 2) {
            assert_float_equal(want, 0.59, 1e-12);
            /* the irreproducible row: with the two g3.16xlarge (4 GPUs) at
             * least as fast as the g3.8xlarge (2 GPUs of the same model),
             * R >= sqrt(0.5) for every speed ratio q <= 1 */
            for (double q = 0.001; q <= 1; q *= 1.1) {
                double sp[3] = {q, 1, 1};
                assert_true(cc_of(sp, 3) >= sqrt(0.5) - 1e-12);
            }
            continue;
        }
        double tol = strcmp(wl, "VGG-19") == 0 && n[0] == 2 && n[1] == 1 ? 0.01 : 0.005;
        if (fabs(R - want) > tol + 1e-9) {
            fprintf(stderr, "Table VI row %zu (%s %s): R %.4f, printed %.2f\n", r, wl, strategy,
                    R, want);
            fail();
        }
        checked++;
    }
    assert_int_equal(checked, 17); /* 18 rows, one irreproducible */
    csv_free(&c);
    /* A single worker: R = 0 (Eq. 5 with w = [1]). */
    double one = 5;
    assert_float_equal(cc_of(&one, 1), 0, 0);
}

/* Eq. 3 and its inverse, worked by hand for the ResNet-110 coefficients:
 * b_w = 1024, n = 4, L = 0.8: j = (-0.2*1024 + 2507.6)*2/0.3 - 876.5
 * = 2302.8*2/0.3 - 876.5 = 14475.5 (the reference rounds to 14475). */
static void test_loss_inverse(void **state)
{
    struct fixture *f = *state;
    double j;
    slo_error_t err = {0};
    assert_int_equal(slo_iterations_for_loss(&f->wl.loss, 1024, 0, 4, 0.8, &j, &err), SLO_OK);
    assert_float_equal(j, 14475.5, 1e-9);
    assert_float_equal(slo_loss_at(&f->wl.loss, 1024, 0, 4, j), 0.8, 1e-12);
    /* at or below the asymptote 0.5: unreachable, with the reason */
    assert_int_equal(slo_iterations_for_loss(&f->wl.loss, 1024, 0, 4, 0.5, &j, &err),
                     SLO_ERR_UNREACHABLE);
    assert_non_null(strstr(err.text, "asymptotic"));
    /* b_w so large that gamma2 b_w + gamma3 <= 0: 2507.6/0.2 = 12538 */
    assert_int_equal(slo_iterations_for_loss(&f->wl.loss, 12538, 0, 4, 0.8, &j, &err),
                     SLO_ERR_UNREACHABLE);
    /* spotdnn-2023 form: sqrt((R + g4) n) */
    struct slo_loss_model m = {SLO_LOSS_SPOTDNN_2023, 100, -0.1, 1000, 0.5, 0.2};
    assert_int_equal(slo_iterations_for_loss(&m, 500, 0.3, 4, 1.2, &j, &err), SLO_OK);
    assert_float_equal(j, (-50 + 1000) * sqrt(0.8 * 4) / 1.0 - 100, 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_evaluations),
        cmocka_unit_test(test_reference_instances),
        cmocka_unit_test(test_contention_example),
        cmocka_unit_test(test_table_vi_cc),
        cmocka_unit_test(test_loss_inverse),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
