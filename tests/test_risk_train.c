/*
 * test_risk_train.c - risk-aware training plans (issue 13 item 4): the
 * catalog's interruption rates and restart overhead, and the risk model of
 * the plans `slo train --slo-confidence` and spank_slo pick, against
 *  - hand-worked bucket rates: "<5%" of a month of 730 h with exponential
 *    lifetimes is 1 - 0.95^(1/730) = 7.0263e-05 per hour (ln 0.95 =
 *    -0.0512933, / 730 = -7.02648e-05, 1 - e^x = 7.02623e-05); ">20%" read as 25%: 1 - 0.75^(1/730)
 *    = 3.94007e-04 (ln 0.75 = -0.287682, / 730 = -3.94085e-04);
 *  - a Monte Carlo replay written here from the model's description (its
 *    own generator, splitmix64, and its own event loop: each spot
 *    instance's revocation drawn, the run paused restart_s at each one
 *    before the end of its compute time and the instance replaced on demand,
 *    every instance billed for the time it ran), over the plans that
 *    slo_risk_plan and slo_train_solve give on the embedded spotdnn-resnet110
 *    catalog for 2 deadlines, 6 interruption rates and 2 restart overheads
 *    (48 plans): P(deadline
 *    met) within 4 binomial standard errors of the model's (20,000 draws:
 *    4 sqrt(P (1 - P) / 20000) <= 0.0142) and the mean cost within 4
 *    standard errors of its sample mean.
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

/* A catalog with one type TYPE_FIELDS (JSON members) and the restart overhead. */
static int parse_one(const char *type_fields, const char *extra, struct slo_catalog *cat,
                     slo_error_t *err)
{
    char buf[2048];
    snprintf(buf, sizeof buf,
             "{\"name\": \"r\", %s \"types\": [{\"name\": \"p3.2xlarge\", \"gpu_model\": "
             "\"V100\", \"gpus\": 1, \"site\": \"cloud\", \"on_demand_usd_per_h\": 3.06, %s}]}",
             extra, type_fields);
    return slo_catalog_parse(buf, "r.json", cat, err);
}

static void test_catalog_rates(void **state)
{
    struct slo_catalog cat;
    slo_error_t err = {0};
    double p;
    (void)state;

    /* The buckets, hand-worked above. */
    assert_int_equal(slo_interruption_bucket_rate("<5%", &p), SLO_OK);
    assert_true(fabs(p - 7.02623e-05) < 1e-10);
    assert_int_equal(slo_interruption_bucket_rate(">20%", &p), SLO_OK);
    assert_true(fabs(p - 3.940074e-04) < 1e-10);
    assert_int_equal(slo_interruption_bucket_rate("5%", &p), SLO_ERR_INVALID);

    /* A number, a bucket, a pool's own and a pool inheriting its type's. */
    const char *pooled =
        "{\"name\": \"r\", \"restart_overhead_s\": 90, \"types\": ["
        "{\"name\": \"p3.2xlarge\", \"gpu_model\": \"V100\", \"gpus\": 1, \"site\": \"cloud\","
        " \"spot_usd_per_h\": 0.9, \"on_demand_usd_per_h\": 3.06, \"quota\": 2,"
        " \"interruption_rate\": 0.25},"
        "{\"name\": \"g3.4xlarge\", \"gpu_model\": \"M60\", \"gpus\": 1, \"site\": \"cloud\","
        " \"on_demand_usd_per_h\": 1.14, \"interruption_rate\": \"10-15%\", \"pools\": ["
        "  {\"zone\": \"a\", \"spot_usd_per_h\": 0.3, \"quota\": 2},"
        "  {\"zone\": \"b\", \"spot_usd_per_h\": 0.3, \"quota\": 2, \"interruption_rate\": 0.5}]},"
        "{\"name\": \"g3.8xlarge\", \"gpu_model\": \"M60\", \"gpus\": 2, \"site\": \"cloud\","
        " \"spot_usd_per_h\": 0.6, \"on_demand_usd_per_h\": 2.28, \"quota\": 2},"
        "{\"name\": \"n1\", \"gpu_model\": \"A100\", \"gpus\": 2, \"site\": \"onprem\","
        " \"usd_per_h\": 1, \"quota\": 1}]}";
    assert_int_equal(slo_catalog_parse(pooled, "pooled.json", &cat, &err), SLO_OK);
    assert_int_equal(cat.n_types, 5);
    assert_true(cat.has_restart_overhead && cat.restart_overhead_s == 90);
    assert_true(cat.types[0].has_interruption_rate && cat.types[0].interruption_rate == 0.25);
    /* "10-15%": 1 - 0.85^(1/730): ln 0.85 = -0.162519, / 730 = -2.22629e-04 */
    assert_string_equal(cat.types[1].name, "g3.4xlarge@a");
    assert_true(cat.types[1].has_interruption_rate &&
                fabs(cat.types[1].interruption_rate - 2.22604e-04) < 1e-9);
    assert_true(cat.types[2].has_interruption_rate && cat.types[2].interruption_rate == 0.5);
    assert_false(cat.types[3].has_interruption_rate);
    assert_false(cat.types[4].has_interruption_rate);
    slo_catalog_free(&cat);

    /* Bad values: one message naming the field, what was expected and found. */
    static const struct { const char *fields, *extra, *must_say; } bad[] = {
        {"\"spot_usd_per_h\": 0.9, \"quota\": 1, \"interruption_rate\": 1.5", "",
         "types[0] (p3.2xlarge).interruption_rate: expected the probability that a running "
         "spot instance is revoked within an hour, a number in [0, 1], or a Spot Instance "
         "Advisor bucket (\"<5%\", \"5-10%\", \"10-15%\", \"15-20%\", \">20%\"), found 1.5"},
        {"\"spot_usd_per_h\": 0.9, \"quota\": 1, \"interruption_rate\": -0.01", "",
         "interruption_rate: expected the probability"},
        {"\"spot_usd_per_h\": 0.9, \"quota\": 1, \"interruption_rate\": \"5%\"", "",
         "found the string \"5%\""},
        {"\"spot_usd_per_h\": 0.9, \"quota\": 1, \"interruption_rate\": true", "",
         "interruption_rate: expected"},
        {"\"pools\": [{\"zone\": \"a\", \"spot_usd_per_h\": 0.3, \"quota\": 1, "
         "\"interruption_rate\": 2}]", "",
         "types[0] (p3.2xlarge).pools[0] (a).interruption_rate: expected the probability"},
        {"\"spot_usd_per_h\": 0.9, \"quota\": 1", "\"restart_overhead_s\": -1,",
         "restart_overhead_s: expected"},
        {"\"spot_usd_per_h\": 0.9, \"quota\": 1", "\"restart_overhead_s\": \"2m\",",
         "restart_overhead_s: expected"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        assert_int_equal(parse_one(bad[i].fields, bad[i].extra, &cat, &err), SLO_ERR_INVALID);
        if (!strstr(err.text, bad[i].must_say))
            fail_msg("case %zu: \"%s\" does not say \"%s\"", i, err.text, bad[i].must_say);
        assert_int_equal(cat.n_types, 0);
    }
    /* An on-prem type is never revoked: a rate there is a mistake. */
    const char *onprem = "{\"name\": \"r\", \"types\": [{\"name\": \"n1\", \"gpu_model\": "
                         "\"A100\", \"gpus\": 2, \"site\": \"onprem\", \"usd_per_h\": 1, "
                         "\"quota\": 1, \"interruption_rate\": 0.1}]}";
    assert_int_equal(slo_catalog_parse(onprem, "o.json", &cat, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "types[0] (n1).interruption_rate: only cloud (spot) types"));
}

/* ------------------------------------------------------------------ */
/* The Monte Carlo replay                                              */
/* ------------------------------------------------------------------ */

/* splitmix64 (Steele, Lea, Flood 2014): a uniform double in (0, 1). */
static double draw_uniform(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

struct replay_stats {
    double p_met, p_se;        /* share of draws that met the deadline, its SE */
    double cost, cost_se;      /* mean cost, USD, and its SE */
};

/*
 * One job run per draw: the plan computes for compute_s (the time its
 * cluster needs); each spot instance of pool k, rate lambda_k per hour of
 * computing, is revoked at an exponential time; at each revocation before
 * the end the run stops for restart_s, billed at the cluster's on-demand
 * price, and the instance comes back on demand; the run meets the deadline
 * when compute_s + revocations x restart_s <= deadline_s.
 */
static void replay(const struct slo_risk_pool *pools, size_t n, double compute_s,
                   double deadline_s, double restart_s, long draws, uint64_t seed,
                   struct replay_stats *st)
{
    double met = 0, sum = 0, sum2 = 0, od_per_s = 0;
    for (size_t k = 0; k < n; k++)
        od_per_s += pools[k].count * pools[k].replace_usd_per_h / 3600;
    for (long d = 0; d < draws; d++) {
        double usd = 0, wall = compute_s;
        for (size_t k = 0; k < n; k++) {
            double lambda = pools[k].p_revoke_h >= 1 ? INFINITY : -log1p(-pools[k].p_revoke_h);
            for (int i = 0; i < pools[k].count; i++) {
                double ran = compute_s; /* seconds of computing before a revocation */
                if (pools[k].spot && lambda > 0) {
                    double t = isinf(lambda) ? 0 : -log(draw_uniform(&seed)) / lambda * 3600;
                    if (t < compute_s) {
                        ran = t;
                        wall += restart_s;
                        usd += restart_s * od_per_s;
                    }
                }
                usd += ran * pools[k].usd_per_h / 3600 +
                       (compute_s - ran) * pools[k].replace_usd_per_h / 3600;
            }
        }
        met += wall <= deadline_s;
        sum += usd;
        sum2 += usd * usd;
    }
    st->p_met = met / draws;
    st->p_se = sqrt(st->p_met * (1 - st->p_met) / draws);
    st->cost = sum / draws;
    double var = sum2 / draws - st->cost * st->cost;
    st->cost_se = sqrt((var > 0 ? var : 0) / draws);
}

/* The pools of counts (setup order) priced as od (1) or spot (0). */
static void pools_of(const struct slo_catalog *cat, const struct slo_train_setup *s,
                     const int *counts, int od, double rate, struct slo_risk_pool *pools)
{
    for (size_t k = 0; k < s->n_types; k++) {
        const struct slo_instance_type *it = &cat->types[s->types[k].catalog_index];
        pools[k].count = counts[k];
        pools[k].spot = !od && it->site == SLO_SITE_CLOUD;
        pools[k].usd_per_h = slo_instance_price(it, od ? SLO_PRICING_ON_DEMAND : SLO_PRICING_SPOT);
        pools[k].replace_usd_per_h = slo_instance_price(it, SLO_PRICING_ON_DEMAND);
        pools[k].p_revoke_h = pools[k].spot ? rate : 0;
    }
}

static int check_plan(const char *what, const struct slo_risk_pool *pools, size_t n,
                      double compute_s, double deadline_s, double restart_s, uint64_t seed)
{
    struct slo_risk_eval ev;
    struct replay_stats st;
    slo_error_t err = {0};
    const long draws = 20000;

    assert_int_equal(slo_risk_evaluate(pools, n, compute_s, deadline_s, restart_s, &ev, &err),
                     SLO_OK);
    replay(pools, n, compute_s, deadline_s, restart_s, draws, seed, &st);
    /* 4 binomial SE at the model's P (+ one draw for P at 0 or 1) */
    double tol_p = 4 * sqrt(ev.p_meet * (1 - ev.p_meet) / draws) + 1.0 / draws;
    double tol_c = 4 * st.cost_se + 1e-9;
    printf("# %-52s P %.4f replay %.4f (+-%.4f)  cost %.4f replay %.4f (+-%.4f)\n", what,
           ev.p_meet, st.p_met, tol_p, ev.expected_cost_usd, st.cost, tol_c);
    if (fabs(st.p_met - ev.p_meet) > tol_p || fabs(st.cost - ev.expected_cost_usd) > tol_c) {
        print_error("%s: the model and the replay differ beyond 4 standard errors\n", what);
        return 1;
    }
    return 0;
}

static void test_model_vs_replay(void **state)
{
    static const double rates[] = {3.94007e-04, 0.02, 0.1, 0.3, 0.5, 0.8};
    static const double restarts[] = {60, 300};
    static const double deadlines[] = {2400, 3000};
    struct slo_catalog cat;
    struct slo_workload wl;
    slo_error_t err = {0};
    double prates[32];
    int failed = 0, plans = 0, spot_picks = 0, interior = 0;
    (void)state;

    assert_int_equal(slo_catalog_open("spotdnn-resnet110", NULL, &cat, &err), SLO_OK);
    assert_int_equal(slo_workload_open("resnet110", NULL, &wl, &err), SLO_OK);
    assert_true(cat.n_types <= 32);
    for (size_t di = 0; di < 2; di++) {
        struct slo_train_problem pb = {.catalog = &cat, .workload = &wl,
                                       .pricing = SLO_PRICING_SPOT, .target_loss = 0.8,
                                       .deadline_s = deadlines[di]};
        struct slo_train_result tr = {0};
        assert_int_equal(slo_train_solve(&pb, NULL, &tr, &err), SLO_OK);
        assert_int_equal(tr.status, SLO_STATUS_OPTIMAL);
        const struct slo_train_setup *s = &tr.setup;
        struct slo_risk_pool *pools = calloc(s->n_types, sizeof *pools);
        assert_non_null(pools);
        for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
            for (size_t j = 0; j < 2; j++) {
                char what[128];
                uint64_t seed = 10000 * (di + 1) + 100 * (i + 1) + j;
                struct slo_risk_eval ev;
                for (size_t k = 0; k < cat.n_types; k++)
                    prates[k] = rates[i];
                /* spotDNN's plan, no slack asked for */
                pools_of(&cat, s, tr.plan.counts, 0, rates[i], pools);
                snprintf(what, sizeof what, "%.0f s, spotDNN, p %.4g/h, restart %.0f s",
                         pb.deadline_s, rates[i], restarts[j]);
                failed += check_plan(what, pools, s->n_types, tr.plan.eval.time_s,
                                     pb.deadline_s, restarts[j], seed);
                assert_int_equal(slo_risk_evaluate(pools, s->n_types, tr.plan.eval.time_s,
                                                   pb.deadline_s, restarts[j], &ev, &err),
                                 SLO_OK);
                interior += ev.p_meet > 0.01 && ev.p_meet < 0.99;
                plans++;
                /* the risk-aware plan for P >= 0.9 */
                struct slo_risk_plan_result rp;
                assert_int_equal(slo_risk_plan(&pb, NULL, prates, restarts[j], 0.9, &rp, &err),
                                 SLO_OK);
                assert_true(rp.found && rp.meets_confidence && rp.risk.p_meet >= 0.9);
                assert_int_equal(rp.n_types, s->n_types);
                pools_of(&cat, s, rp.counts, rp.on_demand, rates[i], pools);
                snprintf(what, sizeof what, "%.0f s, risk-aware (%s, k=%d), p %.4g/h, "
                         "restart %.0f s", pb.deadline_s, rp.on_demand ? "od" : "spot",
                         rp.slack_revocations, rates[i], restarts[j]);
                failed += check_plan(what, pools, s->n_types, rp.time_s, pb.deadline_s,
                                     restarts[j], seed + 77);
                plans++;
                spot_picks += !rp.on_demand;
                interior += rp.risk.p_meet > 0.01 && rp.risk.p_meet < 0.99;
                slo_risk_plan_result_free(&rp);
            }
        }
        free(pools);
        slo_train_result_free(&tr);
    }
    /* Not a test of trivial cases only: spot picks and probabilities away
     * from 0 and 1 both occur. */
    printf("# %d plans, %d risk-aware spot picks, %d with 0.01 < P < 0.99\n", plans, spot_picks,
           interior);
    assert_true(spot_picks >= 4 && interior >= 8);
    assert_int_equal(failed, 0);
    slo_catalog_free(&cat);
    slo_workload_free(&wl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalog_rates),
        cmocka_unit_test(test_model_vs_replay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
