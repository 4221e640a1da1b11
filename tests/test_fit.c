/*
 * test_fit.c - loss-model fitting (slo_fit_loss) and training logs
 * (slo_train_log_load, slo_train_logs_to_samples).
 *
 * Synthetic profiling data mimic spotDNN's profiling (paper Sec. III): three
 * heterogeneous clusters of 2, 4 and 7 workers with different weighted-average
 * batches b_w and convergence coefficients R, logged over training.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "slo.h"

#define PI 3.14159265358979323846

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

#define assert_near(actual, expected, tol) \
    near_impl((actual), (expected), (tol), #actual, __FILE__, __LINE__)
#define assert_contains(text, part) contains_impl((text), (part), __FILE__, __LINE__)

static void near_impl(double actual, double expected, double tol, const char *what,
                      const char *file, int line)
{
    if (!(fabs(actual - expected) <= tol)) {
        print_error("%s = %.9g, expected %.9g +- %.3g\n", what, actual, expected, tol);
        _fail(file, line);
    }
}

static void contains_impl(const char *text, const char *part, const char *file, int line)
{
    if (!strstr(text, part)) {
        print_error("\"%s\" does not contain \"%s\"\n", text, part);
        _fail(file, line);
    }
}

/* xorshift64 with a fixed seed: reproducible on every platform. */
static uint64_t rng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* Uniform in (0, 1). */
static double rng_uniform(uint64_t *state)
{
    return ((double)(rng_next(state) >> 11) + 0.5) / 9007199254740992.0;
}

/* Standard normal (Box-Muller). */
static double rng_gauss(uint64_t *state)
{
    double u = rng_uniform(state), v = rng_uniform(state);
    return sqrt(-2 * log(u)) * cos(2 * PI * v);
}

/* ------------------------------------------------------------------ */
/* Synthetic profiling runs                                            */
/* ------------------------------------------------------------------ */

struct cluster {
    int n;
    double bw, R;
};

/* Profiling clusters of 2, 4 and 7 workers. b_w and R are made up but
 * plausible for mixes of the ResNet-110 types (per-instance batches
 * 1024-2048; Eq. 5 gives R of 0.4-0.9 for such heterogeneous speeds). The
 * last entry is a held-out cluster, not used in the fit. */
static const struct cluster clusters[4] = {
    {2, 1024, 0.47}, {4, 1400, 0.78}, {7, 1900, 0.86}, {5, 1600, 0.82}};
#define N_PROFILED 3
#define PER_CLUSTER 100
#define J_STEP 300.0 /* logged every 300 normalized iterations, up to 30000 */
#define N_SYNTH (N_PROFILED * PER_CLUSTER)

/* The authors' published ResNet-110 coefficients (draft/code form; research
 * notes 1.8, shared/data/spotdnn/repo_resnet110_scalars.csv: r1..r4). */
static const struct slo_loss_model truth_2022 = {SLO_LOSS_SPOTDNN_2022, 876.5, -0.2, 2507.6,
                                                 0, 0.5};
/* Made-up but plausible coefficients for the paper's form (no fitted gamma4 is
 * published anywhere, research notes 1.8). */
static const struct slo_loss_model truth_2023 = {SLO_LOSS_SPOTDNN_2023, 700, -0.25, 2400,
                                                 0.3, 0.45};

/* Samples of the true model at j = 300, 600, ..., 30000 per profiling
 * cluster, with Gaussian noise of sd rel_noise x loss. */
static void make_samples(const struct slo_loss_model *truth, double rel_noise, uint64_t seed,
                         struct slo_loss_sample *out)
{
    size_t k = 0;

    for (int c = 0; c < N_PROFILED; c++)
        for (int i = 1; i <= PER_CLUSTER; i++) {
            const struct cluster *cl = &clusters[c];
            double j = J_STEP * i;
            double loss = slo_loss_at(truth, cl->bw, cl->R, cl->n, j);
            out[k].iterations = j;
            out[k].wa_batch = cl->bw;
            out[k].cc = cl->R;
            out[k].n_workers = cl->n;
            out[k].loss = loss * (1 + rel_noise * rng_gauss(&seed));
            k++;
        }
}

/* Root-mean-square of rel_noise x the true loss over the samples: the rmse a
 * good fit leaves. */
static double noise_rms(const struct slo_loss_model *truth, double rel_noise)
{
    struct slo_loss_sample s[N_SYNTH];
    double sum = 0;

    make_samples(truth, 0, 1, s);
    for (size_t k = 0; k < N_SYNTH; k++)
        sum += s[k].loss * s[k].loss;
    return rel_noise * sqrt(sum / N_SYNTH);
}

/* Largest relative error of the fitted j(L) against the true model's over the
 * targets L in {0.8, 0.9, 1.2} and clusters [0, n_clusters). */
static double worst_j_error(const struct slo_loss_model *truth,
                            const struct slo_loss_model *fit, int n_clusters)
{
    static const double targets[3] = {0.8, 0.9, 1.2};
    double worst = 0;

    for (int c = 0; c < n_clusters; c++)
        for (int t = 0; t < 3; t++) {
            const struct cluster *cl = &clusters[c];
            double j_true, j_fit;
            assert_int_equal(slo_iterations_for_loss(truth, cl->bw, cl->R, cl->n,
                                                     targets[t], &j_true, NULL),
                             SLO_OK);
            assert_int_equal(slo_iterations_for_loss(fit, cl->bw, cl->R, cl->n, targets[t],
                                                     &j_fit, NULL),
                             SLO_OK);
            worst = fmax(worst, fabs(j_fit / j_true - 1));
        }
    return worst;
}

static void fit_synthetic(const struct slo_loss_model *truth, double rel_noise,
                          struct slo_loss_model *fit, struct slo_fit_report *rep)
{
    struct slo_loss_sample s[N_SYNTH];
    slo_error_t err;

    make_samples(truth, rel_noise, 0x5EED2023u, s);
    memset(fit, 0, sizeof *fit);
    fit->form = truth->form;
    if (slo_fit_loss(s, N_SYNTH, fit, rep, &err) != SLO_OK) {
        print_error("slo_fit_loss: %s\n", err.text);
        fail();
    }
    print_message("fit %s, noise %g: g1 %.6g g2 %.6g g3 %.6g g4 %.6g g5 %.6g rmse %.4g "
                  "r2 %.6f, worst j(L) error %.4f (with held-out cluster %.4f); condition "
                  "%.3g, 2 SE: g1 %.3g g2 %.3g g3 %.3g g5 %.3g\n",
                  truth->form == SLO_LOSS_SPOTDNN_2022 ? "2022" : "2023", rel_noise,
                  fit->gamma1, fit->gamma2, fit->gamma3, fit->gamma4, fit->gamma5, rep->rmse,
                  rep->r2, worst_j_error(truth, fit, N_PROFILED), worst_j_error(truth, fit, 4),
                  rep->condition, 2 * rep->gamma1_se, 2 * rep->gamma2_se, 2 * rep->gamma3_se,
                  2 * rep->gamma5_se);
    assert_int_equal(fit->form, truth->form);
    assert_int_equal(rep->n_samples, N_SYNTH);
    assert_int_equal(rep->n_clusters, N_PROFILED);
}

/* ------------------------------------------------------------------ */
/* Fitting                                                             */
/* ------------------------------------------------------------------ */

/*
 * Tolerances with 1% noise. The seed is fixed; the tolerances were chosen from
 * the spread over 30 other seeds of the same design (100 for the rmse), whose
 * worst cases (2022 / 2023) were: j(L) 1.4% / 1.6% (held-out cluster 0.9%),
 * gamma5 0.0035 / 0.0032, gamma1 2.8% / 2.9%, gamma4 0.097, gamma3 3.6% / 9.7%,
 * gamma2 20% / 34%, rmse / noise_rms 0.77-1.18.
 *   j(L), L in {0.8, 0.9, 1.2}, on the 3 profiling clusters and the held-out
 *   5-worker one: within 2% of the true model's (what the planner uses);
 *   gamma5 within 0.01 absolute; gamma1 within 10%; gamma4 within 0.2
 *   absolute; gamma3 within 15%; gamma2 within 50% (b_w moves the numerator
 *   by only 10-15%, so gamma2 alone is weakly identified; its trade-off with
 *   gamma3 is what keeps j(L) accurate); rmse within 25% of the noise level
 *   (noise_rms); R^2 > 0.999.
 */
static void check_noisy(const struct slo_loss_model *truth, const struct slo_loss_model *fit,
                        const struct slo_fit_report *rep)
{
    assert_true(worst_j_error(truth, fit, 4) <= 0.02);
    assert_near(fit->gamma5, truth->gamma5, 0.01);
    assert_near(fit->gamma1, truth->gamma1, 0.10 * truth->gamma1);
    assert_near(fit->gamma4, truth->gamma4, 0.2);
    assert_near(fit->gamma3, truth->gamma3, 0.15 * truth->gamma3);
    assert_near(fit->gamma2, truth->gamma2, 0.5 * fabs(truth->gamma2));
    assert_near(rep->rmse, noise_rms(truth, 0.01), 0.25 * noise_rms(truth, 0.01));
    assert_true(rep->r2 > 0.999);
}

static void test_fit_2022_noisy(void **state)
{
    struct slo_loss_model fit;
    struct slo_fit_report rep;
    (void)state;

    fit_synthetic(&truth_2022, 0.01, &fit, &rep);
    check_noisy(&truth_2022, &fit, &rep);
    assert_true(fit.gamma4 == 0);
}

static void test_fit_2023_noisy(void **state)
{
    struct slo_loss_model fit;
    struct slo_fit_report rep;
    (void)state;

    fit_synthetic(&truth_2023, 0.01, &fit, &rep);
    check_noisy(&truth_2023, &fit, &rep);
}

/* Without noise every coefficient comes back to 1e-4 relative. */
static void check_exact(const struct slo_loss_model *truth, const struct slo_loss_model *fit,
                        const struct slo_fit_report *rep)
{
    assert_near(fit->gamma1, truth->gamma1, 1e-4 * fabs(truth->gamma1));
    assert_near(fit->gamma2, truth->gamma2, 1e-4 * fabs(truth->gamma2));
    assert_near(fit->gamma3, truth->gamma3, 1e-4 * fabs(truth->gamma3));
    assert_near(fit->gamma4, truth->gamma4, 1e-4 * fabs(truth->gamma4));
    assert_near(fit->gamma5, truth->gamma5, 1e-4 * fabs(truth->gamma5));
    assert_true(rep->rmse < 1e-8);
    assert_true(rep->r2 > 1 - 1e-12);
}

static void test_fit_noise_free(void **state)
{
    struct slo_loss_model fit;
    struct slo_fit_report rep;
    (void)state;

    fit_synthetic(&truth_2022, 0, &fit, &rep);
    check_exact(&truth_2022, &fit, &rep);
    fit_synthetic(&truth_2023, 0, &fit, &rep);
    check_exact(&truth_2023, &fit, &rep);
}

/* Fit and expect failure with code and a text containing part. */
static void expect_fit_error(const struct slo_loss_sample *s, size_t n, int code,
                             const char *part)
{
    struct slo_loss_model m = truth_2022;
    slo_error_t err;

    memset(&err, 0, sizeof err);
    assert_int_equal(slo_fit_loss(s, n, &m, NULL, &err), code);
    assert_int_equal(err.code, code);
    assert_contains(err.text, part);
    assert_true(m.gamma1 == truth_2022.gamma1 && m.gamma5 == truth_2022.gamma5);
}

static void test_fit_errors(void **state)
{
    struct slo_loss_sample s[N_SYNTH];
    (void)state;

    make_samples(&truth_2022, 0, 1, s);
    expect_fit_error(s, 7, SLO_ERR_INVALID,
                     "at least 8 loss samples to fit the loss model, found 7");
    /* The first 100 samples are one cluster. */
    expect_fit_error(s, PER_CLUSTER, SLO_ERR_INVALID, "found 1 cluster");
    s[5].loss = NAN;
    expect_fit_error(s, N_SYNTH, SLO_ERR_INVALID, "samples[5].loss: expected a finite number");
    s[5].loss = 1;
    s[150].iterations = -3;
    expect_fit_error(s, N_SYNTH, SLO_ERR_INVALID, "samples[150].iterations");
    s[150].iterations = 3;
    s[299].n_workers = 0;
    expect_fit_error(s, N_SYNTH, SLO_ERR_INVALID, "samples[299].n_workers");
}

/*
 * Fits the samples cannot determine (issue 15, "Why", first item): each is
 * refused with SLO_ERR_INVALID and a text naming what is missing, m left
 * unchanged. Two clusters (2 and 4 workers) x 100 samples of `truth` at
 * j = 300..30000, with b_w bw0 and bw1 and absolute Gaussian noise sd noise
 * (xorshift seed fixed).
 */
static void make_two(const struct slo_loss_model *truth, double bw0, double bw1, double noise,
                     double j_step, struct slo_loss_sample *out)
{
    uint64_t seed = 0x15u;
    const double bw[2] = {bw0, bw1};
    const int nw[2] = {2, 4};
    size_t k = 0;

    for (int c = 0; c < 2; c++)
        for (int i = 1; i <= PER_CLUSTER; i++, k++) {
            double j = j_step * i;
            out[k].iterations = j;
            out[k].wa_batch = bw[c];
            out[k].cc = 0.5;
            out[k].n_workers = nw[c];
            out[k].loss = slo_loss_at(truth, bw[c], 0.5, nw[c], j) + noise * rng_gauss(&seed);
        }
}

static void test_fit_undetermined(void **state)
{
    struct slo_loss_sample s[2 * PER_CLUSTER];
    struct slo_loss_model rising = truth_2022, neg_floor = truth_2022, no_bend = truth_2022;
    (void)state;

    /* The reproducer: b_w 1024 and 1024 + 1e-9, noise 1e-3. Before,
     * gamma2 = -3.36e7 and gamma3 = 3.44e10 with R^2 = 1.0000. */
    make_two(&truth_2022, 1024, 1024 + 1e-9, 1e-3, J_STEP, s);
    expect_fit_error(s, 2 * PER_CLUSTER, SLO_ERR_INVALID,
                     "the logs' weighted-average batches b_w differ by only 1e-09");
    expect_fit_error(s, 2 * PER_CLUSTER, SLO_ERR_INVALID,
                     "needs at least two clearly different batches");
    /* b_w 1024 and 1025 (0.1% apart) with noise 1e-2: well conditioned
     * enough, but the noise hides the batch dependence (2 SE(gamma2) is
     * about 2, times b_w 1025, against a decay term of about 2300). */
    make_two(&truth_2022, 1024, 1025, 1e-2, J_STEP, s);
    expect_fit_error(s, 2 * PER_CLUSTER, SLO_ERR_INVALID,
                     "the logs do not determine how the loss depends on the weighted-average "
                     "batch");
    /* The same batches without noise are determined: gamma2 comes back. */
    {
        struct slo_loss_model m = {SLO_LOSS_SPOTDNN_2022, 0, 0, 0, 0, 0};
        slo_error_t err;
        make_two(&truth_2022, 1024, 1025, 0, J_STEP, s);
        assert_int_equal(slo_fit_loss(s, 2 * PER_CLUSTER, &m, NULL, &err), SLO_OK);
        assert_near(m.gamma2, truth_2022.gamma2, 1e-3);
    }
    /* A loss that rises with training: gamma2 b_w + gamma3 < 0. */
    rising.gamma2 = 0.2;
    rising.gamma3 = -2507.6;
    rising.gamma5 = 5;
    make_two(&rising, 1024, 1400, 1e-3, J_STEP, s);
    expect_fit_error(s, 2 * PER_CLUSTER, SLO_ERR_INVALID, "expected > 0 at every profiled batch");
    /* A floor below zero: losses of a model with gamma5 = -0.1 over
     * j = 100..10000 (all still > 0). */
    neg_floor.gamma5 = -0.1;
    make_two(&neg_floor, 1024, 1400, 0, 100, s);
    expect_fit_error(s, 2 * PER_CLUSTER, SLO_ERR_INVALID, "loss floor gamma5 = -0.1");
    /* Logs from a narrow window late in training, j = 20010..21000 (b_w 1024
     * and 1400, noise 1e-3): the loss is nearly linear there, gamma1 and
     * gamma3 trade off, and the Jacobian's standard error of gamma1 exceeds
     * gamma1 itself. */
    {
        uint64_t seed = 0x15u;
        for (int k = 0; k < 2 * PER_CLUSTER; k++) {
            double bw = k < PER_CLUSTER ? 1024 : 1400, j = 20000 + 10.0 * (k % PER_CLUSTER + 1);
            int nw = k < PER_CLUSTER ? 2 : 4;
            s[k] = (struct slo_loss_sample){j, bw, 0.5, nw,
                                            slo_loss_at(&truth_2022, bw, 0.5, nw, j) +
                                                1e-3 * rng_gauss(&seed)};
        }
        expect_fit_error(s, 2 * PER_CLUSTER, SLO_ERR_INVALID, "the logs do not determine gamma1");
    }
    /* gamma1 = 0: the search ends at its lower end 1e-3. */
    no_bend.gamma1 = 0;
    make_two(&no_bend, 1024, 1400, 0, J_STEP, s);
    expect_fit_error(s, 2 * PER_CLUSTER, SLO_ERR_INVALID,
                     "gamma1 = 0.001 is at the end of its search range");
}

/* The 2022-form samples carry no convergence-coefficient signal: a 2023 fit
 * sends gamma4 to the end of its range, refused. */
static void test_fit_gamma4_undetermined(void **state)
{
    struct slo_loss_sample s[N_SYNTH];
    struct slo_loss_model m = {SLO_LOSS_SPOTDNN_2023, 0, 0, 0, 0, 0};
    slo_error_t err;
    (void)state;

    make_samples(&truth_2022, 0, 1, s);
    assert_int_equal(slo_fit_loss(s, N_SYNTH, &m, NULL, &err), SLO_ERR_INVALID);
    assert_contains(err.text, "gamma4 = 10 is at the end of its search range");
    assert_true(m.gamma1 == 0 && m.gamma3 == 0);
}

/* The workload reader's ranges (issue 15): the shipped ResNet-110 profile
 * with one value replaced is refused naming the field; unchanged it loads. */
static void expect_workload_error(const char *from, const char *to, const char *part)
{
    const char *text = slo_embedded_workload("resnet110");
    const char *at;
    char buf[8192];
    struct slo_workload wl;
    slo_error_t err;

    assert_non_null(text);
    at = strstr(text, from);
    assert_non_null(at);
    assert_true(strlen(text) + strlen(to) < sizeof buf);
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    memset(&err, 0, sizeof err);
    assert_int_equal(slo_workload_parse(buf, "wl.json", &wl, &err), SLO_ERR_INVALID);
    assert_contains(err.text, part);
}

static void test_workload_ranges(void **state)
{
    struct slo_workload wl;
    slo_error_t err;
    (void)state;

    assert_int_equal(slo_workload_parse(slo_embedded_workload("resnet110"), "wl.json", &wl, &err),
                     SLO_OK);
    assert_true(wl.loss.gamma1 == 876.5);
    slo_workload_free(&wl);
    expect_workload_error("\"gamma1\": 876.5", "\"gamma1\": -876.5",
                          "loss_model.gamma1: expected a number in [1e-09, 1e+09]");
    expect_workload_error("\"gamma3\": 2507.6", "\"gamma3\": 3.44e300",
                          "loss_model.gamma3: expected a number in [-1e+12, 1e+12]");
    expect_workload_error("\"s_parm_mb\": 11.5", "\"s_parm_mb\": 1e306",
                          "s_parm_mb: expected a number in [1e-09, 1e+07]");
    expect_workload_error("\"b_req_mbps\": 142", "\"b_req_mbps\": 1e306",
                          "b_req_mbps: expected a number in [1e-09, 1e+09], found 1e+306");
    expect_workload_error("\"speed_samples_per_s\": 1885", "\"speed_samples_per_s\": 1e300",
                          "instances[0].speed_samples_per_s: expected a number in [1e-09, 1e+09]");
}

/* ------------------------------------------------------------------ */
/* Training logs                                                       */
/* ------------------------------------------------------------------ */

#define MAX_TEMP 8

struct temp_files {
    int n;
    char path[MAX_TEMP][256];
};

/* Write text to a new temporary file; returns its path. */
static const char *write_temp(struct temp_files *t, const char *text)
{
    const char *dir = getenv("TMPDIR");
    char *p = t->path[t->n];
    int fd;

    assert_true(t->n < MAX_TEMP);
    snprintf(p, sizeof t->path[0], "%s/slo_test_fit_XXXXXX", dir && *dir ? dir : "/tmp");
    fd = mkstemp(p);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    assert_int_equal(close(fd), 0);
    t->n++;
    return p;
}

static void remove_temps(struct temp_files *t)
{
    for (int i = 0; i < t->n; i++)
        remove(t->path[i]);
    t->n = 0;
}

/* Two workers of one cluster (b_w 1000 then 1030 samples per update: the
 * maximum counts), columns in another order plus ignored ones, spaces in the
 * cluster spec, CRLF and comments; and one worker of a second cluster. */
static const char log_a1[] =
    "# profiling run 1, worker 0\n"
    "# cluster: p3.2xlarge=1, g3.8xlarge = 1\n"
    "datetime,global_step,loss,examples_per_s,global_samples,time_s\r\n"
    "2026-01-01T00:00:00,0,4.6,0,0,0.0\r\n"
    "2026-01-01T00:00:05,10,3.2,1900,10000,5.1\r\n"
    "# a comment between rows\n"
    "\n"
    "2026-01-01T00:00:10,20,2.9,1890,20000,10.2\n";
static const char log_a2[] = "# cluster: g3.8xlarge=1,p3.2xlarge=1\n"
                             "time_s,global_step,global_samples,loss\n"
                             "3.0,5,5000,3.5\n"
                             "12.5,30,30900,2.7\n";
static const char log_b[] = "# cluster: g4dn.4xlarge=3\n"
                            "time_s,global_step,global_samples,loss\n"
                            "4,8,8192,3.9\n"
                            "8,16,16384,3.1\n";

static void load_logs(struct temp_files *t, struct slo_train_log logs[3])
{
    const char *texts[3] = {log_a1, log_a2, log_b};
    slo_error_t err;

    for (int i = 0; i < 3; i++) {
        const char *path = write_temp(t, texts[i]);
        if (slo_train_log_load(path, &logs[i], &err) != SLO_OK) {
            print_error("%s: %s\n", err.source, err.text);
            fail();
        }
        assert_string_equal(logs[i].source, path);
    }
}

static void test_log_load_and_samples(void **state)
{
    struct temp_files t = {0};
    struct slo_train_log logs[3];
    struct slo_loss_sample *s;
    size_t n;
    slo_error_t err;
    (void)state;

    load_logs(&t, logs);
    remove_temps(&t);
    assert_string_equal(logs[0].cluster, "g3.8xlarge=1,p3.2xlarge=1");
    assert_string_equal(logs[1].cluster, logs[0].cluster);
    assert_int_equal(logs[0].n_rows, 3);
    assert_true(logs[0].global_samples[2] == 20000 && logs[0].loss[2] == 2.9 &&
                logs[0].time_s[2] == 10.2 && logs[0].global_step[2] == 20);

    assert_int_equal(slo_train_logs_to_samples(logs, 3, NULL, 0, &s, &n, &err), SLO_OK);
    /* Rows with global_samples = 0 are dropped: 2 + 2 + 2 samples. */
    assert_int_equal(n, 6);
    /* Cluster a: b_w = max samples / max step = 30900 / 30 = 1030, n = 2. */
    for (int i = 0; i < 4; i++) {
        assert_near(s[i].wa_batch, 1030, 1e-12);
        assert_int_equal(s[i].n_workers, 2);
        assert_true(s[i].cc == 0);
    }
    assert_near(s[0].iterations, 10000 / 1030.0, 1e-12);
    assert_near(s[0].loss, 3.2, 0);
    assert_near(s[3].iterations, 30.0, 1e-12);
    /* Cluster b: 16384 / 16 = 1024, n = 3. */
    assert_near(s[5].wa_batch, 1024, 0);
    assert_int_equal(s[5].n_workers, 3);
    assert_near(s[5].iterations, 16, 1e-12);
    assert_near(s[5].loss, 3.1, 0);
    free(s);
    for (int i = 0; i < 3; i++)
        slo_train_log_free(&logs[i]);
}

/* A hand-built setup with the ResNet-110 profile of p3.2xlarge and
 * g3.8xlarge (shared/data/spotdnn/repo_resnet110_*.csv, paper Eqs. 6-7). */
static struct slo_train_type setup_types[2] = {
    {0, "p3.2xlarge", SLO_SITE_CLOUD, 1, 1024, 0.378964, 0.0023, 0.918, 2, 142},
    {2, "g3.8xlarge", SLO_SITE_CLOUD, 2, 1024, 0.839322, 0.0046, 0.684, 5, 142}};

static void make_setup(struct slo_train_setup *s)
{
    memset(s, 0, sizeof *s);
    s->wl.s_parm_mb = 11.5;
    s->wl.b_req_mbps = 142;
    s->wl.b_ps_mbps = 1200;
    s->wl.b_pcie_mbps = 10000;
    s->wl.alpha1 = 0.8;
    s->wl.beta1 = -1.92;
    s->wl.loss = truth_2022;
    s->n_types = 2;
    s->types = setup_types;
}

static void test_log_samples_cc(void **state)
{
    struct temp_files t = {0};
    struct slo_train_log logs[3];
    struct slo_train_setup setup;
    struct slo_train_request req = {.target_loss = 0.8, .deadline_s = 3600};
    struct slo_train_eval ev;
    struct slo_loss_sample *s;
    const int counts[2] = {1, 1};
    size_t n;
    slo_error_t err;
    (void)state;

    load_logs(&t, logs);
    remove_temps(&t);
    make_setup(&setup);
    /* R of cluster a must equal what the model's evaluation computes. */
    assert_int_equal(slo_train_evaluate(&setup, counts, &req, &ev, &err), SLO_OK);
    assert_true(ev.cc > 0.1);
    assert_int_equal(slo_train_logs_to_samples(logs, 2, &setup, 1, &s, &n, &err), SLO_OK);
    assert_int_equal(n, 4);
    assert_near(s[0].cc, ev.cc, 1e-12);
    assert_near(s[3].cc, ev.cc, 1e-12);
    free(s);
    /* Cluster b names a type the setup does not know. */
    assert_int_equal(slo_train_logs_to_samples(logs, 3, &setup, 1, &s, &n, &err),
                     SLO_ERR_INVALID);
    assert_null(s);
    assert_contains(err.text, "g4dn.4xlarge");
    assert_string_equal(err.source, logs[2].source);
    /* Without a setup R cannot be computed. */
    assert_int_equal(slo_train_logs_to_samples(logs, 2, NULL, 1, &s, &n, &err),
                     SLO_ERR_INVALID);
    for (int i = 0; i < 3; i++)
        slo_train_log_free(&logs[i]);
}

/* Loading text must fail with SLO_ERR_INVALID naming the file, and the text
 * must contain each of the NULL-terminated parts. */
static void expect_log_error(const char *text, ...)
{
    struct temp_files t = {0};
    struct slo_train_log log;
    slo_error_t err;
    const char *path = write_temp(&t, text), *part;
    va_list ap;

    memset(&err, 0, sizeof err);
    assert_int_equal(slo_train_log_load(path, &log, &err), SLO_ERR_INVALID);
    assert_int_equal(err.code, SLO_ERR_INVALID);
    assert_string_equal(err.source, path);
    assert_int_equal(log.n_rows, 0);
    assert_null(log.loss);
    va_start(ap, text);
    while ((part = va_arg(ap, const char *)) != NULL)
        assert_contains(err.text, part);
    va_end(ap);
    remove_temps(&t);
}

static void test_log_errors(void **state)
{
    struct slo_train_log log;
    slo_error_t err;
    (void)state;

    expect_log_error("# no cluster here\n"
                     "time_s,global_step,global_samples,loss\n"
                     "1,1,128,2.0\n",
                     "line 2:", "# cluster:", (const char *)NULL);
    expect_log_error("# cluster: p3.2xlarge=2\n"
                     "time_s,global_step,global_samples\n"
                     "1,1,128\n",
                     "line 2:", "column loss is missing", (const char *)NULL);
    expect_log_error("# cluster: p3.2xlarge=2\n"
                     "time_s,global_step,global_samples,loss\n"
                     "1,1,128,2.0\n"
                     "2,2,256,1.9\n"
                     "3,3,384,nan?\n",
                     "line 5, column loss: expected a number >= 0, found \"nan?\"",
                     (const char *)NULL);
    expect_log_error("# cluster: p3.2xlarge=2\n"
                     "time_s,global_step,global_samples,loss\n"
                     "1,10,1280,2.0\n"
                     "2,20,2560,1.9\n"
                     "3,15,1920,1.8\n",
                     "line 5, column global_step:", "found 15", (const char *)NULL);
    expect_log_error("# cluster: p3.2xlarge=2\n"
                     "time_s,global_step,global_samples,loss\n"
                     "1,10,1280\n",
                     "line 3:", "expected 4 fields", "found 3", (const char *)NULL);
    expect_log_error("# cluster: p3.2xlarge=two\n", "line 1, cluster:", "\"two\"",
                     (const char *)NULL);
    expect_log_error("# cluster: p3.2xlarge=2\n", "end of the file", (const char *)NULL);
    /* Physical ranges and the PS's counters (issue 15): a count beyond 1e15,
     * a loss of 1e306, a sample count that decreases or is below the step
     * count (each update uses >= 1 sample). */
    expect_log_error("# cluster: p3.2xlarge=2\n"
                     "time_s,global_step,global_samples,loss\n"
                     "1,10,1e306,2.0\n",
                     "line 3, column global_samples: expected a number in [0, 1e+15], found "
                     "\"1e306\"",
                     (const char *)NULL);
    expect_log_error("# cluster: p3.2xlarge=2\n"
                     "time_s,global_step,global_samples,loss\n"
                     "1,10,1280,1e306\n",
                     "line 3, column loss: expected a number in [0, 1e+06]", (const char *)NULL);
    expect_log_error("# cluster: p3.2xlarge=2\n"
                     "time_s,global_step,global_samples,loss\n"
                     "1,10,1280,2.0\n"
                     "2,20,1000,1.9\n",
                     "line 4, column global_samples: expected a value >= 1280",
                     "found 1000", (const char *)NULL);
    expect_log_error("# cluster: p3.2xlarge=2\n"
                     "time_s,global_step,global_samples,loss\n"
                     "1,10,5,2.0\n",
                     "line 3, column global_samples: expected at least global_step (10",
                     "found 5", (const char *)NULL);
    memset(&err, 0, sizeof err);
    assert_int_equal(slo_train_log_load("/nonexistent/slo_log.csv", &log, &err), SLO_ERR_IO);
    assert_string_equal(err.source, "/nonexistent/slo_log.csv");
}

/* Load text as a log; fails the test (printing the error) when it does not
 * load. */
static void load_text(const char *text, struct slo_train_log *log)
{
    struct temp_files t = {0};
    slo_error_t err;
    const char *path = write_temp(&t, text);

    if (slo_train_log_load(path, log, &err) != SLO_OK) {
        print_error("%s: %s\n", err.source, err.text);
        remove_temps(&t);
        fail();
    }
    remove_temps(&t);
}

/* A spreadsheet export: UTF-8 byte order mark, CRLF on every line
 * (the comments and the cluster comment too), no line end after the last
 * row. Read by hand: cluster g3.8xlarge=2 (one type, nothing to sort),
 * rows (0.5, 1, 100, 2.25) and (1.5, 2, 200, 2.125). */
static void test_log_crlf_bom(void **state)
{
    struct slo_train_log log;
    (void)state;

    load_text("\xEF\xBB\xBF# exported, with a BOM\r\n"
              "# cluster: g3.8xlarge=2\r\n"
              "time_s,global_step,global_samples,loss\r\n"
              "\r\n"
              "0.5,1,100,2.25\r\n"
              "1.5,2,200,2.125",
              &log);
    assert_string_equal(log.cluster, "g3.8xlarge=2");
    assert_int_equal(log.n_rows, 2);
    assert_true(log.time_s[0] == 0.5 && log.global_step[0] == 1 &&
                log.global_samples[0] == 100 && log.loss[0] == 2.25);
    assert_true(log.time_s[1] == 1.5 && log.global_step[1] == 2 &&
                log.global_samples[1] == 200 && log.loss[1] == 2.125);
    slo_train_log_free(&log);

    /* The BOM is not part of line 1: it is still the comment it looks like,
     * and the header (line 2) comes without a cluster comment. */
    expect_log_error("\xEF\xBB\xBF# no cluster\r\n"
                     "time_s,global_step,global_samples,loss\r\n",
                     "line 2: expected a \"# cluster: TYPE=N,...\" comment", (const char *)NULL);
    /* CRLF does not move line numbers: the bad loss is on line 4. */
    expect_log_error("# cluster: g3.8xlarge=2\r\n"
                     "time_s,global_step,global_samples,loss\r\n"
                     "0.5,1,100,2.25\r\n"
                     "1.5,2,200,x\r\n",
                     "line 4, column loss: expected a number >= 0, found \"x\"",
                     (const char *)NULL);
}

/* Quoted fields (RFC 4180): quoted header names, quoted numbers, a space
 * after a closing quote (trimmed), an ignored column holding a comma, a "" escape and
 * a newline, a quoted "#note" column (a field, not a comment), and a
 * comment with a lone quote and commas (a comment line, not CSV). By hand:
 * rows (1, 10, 1000, 3.5), (2, 20, 2000, 3.25) and (3, 30, 3000, 3); the
 * row of line 7 spans lines 7-8, so the bad row after it is line 9. */
static const char quoted_log[] = "# cluster: p3.2xlarge=1\n"
                                 "\"#note\",\"time_s\",\"global_step\" ,global_samples,\"loss\"\n"
                                 "a,1,10,1000,3.5\n"
                                 "# a \"lone quote, and commas\n"
                                 "\"b, with \"\"quotes\"\"\",\"2\",\"20\",\"2000\",\"3.25\"\n"
                                 "\n"
                                 "\"two\n"
                                 "lines\",3,30,3000,3\n";

static void test_log_quoted(void **state)
{
    struct slo_train_log log;
    char text[sizeof quoted_log + 64];
    (void)state;

    load_text(quoted_log, &log);
    assert_string_equal(log.cluster, "p3.2xlarge=1");
    assert_int_equal(log.n_rows, 3);
    assert_true(log.time_s[0] == 1 && log.global_step[0] == 10 &&
                log.global_samples[0] == 1000 && log.loss[0] == 3.5);
    assert_true(log.time_s[1] == 2 && log.global_step[1] == 20 &&
                log.global_samples[1] == 2000 && log.loss[1] == 3.25);
    assert_true(log.time_s[2] == 3 && log.global_step[2] == 30 &&
                log.global_samples[2] == 3000 && log.loss[2] == 3);
    slo_train_log_free(&log);

    snprintf(text, sizeof text, "%sc,4,40,4000,\"-1\"\n", quoted_log);
    expect_log_error(text, "line 9, column loss: expected a number >= 0, found \"-1\"",
                     (const char *)NULL);
    /* A quote opens a quoted field only as its first character: with a space
     * before it the quotes are part of the name, so there is no loss column. */
    expect_log_error("# cluster: p3.2xlarge=1\n"
                     "time_s,global_step,global_samples, \"loss\"\n",
                     "line 2:", "column loss is missing", (const char *)NULL);
    /* An empty quoted field is an empty field, not a number. */
    expect_log_error("# cluster: p3.2xlarge=1\n"
                     "time_s,global_step,global_samples,loss\n"
                     "1,1,\"\",3\n",
                     "line 3, column global_samples: expected a number >= 0, found \"\"",
                     (const char *)NULL);
}

/* A quote left open runs to the end of the file: the error names the line
 * the record starts on and the column (by its header name) or, in the
 * header, the field (from 1). */
static void test_log_open_quote(void **state)
{
    (void)state;

    expect_log_error("# cluster: p3.2xlarge=1\n"
                     "time_s,global_step,global_samples,loss,note\n"
                     "1,1,100,3,ok\n"
                     "2,2,200,2.5,\"open\n"
                     "3,3,300,2,x\n",
                     "line 4, column note: expected a closing double quote, found the end of "
                     "the file",
                     (const char *)NULL);
    expect_log_error("# cluster: p3.2xlarge=1\n"
                     "time_s,global_step,\"global_samples,loss\n",
                     "line 2, field 3: expected a closing double quote", (const char *)NULL);
    expect_log_error("# cluster: p3.2xlarge=1\n"
                     "time_s,global_step,global_samples,loss\n"
                     "1,1,100,3,\"extra\n",
                     "line 3, field 5 (the header has 4): expected a closing double quote",
                     (const char *)NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_2022_noisy),
        cmocka_unit_test(test_fit_2023_noisy),
        cmocka_unit_test(test_fit_noise_free),
        cmocka_unit_test(test_fit_errors),
        cmocka_unit_test(test_fit_undetermined),
        cmocka_unit_test(test_fit_gamma4_undetermined),
        cmocka_unit_test(test_workload_ranges),
        cmocka_unit_test(test_log_load_and_samples),
        cmocka_unit_test(test_log_samples_cc),
        cmocka_unit_test(test_log_errors),
        cmocka_unit_test(test_log_crlf_bom),
        cmocka_unit_test(test_log_quoted),
        cmocka_unit_test(test_log_open_quote),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
