/*
 * test_train_fit.c - slo_fit_train_profile's error paths (issue 12 item 2)
 * with err == NULL, which slo_core.h allows: runs at one contention size
 * only (alpha1, beta1 not identifiable) returned through a read of
 * err->text before this test (a NULL dereference); with an error it names
 * the sizes needed and the one found.
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

#include "slo.h"

static char dir[64];

/* A StepLogger log of `rows` steps of step_s seconds each. */
static void write_log(const char *name, const char *cluster, int worker, double step_s,
                      int rows)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "# parameter_bytes: 1000000\n# cluster: %s\n", cluster);
    fprintf(f, "time_s,global_step,global_samples,loss,worker,type,batch,step_s\n");
    for (int r = 1; r <= rows; r++)
        fprintf(f, "%g,%d,%d,%g,%d,a,32,%g\n", r * step_s, r, 32 * r, 2.0 / (1 + 0.01 * r),
                worker, step_s);
    assert_int_equal(fclose(f), 0);
}

static void one_size_null_err(void **state)
{
    (void)state;
    struct slo_train_log logs[3];
    struct slo_train_fit_options opt;
    struct slo_workload wl;
    struct slo_train_fit_result res;
    slo_error_t err = {0};
    char path[128];
    static const char *const names[3] = {"alone.csv", "n2-w0.csv", "n2-w1.csv"};

    snprintf(dir, sizeof dir, "/tmp/test_train_fit.XXXXXX");
    assert_non_null(mkdtemp(dir));
    write_log(names[0], "a=1", 0, 0.1, 6);
    write_log(names[1], "a=2", 0, 0.15, 6);
    write_log(names[2], "a=2", 1, 0.15, 6);
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        assert_int_equal(slo_train_log_load(path, &logs[i], &err), SLO_OK);
    }
    slo_train_fit_options_init(&opt);
    opt.b_req_mbps = 1000; /* n = 2 is in the contention branch: 2 x 1000 > 1000 */
    opt.b_ps_mbps = 1000;
    /* err == NULL: the refusal comes back, nothing crashes */
    assert_int_equal(slo_fit_train_profile(logs, 3, &opt, &wl, &res, NULL), SLO_ERR_INVALID);
    assert_null(wl.instances);
    assert_null(res.types);
    /* with err: the message says what was needed and what was found */
    assert_int_equal(slo_fit_train_profile(logs, 3, &opt, &wl, &res, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "too few runs to identify the contention coefficients"));
    assert_non_null(strstr(err.text, "found multi-worker runs n = 2"));
    for (int i = 0; i < 3; i++) {
        slo_train_log_free(&logs[i]);
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_size_null_err),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
