/*
 * comm_model.c - inputs of the communication simulator: per-layer CSV
 * models, the built-in models and bandwidth / latency with units.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * CSV format: shared/data/prophet/README.md section 1 ("pipedream_<model>_
 * layers.csv"); times there are milliseconds at batch 128. Gradient
 * ready-time files: README section 2 ("resnet50_v2_mxnet_prophet_gradients.
 * csv": one row per gradient with its Prophet step and the step's interval,
 * ms at batch 64), or a ready_ms column; doc/comm.md "Gradient ready-time
 * files".
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_private.h"
#include "slo_csv.h"
#include "slo_private.h"

int slo_comm_model_alloc(struct slo_comm_model *model, size_t n, slo_error_t *err)
{
    memset(model, 0, sizeof *model);
    if (n == 0)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected at least one layer, found none");
    model->layers = calloc(n, sizeof *model->layers);
    if (!model->layers)
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory for %zu layers", n);
    model->n_layers = n;
    return SLO_OK;
}

void slo_comm_model_free(struct slo_comm_model *model)
{
    if (!model)
        return;
    free(model->layers);
    memset(model, 0, sizeof *model);
}

static int number_field(const char *text, double *out)
{
    char *end;
    double v;
    while (isspace((unsigned char)*text))
        text++;
    if (!*text)
        return -1;
    errno = 0;
    v = slo_strtod(text, &end);
    while (isspace((unsigned char)*end))
        end++;
    /* ERANGE with a finite value is underflow (1e-320): a valid, tiny
     * number; overflow gives inf and is refused */
    if (*end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Column `name` found at index i: set *col, or fail (a column given
 * twice). Returns 0 or the error code. */
static int set_column(long *col, size_t i, const char *name, const char *where,
                      slo_error_t *err)
{
    if (*col >= 0)
        return slo__fail(err, SLO_ERR_INVALID, where,
                        "header: expected each column once, found %s twice (columns %ld "
                        "and %zu)",
                        name, *col + 1, i + 1);
    *col = (long)i;
    return 0;
}

/* A byte count: an integer >= 0, at most SLO_COMM_MAX_LAYER_BYTES.
 * Returns 0, or fills err for column `col` (where = "SOURCE:LINE"). */
static int bytes_field(const char *text, const char *col, const char *where, double *out,
                       slo_error_t *err)
{
    double v;
    if (number_field(text, &v) || v < 0)
        return slo__fail(err, SLO_ERR_INVALID, where,
                        "column %s: expected a number >= 0, found \"%.40s\"", col, text);
    if (v > SLO_COMM_MAX_LAYER_BYTES)
        return slo__fail(err, SLO_ERR_INVALID, where,
                        "column %s: expected at most %g bytes per layer, found \"%.40s\"", col,
                        SLO_COMM_MAX_LAYER_BYTES, text);
    if (v != floor(v))
        return slo__fail(err, SLO_ERR_INVALID, where,
                        "column %s: expected a whole number of bytes, found \"%.40s\"", col,
                        text);
    *out = v;
    return 0;
}

/* A time in ms: a number >= 0, at most SLO_COMM_MAX_TIME_S. */
static int ms_field(const char *text, const char *col, const char *where, double *out,
                    slo_error_t *err)
{
    double v;
    if (number_field(text, &v) || v < 0)
        return slo__fail(err, SLO_ERR_INVALID, where,
                        "column %s: expected a number >= 0, found \"%.40s\"", col, text);
    if (v > SLO_COMM_MAX_TIME_S * 1e3)
        return slo__fail(err, SLO_ERR_INVALID, where,
                        "column %s: expected at most %g ms, found \"%.40s\"", col,
                        SLO_COMM_MAX_TIME_S * 1e3, text);
    *out = v;
    return 0;
}

static int parse_layers(const char *text, const char *source, const char *name,
                        double forward_s, struct slo_comm_model *model, slo_error_t *err)
{
    struct slo__csv_record rec = {0};
    const char *p = text;
    size_t line = 1, n_cols, cap = 0, n = 0;
    long col_f = -1, col_b = -1, col_s = -1, col_type = -1, col_topo = -1, col_r = -1;
    long col_p = -1, col_g = -1;
    int col_gi = 0;
    double sum_f = 0, sum_b = 0, sum_bytes = 0;
    char colnames[220];
    size_t *lines = NULL; /* source line of each layer (ready_ms checks) */
    double last_topo = -INFINITY;
    char where[SLO_ERROR_SOURCE_LENGTH];
    int rc = SLO_OK, any_bytes = 0;
    const char *size_name = "param_bytes";
    struct slo_comm_layer *layers = NULL;

    memset(model, 0, sizeof *model);
    if (!source)
        source = "csv";
    p = slo__csv_skip_bom(text);
    if ((rc = slo__csv_read_header(&p, &line, &rec, source, "forward_ms, backward_ms, param_bytes",
                          where, sizeof where, err)))
        goto out;
    n_cols = rec.n;
    slo__csv_trim_fields(&rec);
    snprintf(where, sizeof where, "%s:%zu", source, line - 1);
    for (size_t i = 0; i < rec.n; i++) {
        const char *h = slo__csv_get(&rec, i);
        long *col = !strcmp(h, "forward_ms")    ? &col_f
                    : !strcmp(h, "backward_ms") ? &col_b
                    : !strcmp(h, "ready_ms")    ? &col_r
                    : !strcmp(h, "param_bytes") ? &col_p
                    : !strcmp(h, "grad_bytes")  ? &col_g
                    : !strcmp(h, "layer_type")  ? &col_type
                    : !strcmp(h, "topo_index")  ? &col_topo
                                                : NULL;
        if (!strcmp(h, "grad_index"))
            col_gi = 1;
        if (col && (rc = set_column(col, i, h, where, err)))
            goto out;
    }
    if (col_p >= 0 && col_g >= 0 && col_f >= 0) {
        rc = slo__fail(err, SLO_ERR_INVALID, where,
                      "header: expected one of param_bytes or grad_bytes, found both");
        goto out;
    }
    col_s = col_p >= 0 ? col_p : col_g;
    size_name = col_p >= 0 ? "param_bytes" : "grad_bytes";
    if (col_f < 0 && col_gi) {
        /* a gradient ready-time file (resnet50_v2_mxnet_prophet_gradients.csv) */
        slo__csv_free(&rec);
        return slo_comm_model_parse_gradients(text, source, name, forward_s, model, err);
    }
    if (col_f >= 0 && forward_s >= 0) {
        snprintf(where, sizeof where, "%s:%zu", source, line - 1);
        rc = slo__fail(err, SLO_ERR_INVALID, where,
                      "header: a forward time was given, expected a gradient ready-time "
                      "file (column grad_index), found a per-layer CSV with its own "
                      "forward_ms column");
        goto out;
    }
    {
        const char *missing = col_f < 0                ? "forward_ms"
                              : col_b < 0 && col_r < 0 ? "backward_ms (or ready_ms)"
                              : col_s < 0              ? "param_bytes (or grad_bytes)"
                                                       : NULL;
        if (!missing && col_b >= 0 && col_r >= 0) {
            snprintf(where, sizeof where, "%s:%zu", source, line - 1);
            rc = slo__fail(err, SLO_ERR_INVALID, where,
                          "header: expected one of backward_ms or ready_ms, found both");
            goto out;
        }
        if (missing) {
            snprintf(where, sizeof where, "%s:%zu", source, line - 1);
            slo__csv_list_columns(&rec, colnames, sizeof colnames);
            rc = slo__fail(err, SLO_ERR_INVALID, where,
                          "header: expected a column %s, found columns \"%s\"", missing,
                          colnames);
            goto out;
        }
    }
    while (*p) {
        size_t row_line;
        int is_row;
        struct slo_comm_layer *l;
        double v[3];
        const long cols[3] = {col_f, col_b >= 0 ? col_b : col_r, col_s};
        const char *names[3] = {"forward_ms", col_b >= 0 ? "backward_ms" : "ready_ms",
                                size_name};
        if ((rc = slo__csv_next_row(&p, &line, &rec, source, n_cols, &row_line, where, sizeof where,
                           &is_row, err)))
            goto out;
        if (!is_row)
            continue;
        if (col_type >= 0 && !strcmp(slo__csv_get(&rec, (size_t)col_type), "Input"))
            continue; /* data loading, not compute (README section 1) */
        if (col_topo >= 0) {
            double t;
            if (number_field(slo__csv_get(&rec, (size_t)col_topo), &t) || t <= last_topo) {
                rc = slo__fail(err, SLO_ERR_INVALID, where,
                              "column topo_index: expected a number above the previous "
                              "row's %g (rows in forward order), found \"%.40s\"",
                              last_topo, slo__csv_get(&rec, (size_t)col_topo));
                goto out;
            }
            last_topo = t;
        }
        for (int k = 0; k < 3; k++) {
            const char *f = slo__csv_get(&rec, (size_t)cols[k]);
            if ((rc = k == 2 ? bytes_field(f, names[k], where, &v[k], err)
                             : ms_field(f, names[k], where, &v[k], err)))
                goto out;
        }
        if (n == SLO_COMM_MAX_LAYERS) {
            rc = slo__fail(err, SLO_ERR_INVALID, where,
                          "expected at most %d layer rows, found more", SLO_COMM_MAX_LAYERS);
            goto out;
        }
        /* totals: F and Bw (ready_ms is a total itself), all bytes */
        sum_f += v[0];
        if (col_b >= 0)
            sum_b += v[1];
        sum_bytes += v[2];
        if (sum_f > SLO_COMM_MAX_TIME_S * 1e3 || sum_b > SLO_COMM_MAX_TIME_S * 1e3) {
            int fw = sum_f > SLO_COMM_MAX_TIME_S * 1e3;
            rc = slo__fail(err, SLO_ERR_INVALID, where,
                          "column %s: expected a total of at most %g ms over the rows, found "
                          "%g ms up to this row",
                          fw ? "forward_ms" : "backward_ms", SLO_COMM_MAX_TIME_S * 1e3,
                          fw ? sum_f : sum_b);
            goto out;
        }
        if (sum_bytes > SLO_COMM_MAX_TOTAL_BYTES) {
            rc = slo__fail(err, SLO_ERR_INVALID, where,
                          "column %s: expected a total of at most %g bytes over the rows, "
                          "found %.17g bytes up to this row",
                          size_name, SLO_COMM_MAX_TOTAL_BYTES, sum_bytes);
            goto out;
        }
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 64;
            struct slo_comm_layer *nl = realloc(layers, ncap * sizeof *nl);
            size_t *nlines = realloc(lines, ncap * sizeof *nlines);
            if (nlines)
                lines = nlines;
            if (nl)
                layers = nl;
            if (!nl || !nlines) {
                rc = slo__fail(err, SLO_ERR_NOMEM, where, "out of memory");
                goto out;
            }
            cap = ncap;
        }
        lines[n] = row_line;
        l = &layers[n++];
        memset(l, 0, sizeof *l);
        if (col_type >= 0)
            snprintf(l->name, sizeof l->name, "%s", slo__csv_get(&rec, (size_t)col_type));
        l->forward_s = v[0] / 1000.0;
        l->backward_s = v[1] / 1000.0;
        l->grad_bytes = v[2];
        if (v[2] > 0)
            any_bytes = 1;
    }
    if (n == 0) {
        rc = slo__fail(err, SLO_ERR_INVALID, source,
                      "expected at least one layer row after the header, found none");
        goto out;
    }
    if (col_r >= 0) {
        /* measured ready times (from the start of the backward pass): layer
         * j's backward time is r_j - r_{j+1} (r_n = 0), since backward runs
         * from the last layer down (slo_comm.h: r_j = sum_{m>=j} b_m) */
        for (size_t j = n; j-- > 0;) {
            double next = j + 1 < n ? layers[j + 1].backward_s : 0;
            if (layers[j].backward_s < next) {
                snprintf(where, sizeof where, "%s:%zu", source, lines[j]);
                rc = slo__fail(err, SLO_ERR_INVALID, where,
                              "column ready_ms: expected a time >= the next row's %g "
                              "(gradients become ready from the last layer to the first), "
                              "found %g",
                              next * 1000.0, layers[j].backward_s * 1000.0);
                goto out;
            }
        }
        for (size_t j = 0; j < n; j++)
            layers[j].backward_s -= j + 1 < n ? layers[j + 1].backward_s : 0;
    }
    if (!any_bytes) {
        rc = slo__fail(err, SLO_ERR_INVALID, source,
                      "column param_bytes: expected at least one row > 0 (a model with "
                      "gradients), found none");
        goto out;
    }
    model->layers = layers;
    model->n_layers = n;
    layers = NULL;
    snprintf(model->name, sizeof model->name, "%s", name ? name : source);
out:
    free(layers);
    free(lines);
    slo__csv_free(&rec);
    return rc;
}

int slo_comm_model_parse_csv(const char *text, const char *source, const char *name,
                             struct slo_comm_model *model, slo_error_t *err)
{
    return parse_layers(text, source, name, -1.0, model, err);
}

int slo_comm_model_parse(const char *text, const char *source, const char *name,
                         double forward_s, struct slo_comm_model *model, slo_error_t *err)
{
    memset(model, 0, sizeof *model);
    if (isnan(forward_s) || isinf(forward_s))
        return slo__fail(err, SLO_ERR_INVALID, "forward",
                        "expected a forward time >= 0 s (or < 0 for the default), found %g",
                        forward_s);
    return parse_layers(text, source, name, forward_s, model, err);
}

int slo_comm_model_load(const char *path, double forward_s, struct slo_comm_model *model,
                        slo_error_t *err)
{
    char *text;
    const char *base = strrchr(path, '/');
    int rc;

    memset(model, 0, sizeof *model);
    if ((rc = slo__read_file(path, &text, err)))
        return rc;
    rc = slo_comm_model_parse(text, path, base ? base + 1 : path, forward_s, model, err);
    free(text);
    return rc;
}

int slo_comm_model_load_csv(const char *path, struct slo_comm_model *model, slo_error_t *err)
{
    return slo_comm_model_load(path, -1.0, model, err);
}

/* ------------------------------------------------------------------ */
/* Gradient ready-time files                                           */
/* ------------------------------------------------------------------ */

struct grad_row {
    double bytes;
    double ready_ms; /* ready_ms column, or derived from the step */
    long step;       /* prophet_step, or -1 */
    double interval_ms;
    size_t line;
    char name[SLO_COMM_NAME_LENGTH];
};

/* Exact non-negative integer field (steps, indices). */
static int index_field(const char *text, long *out)
{
    double v;
    if (number_field(text, &v) || v < 0 || v != floor(v) || v > 1e9)
        return -1;
    *out = (long)v;
    return 0;
}

int slo_comm_model_parse_gradients(const char *text, const char *source, const char *name,
                                   double forward_s, struct slo_comm_model *model,
                                   slo_error_t *err)
{
    struct slo__csv_record rec = {0};
    const char *p = text;
    size_t line = 1, n_cols, cap = 0, n = 0, header_line;
    long col_gi = -1, col_s = -1, col_r = -1, col_k = -1, col_iv = -1, col_name = -1;
    const char *size_name = "bytes_fp32", *iv_name = "step_interval_ms_bs64";
    char where[SLO_ERROR_SOURCE_LENGTH];
    int rc = SLO_OK, any_bytes = 0;
    struct grad_row *rows = NULL;
    struct slo_comm_layer *layers = NULL;
    double *arrive = NULL, bw = 0, F, sum_bytes = 0;

    memset(model, 0, sizeof *model);
    if (!source)
        source = "csv";
    if (isnan(forward_s) || isinf(forward_s) || forward_s > SLO_COMM_MAX_TIME_S)
        return slo__fail(err, SLO_ERR_INVALID, "forward",
                        "expected a forward time in 0..%g s (or < 0 for the default), found %g",
                        SLO_COMM_MAX_TIME_S, forward_s);
    p = slo__csv_skip_bom(text);
    if ((rc = slo__csv_read_header(&p, &line, &rec, source,
                          "grad_index, bytes_fp32 and ready_ms (or prophet_step, "
                          "step_interval_ms_bs64)",
                          where, sizeof where, err)))
        goto out;
    header_line = line - 1;
    snprintf(where, sizeof where, "%s:%zu", source, header_line);
    n_cols = rec.n;
    slo__csv_trim_fields(&rec);
    for (size_t i = 0; i < rec.n; i++) {
        const char *h = slo__csv_get(&rec, i);
        /* alternatives of one column: the second is an error, as a repeat */
        static const char *const groups[][4] = {
            {"grad_index", NULL},
            {"bytes_fp32", "grad_bytes", "param_bytes", NULL},
            {"ready_ms", NULL},
            {"prophet_step", NULL},
            {"step_interval_ms_bs64", "step_interval_ms", NULL},
            {"mxnet_arg_name", "name", NULL},
        };
        long *cols[] = {&col_gi, &col_s, &col_r, &col_k, &col_iv, &col_name};
        for (size_t gr = 0; gr < sizeof groups / sizeof groups[0]; gr++)
            for (size_t k = 0; groups[gr][k]; k++) {
                if (strcmp(h, groups[gr][k]))
                    continue;
                if (*cols[gr] >= 0 && strcmp(slo__csv_get(&rec, (size_t)*cols[gr]), h)) {
                    rc = slo__fail(err, SLO_ERR_INVALID, where,
                                  "header: expected one of %s%s%s%s%s, found both %s and %s",
                                  groups[gr][0], groups[gr][1] ? " or " : "",
                                  groups[gr][1] ? groups[gr][1] : "",
                                  groups[gr][1] && groups[gr][2] ? " or " : "",
                                  groups[gr][1] && groups[gr][2] ? groups[gr][2] : "",
                                  slo__csv_get(&rec, (size_t)*cols[gr]), h);
                    goto out;
                }
                if ((rc = set_column(cols[gr], i, h, where, err)))
                    goto out;
                if (gr == 1)
                    size_name = groups[gr][k];
                else if (gr == 4)
                    iv_name = groups[gr][k];
            }
    }
    {
        const char *missing =
            col_gi < 0                   ? "grad_index"
            : col_s < 0                  ? "bytes_fp32 (or grad_bytes, param_bytes)"
            : col_r < 0 && col_k < 0     ? "ready_ms (or prophet_step and step_interval_ms_bs64)"
            : col_r < 0 && col_iv < 0    ? "step_interval_ms_bs64 (with prophet_step)"
                                         : NULL;
        if (missing) {
            char colnames[220];
            slo__csv_list_columns(&rec, colnames, sizeof colnames);
            rc = slo__fail(err, SLO_ERR_INVALID, where,
                          "header: expected a column %s (a gradient ready-time file), found "
                          "columns \"%s\"",
                          missing, colnames);
            goto out;
        }
        if (col_r >= 0 && col_k >= 0) {
            rc = slo__fail(err, SLO_ERR_INVALID, where,
                          "header: expected one of ready_ms or prophet_step, found both");
            goto out;
        }
    }
    while (*p) {
        size_t row_line;
        int is_row;
        struct grad_row *g;
        long gi;
        if ((rc = slo__csv_next_row(&p, &line, &rec, source, n_cols, &row_line, where, sizeof where,
                           &is_row, err)))
            goto out;
        if (!is_row)
            continue;
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 64;
            struct grad_row *nr = realloc(rows, ncap * sizeof *nr);
            if (!nr) {
                rc = slo__fail(err, SLO_ERR_NOMEM, where, "out of memory");
                goto out;
            }
            rows = nr;
            cap = ncap;
        }
        g = &rows[n];
        memset(g, 0, sizeof *g);
        g->line = row_line;
        g->step = -1;
        if (index_field(slo__csv_get(&rec, (size_t)col_gi), &gi) || (size_t)gi != n) {
            rc = slo__fail(err, SLO_ERR_INVALID, where,
                          "column grad_index: expected %zu (rows in index order 0, 1, ...), "
                          "found \"%.40s\"",
                          n, slo__csv_get(&rec, (size_t)col_gi));
            goto out;
        }
        if ((rc = bytes_field(slo__csv_get(&rec, (size_t)col_s), size_name, where, &g->bytes, err)))
            goto out;
        if (n == SLO_COMM_MAX_LAYERS) {
            rc = slo__fail(err, SLO_ERR_INVALID, where,
                          "expected at most %d gradient rows, found more", SLO_COMM_MAX_LAYERS);
            goto out;
        }
        sum_bytes += g->bytes;
        if (sum_bytes > SLO_COMM_MAX_TOTAL_BYTES) {
            rc = slo__fail(err, SLO_ERR_INVALID, where,
                          "column %s: expected a total of at most %g bytes over the rows, "
                          "found %.17g bytes up to this row",
                          size_name, SLO_COMM_MAX_TOTAL_BYTES, sum_bytes);
            goto out;
        }
        if (col_r >= 0) {
            const char *f = slo__csv_get(&rec, (size_t)col_r);
            if ((rc = ms_field(f, "ready_ms", where, &g->ready_ms, err)))
                goto out;
            if (n > 0 && g->ready_ms > rows[n - 1].ready_ms) {
                rc = slo__fail(err, SLO_ERR_INVALID, where,
                              "column ready_ms: expected a time <= the previous row's %g "
                              "(backward produces the highest index first), found %g",
                              rows[n - 1].ready_ms, g->ready_ms);
                goto out;
            }
        } else {
            const char *f = slo__csv_get(&rec, (size_t)col_k);
            const char *fi = slo__csv_get(&rec, (size_t)col_iv);
            if (index_field(f, &g->step) ||
                (n > 0 && g->step != rows[n - 1].step && g->step != rows[n - 1].step - 1)) {
                if (n > 0 && rows[n - 1].step == 0)
                    rc = slo__fail(err, SLO_ERR_INVALID, where,
                                  "column prophet_step: expected 0 (the previous row is in "
                                  "step 0, the last; steps are integers >= 0), found "
                                  "\"%.40s\"", f);
                else if (n > 0)
                    rc = slo__fail(err, SLO_ERR_INVALID, where,
                                  "column prophet_step: expected %ld or %ld (a step is a "
                                  "range of consecutive indices; arrival step 0 holds the "
                                  "highest), found \"%.40s\"",
                                  rows[n - 1].step, rows[n - 1].step - 1, f);
                else
                    rc = slo__fail(err, SLO_ERR_INVALID, where,
                                  "column prophet_step: expected an integer >= 0, found "
                                  "\"%.40s\"", f);
                goto out;
            }
            if ((rc = ms_field(fi, iv_name, where, &g->interval_ms, err)))
                goto out;
            if (n > 0 && g->step == rows[n - 1].step &&
                g->interval_ms != rows[n - 1].interval_ms) {
                rc = slo__fail(err, SLO_ERR_INVALID, where,
                              "column %s: expected %g as in the other rows of step %ld, "
                              "found %g",
                              iv_name, rows[n - 1].interval_ms, g->step, g->interval_ms);
                goto out;
            }
        }
        if (col_name >= 0)
            snprintf(g->name, sizeof g->name, "%s", slo__csv_get(&rec, (size_t)col_name));
        if (g->bytes > 0)
            any_bytes = 1;
        n++;
    }
    if (n == 0) {
        rc = slo__fail(err, SLO_ERR_INVALID, source,
                      "expected at least one gradient row after the header, found none");
        goto out;
    }
    if (!any_bytes) {
        rc = slo__fail(err, SLO_ERR_INVALID, source,
                      "column %s: expected at least one row > 0, found none", size_name);
        goto out;
    }
    if (col_k >= 0) {
        /* the staircase: every gradient of arrival step k is ready at
         * a_k = sum_{m<k} Delta_m (a_0 = 0), Delta_m = the interval of step m;
         * the last step's interval is not used (notes 1.3: it is never used
         * for sizing; nothing arrives after that step) */
        long K = rows[0].step + 1;
        if (rows[n - 1].step != 0) {
            snprintf(where, sizeof where, "%s:%zu", source, rows[n - 1].line);
            rc = slo__fail(err, SLO_ERR_INVALID, where,
                          "column prophet_step: expected 0 in the last row (the highest "
                          "indices arrive first), found %ld",
                          rows[n - 1].step);
            goto out;
        }
        arrive = calloc((size_t)K, sizeof *arrive);
        if (!arrive) {
            rc = slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
            goto out;
        }
        for (size_t i = n; i-- > 0;)
            if (i + 1 == n || rows[i].step != rows[i + 1].step) {
                long k = rows[i].step;
                arrive[k] = k == 0 ? 0 : arrive[k - 1] + rows[i + 1].interval_ms;
                if (arrive[k] > SLO_COMM_MAX_TIME_S * 1e3) {
                    snprintf(where, sizeof where, "%s:%zu", source, rows[i + 1].line);
                    rc = slo__fail(err, SLO_ERR_INVALID, where,
                                  "column %s: expected intervals adding up to at most %g ms "
                                  "(the ready time of step %ld), found %g ms",
                                  iv_name, SLO_COMM_MAX_TIME_S * 1e3, k, arrive[k]);
                    goto out;
                }
            }
        for (size_t i = 0; i < n; i++)
            rows[i].ready_ms = arrive[rows[i].step];
    }
    layers = calloc(n, sizeof *layers);
    if (!layers) {
        rc = slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
        goto out;
    }
    /* layer i = gradient i; backward b_i = r_i - r_{i+1} (r_n = 0), so the
     * simulator's r_i = sum_{m>=i} b_m gives back the ready times */
    for (size_t i = 0; i < n; i++) {
        layers[i].grad_bytes = rows[i].bytes;
        layers[i].backward_s = (rows[i].ready_ms - (i + 1 < n ? rows[i + 1].ready_ms : 0)) / 1e3;
        snprintf(layers[i].name, sizeof layers[i].name, "%s", rows[i].name);
    }
    bw = rows[0].ready_ms / 1e3;
    /* forward: F = forward_s, or SLO_COMM_FORWARD_PER_BACKWARD x Bw. A group
     * of gradients ready at the same time (a step) gets the share F b / Bw
     * of the backward time b that produced it, spread evenly over the group
     * (F / n each when Bw = 0). */
    F = forward_s >= 0 ? forward_s : SLO_COMM_FORWARD_PER_BACKWARD * bw;
    for (size_t hi = n; hi-- > 0;) {
        size_t lo = hi;
        double share;
        while (lo > 0 && rows[lo - 1].ready_ms == rows[hi].ready_ms)
            lo--;
        share = bw > 0 ? F * layers[hi].backward_s / bw : F * (double)(hi - lo + 1) / (double)n;
        for (size_t i = lo; i <= hi; i++)
            layers[i].forward_s = share / (double)(hi - lo + 1);
        hi = lo;
    }
    model->layers = layers;
    model->n_layers = n;
    layers = NULL;
    snprintf(model->name, sizeof model->name, "%s", name ? name : source);
out:
    free(layers);
    free(rows);
    free(arrive);
    slo__csv_free(&rec);
    return rc;
}

const char *const *slo_comm_model_names(void)
{
    return slo_embedded_comm_model_names();
}

int slo_comm_model_builtin(const char *name, struct slo_comm_model *model, slo_error_t *err)
{
    const char *text = name ? slo_embedded_comm_model(name) : NULL;
    char src[SLO_ERROR_SOURCE_LENGTH];

    memset(model, 0, sizeof *model);
    if (!text) {
        char list[256] = "";
        const char *const *names = slo_embedded_comm_model_names();
        for (size_t i = 0; names[i]; i++) {
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
        }
        return slo__fail(err, SLO_ERR_NOT_FOUND, "model",
                        "expected a built-in model (%s) or a per-layer CSV file, found \"%s\"",
                        list, name ? name : "(null)");
    }
    snprintf(src, sizeof src, "embedded model %s", name);
    return slo_comm_model_parse_csv(text, src, name, model, err);
}

/* ------------------------------------------------------------------ */
/* Units                                                               */
/* ------------------------------------------------------------------ */

static const char bandwidth_forms[] =
    "a number with a unit, no spaces: bits (10Gbit, 10Gbit/s, 10Gb/s, 10Gbps) or bytes "
    "per second (1.25GB/s, 1250MB/s, 1GiB/s)";

static const char bandwidth_range[] = "8bit/s..800Tbit/s (1B/s..100TB/s)";

/* Whitespace anywhere in a value is an error (as for every number the CLI
 * reads): "10 Gbit" could be two arguments pasted together. */
static int has_space(const char *text)
{
    for (; *text; text++)
        if (isspace((unsigned char)*text))
            return 1;
    return 0;
}

int slo_comm_parse_bandwidth(const char *text, double *bytes_per_s, slo_error_t *err)
{
    const char *src = "bandwidth";
    char *end;
    double v, scale = 1;
    const char *u;
    /* the listed spellings only: bytes need "/s" ("10GB" is too close to
     * "10Gb"), binary prefixes only with bytes */
    static const char *const bit_units[] = {"bit", "bit/s", "bits/s", "b/s", "bps", NULL};
    static const char *const byte_units[] = {"B/s", NULL};
    int bits = -1, binary = 0;

    if (!text || !*text)
        return slo__fail(err, SLO_ERR_INVALID, src, "expected %s, found an empty value",
                        bandwidth_forms);
    if (has_space(text))
        return slo__fail(err, SLO_ERR_INVALID, src, "expected %s, found \"%s\" (a space)",
                        bandwidth_forms, text);
    errno = 0;
    v = slo_strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(v))
        return slo__fail(err, SLO_ERR_INVALID, src, "expected %s, found \"%s\"",
                        bandwidth_forms, text);
    u = end;
    if (!*u)
        return slo__fail(err, SLO_ERR_INVALID, src, "expected %s, found \"%s\" (no unit)",
                        bandwidth_forms, text);
    switch (*u) {
    case 'k': case 'K': scale = 1e3; u++; break;
    case 'm': case 'M': scale = 1e6; u++; break;
    case 'g': case 'G': scale = 1e9; u++; break;
    case 't': case 'T': scale = 1e12; u++; break;
    default: break;
    }
    if (scale > 1 && *u == 'i') {
        scale = scale == 1e3 ? 1024.0 : scale == 1e6 ? 1048576.0
                : scale == 1e9 ? 1073741824.0 : 1099511627776.0;
        binary = 1;
        u++;
    }
    for (size_t i = 0; bit_units[i]; i++)
        if (!strcmp(u, bit_units[i]))
            bits = 1;
    for (size_t i = 0; byte_units[i]; i++)
        if (!strcmp(u, byte_units[i]))
            bits = 0;
    if (bits == 1 && binary)
        bits = -1;
    if (bits < 0) {
        int bytes_no_rate = !strcmp(u, "B") || !strcmp(u, "Bps") || !strcmp(u, "byte") ||
                            !strcmp(u, "bytes");
        return slo__fail(err, SLO_ERR_INVALID, src, "expected %s, found \"%s\" (%s)",
                        bandwidth_forms, text,
                        bytes_no_rate ? "bytes per second are written B/s: 10GB/s; bits as "
                                        "Gbit, Gb/s or Gbps"
                                      : "unknown unit");
    }
    v *= scale;
    if (bits)
        v /= 8;
    if (!(v > 0))
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "expected a bandwidth > 0, found \"%s\" (the range is %s)", text,
                        bandwidth_range);
    if (!(v >= SLO_COMM_MIN_BANDWIDTH_BYTES_PER_S && v <= SLO_COMM_MAX_BANDWIDTH_BYTES_PER_S))
        return slo__fail(err, SLO_ERR_INVALID, src, "expected a bandwidth in %s, found \"%s\"",
                        bandwidth_range, text);
    *bytes_per_s = v;
    return SLO_OK;
}

int slo_comm_parse_latency(const char *text, double *s, slo_error_t *err)
{
    const char *src = "latency";
    static const char forms[] = "a number with a unit s, ms, us or ns, no spaces (20us, 0.05ms)";
    char *end;
    double v, scale;
    const char *u;

    if (!text || !*text)
        return slo__fail(err, SLO_ERR_INVALID, src, "expected %s, found an empty value", forms);
    if (has_space(text))
        return slo__fail(err, SLO_ERR_INVALID, src, "expected %s, found \"%s\" (a space)", forms,
                        text);
    errno = 0;
    v = slo_strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(v))
        return slo__fail(err, SLO_ERR_INVALID, src, "expected %s, found \"%s\"", forms, text);
    u = end;
    if (!strcmp(u, "s"))
        scale = 1;
    else if (!strcmp(u, "ms"))
        scale = 1e-3;
    else if (!strcmp(u, "us") || !strcmp(u, "\xc2\xb5s"))
        scale = 1e-6;
    else if (!strcmp(u, "ns"))
        scale = 1e-9;
    else
        return slo__fail(err, SLO_ERR_INVALID, src, "expected %s, found \"%s\"%s", forms, text,
                        *u ? " (unknown unit)" : " (no unit)");
    if (!(v >= 0))
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "expected a latency >= 0, found \"%s\" (the range is 0s..1s)", text);
    if (!(v * scale <= SLO_COMM_MAX_LATENCY_S))
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "expected a latency in 0s..1s (0..1000ms), found \"%s\"", text);
    *s = v * scale;
    return SLO_OK;
}

int slo_comm_model_open(const char *name_or_path, double forward_s, const char *opt,
                        const char *forward_opt, struct slo_comm_model *model,
                        slo_error_t *err)
{
    int rc;

    memset(model, 0, sizeof *model);
    opt = opt ? opt : "model";
    forward_opt = forward_opt ? forward_opt : "forward_s";
    if (!name_or_path)
        return slo__fail(err, SLO_ERR_INVALID, opt, "expected a model name or file, found none");
    if (slo__is_path(name_or_path, ".csv")) {
        rc = slo_comm_model_load(name_or_path, forward_s, model, err);
        if (rc == SLO_ERR_INVALID && forward_s >= 0 && err &&
            strstr(err->text, "forward time was given"))
            snprintf(err->text, sizeof err->text,
                     "%s: expected a gradient ready-time file (column grad_index), "
                     "found a per-layer CSV with its own forward_ms column", forward_opt);
        return rc;
    }
    if (forward_s >= 0)
        return slo__fail(err, SLO_ERR_INVALID, forward_opt,
                         "expected a gradient ready-time file as %s, found the built-in model "
                         "\"%s\" (it has its own forward times)", opt, name_or_path);
    rc = slo_comm_model_builtin(name_or_path, model, err);
    if (rc && err)
        snprintf(err->source, sizeof err->source, "%s", opt);
    return rc;
}
