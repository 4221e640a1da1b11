/*
 * bench_infer.c - plan time of the iGniter greedy (slo_ig_plan) for 10, 100
 * and 1000 workloads on the embedded V100 profile, next to the upstream
 * Python's times from the paper's Figure 21 data (research notes 2.2:
 * 2.75 ms, 88.5 ms, 4.60 s), with the FFD baseline for reference; target
 * under 10 ms for 1000. Workloads: seeded random mix of the four profiled
 * models, SLO = per-model minimum (8, 20, 30, 30 ms) + U{0..79} ms, rate
 * U{10..409} req/s (every iGniter plan is verified with slo_ig_plan_verify
 * before it is timed). When
 * SLO_REFERENCE_DATA is set it also prints the model's error on the
 * measured co-locations (testcon.log, gpulet.config).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slo.h"
#include "slo_infer.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void make_workloads(struct slo_ig_workload *w, size_t n, uint64_t seed)
{
    static const char *const names[4] = {"alexnet", "resnet50", "vgg19", "ssd"};
    static const double min_slo[4] = {8, 20, 30, 30};
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        int m;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        m = (int)((s >> 33) % 4);
        memset(&w[i], 0, sizeof w[i]);
        snprintf(w[i].model, sizeof w[i].model, "%s", names[m]);
        w[i].slo_ms = min_slo[m] + (double)((s >> 20) % 80);
        w[i].rate_rps = 10.0 + (double)((s >> 40) % 400);
    }
}

/* Median wall time (s) of slo_ig_plan over reps runs; 0 on failure. */
static double time_plan(const struct slo_ig_profile *p, const struct slo_ig_workload *w,
                        size_t n, int policy, size_t *gpus, double *cost)
{
    double t[41];
    int reps = n >= 1000 ? 11 : 41;
    for (int r = 0; r < reps; r++) {
        struct slo_ig_plan plan;
        slo_error_t err;
        double t0 = now_s();
        if (slo_ig_plan(p, 1, w, n, policy, &plan, &err)) {
            fprintf(stderr, "bench_infer: %s\n", err.text);
            return 0.0;
        }
        t[r] = now_s() - t0;
        if (r == 0) {
            *gpus = plan.n_gpus;
            *cost = plan.cost_usd_per_h;
            if (policy == SLO_IG_POLICY_IGNITER &&
                slo_ig_plan_verify(p, 1, w, n, &plan, &err)) {
                fprintf(stderr, "bench_infer: verifier: %s\n", err.text);
                slo_ig_plan_free(&plan);
                return 0.0;
            }
        }
        slo_ig_plan_free(&plan);
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    return t[reps / 2];
}

static void accuracy(const struct slo_ig_profile *p, const char *dir, const char *rel)
{
    char path[4096], *text;
    double *ape, mean, median, p90, max;
    size_t n;
    slo_error_t err;
    FILE *f;
    long len;

    snprintf(path, sizeof path, "%s/%s", dir, rel);
    f = fopen(path, "rb");
    if (!f) {
        printf("  %s: not found\n", rel);
        return;
    }
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    text = malloc((size_t)len + 1);
    if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) {
        fclose(f);
        free(text);
        return;
    }
    text[len] = '\0';
    fclose(f);
    if (slo_ig_colocation_errors(p, text, rel, &ape, &n, &err)) {
        printf("  %s: %s\n", rel, err.text);
    } else {
        slo_ig_error_summary(ape, n, &mean, &median, &p90, &max);
        printf("  %-72s n %4zu  MAPE %.2f %%  median %.2f %%  p90 %.2f %%  max %.1f %%\n", rel,
               n, mean, median, p90, max);
        free(ape);
    }
    free(text);
}

int main(void)
{
    static const size_t sizes[3] = {10, 100, 1000};
    static const double upstream_s[3] = {2.75e-3, 88.5e-3, 4.60};
    struct slo_ig_profile p;
    slo_error_t err;
    const char *dir = getenv("SLO_REFERENCE_DATA");
    int status = 0;

    if (slo_ig_profile_parse(slo_embedded_gpu_profile("v100"), "embedded:v100", &p, &err)) {
        fprintf(stderr, "bench_infer: %s\n", err.text);
        return 1;
    }
    p.usd_per_gpu_h = 3.06; /* p3.2xlarge on demand */
    printf("bench_infer: iGniter placement on V100 (embedded profile), median wall time\n");
    printf("  %-9s %12s %8s %12s %12s %8s %14s\n", "workloads", "igniter ms", "GPUs", "USD/h",
           "upstream ms", "speedup", "ffd ms (GPUs)");
    for (int k = 0; k < 3; k++) {
        size_t n = sizes[k], g = 0, gf = 0;
        double cost = 0, costf = 0, t, tf;
        struct slo_ig_workload *w = malloc(n * sizeof *w);
        if (!w)
            return 1;
        make_workloads(w, n, 7 + (uint64_t)n);
        t = time_plan(&p, w, n, SLO_IG_POLICY_IGNITER, &g, &cost);
        tf = time_plan(&p, w, n, SLO_IG_POLICY_FFD, &gf, &costf);
        if (t <= 0.0 || tf <= 0.0)
            status = 1;
        printf("  %-9zu %12.3f %8zu %12.2f %12.1f %7.0fx %8.3f (%zu)\n", n, t * 1e3, g, cost,
               upstream_s[k] * 1e3, upstream_s[k] / t, tf * 1e3, gf);
        if (n == 1000 && t > 10e-3)
            printf("  note: above the 10 ms target for 1000 workloads\n");
        free(w);
    }
    if (dir && *dir && strcmp(dir, "no")) {
        printf("model error on measured co-locations (fitted from the upstream profile):\n");
        accuracy(&p, dir, "igniter/upstream-history/9901e6b/i-Gniter/Profile/tools/testcon.log");
        accuracy(&p, dir, "igniter/upstream-HEAD/i-Gniter/Profile/tools/gpulet.config");
    }
    slo_ig_profile_free(&p);
    return status;
}
