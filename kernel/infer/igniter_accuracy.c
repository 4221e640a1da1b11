/*
 * igniter_accuracy.c - prediction error of the iGniter model on measured
 * co-locations (upstream testcon.log / gpulet.config "interference" block).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"
#include "slo_infer.h"
#include "infer_private.h"

static int contains(const char *s, size_t len, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= len; i++)
        if (memcmp(s + i, needle, k) == 0)
            return 1;
    return 0;
}

/* Find the line holding {"interference": {"latency": [...]}}; JSON-lines. */
static int find_latency_rows(const char *text, const char *src, json_t **holder,
                             json_t **rows, slo_error_t *err)
{
    const char *line = text;
    int lineno = 0;
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        json_error_t jerr;
        lineno++;
        if (len > 0 && contains(line, len, "\"interference\"")) {
            json_t *o = json_loadb(line, len, 0, &jerr), *inter, *lat;
            if (!o)
                return slo__fail(err, SLO_ERR_INVALID, src, "line %d, column %d: %s", lineno,
                                jerr.column, jerr.text);
            inter = json_object_get(o, "interference");
            lat = inter ? json_object_get(inter, "latency") : NULL;
            if (json_is_array(lat)) {
                *holder = o;
                *rows = lat;
                return SLO_OK;
            }
            json_decref(o);
        }
        if (!end)
            break;
        line = end + 1;
    }
    return slo__fail(err, SLO_ERR_INVALID, src,
                    "expected a line {\"interference\": {\"latency\": [rows]}}, found none");
}

int slo_ig_colocation_errors(const struct slo_ig_profile *p, const char *text,
                             const char *source, double **ape, size_t *n, slo_error_t *err)
{
    json_t *holder = NULL, *rows = NULL;
    size_t nr;
    int rv;

    *ape = NULL;
    *n = 0;
    if ((rv = find_latency_rows(text, source, &holder, &rows, err)))
        return rv;
    nr = json_array_size(rows);
    *ape = malloc((2 * nr + 1) * sizeof **ape);
    if (!*ape) {
        json_decref(holder);
        return slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
    }
    for (size_t i = 0; i < nr; i++) {
        json_t *r = json_array_get(rows, i);
        struct slo_ig_tenant t[2];
        struct slo_ig_prediction o[2];
        double meas[2];
        if (!json_is_array(r) || json_array_size(r) != 7 ||
            !json_is_string(json_array_get(r, 0)) || !json_is_string(json_array_get(r, 1)) ||
            !json_is_integer(json_array_get(r, 2)) || !json_is_integer(json_array_get(r, 3)) ||
            !json_is_number(json_array_get(r, 4)) || !json_is_number(json_array_get(r, 5)) ||
            !json_is_number(json_array_get(r, 6))) {
            rv = slo__fail(err, SLO_ERR_INVALID, source,
                          "interference.latency[%zu]: expected [model1, model2, b1, b2, r1 %%, "
                          "latency1 ms, latency2 ms]",
                          i);
            goto fail;
        }
        for (int k = 0; k < 2; k++) {
            const char *name = json_string_value(json_array_get(r, (size_t)k));
            t[k].model = slo_ig_find_model(p, name);
            if (t[k].model < 0) {
                rv = slo__fail(err, SLO_ERR_NOT_FOUND, source,
                              "interference.latency[%zu]: model \"%s\" is not in profile %s", i,
                              name, p->source);
                goto fail;
            }
            t[k].batch = (int)json_integer_value(json_array_get(r, 2 + (size_t)k));
            meas[k] = json_number_value(json_array_get(r, 5 + (size_t)k));
        }
        t[0].share_pct = json_number_value(json_array_get(r, 4));
        t[1].share_pct = 100.0 - t[0].share_pct;
        if ((rv = slo_ig_predict(p, t, 2, o, NULL, err)))
            goto fail;
        for (int k = 0; k < 2; k++)
            (*ape)[(*n)++] = fabs(meas[k] - o[k].latency_ms) / meas[k] * 100.0;
    }
    json_decref(holder);
    return SLO_OK;
fail:
    json_decref(holder);
    free(*ape);
    *ape = NULL;
    *n = 0;
    return rv;
}

int slo_ig_colocation_errors_lopo(const struct slo_ig_profile *p, int variant, const char *text,
                                  const char *source, double **ape, size_t *n, slo_error_t *err)
{
    struct slo_ig_profile q = *p; /* shallow; q.models replaced by a copy below */
    json_t *holder = NULL, *rows = NULL;
    size_t nr, nm = p->n_models;
    unsigned char *done = NULL;
    int rv;

    *ape = NULL;
    *n = 0;
    if (!slo_ig_variant_name(variant))
        return slo__fail(err, SLO_ERR_INVALID, p->source,
                        "model variant %d: expected igniter-2023 or igniter-calibrated", variant);
    if (variant == SLO_IG_VARIANT_IGNITER_2023) {
        /* nothing of it is fitted on pair runs: plain errors */
        q.model_variant = variant;
        return slo_ig_colocation_errors(&q, text, source, ape, n, err);
    }
    for (size_t i = 0; i < nm; i++)
        if (!p->models[i].calib.has_solo)
            return slo__fail(err, SLO_ERR_INVALID, p->source,
                            "model_variant.solo_latency: expected a solo latency grid for model "
                            "\"%s\" (model variant igniter-calibrated needs one per model), "
                            "found none",
                            p->models[i].name);
    if ((rv = find_latency_rows(text, source, &holder, &rows, err)))
        return rv;
    nr = json_array_size(rows);
    q.models = malloc((nm ? nm : 1) * sizeof *q.models);
    done = calloc(nr ? nr : 1, 1);
    *ape = malloc((2 * nr + 1) * sizeof **ape);
    if (!q.models || !done || !*ape) {
        rv = slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
        goto fail;
    }
    q.model_variant = variant;
    for (size_t i = 0; i < nr; i++) {
        struct slo_ig_tenant t[2];
        double meas[2];
        int a, b;
        if (done[i])
            continue;
        if ((rv = slo__ig_pair_row(p, json_array_get(rows, i), source, "interference.latency", i,
                                   t, meas, err)))
            goto fail;
        a = t[0].model;
        b = t[1].model;
        /* hold out pair {a, b}: fit on every other pair of this text */
        memcpy(q.models, p->models, nm * sizeof *q.models);
        if ((rv = slo__ig_fit_pair_terms(&q, rows, source, "interference.latency", a, b, err)))
            goto fail;
        for (size_t k = i; k < nr; k++) {
            struct slo_ig_tenant u[2];
            struct slo_ig_prediction o[2];
            double ms[2];
            if ((rv = slo__ig_pair_row(p, json_array_get(rows, k), source,
                                       "interference.latency", k, u, ms, err)))
                goto fail;
            if (!((u[0].model == a && u[1].model == b) || (u[0].model == b && u[1].model == a)))
                continue;
            if ((rv = slo_ig_predict(&q, u, 2, o, NULL, err)))
                goto fail;
            for (int j = 0; j < 2; j++)
                (*ape)[2 * k + (size_t)j] = fabs(ms[j] - o[j].latency_ms) / ms[j] * 100.0;
            done[k] = 1;
        }
    }
    *n = 2 * nr;
    free(q.models);
    free(done);
    json_decref(holder);
    return SLO_OK;
fail:
    free(q.models);
    free(done);
    json_decref(holder);
    free(*ape);
    *ape = NULL;
    *n = 0;
    return rv;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* numpy.percentile's default (linear) on sorted v. */
static double percentile(const double *v, size_t n, double q)
{
    double pos = q / 100.0 * (double)(n - 1);
    size_t lo = (size_t)floor(pos);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
}

void slo_ig_error_summary(double *v, size_t n, double *mean, double *median, double *p90,
                          double *max)
{
    double s = 0.0;
    if (n == 0) {
        *mean = *median = *p90 = *max = NAN;
        return;
    }
    qsort(v, n, sizeof *v, cmp_double);
    for (size_t i = 0; i < n; i++)
        s += v[i];
    *mean = s / (double)n;
    *median = percentile(v, n, 50.0);
    /* p90 as the research notes computed it (golden_vectors.json): the order
     * statistic at index floor(0.9 n), not numpy's interpolation. */
    *p90 = v[(size_t)floor(0.9 * (double)n) < n ? (size_t)floor(0.9 * (double)n) : n - 1];
    *max = v[n - 1];
}
