/*
 * test_duration.c - deadlines in sbatch --time formats (sbatch(1), "-t,
 * --time": minutes, minutes:seconds, hours:minutes:seconds, days-hours,
 * days-hours:minutes, days-hours:minutes:seconds) and unit suffixes.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "slo.h"

static void test_sbatch_forms(void **state)
{
    (void)state;
    /* Each expected value worked by hand from sbatch's definition. */
    static const struct { const char *text; double s; int bare; } cases[] = {
        {"40", 2400, 1},          /* minutes */
        {"2400", 144000, 1},      /* a bare number is minutes, as in sbatch */
        {"40:00", 2400, 0},       /* MM:SS */
        {"1:30", 90, 0},
        {"01:00:00", 3600, 0},    /* HH:MM:SS */
        {"0:40:00", 2400, 0},
        {"1-0", 86400, 0},        /* D-HH */
        {"2-12", 216000, 0},
        {"1-2:30", 95400, 0},     /* D-HH:MM = 86400 + 7200 + 1800 */
        {"1-2:30:15", 95415, 0},  /* D-HH:MM:SS */
        {"2400s", 2400, 0},
        {"40m", 2400, 0},
        {"2h", 7200, 0},
        {"1.5h", 5400, 0},
        {"1d", 86400, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double s = -1;
        int bare = -1;
        slo_error_t err = {0};
        assert_int_equal(slo_parse_duration(cases[i].text, &s, &bare, &err), SLO_OK);
        assert_float_equal(s, cases[i].s, 1e-9);
        assert_int_equal(bare, cases[i].bare);
    }
}

static void test_malformed(void **state)
{
    (void)state;
    static const char *bad[] = {"", "abc", "40x", "-5", "1:2:3:4", "1-", "1-2-3", ":30",
                                "40:", "0", "0s", "00:00:00", "UNLIMITED", "infinite", "h",
                                "2 h", "1e3m", "nanm", "367d", "527041",
                                "99999999999999999999999999999999999999999d",
                                "1666666666"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double s = 0;
        slo_error_t err = {0};
        assert_int_equal(slo_parse_duration(bad[i], &s, NULL, &err), SLO_ERR_INVALID);
        assert_int_equal(err.code, SLO_ERR_INVALID);
        /* The message names what was expected and what was found. */
        assert_non_null(strstr(err.text, "expected"));
        assert_non_null(strstr(err.text, "found"));
    }
}

static void test_format(void **state)
{
    char buf[32];
    (void)state;
    slo_format_duration(2351.08, buf, sizeof buf);
    assert_string_equal(buf, "00:39:11");
    slo_format_duration(95415, buf, sizeof buf);
    assert_string_equal(buf, "1-02:30:15");
}

/* slo_strtod: decimal forms convert like strtod; hexadecimal, inf, nan and
 * leading blanks convert nothing (end == text). Expected values are the
 * numbers as written. */
static void test_strtod_decimal_only(void **state)
{
    static const struct {
        const char *text;
        double v;
        size_t used;
    } good[] = {{"12", 12, 2}, {"-0.5", -0.5, 4}, {".25", 0.25, 3}, {"1e-3", 1e-3, 4},
                {"+7.5e2x", 750, 6}, {"10Gbit", 10, 2}};
    static const char *bad[] = {"0x10", "0x1p-3", "inf", "nan", " 1", "-", ".", "e5", "", "+x"};
    (void)state;
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char *end;
        double v = slo_strtod(good[i].text, &end);
        assert_float_equal(v, good[i].v, 1e-15);
        assert_int_equal((size_t)(end - good[i].text), good[i].used);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *end;
        double v = slo_strtod(bad[i], &end);
        if (end != bad[i])
            fail_msg("\"%s\" converted (%g)", bad[i], v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sbatch_forms),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_strtod_decimal_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
