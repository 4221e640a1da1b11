/*
 * test_comm_profile.c - slo_comm_profile_parse / _load (kernel/comm/comm_profile.c):
 * the link (alpha, B, p) of kernel/comm/slo_comm.h read from a slo-mpiprof
 * profile (doc/mpiprof.md), with fixtures in tests/mpiprof/:
 *   reader-good.json        hand-made: fit alpha = 3e-5 s, beta = 1e-9 s/byte,
 *                           p = 4; ring model: alpha_step = alpha / (2(p-1))
 *                           = 5e-6 s, B = 2(p-1) / (p beta) = 6 / 4e-9 =
 *                           1.5e9 bytes/s (worked by hand, not by the code)
 *   reader-missing-field    ring_model.alpha_s removed
 *   reader-wrong-type       ring_model.workers is the string "4"
 *   reader-wrong-units      link_bandwidth_gbit_per_s instead of _bytes_per_s
 *   reader-suspect          B = 6 / (4 x 1e-12) = 1.5e12 > 1.05 x 1.6e10 memcpy:
 *                           flagged by the profiler
 *   real-quick-np4.json     a real `mpirun -np 4 slo-mpiprof --quick` document
 *                           from the 2-core dev box (physical bound checked)
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_comm.h"

static char fixture_path[4096];

static const char *fixture(const char *name)
{
    const char *src = getenv("SLO_SRCDIR");
    snprintf(fixture_path, sizeof fixture_path, "%s/tests/mpiprof/%s", src ? src : ".", name);
    return fixture_path;
}

static void assert_close(double got, double want, double rel)
{
    if (fabs(got - want) > rel * fabs(want)) {
        print_error("got %.17g, want %.17g\n", got, want);
        fail();
    }
}

/* a sentinel link: failures must leave it alone */
static void sentinel(struct slo_comm_link *l)
{
    l->bandwidth_bytes_per_s = -1;
    l->latency_s = -1;
    l->workers = -1;
    l->collective = SLO_COMM_PS;
    l->max_in_flight = -1;
}

static void assert_sentinel(const struct slo_comm_link *l)
{
    assert_true(l->bandwidth_bytes_per_s == -1 && l->latency_s == -1 && l->workers == -1 &&
                l->max_in_flight == -1);
}

static void test_good_hand(void **state)
{
    struct slo_comm_link l;
    struct slo_comm_profile_info info;
    slo_error_t err = {0};
    (void)state;
    assert_int_equal(slo_comm_profile_load(fixture("reader-good.json"), &l, &info, &err), SLO_OK);
    /* hand-worked in the header comment */
    assert_close(l.latency_s, 5e-6, 1e-12);
    assert_close(l.bandwidth_bytes_per_s, 1.5e9, 1e-12);
    assert_int_equal(l.workers, 4);
    assert_int_equal(l.collective, SLO_COMM_RING);
    assert_int_equal(l.max_in_flight, 1);
    assert_int_equal(info.world_size, 4);
    assert_close(info.memcpy_bytes_per_s, 1.6e10, 1e-12);
    assert_close(info.fit_rms_residual_s, 2e-6, 1e-12);
    assert_close(info.fit_max_relative_residual, 0.08, 1e-12);
    assert_int_equal(info.bandwidth_suspect, 0);
    assert_string_equal(info.suspect_reason, "");
    /* the ring model reproduces the fitted allreduce time of 1 MB:
     * 2(p-1) alpha_step + 2(p-1)/p s/B = 6 x 5e-6 + 1.5 x 1e6 / 1.5e9
     * = 3e-5 + 1e-3 = alpha + beta s */
    assert_close(slo_comm_message_latency_s(&l) + slo_comm_bytes_factor(&l) * 1e6 /
                     l.bandwidth_bytes_per_s,
                 3e-5 + 1e-9 * 1e6, 1e-12);
    /* info may be NULL */
    assert_int_equal(slo_comm_profile_load(fixture("reader-good.json"), &l, NULL, &err), SLO_OK);
}

static void expect_error(const char *name, const char *text, int code, const char *needle1,
                         const char *needle2)
{
    struct slo_comm_link l;
    struct slo_comm_profile_info info;
    slo_error_t err = {0};
    int rc;
    sentinel(&l);
    info.world_size = -7;
    rc = name ? slo_comm_profile_load(fixture(name), &l, &info, &err)
              : slo_comm_profile_parse(text, "inline.json", &l, &info, &err);
    if (rc != code || !strstr(err.text, needle1) || (needle2 && !strstr(err.text, needle2))) {
        print_error("%s: rc %d (want %d): %s: %s\n", name ? name : text, rc, code, err.source,
                    err.text);
        fail();
    }
    assert_int_equal(err.code, code);
    if (name)
        assert_non_null(strstr(err.source, name)); /* the file is named */
    else
        assert_string_equal(err.source, "inline.json");
    assert_sentinel(&l);
    assert_int_equal(info.world_size, -7);
}

static void test_missing_field(void **state)
{
    (void)state;
    expect_error("reader-missing-field.json", NULL, SLO_ERR_INVALID,
                 "allreduce.ring_model.alpha_s: expected a number in [0, 1]", "found it missing");
}

static void test_wrong_type(void **state)
{
    (void)state;
    expect_error("reader-wrong-type.json", NULL, SLO_ERR_INVALID,
                 "allreduce.ring_model.workers: expected an integer", "the string \"4\"");
}

static void test_wrong_units(void **state)
{
    (void)state;
    expect_error("reader-wrong-units.json", NULL, SLO_ERR_INVALID,
                 "allreduce.ring_model.link_bandwidth_bytes_per_s",
                 "found \"link_bandwidth_gbit_per_s\" instead (another unit");
}

static void test_suspect(void **state)
{
    struct slo_comm_link l;
    struct slo_comm_profile_info info;
    slo_error_t err = {0};
    (void)state;
    assert_int_equal(slo_comm_profile_load(fixture("reader-suspect.json"), &l, &info, &err),
                     SLO_OK);
    /* 6 / (4 x 1e-12) */
    assert_close(l.bandwidth_bytes_per_s, 1.5e12, 1e-12);
    assert_int_equal(info.bandwidth_suspect, 1);
    assert_non_null(strstr(info.suspect_reason, "memcpy"));
}

/* inline variants of reader-good.json */
#define DOC(version, p, fit_alpha, ring_workers, ring_alpha, ring_bw, suspect)                   \
    "{\"schema_version\": " version ", \"mpi\": {\"world_size\": " p "},"                        \
    "\"ceiling\": {\"memcpy_bytes_per_s\": 1.6e10}, \"allreduce\": {\"fit\": {\"alpha_s\": "     \
    fit_alpha ", \"beta_s_per_byte\": 1e-9, \"rms_residual_s\": 0, "                             \
    "\"max_relative_residual\": 0}, \"ring_model\": {\"workers\": " ring_workers                 \
    ", \"alpha_s\": " ring_alpha ", \"link_bandwidth_bytes_per_s\": " ring_bw                    \
    ", \"suspect\": " suspect "}}}"

static void test_inline_errors(void **state)
{
    (void)state;
    /* the good document inline parses (the variants below differ in one field) */
    {
        struct slo_comm_link l;
        slo_error_t err = {0};
        assert_int_equal(slo_comm_profile_parse(DOC("1", "4", "3e-5", "4", "5e-6", "1.5e9",
                                                    "false"),
                                                "inline.json", &l, NULL, &err),
                         SLO_OK);
    }
    expect_error(NULL, DOC("2", "4", "3e-5", "4", "5e-6", "1.5e9", "false"), SLO_ERR_INVALID,
                 "schema_version: expected 1", "found 2");
    expect_error(NULL, DOC("1", "1", "3e-5", "4", "5e-6", "1.5e9", "false"), SLO_ERR_INVALID,
                 "mpi.world_size: expected at least 2 ranks", "found 1");
    expect_error(NULL, DOC("1", "4", "3e-5", "3", "5e-6", "1.5e9", "false"), SLO_ERR_INVALID,
                 "allreduce.ring_model.workers: expected mpi.world_size = 4", "found 3");
    /* 3e-5 / 6 = 5e-6, not 6e-6 */
    expect_error(NULL, DOC("1", "4", "3e-5", "4", "6e-6", "1.5e9", "false"), SLO_ERR_INVALID,
                 "allreduce.ring_model.alpha_s: expected allreduce.fit.alpha_s / (2(p-1))",
                 NULL);
    /* 6 / 4e-9 = 1.5e9, not 2e9 */
    expect_error(NULL, DOC("1", "4", "3e-5", "4", "5e-6", "2e9", "false"), SLO_ERR_INVALID,
                 "allreduce.ring_model.link_bandwidth_bytes_per_s: expected 2(p-1)", NULL);
    expect_error(NULL, DOC("1", "4", "3e-5", "4", "5e-6", "1.5e9", "\"no\""), SLO_ERR_INVALID,
                 "allreduce.ring_model.suspect: expected true or false", "the string \"no\"");
    /* suspect without a reason */
    expect_error(NULL, DOC("1", "4", "3e-5", "4", "5e-6", "1.5e9", "true"), SLO_ERR_INVALID,
                 "allreduce.ring_model.suspect_reason: expected a non-empty string", NULL);
    /* a negative latency */
    expect_error(NULL, DOC("1", "4", "-3e-5", "4", "-5e-6", "1.5e9", "false"), SLO_ERR_INVALID,
                 "allreduce.fit.alpha_s: expected a number >= 0", "-3e-05");
    expect_error(NULL, "{\"schema_version\": 1,", SLO_ERR_INVALID, "malformed JSON", NULL);
    expect_error(NULL, "[1, 2]", SLO_ERR_INVALID, "expected a JSON object", NULL);
    expect_error(NULL, "{\"schema_version\": 1}", SLO_ERR_INVALID,
                 "mpi: expected an object, found it missing", NULL);
    expect_error("no-such-profile.json", NULL, SLO_ERR_IO, "cannot open", NULL);
}

/* A real document: the link must be physically possible (ring bandwidth at
 * most 1.05 x the memcpy ceiling measured in the same run, or flagged) and
 * reproduce the fitted allreduce time; values are read here with jansson,
 * independently of the reader. */
static void test_real_profile(void **state)
{
    struct slo_comm_link l;
    struct slo_comm_profile_info info;
    slo_error_t err = {0};
    json_error_t je;
    json_t *doc;
    double alpha, beta, memcpy_bw;
    int p;
    (void)state;
    assert_int_equal(slo_comm_profile_load(fixture("real-quick-np4.json"), &l, &info, &err),
                     SLO_OK);
    doc = json_load_file(fixture("real-quick-np4.json"), 0, &je);
    assert_non_null(doc);
    p = (int)json_integer_value(json_object_get(json_object_get(doc, "mpi"), "world_size"));
    alpha = json_number_value(
        json_object_get(json_object_get(json_object_get(doc, "allreduce"), "fit"), "alpha_s"));
    beta = json_number_value(json_object_get(
        json_object_get(json_object_get(doc, "allreduce"), "fit"), "beta_s_per_byte"));
    memcpy_bw = json_number_value(
        json_object_get(json_object_get(doc, "ceiling"), "memcpy_bytes_per_s"));
    json_decref(doc);
    assert_int_equal(p, 4);
    assert_int_equal(l.workers, 4);
    assert_true(l.latency_s >= 0 && l.latency_s < 1e-3);
    assert_true(info.bandwidth_suspect || l.bandwidth_bytes_per_s <= 1.05 * memcpy_bw);
    /* ring time of 4 MiB equals the fit's */
    assert_close(slo_comm_message_latency_s(&l) +
                     slo_comm_bytes_factor(&l) * 4194304.0 / l.bandwidth_bytes_per_s,
                 alpha + beta * 4194304.0, 1e-6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_hand),      cmocka_unit_test(test_missing_field),
        cmocka_unit_test(test_wrong_type),     cmocka_unit_test(test_wrong_units),
        cmocka_unit_test(test_suspect),        cmocka_unit_test(test_inline_errors),
        cmocka_unit_test(test_real_profile),
    };
    return cmocka_run_group_tests_name("comm_profile", tests, NULL, NULL);
}
