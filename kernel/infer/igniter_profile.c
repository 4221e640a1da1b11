/*
 * igniter_profile.c - reading iGniter GPU profiles: the upstream JSON-lines
 * file (i-Gniter/Algorithm/config, read as HEAD loadprofile() does) and our
 * single-document JSON (doc/infer.md), raw or with fitted coefficients; and
 * the workload files of `slo infer --workloads`.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer_private.h"
#include "slo_private.h"
#include "slo_infer.h"
#include "infer_private.h"

static const char *const hw_keys[] = {"idlepower", "power", "frequency", "idletime",
                                      "maxGPUfrequency", "maxGPUpower", "unit", "bandwidth",
                                      "coefficients", NULL};
static const char *const hw_coef_keys[] = {"clock_slope_mhz_per_w", "sched_alpha_ms",
                                           "sched_beta_ms", NULL};
/* HEAD keys, plus the extra keys of the older upstream profiles (history
 * 9901e6b: inferencelatency, popt, *_5), which are accepted and ignored. */
static const char *const model_keys[] = {
    "transferdata", "inputdata", "outputdata", "gpulatency", "power", "frequency",
    "l2cache", "l2caches", "idletime_1", "activetime_1", "activetime_2", "power_2",
    "frequency_2", "kernel", "htddur", "inferencelatency", "popt", "activetime_5",
    "power_5", "frequency_5", "coefficients", NULL};
static const char *const model_coef_keys[] = {"k", "kp_w_per_rps", "bp_w", "kc_pct_per_rps",
                                              "bc_pct", "alpha_cache_per_pct", NULL};
static const char *const gpu_keys[] = {"model", "instance_type", "usd_per_h", NULL};

/* The physical range of a measured array's values, [lo, hi] (lo excluded
 * when lo_open), with unit for messages: measured values outside are refused
 * with file, field and value so that no NaN or Inf can reach the fits or the
 * model (issue 15: "idletime": [1e306, ...] gave a -nan latency). */
struct range {
    double lo, hi;
    int lo_open;
    const char *unit;
};

/* Any finite number (fitted coefficients with no physical range). */
static const struct range any_finite = {-DBL_MAX, DBL_MAX, 0, ""};

/* Read array v (named label in messages) of exactly n finite numbers in
 * range *rg, or, when n_out is given, of n..max numbers. */
static int read_array(const json_t *v, size_t n, size_t max, size_t *n_out, const char *src,
                      const char *label, const struct range *rg, double *out,
                      slo_error_t *err)
{
    char found[96];
    size_t len = json_is_array(v) ? json_array_size(v) : 0;

    if (!json_is_array(v) || (n_out ? (len < n || len > max) : len != n)) {
        if (json_is_array(v))
            snprintf(found, sizeof found, "an array of %zu", len);
        else if (v)
            slo__json_describe(v, found, sizeof found);
        else
            snprintf(found, sizeof found, "it missing");
        if (n_out)
            return slo__fail(err, SLO_ERR_INVALID, src,
                            "%s: expected an array of %zu to %zu numbers, found %s", label, n,
                            max, found);
        return slo__fail(err, SLO_ERR_INVALID, src, "%s: expected an array of %zu numbers, found %s",
                        label, n, found);
    }
    for (size_t i = 0; i < len; i++) {
        json_t *e = json_array_get(v, i);
        if (!json_is_number(e) || !isfinite(json_number_value(e)))
            return slo__fail(err, SLO_ERR_INVALID, src, "%s[%zu]: expected a number, found %s",
                            label, i, slo__json_describe(e, found, sizeof found));
        out[i] = json_number_value(e);
        if (out[i] > rg->hi || (rg->lo_open ? !(out[i] > rg->lo) : out[i] < rg->lo))
            return slo__fail(err, SLO_ERR_INVALID, src,
                            "%s[%zu]: expected a number in %c%g, %g]%s%s, found %.15g", label, i,
                            rg->lo_open ? '(' : '[', rg->lo, rg->hi, *rg->unit ? " " : "",
                            rg->unit, out[i]);
    }
    if (n_out)
        *n_out = len;
    return SLO_OK;
}

/* obj.key as read_array, named "path.key". */
static int read_numbers(const json_t *obj, const char *key, size_t n, size_t max,
                        size_t *n_out, const char *src, const char *path,
                        const struct range *rg, double *out, slo_error_t *err)
{
    char label[SLO_IG_NAME_LENGTH + 64];
    snprintf(label, sizeof label, "%s.%s", path, key);
    return read_array(json_object_get(obj, key), n, max, n_out, src, label, rg, out, err);
}

/* Read a 3x3 grid [[b=1 row], [b=16 row], [b=32 row]] (columns r = 10, 50, 100 %). */
static int read_grid(const json_t *obj, const char *key, const char *src, const char *path,
                     const struct range *rg, double out[3][3], slo_error_t *err)
{
    json_t *v = json_object_get(obj, key);
    char found[96], label[SLO_IG_NAME_LENGTH + 64];

    if (!json_is_array(v) || json_array_size(v) != 3)
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "%s.%s: expected a 3x3 array (rows batch 1, 16, 32; columns share 10, "
                        "50, 100 %%), found %s",
                        path, key, v ? slo__json_describe(v, found, sizeof found) : "it missing");
    for (size_t i = 0; i < 3; i++) {
        int rv;
        snprintf(label, sizeof label, "%s.%s[%zu]", path, key, i);
        if ((rv = read_array(json_array_get(v, i), 3, 3, NULL, src, label, rg, out[i], err)))
            return rv;
    }
    return SLO_OK;
}

static int parse_hardware(const json_t *hw, const char *src, struct slo_ig_profile *p,
                          slo_error_t *err)
{
    const json_t *coef = json_object_get(hw, "coefficients");
    int rv;
    size_t n1 = 0, n2 = 0, n3 = 0;

    if ((rv = slo__json_known_keys(hw, hw_keys, src, "hardware", err)) ||
        (rv = slo__json_number(hw, "idlepower", 1, 0, 1e5, src, "hardware", &p->idle_power_w,
                              err)) ||
        (rv = slo__json_number(hw, "maxGPUfrequency", 1, 1, 1e5, src, "hardware",
                              &p->max_clock_mhz, err)) ||
        (rv = slo__json_number(hw, "maxGPUpower", 1, 1, 1e5, src, "hardware", &p->power_cap_w,
                              err)) ||
        (rv = slo__json_number(hw, "unit", 1, 0.01, 100, src, "hardware", &p->unit_pct, err)) ||
        (rv = slo__json_number(hw, "bandwidth", 1, 1, DBL_MAX, src, "hardware",
                              &p->bandwidth_bytes_per_ms, err)))
        return rv;
    if (!(p->idle_power_w < p->power_cap_w))
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "hardware.idlepower: expected less than maxGPUpower (%g W), found %g",
                        p->power_cap_w, p->idle_power_w);
    if (coef) {
        if (!json_is_object(coef)) {
            char found[96];
            return slo__fail(err, SLO_ERR_INVALID, src,
                            "hardware.coefficients: expected an object, found %s",
                            slo__json_describe(coef, found, sizeof found));
        }
        if ((rv = slo__json_known_keys(coef, hw_coef_keys, src, "hardware.coefficients", err)) ||
            (rv = slo__json_number(coef, "clock_slope_mhz_per_w", 1, -1e6, 0, src,
                                  "hardware.coefficients", &p->clock_slope_mhz_per_w, err)) ||
            (rv = slo__json_number(coef, "sched_alpha_ms", 1, -1e3, 1e3, src,
                                  "hardware.coefficients", &p->sched_alpha_ms, err)) ||
            (rv = slo__json_number(coef, "sched_beta_ms", 1, -1e3, 1e3, src,
                                  "hardware.coefficients", &p->sched_beta_ms, err)))
            return rv;
        return slo__ig_check_hardware_coefficients(p, "hardware.coefficients", err);
    }
    {
        /* Board power with workloads running: at least the idle power, at
         * most twice the cap (a board averages near its cap at most); clock
         * above 0 and at most the locked maximum; idle gap per kernel 0 to
         * 1 s (the fitted delay's range). */
        const struct range power = {p->idle_power_w, 2 * p->power_cap_w, 0, "W"},
                           clock = {0, p->max_clock_mhz, 1, "MHz"},
                           gap = {0, 1e3, 0, "ms"};
        if ((rv = read_numbers(hw, "power", 3, SLO_IG_MAX_CONCURRENCY, &n1, src, "hardware",
                               &power, p->raw.power_w, err)) ||
            (rv = read_numbers(hw, "frequency", 3, SLO_IG_MAX_CONCURRENCY, &n2, src,
                               "hardware", &clock, p->raw.clock_mhz, err)) ||
            (rv = read_numbers(hw, "idletime", 3, SLO_IG_MAX_CONCURRENCY, &n3, src, "hardware",
                               &gap, p->raw.idle_gap_ms, err)))
            return rv;
    }
    if (n1 != n2 || n1 != n3)
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "hardware: expected power, frequency and idletime of the same length "
                        "(one entry per concurrency level), found %zu, %zu and %zu",
                        n1, n2, n3);
    p->raw.n_concurrent = n1;
    p->has_raw = 1;
    return slo_ig_fit_hardware(p, err);
}

static int parse_model(const char *name, const json_t *o, const char *src,
                       const struct slo_ig_profile *p, struct slo_ig_model *m, slo_error_t *err)
{
    const json_t *coef = json_object_get(o, "coefficients");
    char found[96];
    int rv;

    if (strlen(name) >= sizeof m->name || !*name)
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "\"%.80s\": expected a model name of 1 to %zu characters", name,
                        sizeof m->name - 1);
    snprintf(m->name, sizeof m->name, "%s", name);
    if (!json_is_object(o))
        return slo__fail(err, SLO_ERR_INVALID, src, "%s: expected an object, found %s", name,
                        slo__json_describe(o, found, sizeof found));
    if ((rv = slo__json_known_keys(o, model_keys, src, name, err)) ||
        (rv = slo__json_number(o, "inputdata", 1, 0, DBL_MAX, src, name, &m->input_bytes, err)) ||
        (rv = slo__json_number(o, "outputdata", 1, 0, DBL_MAX, src, name, &m->output_bytes,
                              err)) ||
        (rv = slo__json_int(o, "kernel", 1, 1, 1000000, src, name, &m->n_kernels, err)) ||
        (rv = slo__json_number(o, "idletime_1", 1, 0, 1e6, src, name, &m->t_sch_solo_ms, err)))
        return rv;
    if (coef) {
        char path[SLO_IG_NAME_LENGTH + 16];
        snprintf(path, sizeof path, "%s.coefficients", name);
        if (!json_is_object(coef))
            return slo__fail(err, SLO_ERR_INVALID, src, "%s: expected an object, found %s", path,
                            slo__json_describe(coef, found, sizeof found));
        if ((rv = slo__json_known_keys(coef, model_coef_keys, src, path, err)) ||
            (rv = read_numbers(coef, "k", 5, 5, NULL, src, path, &any_finite, m->k, err)) ||
            (rv = slo__json_number(coef, "kp_w_per_rps", 1, -DBL_MAX, DBL_MAX, src, path,
                                  &m->kp_w_per_rps, err)) ||
            (rv = slo__json_number(coef, "bp_w", 1, -DBL_MAX, DBL_MAX, src, path, &m->bp_w,
                                  err)) ||
            (rv = slo__json_number(coef, "kc_pct_per_rps", 1, -DBL_MAX, DBL_MAX, src, path,
                                  &m->kc_pct_per_rps, err)) ||
            (rv = slo__json_number(coef, "bc_pct", 1, -DBL_MAX, DBL_MAX, src, path, &m->bc_pct,
                                  err)) ||
            (rv = slo__json_number(coef, "alpha_cache_per_pct", 1, -DBL_MAX, DBL_MAX, src, path,
                                  &m->alpha_cache_per_pct, err)))
            return rv;
        return slo__ig_check_model_coefficients(p, m, path, err);
    }
    {
        struct slo_ig_model_raw *r = &m->raw;
        /* As the hardware arrays; GPU time per batch above the solo
         * scheduling delay (checked below) and at most 1e7 ms (activetime's
         * range); L2 use in percent of its peak. */
        const struct range lat = {0, 1e7, 1, "ms"},
                           power = {p->idle_power_w, 2 * p->power_cap_w, 0, "W"},
                           clock = {0, p->max_clock_mhz, 1, "MHz"}, l2 = {0, 100, 0, "%"};
        if ((rv = read_grid(o, "gpulatency", src, name, &lat, r->gpu_latency_ms, err)) ||
            (rv = read_grid(o, "power", src, name, &power, r->power_w, err)) ||
            (rv = read_grid(o, "frequency", src, name, &clock, r->clock_mhz, err)) ||
            (rv = read_numbers(o, "l2caches", 3, 3, NULL, src, name, &l2, r->l2_diag_pct,
                               err)) ||
            (rv = slo__json_number(o, "l2cache", 1, 1e-9, 100, src, name, &r->l2_pct, err)) ||
            (rv = slo__json_number(o, "activetime_1", 1, 1e-9, 1e7, src, name,
                                  &r->active_solo_ms, err)) ||
            (rv = slo__json_number(o, "activetime_2", 1, 1e-9, 1e7, src, name,
                                  &r->active_pair_ms, err)) ||
            (rv = slo__json_number(o, "frequency_2", 1, 1, p->max_clock_mhz, src, name,
                                  &r->pair_clock_mhz, err)))
            return rv;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                if (!(r->gpu_latency_ms[i][j] > m->t_sch_solo_ms))
                    return slo__fail(err, SLO_ERR_INVALID, src,
                                    "%s.gpulatency[%d][%d]: expected a GPU time above "
                                    "idletime_1 (%g ms), found %g",
                                    name, i, j, m->t_sch_solo_ms, r->gpu_latency_ms[i][j]);
        m->has_raw = 1;
        return slo_ig_fit_model(p, m, err);
    }
}

static int parse_gpu(const json_t *g, const char *src, struct slo_ig_profile *p,
                     slo_error_t *err)
{
    int rv;
    char found[96];
    if (!json_is_object(g))
        return slo__fail(err, SLO_ERR_INVALID, src, "gpu: expected an object, found %s",
                        slo__json_describe(g, found, sizeof found));
    if ((rv = slo__json_known_keys(g, gpu_keys, src, "gpu", err)) ||
        (rv = slo__json_string(g, "model", 0, src, "gpu", p->gpu_model, sizeof p->gpu_model,
                              err)) ||
        (rv = slo__json_string(g, "instance_type", 0, src, "gpu", p->instance_type,
                              sizeof p->instance_type, err)) ||
        (rv = slo__json_number(g, "usd_per_h", 0, 0, DBL_MAX, src, "gpu", &p->usd_per_gpu_h, err)))
        return rv;
    return SLO_OK;
}

/* Our format is one JSON document: the whole text parses as one object, on
 * one line or on many. Otherwise merge the upstream JSON-lines (HEAD
 * loadprofile()): several lines, each an object {section: {key: value}}; a
 * text whose first line is not JSON on its own is a malformed document. */
static int merge_text(const char *text, const char *src, json_t **out, slo_error_t *err)
{
    json_t *root;
    const char *line = text;
    int lineno = 0, rv = SLO_OK;
    json_error_t jerr;

    *out = NULL;
    int oom;
    root = slo__json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES, &jerr, &oom);
    if (!root && oom) /* not a reason to read it as JSON-lines */
        return slo__fail(err, SLO_ERR_NOMEM, src, "out of memory");
    if (root) {
        char found[96];
        if (json_is_object(root)) {
            *out = root;
            return SLO_OK;
        }
        slo__json_describe(root, found, sizeof found);
        json_decref(root);
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "expected a JSON object of sections (\"hardware\", one per model) "
                        "or JSON-lines of such objects, found %s",
                        found);
    }
    root = json_object();
    if (!root)
        return slo__fail(err, SLO_ERR_NOMEM, src, "out of memory");
    while (*line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        json_t *obj;
        const char *key;
        json_t *val;
        char found[96];
        int blank = 1;

        lineno++;
        for (size_t i = 0; i < len; i++)
            if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
                blank = 0;
        if (!blank) {
            obj = slo__json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr, &oom);
            if (!obj && oom) {
                rv = slo__fail(err, SLO_ERR_NOMEM, src, "out of memory");
                goto fail;
            }
            if (!obj) {
                if (lineno == 1 || json_object_size(root) == 0) {
                    /* Not JSON-lines: a malformed document; say where. */
                    json_decref(root);
                    rv = slo__json_parse_text(text, src, out, err);
                    return rv;
                }
                rv = slo__fail(err, SLO_ERR_INVALID, src,
                              "line %d, column %d: malformed JSON line: %s", lineno,
                              jerr.column, jerr.text);
                goto fail;
            }
            if (!json_is_object(obj)) {
                rv = slo__fail(err, SLO_ERR_INVALID, src,
                              "line %d: expected an object {section: {key: value}}, found %s",
                              lineno, slo__json_describe(obj, found, sizeof found));
                json_decref(obj);
                goto fail;
            }
            json_object_foreach(obj, key, val) {
                json_t *have = json_object_get(root, key);
                if (!json_is_object(val)) {
                    rv = slo__fail(err, SLO_ERR_INVALID, src,
                                  "line %d: section \"%s\": expected an object of keys, "
                                  "found %s",
                                  lineno, key, slo__json_describe(val, found, sizeof found));
                    json_decref(obj);
                    goto fail;
                }
                /* later lines win; a failed merge is memory */
                if (have ? json_object_update(have, val) : json_object_set(root, key, val)) {
                    rv = slo__fail(err, SLO_ERR_NOMEM, src, "out of memory");
                    json_decref(obj);
                    goto fail;
                }
            }
            json_decref(obj);
        }
        if (!end)
            break;
        line = end + 1;
    }
    *out = root;
    return SLO_OK;
fail:
    json_decref(root);
    return rv;
}

int slo_ig_profile_parse(const char *text, const char *source, struct slo_ig_profile *p,
                         slo_error_t *err)
{
    json_t *root = NULL, *hw, *val;
    const char *key;
    size_t n = 0;
    int rv;

    memset(p, 0, sizeof *p);
    p->usd_per_gpu_h = -1.0;
    snprintf(p->source, sizeof p->source, "%s", source);
    if ((rv = merge_text(text, source, &root, err)))
        return rv;
    hw = json_object_get(root, "hardware");
    if (!hw || !json_is_object(hw)) {
        rv = slo__fail(err, SLO_ERR_INVALID, source,
                      "hardware: expected a section with idlepower, maxGPUfrequency, "
                      "maxGPUpower, unit, bandwidth and the power/frequency/idletime samples, "
                      "found %s",
                      hw ? "a non-object" : "it missing");
        goto fail;
    }
    if ((rv = parse_hardware(hw, source, p, err)))
        goto fail;
    if (json_object_get(root, "gpu") &&
        (rv = parse_gpu(json_object_get(root, "gpu"), source, p, err)))
        goto fail;
    json_object_foreach(root, key, val)
        if (strcmp(key, "hardware") && strcmp(key, "gpu") && strcmp(key, "model_variant") &&
            key[0] != '_') /* model_variant: issue 18 hook below */
            n++;
    if (n == 0) {
        rv = slo__fail(err, SLO_ERR_INVALID, source,
                      "expected at least one model section besides \"hardware\", found none");
        goto fail;
    }
    p->models = calloc(n, sizeof *p->models);
    if (!p->models) {
        rv = slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
        goto fail;
    }
    json_object_foreach(root, key, val) {
        if (!strcmp(key, "hardware") || !strcmp(key, "gpu") || !strcmp(key, "model_variant") ||
            key[0] == '_')
            continue;
        if ((rv = parse_model(key, val, source, p, &p->models[p->n_models], err)))
            goto fail;
        p->n_models++;
    }
    /* issue 18 hook: the model_variant section (igniter_variant.c) */
    if ((rv = slo__ig_variant_parse(root, source, p, err)))
        goto fail;
    json_decref(root);
    return SLO_OK;
fail:
    json_decref(root);
    slo_ig_profile_free(p);
    snprintf(p->source, sizeof p->source, "%s", source);
    return rv;
}

int slo_ig_profile_load(const char *path, struct slo_ig_profile *p, slo_error_t *err)
{
    char *text;
    int rv;

    memset(p, 0, sizeof *p);
    if ((rv = slo__read_file(path, &text, err)))
        return rv;
    rv = slo_ig_profile_parse(text, path, p, err);
    free(text);
    return rv;
}

int slo_ig_profile_open(const char *name_or_path, const char *opt, struct slo_ig_profile *p,
                        slo_error_t *err)
{
    char src[SLO_ERROR_SOURCE_LENGTH];
    const char *text;
    int rc;

    memset(p, 0, sizeof *p);
    p->usd_per_gpu_h = -1.0;
    if ((rc = slo__open_named(name_or_path, opt ? opt : "--profile", "profile", NULL,
                              slo_embedded_gpu_profile, slo_embedded_gpu_profile_names(),
                              "JSON", &text, src, sizeof src, err)))
        return rc;
    return text ? slo_ig_profile_parse(text, src, p, err)
                : slo_ig_profile_load(src[0] ? src : name_or_path, p, err);
}

void slo_ig_profile_free(struct slo_ig_profile *p)
{
    if (!p)
        return;
    free(p->models);
    memset(p, 0, sizeof *p);
    p->usd_per_gpu_h = -1.0;
}

char *slo_ig_profile_coefficients_json(const struct slo_ig_profile *p)
{
    json_t *root = json_object(), *hw, *gpu, *hc;
    char *text = NULL;
    int bad = 0; /* a failed set or append: memory */

    if (!root)
        return NULL;
    gpu = json_object();
    hw = json_object();
    hc = json_object();
    if (!gpu || !hw || !hc)
        goto out;
    if (p->gpu_model[0])
        bad |= json_object_set_new(gpu, "model", json_string(p->gpu_model));
    if (p->instance_type[0])
        bad |= json_object_set_new(gpu, "instance_type", json_string(p->instance_type));
    if (p->usd_per_gpu_h >= 0)
        bad |= json_object_set_new(gpu, "usd_per_h", json_real(p->usd_per_gpu_h));
    bad |= json_object_set(root, "gpu", gpu);
    bad |= json_object_set_new(hw, "idlepower", json_real(p->idle_power_w));
    bad |= json_object_set_new(hw, "maxGPUfrequency", json_real(p->max_clock_mhz));
    bad |= json_object_set_new(hw, "maxGPUpower", json_real(p->power_cap_w));
    bad |= json_object_set_new(hw, "unit", json_real(p->unit_pct));
    bad |= json_object_set_new(hw, "bandwidth", json_real(p->bandwidth_bytes_per_ms));
    bad |= json_object_set_new(hc, "clock_slope_mhz_per_w", json_real(p->clock_slope_mhz_per_w));
    bad |= json_object_set_new(hc, "sched_alpha_ms", json_real(p->sched_alpha_ms));
    bad |= json_object_set_new(hc, "sched_beta_ms", json_real(p->sched_beta_ms));
    bad |= json_object_set(hw, "coefficients", hc);
    bad |= json_object_set(root, "hardware", hw);
    for (size_t i = 0; i < p->n_models; i++) {
        const struct slo_ig_model *m = &p->models[i];
        json_t *mo = json_object(), *c = json_object(), *k = json_array();
        if (!mo || !c || !k) {
            json_decref(mo);
            json_decref(c);
            json_decref(k);
            goto out;
        }
        bad |= json_object_set_new(mo, "inputdata", json_real(m->input_bytes));
        bad |= json_object_set_new(mo, "outputdata", json_real(m->output_bytes));
        bad |= json_object_set_new(mo, "kernel", json_integer(m->n_kernels));
        bad |= json_object_set_new(mo, "idletime_1", json_real(m->t_sch_solo_ms));
        for (int j = 0; j < 5; j++)
            bad |= json_array_append_new(k, json_real(m->k[j]));
        bad |= json_object_set_new(c, "k", k);
        bad |= json_object_set_new(c, "kp_w_per_rps", json_real(m->kp_w_per_rps));
        bad |= json_object_set_new(c, "bp_w", json_real(m->bp_w));
        bad |= json_object_set_new(c, "kc_pct_per_rps", json_real(m->kc_pct_per_rps));
        bad |= json_object_set_new(c, "bc_pct", json_real(m->bc_pct));
        bad |= json_object_set_new(c, "alpha_cache_per_pct", json_real(m->alpha_cache_per_pct));
        bad |= json_object_set_new(mo, "coefficients", c);
        bad |= json_object_set_new(root, m->name, mo);
    }
    if (!bad)
        text = slo__json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                         JSON_REAL_PRECISION(17));
out:
    json_decref(gpu);
    json_decref(hw);
    json_decref(hc);
    json_decref(root);
    return text;
}

/* ------------------------------------------------------------------ */
/* Workload files (doc/infer.md, "--workloads FILE")                   */
/* ------------------------------------------------------------------ */

static const char *const workloads_keys[] = {"workloads", NULL};
static const char *const workload_keys[] = {"model", "rate_rps", "slo_ms", NULL};

/* obj.key (named "path.key") as a finite number > 0 and at most max
 * (unit names it in messages). */
static int positive_number(const json_t *obj, const char *key, const char *src,
                           const char *path, const char *what, double max, const char *unit,
                           double *out, slo_error_t *err)
{
    json_t *v = json_object_get(obj, key);
    char found[96];

    if (!json_is_number(v) || !(json_number_value(v) > 0.0) || !isfinite(json_number_value(v)))
        return slo__fail(err, SLO_ERR_INVALID, src, "%s.%s: expected %s, found %s", path, key,
                        what, v ? slo__json_describe(v, found, sizeof found) : "it missing");
    if (json_number_value(v) > max)
        return slo__fail(err, SLO_ERR_INVALID, src, "%s.%s: expected at most %g %s, found %g",
                        path, key, max, unit, json_number_value(v));
    *out = json_number_value(v);
    return SLO_OK;
}

int slo_ig_workloads_parse(const char *text, const char *source, struct slo_ig_workload **w,
                           size_t *n, slo_error_t *err)
{
    json_error_t jerr;
    json_t *root, *arr;
    char found[96];
    int rv = SLO_OK;

    *w = NULL;
    *n = 0;
    int oom;
    root = slo__json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr,
                           &oom);
    if (!root && oom)
        return slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
    if (!root)
        return slo__fail(err, SLO_ERR_INVALID, source, "line %d, column %d: malformed JSON: %s",
                        jerr.line, jerr.column, jerr.text);
    if (json_is_object(root)) {
        if ((rv = slo__json_known_keys(root, workloads_keys, source, "", err)))
            goto out;
        arr = json_object_get(root, "workloads");
    } else if (json_is_array(root)) {
        arr = root;
    } else {
        rv = slo__fail(err, SLO_ERR_INVALID, source,
                      "expected a JSON object {\"workloads\": [...]} or an array, found %s",
                      slo__json_describe(root, found, sizeof found));
        goto out;
    }
    if (!json_is_array(arr) || json_array_size(arr) == 0) {
        rv = slo__fail(err, SLO_ERR_INVALID, source,
                      "workloads: expected a non-empty array of {\"model\", \"rate_rps\", "
                      "\"slo_ms\"}, found %s",
                      arr ? slo__json_describe(arr, found, sizeof found) : "it missing");
        goto out;
    }
    *w = calloc(json_array_size(arr), sizeof **w);
    if (!*w) {
        rv = slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *o = json_array_get(arr, i);
        struct slo_ig_workload *x = &(*w)[i];
        char path[32];
        snprintf(path, sizeof path, "workloads[%zu]", i);
        if (!json_is_object(o)) {
            rv = slo__fail(err, SLO_ERR_INVALID, source,
                          "%s: expected an object {\"model\", \"rate_rps\", \"slo_ms\"}, "
                          "found %s",
                          path, slo__json_describe(o, found, sizeof found));
            goto out;
        }
        if ((rv = slo__json_known_keys(o, workload_keys, source, path, err)) ||
            (rv = slo__json_string(o, "model", 1, source, path, x->model, sizeof x->model,
                                  err)) ||
            /* at most 1e7 req/s and an SLO of 1e7 ms (2.8 h): beyond, nothing
             * is an inference service (issue 15) */
            (rv = positive_number(o, "rate_rps", source, path, "a rate > 0 req/s", 1e7,
                                  "req/s", &x->rate_rps, err)) ||
            (rv = positive_number(o, "slo_ms", source, path, "an SLO > 0 ms", 1e7, "ms",
                                  &x->slo_ms, err)))
            goto out;
    }
    *n = json_array_size(arr);
out:
    json_decref(root);
    if (rv) {
        free(*w);
        *w = NULL;
        *n = 0;
    }
    return rv;
}

int slo_ig_workloads_load(const char *path, struct slo_ig_workload **w, size_t *n,
                          slo_error_t *err)
{
    char *text;
    int rv;

    *w = NULL;
    *n = 0;
    if ((rv = slo__read_file(path, &text, err)))
        return rv;
    rv = slo_ig_workloads_parse(text, path, w, n, err);
    free(text);
    return rv;
}
