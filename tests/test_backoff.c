/*
 * test_backoff.c - unit tests of the failed-pool back-off file
 * (power/backoff.c): record, expiry, merge of a pool recorded twice, the
 * file's shape, and malformed files refused with the field named.
 * Times are given explicitly (no clock), so the cases are deterministic.
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

#include "backoff.h"

struct env {
    char dir[64];
    char path[128];
};

static int setup(void **state)
{
    struct env *e = calloc(1, sizeof *e);
    strcpy(e->dir, "/tmp/test_backoff.XXXXXX");
    if (!e || !mkdtemp(e->dir))
        return -1;
    snprintf(e->path, sizeof e->path, "%s/slo-backoff.json", e->dir);
    *state = e;
    return 0;
}

static int teardown(void **state)
{
    struct env *e = *state;
    char p[160];
    unlink(e->path);
    snprintf(p, sizeof p, "%s.lock", e->path);
    unlink(p);
    rmdir(e->dir);
    free(e);
    return 0;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_missing_file_is_empty(void **state)
{
    struct env *e = *state;
    struct power_backoff *b = (void *)1;
    size_t n = 7;
    char err[256];
    assert_int_equal(power_backoff_load(e->path, 1000, &b, &n, err, sizeof err), 0);
    assert_int_equal(n, 0);
    assert_null(b);
}

static void test_record_expire_merge(void **state)
{
    struct env *e = *state;
    struct power_backoff *b = NULL;
    size_t n = 0;
    char err[256];

    assert_int_equal(power_backoff_record(e->path, "g4dn.12xlarge", "spot",
                                          "InsufficientInstanceCapacity", "c1", 1000, 600, err,
                                          sizeof err), 0);
    assert_int_equal(power_backoff_record(e->path, "p3.2xlarge", "on-demand",
                                          "InstanceLimitExceeded", "p1", 1100, 600, err,
                                          sizeof err), 0);
    /* at 1500 both are active */
    assert_int_equal(power_backoff_load(e->path, 1500, &b, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_true(power_backoff_has(b, n, "g4dn.12xlarge", "spot"));
    assert_false(power_backoff_has(b, n, "g4dn.12xlarge", "on-demand"));
    assert_true(power_backoff_has(b, n, "p3.2xlarge", "on-demand"));
    assert_string_equal(b[0].code, "InsufficientInstanceCapacity");
    assert_string_equal(b[0].node, "c1");
    assert_true(b[0].until_unix_s == 1600);
    free(b);
    /* at 1600 the first has expired (until is exclusive), the second not */
    assert_int_equal(power_backoff_load(e->path, 1600, &b, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(b[0].type, "p3.2xlarge");
    free(b);
    /* the same pool again: one entry, the later expiry */
    assert_int_equal(power_backoff_record(e->path, "p3.2xlarge", "on-demand", "x", NULL, 1200,
                                          100, err, sizeof err), 0);
    assert_int_equal(power_backoff_load(e->path, 0, &b, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    int p3 = strcmp(b[0].type, "p3.2xlarge") == 0 ? 0 : 1;
    assert_true(b[p3].until_unix_s == 1700); /* 1100 + 600 > 1200 + 100 */
    free(b);
    /* a record at 1700 drops the expired entries from the file */
    assert_int_equal(power_backoff_record(e->path, "g4dn.12xlarge", "on-demand", NULL, NULL,
                                          1700, 10, err, sizeof err), 0);
    assert_int_equal(power_backoff_load(e->path, 0, &b, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(b[0].capacity, "on-demand");
    assert_string_equal(b[0].code, "");
    free(b);
}

static void test_bad_arguments(void **state)
{
    struct env *e = *state;
    char err[256];
    assert_int_equal(power_backoff_record(e->path, "g4dn.12xlarge", "reserved", NULL, NULL, 0,
                                          600, err, sizeof err), -1);
    assert_non_null(strstr(err, "capacity spot|on-demand"));
    assert_int_equal(power_backoff_record(e->path, "g4dn.12xlarge", "spot", NULL, NULL, 0, 0,
                                          err, sizeof err), -1);
    assert_int_equal(power_backoff_record(e->path, "", "spot", NULL, NULL, 0, 10, err,
                                          sizeof err), -1);
    assert_int_equal(access(e->path, F_OK), -1); /* nothing written */
}

static void test_malformed_files(void **state)
{
    struct env *e = *state;
    struct power_backoff *b = NULL;
    size_t n = 0;
    char err[256];

    write_file(e->path, "{\"format\": \"other\", \"pools\": []}");
    assert_int_equal(power_backoff_load(e->path, 0, &b, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "format: expected \"slo-backoff-1\", found other"));
    write_file(e->path, "not json");
    assert_int_equal(power_backoff_load(e->path, 0, &b, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "not JSON"));
    write_file(e->path, "{\"format\": \"slo-backoff-1\", \"pools\": [{\"type\": \"t\", "
                        "\"capacity\": \"spot\", \"since_unix_s\": 1}]}");
    assert_int_equal(power_backoff_load(e->path, 0, &b, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "pools[0]"));
    assert_null(b);
    /* a record replaces a corrupt file (the state is advisory) */
    assert_int_equal(power_backoff_record(e->path, "t", "spot", NULL, NULL, 10, 10, err,
                                          sizeof err), 0);
    assert_int_equal(power_backoff_load(e->path, 0, &b, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_missing_file_is_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_record_expire_merge, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_files, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
