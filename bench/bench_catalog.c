/*
 * bench_catalog.c - load time of a catalog of 3000 spot pools (issue 20), as
 * ratios to baselines measured side by side in the same run:
 *  - jansson's json_loads of the same text (the floor: parsing the JSON
 *    alone, which every catalog load pays);
 *  - the same 3000 entries as plain types (no pools);
 *  - the quadratic duplicate-name scan the parser had before pools (a
 *    strcmp of every pair), on the same 3000 names.
 * The catalog: 100 instance types x 30 zones, quota 2 each, prices varied.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slo.h"

#define TYPES 100
#define ZONES 30

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Append printf text to a growing buffer. */
static void add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#include <stdarg.h>
static void add(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
        va_end(ap);
        if ((size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        *cap *= 2;
        if (!(*buf = realloc(*buf, *cap))) {
            perror("bench_catalog");
            exit(1);
        }
    }
}

static char *catalog_text(int pooled)
{
    size_t len = 0, cap = 1 << 16;
    char *b = malloc(cap);
    if (!b)
        exit(1);
    add(&b, &len, &cap, "{\"name\": \"bench-%s\", \"types\": [", pooled ? "pools" : "plain");
    for (int t = 0; t < TYPES; t++) {
        if (pooled) {
            add(&b, &len, &cap,
                "%s{\"name\": \"t%d.xlarge\", \"gpu_model\": \"V100\", \"gpus\": 1, "
                "\"on_demand_usd_per_h\": 3.06, \"network_mbps\": 1250, \"pools\": [",
                t ? ", " : "", t);
            for (int z = 0; z < ZONES; z++)
                add(&b, &len, &cap, "%s{\"zone\": \"region-%d%c\", \"spot_usd_per_h\": %.4f, "
                    "\"quota\": 2}",
                    z ? ", " : "", z / 6, 'a' + z % 6, 0.9 + t * 0.01 + z * 0.001);
            add(&b, &len, &cap, "]}");
        } else {
            for (int z = 0; z < ZONES; z++)
                add(&b, &len, &cap,
                    "%s{\"name\": \"t%d-z%d.xlarge\", \"gpu_model\": \"V100\", \"gpus\": 1, "
                    "\"spot_usd_per_h\": %.4f, \"on_demand_usd_per_h\": 3.06, \"quota\": 2, "
                    "\"network_mbps\": 1250}",
                    t || z ? ", " : "", t, z, 0.9 + t * 0.01 + z * 0.001);
        }
    }
    add(&b, &len, &cap, "]}");
    return b;
}

enum what { JANSSON, PARSE, QUADRATIC };

static double run_once(enum what w, const char *text, const struct slo_catalog *names,
                       size_t *sink)
{
    double t0 = now_s();
    if (w == JANSSON) {
        json_t *r = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
        *sink += r != NULL;
        json_decref(r);
    } else if (w == PARSE) {
        struct slo_catalog cat;
        if (slo_catalog_parse(text, "bench", &cat, NULL) != SLO_OK) {
            fprintf(stderr, "bench_catalog: the generated catalog does not load\n");
            exit(1);
        }
        *sink += cat.n_types;
        slo_catalog_free(&cat);
    } else {
        for (size_t i = 0; i < names->n_types; i++)
            for (size_t k = 0; k < i; k++)
                *sink += strcmp(names->types[k].name, names->types[i].name) == 0;
    }
    return now_s() - t0;
}

#define ROUNDS 51

static double med(double *t, size_t n)
{
    qsort(t, n, sizeof *t, cmp_double);
    return t[n / 2];
}

int main(void)
{
    char *pooled = catalog_text(1), *plain = catalog_text(0);
    struct slo_catalog cat;
    if (slo_catalog_parse(pooled, "bench", &cat, NULL) != SLO_OK || cat.n_types != TYPES * ZONES) {
        fprintf(stderr, "bench_catalog: expected %d pools\n", TYPES * ZONES);
        return 1;
    }
    /* Interleaved: each round runs every measurement once, so a busy
     * machine slows them alike and the ratios hold. */
    static double tj[ROUNDS], tp[ROUNDS], tjp[ROUNDS], tpp[ROUNDS], tq[ROUNDS];
    size_t n = 0, sink = 0;
    double start = now_s();
    do {
        tj[n] = run_once(JANSSON, pooled, NULL, &sink);
        tp[n] = run_once(PARSE, pooled, NULL, &sink);
        tjp[n] = run_once(JANSSON, plain, NULL, &sink);
        tpp[n] = run_once(PARSE, plain, NULL, &sink);
        tq[n] = run_once(QUADRATIC, NULL, &cat, &sink);
        n++;
    } while (n < ROUNDS && (n < 5 || now_s() - start < 1.0));
    if (sink == 0) /* keeps the work from being optimized away */
        return 1;
    double j = med(tj, n), p = med(tp, n), jp = med(tjp, n), pp = med(tpp, n), q = med(tq, n);
    printf("catalog load, %d spot pools (%d types x %d zones), median of %zu rounds:\n",
           TYPES * ZONES, TYPES, ZONES, n);
    printf("  %-44s %9.3f ms (%zu bytes)\n", "jansson json_loads alone (baseline)", j * 1e3,
           strlen(pooled));
    printf("  %-44s %9.3f ms  %5.2fx the JSON parse\n", "slo_catalog_parse, pools", p * 1e3,
           p / j);
    printf("  %-44s %9.3f ms  %5.2fx its JSON parse (%.3f ms)\n",
           "slo_catalog_parse, same entries as plain types", pp * 1e3, pp / jp, jp * 1e3);
    printf("  %-44s %9.3f ms  (the pre-pool check; now sorted)\n",
           "quadratic duplicate scan of 3000 names", q * 1e3);
    slo_catalog_free(&cat);
    free(pooled);
    free(plain);
    return 0;
}
