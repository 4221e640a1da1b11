/*
 * test_spank_args.c - spank_slo.so's plugstack arguments and --slo-* option
 * values (spank_plugin/args.c), against the contract
 * (spank_slo(8) "PLUGSTACK ARGUMENTS", defaults listed there) and the option rules of issue 6 / spank_slo(8). The expected values
 * are written from those texts, not from the code.
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
#include <unistd.h>

#include "args.h"

static int parse(struct sslo_config *cfg, char *msg, int ac, ...)
{
    char *av[16];
    va_list ap;
    va_start(ap, ac);
    for (int i = 0; i < ac; i++)
        av[i] = va_arg(ap, char *);
    va_end(ap);
    msg[0] = '\0';
    return sslo_config_parse(cfg, ac, av, msg, SSLO_MSG_LENGTH);
}

/* Contract defaults: onprem, cloud-spot, cloud-ondemand, burst, 64, enforce. */
static void test_config_defaults(void **state)
{
    struct sslo_config cfg;
    char msg[SSLO_MSG_LENGTH];
    (void)state;
    assert_int_equal(parse(&cfg, msg, 0), 0);
    assert_string_equal(cfg.onprem_partition, "onprem");
    assert_string_equal(cfg.spot_partition, "cloud-spot");
    assert_string_equal(cfg.ondemand_partition, "cloud-ondemand");
    assert_string_equal(cfg.burst_partition, "burst");
    assert_int_equal(cfg.max_nodes, 64);
    assert_int_equal(cfg.mode, SSLO_MODE_ENFORCE);
    assert_string_equal(cfg.catalog, "");
    assert_string_equal(cfg.workloads, "");
    assert_string_equal(cfg.workload, "");
}

static void test_config_every_key(void **state)
{
    struct sslo_config cfg;
    char msg[SSLO_MSG_LENGTH];
    (void)state;
    assert_int_equal(parse(&cfg, msg, 9, "catalog=/etc/slo/catalog.json", "workloads=/etc/slo/w",
                           "workload=resnet110", "onprem_partition=gpu", "spot_partition=aws-spot",
                           "ondemand_partition=aws-od", "burst_partition=all",
                           "max_nodes=8", "mode=advise"),
                     0);
    assert_string_equal(cfg.catalog, "/etc/slo/catalog.json");
    assert_string_equal(cfg.workloads, "/etc/slo/w");
    assert_string_equal(cfg.workload, "resnet110");
    assert_string_equal(cfg.onprem_partition, "gpu");
    assert_string_equal(cfg.spot_partition, "aws-spot");
    assert_string_equal(cfg.ondemand_partition, "aws-od");
    assert_string_equal(cfg.burst_partition, "all");
    assert_int_equal(cfg.max_nodes, 8);
    assert_int_equal(cfg.mode, SSLO_MODE_ADVISE);
    /* Parsing again starts from the defaults (pyxis's config reset). */
    assert_int_equal(parse(&cfg, msg, 1, "max_nodes=3"), 0);
    assert_string_equal(cfg.catalog, "");
    assert_int_equal(cfg.mode, SSLO_MODE_ENFORCE);
    assert_int_equal(cfg.max_nodes, 3);
}

/* Strict key=value: each bad argument is an error whose message names it. */
static void test_config_errors(void **state)
{
    static const struct { const char *arg, *must_say; } bad[] = {
        {"catalogue=/x", "unknown key \"catalogue\""},
        {"Catalog=/x", "unknown key \"Catalog\""},
        {"catalog", "expected key=value"},
        {"=/x", "expected key=value"},
        {"catalog=", "expected a value, found it empty"},
        {"catalog=etc/catalog.json", "absolute path"},
        {"workloads=./w", "absolute path"},
        {"max_nodes=0", "max_nodes=0: expected an integer from 1"},
        {"max_nodes=-2", "expected an integer"},
        {"max_nodes=4x", "expected an integer"},
        {"max_nodes=100001", "expected an integer"},
        {"mode=strict", "mode=strict: expected advise or enforce"},
        {"burst_partition=a b", "burst_partition=a b: expected a name"},
        {"onprem_partition=a,b", "expected a name"},
        {"workload=../x/y", "expected a name"},
    };
    struct sslo_config cfg;
    char msg[SSLO_MSG_LENGTH];
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(&cfg, msg, 1, bad[i].arg), -1);
        if (!strstr(msg, bad[i].must_say))
            fail_msg("%s: message \"%s\" does not say \"%s\"", bad[i].arg, msg, bad[i].must_say);
    }
    /* An unknown key lists the known ones. */
    assert_int_equal(parse(&cfg, msg, 2, "catalog=/c.json", "max_node=3"), -1);
    assert_non_null(strstr(msg, "known keys: catalog, workloads, workload, onprem_partition, "
                                "spot_partition, ondemand_partition, burst_partition, "
                                "max_nodes, mode"));
    /* A repeated key is a mistake too, not "last wins". */
    assert_int_equal(parse(&cfg, msg, 2, "mode=advise", "mode=enforce"), -1);
    assert_non_null(strstr(msg, "mode again"));
    /* A path that does not fit the buffer is refused, not truncated. */
    char *longpath = malloc(SSLO_PATH_LENGTH + 20);
    assert_non_null(longpath);
    strcpy(longpath, "catalog=/");
    memset(longpath + 9, 'a', SSLO_PATH_LENGTH);
    longpath[9 + SSLO_PATH_LENGTH] = '\0';
    assert_int_equal(parse(&cfg, msg, 1, longpath), -1);
    assert_non_null(strstr(msg, "expected a path of at most 1023 bytes"));
    free(longpath);
}

static void test_option_values(void **state)
{
    struct sslo_options o;
    char msg[SSLO_MSG_LENGTH];
    (void)state;
    memset(&o, 0, sizeof o);
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_LOSS, "0.8", msg, sizeof msg), 0);
    assert_true(o.have_loss);
    assert_true(o.loss == 0.8);
    /* sbatch --time "40:00" is minutes:seconds = 2400 s; "1-2:30" is
     * 1 day 2 h 30 min = 86400 + 7200 + 1800 = 95400 s. */
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_TIME, "40:00", msg, sizeof msg), 0);
    assert_true(o.time_s == 2400);
    assert_string_equal(o.time_text, "40:00");
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_TIME, "1-2:30", msg, sizeof msg), 0);
    assert_true(o.time_s == 95400);
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_WORKLOAD, "resnet-110_v2.1", msg, sizeof msg),
                     0);
    assert_string_equal(o.workload, "resnet-110_v2.1");
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_BUDGET, "12.5", msg, sizeof msg), 0);
    assert_true(o.budget_usd == 12.5);
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_PRICING, "on-demand", msg, sizeof msg), 0);
    assert_int_equal(o.pricing, SLO_PRICING_ON_DEMAND);
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_PRICING, "spot", msg, sizeof msg), 0);
    assert_int_equal(o.pricing, SLO_PRICING_SPOT);
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_MODE, "advise", msg, sizeof msg), 0);
    assert_int_equal(o.mode, SSLO_MODE_ADVISE);
    /* Slurm may call a callback twice with the same value: harmless. */
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_MODE, "advise", msg, sizeof msg), 0);
    assert_int_equal(o.mode, SSLO_MODE_ADVISE);
    assert_true(o.have_loss && o.have_time && o.have_workload && o.have_budget &&
                o.have_pricing && o.have_mode);
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_CONFIDENCE, "0.95", msg, sizeof msg), 0);
    assert_true(o.have_confidence && o.confidence == 0.95);
    assert_string_equal(sslo_option_name(SSLO_OPT_CONFIDENCE), "--slo-confidence");
}

static void test_option_errors(void **state)
{
    static const struct { int id; const char *text, *must_say; } bad[] = {
        {SSLO_OPT_LOSS, "-1", "--slo-loss: expected a target training loss, a finite number > 0, found \"-1\""},
        {SSLO_OPT_LOSS, "0", "found \"0\""},
        {SSLO_OPT_LOSS, "abc", "found \"abc\""},
        {SSLO_OPT_LOSS, "nan", "found \"nan\""},
        {SSLO_OPT_LOSS, "inf", "found \"inf\""},
        {SSLO_OPT_LOSS, "1e999", "found \"1e999\""},
        {SSLO_OPT_LOSS, " 0.8", "found \" 0.8\""},
        {SSLO_OPT_LOSS, "0.8x", "found \"0.8x\""},
        {SSLO_OPT_LOSS, "", "found \"\""},
        {SSLO_OPT_TIME, "abc", "--slo-time: expected a duration"},
        {SSLO_OPT_TIME, "0", "--slo-time:"},
        {SSLO_OPT_TIME, "UNLIMITED", "--slo-time:"},
        {SSLO_OPT_WORKLOAD, "a/b", "--slo-workload: expected a workload name"},
        {SSLO_OPT_WORKLOAD, "", "--slo-workload: expected a workload name"},
        {SSLO_OPT_WORKLOAD, "x y", "found \"x y\""},
        {SSLO_OPT_BUDGET, "0", "--slo-budget: expected a cost in USD, a finite number > 0, found \"0\""},
        {SSLO_OPT_BUDGET, "-3", "found \"-3\""},
        {SSLO_OPT_PRICING, "ondemand", "--slo-pricing: expected spot or on-demand, found \"ondemand\""},
        {SSLO_OPT_MODE, "Advise", "--slo-mode: expected advise or enforce, found \"Advise\""},
        {SSLO_OPT_LOSS, NULL, "--slo-loss: expected a value, found none"},
        {SSLO_OPT_CONFIDENCE, "1", "--slo-confidence: expected a probability of meeting the deadline in (0, 1), found \"1\""},
        {SSLO_OPT_CONFIDENCE, "0", "found \"0\""},
        {SSLO_OPT_CONFIDENCE, "-0.5", "found \"-0.5\""},
        {SSLO_OPT_CONFIDENCE, "1.5", "found \"1.5\""},
        {SSLO_OPT_CONFIDENCE, "90%", "found \"90%\""},
        {SSLO_OPT_CONFIDENCE, "nan", "found \"nan\""},
    };
    struct sslo_options o, before;
    char msg[SSLO_MSG_LENGTH];
    (void)state;
    memset(&o, 0, sizeof o);
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_LOSS, "0.9", msg, sizeof msg), 0);
    before = o;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        msg[0] = '\0';
        assert_int_equal(sslo_option_parse(&o, bad[i].id, bad[i].text, msg, sizeof msg), -1);
        if (!strstr(msg, bad[i].must_say))
            fail_msg("%s %s: message \"%s\" does not say \"%s\"", sslo_option_name(bad[i].id),
                     bad[i].text ? bad[i].text : "(null)", msg, bad[i].must_say);
        /* A rejected value leaves the stored ones alone. */
        assert_memory_equal(&o, &before, sizeof o);
    }
    /* A workload name longer than SLO_NAME_LENGTH - 1 = 63 characters. */
    char name[80];
    memset(name, 'w', 64);
    name[64] = '\0';
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_WORKLOAD, name, msg, sizeof msg), -1);
    name[63] = '\0';
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_WORKLOAD, name, msg, sizeof msg), 0);
}

/* The workload profile is <workloads>/<name>.json and must be readable. */
static void test_workload_path(void **state)
{
    struct sslo_config cfg;
    char msg[SSLO_MSG_LENGTH], path[SSLO_PATH_LENGTH], dir[] = "/tmp/test_spank_args.XXXXXX";
    char file[SSLO_PATH_LENGTH], arg[SSLO_PATH_LENGTH + 16];
    FILE *f;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/mynet.json", dir);
    f = fopen(file, "w");
    assert_non_null(f);
    fputs("{}\n", f);
    fclose(f);

    assert_int_equal(parse(&cfg, msg, 0), 0);
    assert_int_equal(sslo_workload_path(&cfg, "mynet", path, sizeof path, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "expected a workloads=DIR argument in plugstack.conf"));

    snprintf(arg, sizeof arg, "workloads=%s", dir);
    assert_int_equal(parse(&cfg, msg, 1, arg), 0);
    assert_int_equal(sslo_workload_path(&cfg, "mynet", path, sizeof path, msg, sizeof msg), 0);
    assert_string_equal(path, file);
    assert_int_equal(sslo_workload_path(&cfg, "other", path, sizeof path, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "/other.json, found No such file or directory"));
    assert_int_equal(sslo_workload_path(&cfg, "../mynet", path, sizeof path, msg, sizeof msg), -1);

    unlink(file);
    rmdir(dir);
}

/* Trial S4: plugstack workloads=DIR is checked at load: a missing directory
 * and a plain file are refused naming "plugstack.conf workloads=", an
 * existing directory and no workloads= at all pass. */
static void test_workloads_directory(void **state)
{
    struct sslo_config cfg;
    char msg[SSLO_MSG_LENGTH], dir[] = "/tmp/test_spank_args.XXXXXX";
    char file[SSLO_PATH_LENGTH], arg[SSLO_PATH_LENGTH + 16];
    FILE *f;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(file, sizeof file, "%s/plain.json", dir);
    f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);

    assert_int_equal(parse(&cfg, msg, 0), 0);
    msg[0] = '\0';
    assert_int_equal(sslo_config_check_workloads(&cfg, msg, sizeof msg), 0);
    snprintf(arg, sizeof arg, "workloads=%s", dir);
    assert_int_equal(parse(&cfg, msg, 1, arg), 0);
    assert_int_equal(sslo_config_check_workloads(&cfg, msg, sizeof msg), 0);

    snprintf(arg, sizeof arg, "workloads=%s/missing", dir);
    assert_int_equal(parse(&cfg, msg, 1, arg), 0);
    assert_int_equal(sslo_config_check_workloads(&cfg, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "plugstack.conf workloads="));
    assert_non_null(strstr(msg, "/missing: expected a readable directory"));
    assert_non_null(strstr(msg, "No such file or directory"));

    snprintf(arg, sizeof arg, "workloads=%s", file);
    assert_int_equal(parse(&cfg, msg, 1, arg), 0);
    assert_int_equal(sslo_config_check_workloads(&cfg, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "plain.json: expected a readable directory"));
    assert_non_null(strstr(msg, "not a directory"));

    unlink(file);
    rmdir(dir);
}

/* Environment fallbacks: used only for options not given; validated. */
static const char *fake_env(const char *name)
{
    if (strcmp(name, "SLO_SPANK_MODE") == 0)
        return "advise";
    if (strcmp(name, "SLO_SPANK_PRICING") == 0)
        return "on-demand";
    if (strcmp(name, "SLO_SPANK_WORKLOAD") == 0)
        return "envnet";
    if (strcmp(name, "SLO_SPANK_BUDGET") == 0)
        return "";
    return NULL;
}

static const char *bad_env(const char *name)
{
    return strcmp(name, "SLO_SPANK_PRICING") == 0 ? "cheap" : NULL;
}

static void test_precedence(void **state)
{
    struct sslo_config cfg;
    struct sslo_options o;
    char msg[SSLO_MSG_LENGTH];
    (void)state;
    assert_int_equal(parse(&cfg, msg, 2, "workload=sitenet", "mode=enforce"), 0);

    /* Nothing given: plugstack defaults (mode enforce, workload sitenet, spot). */
    memset(&o, 0, sizeof o);
    assert_int_equal(sslo_effective_mode(&o, &cfg), SSLO_MODE_ENFORCE);
    assert_string_equal(sslo_effective_workload(&o, &cfg), "sitenet");
    assert_int_equal(sslo_effective_pricing(&o), SLO_PRICING_SPOT);

    /* Environment over plugstack; an empty variable counts as unset. */
    assert_int_equal(sslo_options_apply_env(&o, fake_env, msg, sizeof msg), 0);
    assert_int_equal(sslo_effective_mode(&o, &cfg), SSLO_MODE_ADVISE);
    assert_string_equal(sslo_effective_workload(&o, &cfg), "envnet");
    assert_int_equal(sslo_effective_pricing(&o), SLO_PRICING_ON_DEMAND);
    assert_false(o.have_budget);

    /* Command line over environment. */
    memset(&o, 0, sizeof o);
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_MODE, "enforce", msg, sizeof msg), 0);
    assert_int_equal(sslo_option_parse(&o, SSLO_OPT_WORKLOAD, "clinet", msg, sizeof msg), 0);
    assert_int_equal(sslo_options_apply_env(&o, fake_env, msg, sizeof msg), 0);
    assert_int_equal(sslo_effective_mode(&o, &cfg), SSLO_MODE_ENFORCE);
    assert_string_equal(sslo_effective_workload(&o, &cfg), "clinet");
    assert_int_equal(sslo_effective_pricing(&o), SLO_PRICING_ON_DEMAND);

    /* A bad environment value is an error naming the variable. */
    memset(&o, 0, sizeof o);
    assert_int_equal(sslo_options_apply_env(&o, bad_env, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "SLO_SPANK_PRICING=cheap (fallback for --slo-pricing): "
                                "--slo-pricing: expected spot or on-demand"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_defaults), cmocka_unit_test(test_config_every_key),
        cmocka_unit_test(test_config_errors),   cmocka_unit_test(test_option_values),
        cmocka_unit_test(test_option_errors),   cmocka_unit_test(test_workload_path),
        cmocka_unit_test(test_precedence),  cmocka_unit_test(test_workloads_directory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
