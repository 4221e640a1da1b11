/*
 * test_igniter_convert.c - the converters of the profiling tools' CSV
 * outputs (slo_ig_convert_*, slo_infer.h; issue 19, item 1) on hand-written
 * texts whose answers are worked out here:
 *  - perf_analyzer: the lowest concurrency row's "Server Compute Infer"
 *    (rows in any order; 7689 us -> 7.689 ms), CRLF line ends and a byte
 *    order mark (spreadsheet exports), quoted header names;
 *  - nvidia-smi: the mean of "80.00 W"/"82.50 W"/"81.50 W" = 81.333... W and
 *    of 1380/1370/1372 MHz = 1374 MHz, with units in the values and in the
 *    headers ("power.draw [W]"), and the nounits form;
 *  - ncu: "==PROF==" banner lines before the header skipped, quoted fields,
 *    two kernels (1,000 ns at 40 % and 3 us at 80 %: duration-weighted
 *    70 %, 2 kernels, 0.004 ms; thousands separators);
 *  - bad input: a missing column names the header line and the column, a
 *    bad value names its line and column, another field count names the
 *    line, a kernel lacking the L2 metric names its ID, no header, no data
 *    row: SLO_ERR_INVALID, the outputs untouched.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "slo.h"

static void test_perf_analyzer(void **state)
{
    const char *pa = "\xEF\xBB\xBF\"Concurrency\",Inferences/Second,Server Compute Infer\r\n"
                     "2,118.4,7726\r\n"
                     "\r\n"
                     "1,109.6,7689\r\n"
                     "4,120.1,\"8,001\"\r\n";
    double ms = -1;
    slo_error_t err = {0};
    (void)state;
    assert_int_equal(slo_ig_convert_perf_analyzer(pa, "pa.csv", &ms, &err), SLO_OK);
    assert_true(ms == 7.689);
}

static void test_nvidia_smi(void **state)
{
    const char *units = "timestamp, name, index, power.draw [W], clocks.sm [MHz]\n"
                        "2026/11/30 10:00:00.000, Tesla V100-SXM2-16GB, 0, 80.00 W, 1380 MHz\n"
                        "2026/11/30 10:00:00.100, Tesla V100-SXM2-16GB, 0, 82.50 W, 1370 MHz\n"
                        "2026/11/30 10:00:00.200, Tesla V100-SXM2-16GB, 0, 81.50 W, 1372 MHz\n";
    const char *nounits = "power.draw,clocks.sm\n80.00,1380\n82.50,1370\n81.50,1372\n";
    double p = 0, f = 0;
    slo_error_t err = {0};
    (void)state;
    assert_int_equal(slo_ig_convert_nvidia_smi(units, "smi.csv", &p, &f, &err), SLO_OK);
    assert_true(fabs(p - 244.0 / 3) < 1e-12);
    assert_true(fabs(f - 1374) < 1e-12);
    p = f = 0;
    assert_int_equal(slo_ig_convert_nvidia_smi(nounits, "smi.csv", &p, &f, &err), SLO_OK);
    assert_true(fabs(p - 244.0 / 3) < 1e-12);
    assert_true(fabs(f - 1374) < 1e-12);
}

static const char ncu_head[] =
    "==PROF== Connected to process 4242 (/usr/src/tensorrt/bin/trtexec)\n"
    "==PROF== Profiling \"kernel_0\" - 0: 0%....50%....100% - 2 passes\n"
    "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";

static void test_ncu(void **state)
{
    char text[1024];
    struct slo_ig_ncu_summary s = {0};
    slo_error_t err = {0};
    (void)state;
    snprintf(text, sizeof text, "%s%s", ncu_head,
             "\"0\",\"k0\",\"gpu__time_duration.sum\",\"nsecond\",\"1,000\"\n"
             "\"0\",\"k0\",\"lts__t_sectors.avg.pct_of_peak_sustained_elapsed\",\"%\",\"40\"\n"
             "\"1\",\"k1\",\"gpu__time_duration.sum\",\"usecond\",\"3\"\n"
             "\"1\",\"k1\",\"lts__t_sectors.avg.pct_of_peak_sustained_elapsed\",\"%\",\"80\"\n");
    assert_int_equal(slo_ig_convert_ncu(text, "ncu.csv", &s, &err), SLO_OK);
    assert_true(fabs(s.l2_pct - 70) < 1e-12);
    assert_int_equal(s.kernels, 2);
    assert_true(fabs(s.busy_ms - 0.004) < 1e-15);
}

static void expect_err(int rv, const slo_error_t *err, const char *source, const char *text)
{
    assert_int_equal(rv, SLO_ERR_INVALID);
    assert_string_equal(err->source, source);
    if (!strstr(err->text, text))
        fail_msg("expected \"%s\" in \"%s\"", text, err->text);
}

static void test_bad_input(void **state)
{
    double ms = -1, p = -1, f = -1;
    struct slo_ig_ncu_summary s = {-1, 0, -1};
    char text[1024];
    slo_error_t err = {0};
    (void)state;
    /* a missing column: the header line (3, after a banner and a blank) */
    expect_err(slo_ig_convert_perf_analyzer("perf_analyzer banner\n\nConcurrency,Client Send\n"
                                            "1,180\n",
                                            "pa.csv", &ms, &err),
               &err, "pa.csv:3",
               "found no \"Server Compute Infer\" column (header: Concurrency, Client Send)");
    /* a bad value: its line and column */
    expect_err(slo_ig_convert_perf_analyzer("Concurrency,Server Compute Infer\n1,7689\n2,-5\n",
                                            "pa.csv", &ms, &err),
               &err, "pa.csv:3",
               "column Server Compute Infer: expected a time > 0 us, found \"-5\"");
    expect_err(slo_ig_convert_nvidia_smi("power.draw [W], clocks.sm [MHz]\n80 W, 1380 MHz\n"
                                         "[N/A], 1380 MHz\n",
                                         "smi.csv", &p, &f, &err),
               &err, "smi.csv:3", "column power.draw: expected a power > 0 W, found \"[N/A]\"");
    /* two boards' samples (no -i): their mean is neither's power */
    expect_err(slo_ig_convert_nvidia_smi("timestamp, index, power.draw [W], clocks.sm [MHz]\n"
                                         "t0, 0, 250.00 W, 1380 MHz\nt0, 1, 40.00 W, 1380 MHz\n",
                                         "smi.csv", &p, &f, &err),
               &err, "smi.csv:3",
               "column index: expected the samples of one GPU (nvidia-smi -i N), found \"1\" "
               "after \"0\"");
    /* the bounds of each column: Concurrency >= 1 (0.5 refused, 1 read),
     * clocks.sm > 0 (0 refused), the L2 percentage in [0, 100] (100.5
     * refused, 0 and 100 read) */
    expect_err(slo_ig_convert_perf_analyzer("Concurrency,Server Compute Infer\n0.5,7689\n",
                                            "pa.csv", &ms, &err),
               &err, "pa.csv:2",
               "column Concurrency: expected a concurrency >= 1, found \"0.5\"");
    {
        double one = -1;
        assert_int_equal(slo_ig_convert_perf_analyzer("Concurrency,Server Compute Infer\n"
                                                      "1,7689\n",
                                                      "pa.csv", &one, &err),
                         SLO_OK);
        assert_true(fabs(one - 7.689) < 1e-12);
    }
    expect_err(slo_ig_convert_nvidia_smi("power.draw [W], clocks.sm [MHz]\n80 W, 0 MHz\n",
                                         "smi.csv", &p, &f, &err),
               &err, "smi.csv:2", "column clocks.sm: expected a clock > 0 MHz, found \"0 MHz\"");
    snprintf(text, sizeof text, "%s%s", ncu_head,
             "\"0\",\"k0\",\"lts__t_sectors.avg.pct_of_peak_sustained_elapsed\",\"%\","
             "\"100.5\"\n");
    expect_err(slo_ig_convert_ncu(text, "ncu.csv", &s, &err), &err, "ncu.csv:4",
               "column Metric Value: L2 metric: expected a percentage in [0, 100], found "
               "\"100.5\"");
    {
        struct slo_ig_ncu_summary e = {-1, 0, -1};
        snprintf(text, sizeof text, "%s%s", ncu_head,
                 "\"0\",\"k0\",\"gpu__time_duration.sum\",\"nsecond\",\"1000\"\n"
                 "\"0\",\"k0\",\"lts__t_sectors.avg.pct_of_peak_sustained_elapsed\",\"%\","
                 "\"100\"\n"
                 "\"1\",\"k1\",\"gpu__time_duration.sum\",\"nsecond\",\"3000\"\n"
                 "\"1\",\"k1\",\"lts__t_sectors.avg.pct_of_peak_sustained_elapsed\",\"%\","
                 "\"0\"\n");
        assert_int_equal(slo_ig_convert_ncu(text, "ncu.csv", &e, &err), SLO_OK);
        /* duration-weighted: (100 x 1 + 0 x 3) / 4 = 25 */
        assert_true(fabs(e.l2_pct - 25) < 1e-12);
    }
    /* another field count */
    expect_err(slo_ig_convert_nvidia_smi("power.draw,clocks.sm\n80,1380\n81\n", "smi.csv", &p, &f,
                                         &err),
               &err, "smi.csv:3", "expected 2 fields as in the header, found 1");
    /* no header, no data row */
    expect_err(slo_ig_convert_nvidia_smi("80,1380\n", "smi.csv", &p, &f, &err), &err, "smi.csv",
               "expected a CSV header with \"power.draw\", found none");
    expect_err(slo_ig_convert_perf_analyzer("Concurrency,Server Compute Infer\n\n", "pa.csv", &ms,
                                            &err),
               &err, "pa.csv", "expected data rows after the header, found none");
    /* a kernel lacking the L2 metric */
    snprintf(text, sizeof text, "%s%s", ncu_head,
             "\"0\",\"k0\",\"gpu__time_duration.sum\",\"nsecond\",\"1000\"\n"
             "\"1\",\"k1\",\"gpu__time_duration.sum\",\"nsecond\",\"1000\"\n");
    expect_err(slo_ig_convert_ncu(text, "ncu.csv", &s, &err), &err, "ncu.csv",
               "kernel ID 0: expected metrics gpu__time_duration.sum and "
               "lts__t_sectors.avg.pct_of_peak_sustained_elapsed, found the L2 metric missing");
    snprintf(text, sizeof text, "%s%s", ncu_head,
             "\"x\",\"k0\",\"gpu__time_duration.sum\",\"nsecond\",\"1000\"\n");
    expect_err(slo_ig_convert_ncu(text, "ncu.csv", &s, &err), &err, "ncu.csv:4",
               "column ID: expected a kernel number, found \"x\"");
    /* an open quote */
    expect_err(slo_ig_convert_ncu("\"ID\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
                                  "\"0\",\"gpu__time_duration.sum\",\"ns\",\"1\n",
                                  "ncu.csv", &s, &err),
               &err, "ncu.csv:2", "expected a closing double quote");
    /* the outputs untouched */
    assert_true(ms == -1 && p == -1 && f == -1);
    assert_true(s.l2_pct == -1 && s.kernels == 0 && s.busy_ms == -1);
    /* the file forms: a file that is not there */
    assert_int_equal(slo_ig_convert_ncu_load("/nonexistent/ncu.csv", &s, &err), SLO_ERR_IO);
    assert_string_equal(err.source, "/nonexistent/ncu.csv");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perf_analyzer),
        cmocka_unit_test(test_nvidia_smi),
        cmocka_unit_test(test_ncu),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
