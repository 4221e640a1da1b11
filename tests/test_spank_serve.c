/*
 * test_spank_serve.c - spank_slo.so's --slo-serve (spank_plugin/args.c
 * option values, spank_plugin/serve.c plan and records) against the
 * contract (doc/slurm.md "Serving jobs", spank_slo(8) SERVING JOBS):
 * option syntax and errors; the records of a plan compared field by field
 * with the kernel plan they come from and with the hand rules of the
 * contract (GRES = sum of one GPU's tenants' units or gpu:G, partition by
 * the pricing type's site, one node); a plan needing more GPUs than a node
 * of the type has is refused; SLO_SERVE_PLAN parses back; an unknown model
 * lists the profile's models. `slo infer` on the same inputs is compared on
 * the real cluster by tests/slurm_serve_submit.sh.
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

#include "serve.h"

static void test_option(void **state)
{
    struct sslo_options o;
    char msg[SSLO_MSG_LENGTH];
    (void)state;

    memset(&o, 0, sizeof o);
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_SERVE, "vgg19:rate=200:slo=60", msg,
                                       sizeof msg), 0);
    /* a list, keys in any order; repeated option appends */
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_SERVE, "alexnet:slo=20:rate=500,ssd:rate=1.5:slo=25",
                                       msg, sizeof msg), 0);
    assert_int_equal(o.n_serve, 3);
    assert_string_equal(o.serve[0].model, "vgg19");
    assert_true(o.serve[0].rate_rps == 200 && o.serve[0].slo_ms == 60);
    assert_string_equal(o.serve[1].model, "alexnet");
    assert_true(o.serve[1].rate_rps == 500 && o.serve[1].slo_ms == 20);
    assert_true(o.serve[2].rate_rps == 1.5 && o.serve[2].slo_ms == 25);
    /* the same text again (Slurm running the callback twice) adds nothing */
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_SERVE, "vgg19:rate=200:slo=60", msg,
                                       sizeof msg), 0);
    assert_int_equal(o.n_serve, 3);
    assert_string_equal(sslo_option_name(SSLO_OPT_SERVE), "--slo-serve");

    static const struct {
        const char *text, *must_say;
    } bad[] = {
        {"", "found an empty value"},
        {"vgg19", "(no rate=)"},
        {"vgg19:rate=10", "found \"vgg19:rate=10\" (no slo=)"},
        {"vgg19:rate=0:slo=50", "rate: expected an arrival rate in req/s, a finite number > 0, "
                                "found \"0\""},
        {"vgg19:rate=10:slo=-1", "slo: expected a latency SLO in ms, a finite number > 0, found "
                                 "\"-1\""},
        {"vgg19:rate=inf:slo=1", "found \"inf\""},
        {"vgg19:rate=1:rate=2:slo=1", "expected rate= once"},
        {"vgg19:rate=1:slo=2:slo=3", "--slo-serve vgg19: expected slo= once, found it again"},
        {"vgg19:rate=1:slo=2:share=5", "expected rate=R or slo=MS, found \"share=5\""},
        {"vg/g:rate=1:slo=2", "expected a model name"},
        {"vgg19::rate=1:slo=2", "(an empty field)"},
        {"vgg19:rate=1:slo=2,", "found an empty item"},
        {":rate=1:slo=2", "(an empty field)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct sslo_options b;
        memset(&b, 0, sizeof b);
        msg[0] = '\0';
        assert_int_equal(sslo_option_parse(&b, SSLO_OPT_SERVE, bad[i].text, msg, sizeof msg), -1);
        assert_int_equal(b.n_serve, 0);
        if (!strstr(msg, bad[i].must_say) || strncmp(msg, "--slo-serve", 11) != 0)
            fail_msg("%s: message \"%s\" does not say \"%s\"", bad[i].text, msg,
                     bad[i].must_say);
    }
    /* at most SSLO_MAX_SERVE models, and the whole value is refused */
    memset(&o, 0, sizeof o);
    char many[2048] = "";
    for (int i = 0; i <= SSLO_MAX_SERVE; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%svgg19:rate=%d:slo=60",
                 i ? "," : "", i + 1);
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_SERVE, many, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "at most 16 models"));
    assert_int_equal(o.n_serve, 0);
}

static void test_config(void **state)
{
    struct sslo_config cfg;
    char msg[SSLO_MSG_LENGTH];
    char *a1[] = {"infer_profile=v100"}, *a2[] = {"infer_profile=/etc/slo/gpus/l4.json"},
         *a3[] = {"infer_profile=gpus/l4.json"}, *a4[] = {"infer_prof=v100"};
    (void)state;
    assert_int_equal(sslo_config_parse(&cfg, 0, NULL, msg, sizeof msg), 0);
    assert_string_equal(cfg.infer_profile, "");
    assert_int_equal(sslo_config_parse(&cfg, 1, a1, msg, sizeof msg), 0);
    assert_string_equal(cfg.infer_profile, "v100");
    assert_int_equal(sslo_config_parse(&cfg, 1, a2, msg, sizeof msg), 0);
    assert_string_equal(cfg.infer_profile, "/etc/slo/gpus/l4.json");
    assert_int_equal(sslo_config_parse(&cfg, 1, a3, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "infer_profile=gpus/l4.json: expected an embedded GPU profile "
                                "name or an absolute path"));
    assert_int_equal(sslo_config_parse(&cfg, 1, a4, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "mode, infer_profile"));
}

struct fixture {
    struct sslo_config cfg;
    struct slo_catalog cat;
    struct slo_ig_profile prof;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    const char *src = getenv("SLO_SRCDIR");
    char path[4096], msg[SSLO_MSG_LENGTH];
    slo_error_t err = {0};
    if (!f)
        return -1;
    snprintf(path, sizeof path, "%s/tests/slurm/catalog.json", src ? src : ".");
    if (sslo_config_parse(&f->cfg, 0, NULL, msg, sizeof msg) ||
        slo_catalog_load(path, &f->cat, &err) ||
        slo_ig_profile_open("v100", NULL, &f->prof, &err)) {
        fprintf(stderr, "setup: %s: %s\n", err.source, err.text);
        free(f);
        return -1;
    }
    /* the site's V100 profile priced as the test catalog's a100-node (2 GPUs,
     * on-prem, 1.10 USD/h per node) */
    snprintf(f->prof.instance_type, sizeof f->prof.instance_type, "a100-node");
    f->prof.usd_per_gpu_h = -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    slo_catalog_free(&f->cat);
    slo_ig_profile_free(&f->prof);
    free(f);
    return 0;
}

static struct sslo_serve_spec spec(const char *m, double rate, double slo)
{
    struct sslo_serve_spec s;
    memset(&s, 0, sizeof s);
    snprintf(s.model, sizeof s.model, "%s", m);
    s.rate_rps = rate;
    s.slo_ms = slo;
    return s;
}

/* The records against the kernel plan of the same problem (same call) and
 * against the contract's rules. */
static void check_against_kernel(struct fixture *f, const struct sslo_serve_spec *s, size_t n)
{
    struct sslo_serve_result *r = calloc(1, sizeof *r);
    struct slo_ig_workload w[SSLO_MAX_SERVE];
    struct slo_infer_problem pb = {0};
    struct slo_infer_result res = {0};
    struct sslo_serve_tenant t[SSLO_SERVE_MAX_TENANTS];
    slo_error_t err = {0};
    int nt = 0, sum0 = 0;
    char want[64];

    assert_non_null(r);
    assert_int_equal(sslo_serve_plan(&f->cfg, &f->cat, &f->prof, s, n, SLO_PRICING_SPOT,
                                     SSLO_MODE_ENFORCE, r, &err), SLO_OK);
    assert_true(r->feasible);
    for (size_t i = 0; i < n; i++) {
        memset(&w[i], 0, sizeof w[i]);
        snprintf(w[i].model, sizeof w[i].model, "%s", s[i].model);
        w[i].rate_rps = s[i].rate_rps;
        w[i].slo_ms = s[i].slo_ms;
    }
    pb.profiles = &f->prof;
    pb.n_types = 1;
    pb.catalog = &f->cat;
    pb.workloads = w;
    pb.n_workloads = n;
    assert_int_equal(slo_infer_solve(&pb, NULL, &res, &err), SLO_OK);
    assert_true(res.mps_verified);

    assert_string_equal(sslo_serve_value(r, "SLO_PLAN_VERSION"), "1");
    assert_string_equal(sslo_serve_value(r, "SLO_KIND"), "serve");
    assert_string_equal(sslo_serve_value(r, "SLO_MODE"), "enforce");
    assert_string_equal(sslo_serve_value(r, "SLO_NODES"), "1");
    /* a100-node is on-prem: the on-prem partition, priced on-prem */
    assert_string_equal(sslo_serve_value(r, "SLO_PARTITION"), "onprem");
    assert_string_equal(sslo_serve_value(r, "SLO_PRICING"), "on-prem");
    assert_string_equal(sslo_serve_value(r, "SLO_CONSTRAINT"), "a100-node");
    assert_int_equal(sslo_serve_parse_plan(sslo_serve_value(r, "SLO_SERVE_PLAN"), t,
                                           SSLO_SERVE_MAX_TENANTS, &nt), 0);
    assert_int_equal(nt, (int)res.n_placements);
    assert_int_equal(r->n_tenants, nt);
    assert_int_equal(r->n_gpus, (int)res.n_gpus);
    for (int i = 0; i < nt; i++) {
        const struct slo_infer_placement *pl = &res.placements[i];
        assert_string_equal(t[i].model, s[pl->workload].model);
        assert_int_equal(t[i].gpu, (int)pl->gpu);
        assert_int_equal(t[i].batch, pl->batch);
        assert_int_equal(t[i].mps_pct, pl->mps_active_thread_pct);
        assert_true(t[i].mps_pct >= 1 && t[i].mps_pct <= 100);
        assert_true(fabs(t[i].rate_rps - pl->rate_rps) < 1e-6);
        assert_true(t[i].slo_ms == s[pl->workload].slo_ms);
        if (pl->gpu == 0)
            sum0 += t[i].mps_pct;
    }
    if (res.n_gpus == 1)
        snprintf(want, sizeof want, "mps:%d", sum0);
    else
        snprintf(want, sizeof want, "gpu:%zu", res.n_gpus);
    assert_string_equal(sslo_serve_value(r, "SLO_GRES"), want);
    snprintf(want, sizeof want, "%zu", res.n_gpus);
    assert_string_equal(sslo_serve_value(r, "SLO_SERVE_GPUS"), want);
    /* 0.55 USD per GPU-hour (1.10 / 2 GPUs) */
    snprintf(want, sizeof want, "%.4g", 0.55 * (double)res.n_gpus);
    assert_string_equal(sslo_serve_value(r, "SLO_COST_USD_PER_H"), want);
    assert_non_null(strstr(r->table, "partition onprem, 1 node, gres "));
    slo_infer_result_free(&res);
    free(r);
}

static void test_plan_one_gpu(void **state)
{
    struct sslo_serve_spec s[2] = {spec("vgg19", 200, 60), spec("alexnet", 500, 20)};
    check_against_kernel(*state, s, 2);
}

static void test_plan_two_gpus(void **state)
{
    struct sslo_serve_spec s[2] = {spec("ssd", 400, 25), spec("vgg19", 200, 60)};
    check_against_kernel(*state, s, 2);
}

static void test_plan_refusals(void **state)
{
    struct fixture *f = *state;
    struct sslo_serve_result *r = calloc(1, sizeof *r);
    slo_error_t err = {0};
    assert_non_null(r);

    struct sslo_serve_spec unknown[2] = {spec("vgg19", 10, 60), spec("foo", 10, 50)};
    assert_int_equal(sslo_serve_plan(&f->cfg, &f->cat, &f->prof, unknown, 2, SLO_PRICING_SPOT,
                                     SSLO_MODE_ENFORCE, r, &err), SLO_ERR_NOT_FOUND);
    assert_string_equal(err.text, "unknown model \"foo\"; the profile embedded profile v100 "
                                  "has: alexnet, resnet50, vgg19, ssd");
    assert_false(r->feasible);

    /* three dedicated GPUs of ssd: a node of a100-node has 2 */
    struct sslo_serve_spec big[1] = {spec("ssd", 700, 25)};
    memset(&err, 0, sizeof err);
    assert_int_equal(sslo_serve_plan(&f->cfg, &f->cat, &f->prof, big, 1, SLO_PRICING_SPOT,
                                     SSLO_MODE_ENFORCE, r, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "one node of instance type a100-node has 2; a serving job "
                                     "is one node"));

    /* an SLO below what one request's transfer allows: no plan */
    struct sslo_serve_spec tight[1] = {spec("vgg19", 100, 0.01)};
    memset(&err, 0, sizeof err);
    assert_int_equal(sslo_serve_plan(&f->cfg, &f->cat, &f->prof, tight, 1, SLO_PRICING_SPOT,
                                     SSLO_MODE_ENFORCE, r, &err), SLO_ERR_INFEASIBLE);
    assert_non_null(strstr(r->reason, "no serving plan meets every SLO: "));
    free(r);
}

/* A cloud type prices the profile: the spot or on-demand partition by
 * pricing (the contract's rule), the type as the constraint, its price. */
static void test_plan_cloud(void **state)
{
    struct sslo_config cfg;
    struct slo_catalog cat = {0};
    struct slo_ig_profile prof = {0};
    struct sslo_serve_result *r = calloc(1, sizeof *r);
    struct sslo_serve_spec s[1] = {spec("vgg19", 200, 60)};
    slo_error_t err = {0};
    char msg[SSLO_MSG_LENGTH];
    (void)state;
    assert_non_null(r);
    assert_int_equal(sslo_config_parse(&cfg, 0, NULL, msg, sizeof msg), 0);
    assert_int_equal(slo_catalog_open("aws-table3", NULL, &cat, &err), SLO_OK);
    assert_int_equal(slo_ig_profile_open("v100", NULL, &prof, &err), SLO_OK);
    int k = slo_catalog_find_type(&cat, "p3.2xlarge");
    assert_true(k >= 0);
    for (int pr = 0; pr < 2; pr++) {
        enum slo_pricing pricing = pr ? SLO_PRICING_ON_DEMAND : SLO_PRICING_SPOT;
        char want[64];
        assert_int_equal(sslo_serve_plan(&cfg, &cat, &prof, s, 1, pricing, SSLO_MODE_ADVISE, r,
                                         &err), SLO_OK);
        assert_string_equal(sslo_serve_value(r, "SLO_PARTITION"),
                            pr ? "cloud-ondemand" : "cloud-spot");
        assert_string_equal(sslo_serve_value(r, "SLO_PRICING"), pr ? "on-demand" : "spot");
        assert_string_equal(sslo_serve_value(r, "SLO_MODE"), "advise");
        assert_string_equal(sslo_serve_value(r, "SLO_CONSTRAINT"), "p3.2xlarge");
        /* p3.2xlarge has one GPU: the price of the instance */
        snprintf(want, sizeof want, "%.4f", slo_instance_price(&cat.types[k], pricing));
        while (want[strlen(want) - 1] == '0')
            want[strlen(want) - 1] = '\0';
        if (want[strlen(want) - 1] == '.')
            want[strlen(want) - 1] = '\0';
        assert_string_equal(sslo_serve_value(r, "SLO_COST_USD_PER_H"), want);
    }
    slo_ig_profile_free(&prof);
    slo_catalog_free(&cat);
    free(r);
}

static void test_parse_plan(void **state)
{
    struct sslo_serve_tenant t[4];
    int n = -1;
    (void)state;
    assert_int_equal(sslo_serve_parse_plan("vgg19:0:6:35:200:60,alexnet:0:5:8:500:20", t, 4, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(t[1].model, "alexnet");
    assert_int_equal(t[1].batch, 5);
    assert_int_equal(t[1].mps_pct, 8);
    assert_true(t[0].rate_rps == 200 && t[1].slo_ms == 20);
    static const char *const bad[] = {
        "", "vgg19:0:6:35:200", "vgg19:0:6:35:200:60:1", "vgg19:0:0:35:200:60",
        "vgg19:0:33:35:200:60", "vgg19:0:6:0:200:60", "vgg19:0:6:101:200:60",
        "vgg19:0:6:35:0:60", "vgg19:0:6:35:2e2:60", "vgg19:x:6:35:200:60", "vg,g19:0:6:35:200:60",
        "a:0:1:1:1:1,b:0:1:1:1:1,c:0:1:1:1:1,d:0:1:1:1:1,e:0:1:1:1:1", ":0:1:1:1:1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (sslo_serve_parse_plan(bad[i], t, 4, &n) != -1)
            fail_msg("\"%s\" parsed", bad[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_option),
        cmocka_unit_test(test_config),
        cmocka_unit_test_setup_teardown(test_plan_one_gpu, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plan_two_gpus, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plan_refusals, setup, teardown),
        cmocka_unit_test(test_plan_cloud),
        cmocka_unit_test(test_parse_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
