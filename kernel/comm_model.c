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
#include "slo_private.h"

int slo_comm_model_alloc(struct slo_comm_model *model, size_t n, slo_error_t *err)
{
    memset(model, 0, sizeof *model);
    if (n == 0)
        return slo_fail(err, SLO_ERR_INVALID, NULL, "expected at least one layer, found none");
    model->layers = calloc(n, sizeof *model->layers);
    if (!model->layers)
        return slo_fail(err, SLO_ERR_NOMEM, NULL, "out of memory for %zu layers", n);
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

/* ------------------------------------------------------------------ */
/* CSV (RFC 4180 subset: quoted fields with "" escapes, CRLF)           */
/* ------------------------------------------------------------------ */

struct record {
    char *buf;      /* field texts, NUL-separated */
    size_t cap;
    size_t *start;  /* [n] offsets into buf */
    size_t n, fcap;
};

static int rec_put(struct record *r, size_t *len, char c)
{
    if (*len + 1 >= r->cap) {
        size_t ncap = r->cap ? 2 * r->cap : 256;
        char *nb = realloc(r->buf, ncap);
        if (!nb)
            return -1;
        r->buf = nb;
        r->cap = ncap;
    }
    r->buf[(*len)++] = c;
    return 0;
}

static int rec_field(struct record *r, size_t at)
{
    if (r->n == r->fcap) {
        size_t ncap = r->fcap ? 2 * r->fcap : 16;
        size_t *ns = realloc(r->start, ncap * sizeof *ns);
        if (!ns)
            return -1;
        r->start = ns;
        r->fcap = ncap;
    }
    r->start[r->n++] = at;
    return 0;
}

/* Parse one record at *p; advances *p and *line. Returns 0, -1 for
 * out of memory, -2 for an unterminated quote. */
static int read_record(const char **p, size_t *line, struct record *r)
{
    const char *s = *p;
    size_t len = 0;

    r->n = 0;
    if (rec_field(r, 0))
        return -1;
    for (;;) {
        if (*s == '"' && (len == 0 || r->buf[len - 1] == '\0')) {
            s++;
            for (;;) {
                if (*s == '\0')
                    return -2;
                if (*s == '"' && s[1] == '"') {
                    if (rec_put(r, &len, '"'))
                        return -1;
                    s += 2;
                } else if (*s == '"') {
                    s++;
                    break;
                } else {
                    if (*s == '\n')
                        (*line)++;
                    if (rec_put(r, &len, *s++))
                        return -1;
                }
            }
            continue;
        }
        if (*s == ',') {
            if (rec_put(r, &len, '\0') || rec_field(r, len))
                return -1;
            s++;
            continue;
        }
        if (*s == '\0' || *s == '\n' || (*s == '\r' && (s[1] == '\n' || s[1] == '\0'))) {
            if (rec_put(r, &len, '\0'))
                return -1;
            if (*s == '\r')
                s++;
            if (*s == '\n') {
                s++;
                (*line)++;
            }
            *p = s;
            return 0;
        }
        if (rec_put(r, &len, *s++))
            return -1;
    }
}

static const char *rec_get(const struct record *r, size_t i)
{
    return r->buf + r->start[i];
}

static int blank_record(const struct record *r)
{
    return r->n == 1 && rec_get(r, 0)[strspn(rec_get(r, 0), " \t")] == '\0';
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
    v = strtod(text, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (*end || errno == ERANGE || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int parse_layers(const char *text, const char *source, const char *name,
                        double forward_s, struct slo_comm_model *model, slo_error_t *err)
{
    struct record rec = {0};
    const char *p = text;
    size_t line = 1, n_cols, cap = 0, n = 0;
    long col_f = -1, col_b = -1, col_s = -1, col_type = -1, col_topo = -1, col_r = -1;
    int col_gi = 0;
    size_t *lines = NULL; /* source line of each layer (ready_ms checks) */
    double last_topo = -INFINITY;
    char where[SLO_ERROR_SOURCE_LENGTH];
    int rc = SLO_OK, any_bytes = 0, q;
    const char *size_name = "param_bytes";
    struct slo_comm_layer *layers = NULL;

    memset(model, 0, sizeof *model);
    if (!source)
        source = "csv";
    /* header: skip leading blank lines */
    do {
        if (!*p) {
            rc = slo_fail(err, SLO_ERR_INVALID, source,
                          "expected a header line with columns forward_ms, backward_ms, "
                          "param_bytes, found an empty file");
            goto out;
        }
        q = read_record(&p, &line, &rec);
        if (q == -1) {
            rc = slo_fail(err, SLO_ERR_NOMEM, source, "out of memory");
            goto out;
        }
        if (q == -2) {
            snprintf(where, sizeof where, "%s:%zu", source, line);
            rc = slo_fail(err, SLO_ERR_INVALID, where,
                          "header: expected a closing double quote, found the end of the file");
            goto out;
        }
    } while (blank_record(&rec));
    n_cols = rec.n;
    for (size_t i = 0; i < rec.n; i++) {
        const char *h = rec_get(&rec, i);
        if (!strcmp(h, "forward_ms"))
            col_f = (long)i;
        else if (!strcmp(h, "backward_ms"))
            col_b = (long)i;
        else if (!strcmp(h, "ready_ms"))
            col_r = (long)i;
        else if (!strcmp(h, "param_bytes") || (!strcmp(h, "grad_bytes") && col_s < 0)) {
            col_s = (long)i;
            size_name = h[0] == 'p' ? "param_bytes" : "grad_bytes";
        }
        else if (!strcmp(h, "layer_type"))
            col_type = (long)i;
        else if (!strcmp(h, "topo_index"))
            col_topo = (long)i;
        else if (!strcmp(h, "grad_index"))
            col_gi = 1;
    }
    if (col_f < 0 && col_gi) {
        /* a gradient ready-time file (resnet50_v2_mxnet_prophet_gradients.csv) */
        free(rec.buf);
        free(rec.start);
        return slo_comm_model_parse_gradients(text, source, name, forward_s, model, err);
    }
    if (col_f >= 0 && forward_s >= 0) {
        snprintf(where, sizeof where, "%s:%zu", source, line - 1);
        rc = slo_fail(err, SLO_ERR_INVALID, where,
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
            rc = slo_fail(err, SLO_ERR_INVALID, where,
                          "header: expected one of backward_ms or ready_ms, found both");
            goto out;
        }
        if (missing) {
            snprintf(where, sizeof where, "%s:%zu", source, line - 1);
            rc = slo_fail(err, SLO_ERR_INVALID, where,
                          "header: expected a column %s, found columns \"%.200s%s\"", missing,
                          rec_get(&rec, 0), rec.n > 1 ? ", ..." : "");
            goto out;
        }
    }
    while (*p) {
        size_t row_line = line;
        struct slo_comm_layer *l;
        double v[3];
        const long cols[3] = {col_f, col_b >= 0 ? col_b : col_r, col_s};
        const char *names[3] = {"forward_ms", col_b >= 0 ? "backward_ms" : "ready_ms",
                                size_name};
        q = read_record(&p, &line, &rec);

        snprintf(where, sizeof where, "%s:%zu", source, row_line);
        if (q == -1) {
            rc = slo_fail(err, SLO_ERR_NOMEM, where, "out of memory");
            goto out;
        }
        if (q == -2) {
            rc = slo_fail(err, SLO_ERR_INVALID, where,
                          "expected a closing double quote, found the end of the file");
            goto out;
        }
        if (blank_record(&rec))
            continue;
        if (rec.n != n_cols) {
            rc = slo_fail(err, SLO_ERR_INVALID, where,
                          "expected %zu fields as in the header, found %zu", n_cols, rec.n);
            goto out;
        }
        if (col_type >= 0 && !strcmp(rec_get(&rec, (size_t)col_type), "Input"))
            continue; /* data loading, not compute (README section 1) */
        if (col_topo >= 0) {
            double t;
            if (number_field(rec_get(&rec, (size_t)col_topo), &t) || t <= last_topo) {
                rc = slo_fail(err, SLO_ERR_INVALID, where,
                              "column topo_index: expected a number above the previous "
                              "row's %g (rows in forward order), found \"%.40s\"",
                              last_topo, rec_get(&rec, (size_t)col_topo));
                goto out;
            }
            last_topo = t;
        }
        for (int k = 0; k < 3; k++) {
            const char *f = rec_get(&rec, (size_t)cols[k]);
            if (number_field(f, &v[k]) || v[k] < 0) {
                rc = slo_fail(err, SLO_ERR_INVALID, where,
                              "column %s: expected a number >= 0, found \"%.40s\"",
                              names[k], f);
                goto out;
            }
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
                rc = slo_fail(err, SLO_ERR_NOMEM, where, "out of memory");
                goto out;
            }
            cap = ncap;
        }
        lines[n] = row_line;
        l = &layers[n++];
        memset(l, 0, sizeof *l);
        if (col_type >= 0)
            snprintf(l->name, sizeof l->name, "%s", rec_get(&rec, (size_t)col_type));
        l->forward_s = v[0] / 1000.0;
        l->backward_s = v[1] / 1000.0;
        l->grad_bytes = v[2];
        if (v[2] > 0)
            any_bytes = 1;
    }
    if (n == 0) {
        rc = slo_fail(err, SLO_ERR_INVALID, source,
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
                rc = slo_fail(err, SLO_ERR_INVALID, where,
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
        rc = slo_fail(err, SLO_ERR_INVALID, source,
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
    free(rec.buf);
    free(rec.start);
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
        return slo_fail(err, SLO_ERR_INVALID, "forward",
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
    if ((rc = slo_read_file(path, &text, err)))
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
    struct record rec = {0};
    const char *p = text;
    size_t line = 1, n_cols, cap = 0, n = 0, header_line;
    long col_gi = -1, col_s = -1, col_r = -1, col_k = -1, col_iv = -1, col_name = -1;
    const char *size_name = "bytes_fp32", *iv_name = "step_interval_ms_bs64";
    char where[SLO_ERROR_SOURCE_LENGTH];
    int rc = SLO_OK, any_bytes = 0, q;
    struct grad_row *rows = NULL;
    struct slo_comm_layer *layers = NULL;
    double *arrive = NULL, bw = 0, F;

    memset(model, 0, sizeof *model);
    if (!source)
        source = "csv";
    if (isnan(forward_s) || isinf(forward_s))
        return slo_fail(err, SLO_ERR_INVALID, "forward",
                        "expected a forward time >= 0 s (or < 0 for the default), found %g",
                        forward_s);
    do {
        if (!*p) {
            rc = slo_fail(err, SLO_ERR_INVALID, source,
                          "expected a header line with columns grad_index, bytes_fp32 and "
                          "ready_ms (or prophet_step, step_interval_ms_bs64), found an empty "
                          "file");
            goto out;
        }
        q = read_record(&p, &line, &rec);
        if (q == -1) {
            rc = slo_fail(err, SLO_ERR_NOMEM, source, "out of memory");
            goto out;
        }
        if (q == -2) {
            snprintf(where, sizeof where, "%s:%zu", source, line);
            rc = slo_fail(err, SLO_ERR_INVALID, where,
                          "header: expected a closing double quote, found the end of the file");
            goto out;
        }
    } while (blank_record(&rec));
    header_line = line - 1;
    snprintf(where, sizeof where, "%s:%zu", source, header_line);
    n_cols = rec.n;
    for (size_t i = 0; i < rec.n; i++) {
        const char *h = rec_get(&rec, i);
        if (!strcmp(h, "grad_index"))
            col_gi = (long)i;
        else if (col_s < 0 && (!strcmp(h, "bytes_fp32") || !strcmp(h, "grad_bytes") ||
                               !strcmp(h, "param_bytes"))) {
            col_s = (long)i;
            size_name = h[0] == 'b' ? "bytes_fp32" : h[0] == 'g' ? "grad_bytes" : "param_bytes";
        } else if (!strcmp(h, "ready_ms"))
            col_r = (long)i;
        else if (!strcmp(h, "prophet_step"))
            col_k = (long)i;
        else if (col_iv < 0 && (!strcmp(h, "step_interval_ms_bs64") ||
                                !strcmp(h, "step_interval_ms"))) {
            col_iv = (long)i;
            iv_name = strcmp(h, "step_interval_ms") ? "step_interval_ms_bs64" : "step_interval_ms";
        } else if (col_name < 0 && (!strcmp(h, "mxnet_arg_name") || !strcmp(h, "name")))
            col_name = (long)i;
    }
    {
        const char *missing =
            col_gi < 0                   ? "grad_index"
            : col_s < 0                  ? "bytes_fp32 (or grad_bytes, param_bytes)"
            : col_r < 0 && col_k < 0     ? "ready_ms (or prophet_step and step_interval_ms_bs64)"
            : col_r < 0 && col_iv < 0    ? "step_interval_ms_bs64 (with prophet_step)"
                                         : NULL;
        if (missing) {
            rc = slo_fail(err, SLO_ERR_INVALID, where,
                          "header: expected a column %s (a gradient ready-time file), found "
                          "columns \"%.200s%s\"",
                          missing, rec_get(&rec, 0), rec.n > 1 ? ", ..." : "");
            goto out;
        }
        if (col_r >= 0 && col_k >= 0) {
            rc = slo_fail(err, SLO_ERR_INVALID, where,
                          "header: expected one of ready_ms or prophet_step, found both");
            goto out;
        }
    }
    while (*p) {
        size_t row_line = line;
        struct grad_row *g;
        long gi;
        q = read_record(&p, &line, &rec);
        snprintf(where, sizeof where, "%s:%zu", source, row_line);
        if (q == -1) {
            rc = slo_fail(err, SLO_ERR_NOMEM, where, "out of memory");
            goto out;
        }
        if (q == -2) {
            rc = slo_fail(err, SLO_ERR_INVALID, where,
                          "expected a closing double quote, found the end of the file");
            goto out;
        }
        if (blank_record(&rec))
            continue;
        if (rec.n != n_cols) {
            rc = slo_fail(err, SLO_ERR_INVALID, where,
                          "expected %zu fields as in the header, found %zu", n_cols, rec.n);
            goto out;
        }
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 64;
            struct grad_row *nr = realloc(rows, ncap * sizeof *nr);
            if (!nr) {
                rc = slo_fail(err, SLO_ERR_NOMEM, where, "out of memory");
                goto out;
            }
            rows = nr;
            cap = ncap;
        }
        g = &rows[n];
        memset(g, 0, sizeof *g);
        g->line = row_line;
        g->step = -1;
        if (index_field(rec_get(&rec, (size_t)col_gi), &gi) || (size_t)gi != n) {
            rc = slo_fail(err, SLO_ERR_INVALID, where,
                          "column grad_index: expected %zu (rows in index order 0, 1, ...), "
                          "found \"%.40s\"",
                          n, rec_get(&rec, (size_t)col_gi));
            goto out;
        }
        if (number_field(rec_get(&rec, (size_t)col_s), &g->bytes) || g->bytes < 0) {
            rc = slo_fail(err, SLO_ERR_INVALID, where,
                          "column %s: expected a number >= 0, found \"%.40s\"", size_name,
                          rec_get(&rec, (size_t)col_s));
            goto out;
        }
        if (col_r >= 0) {
            const char *f = rec_get(&rec, (size_t)col_r);
            if (number_field(f, &g->ready_ms) || g->ready_ms < 0) {
                rc = slo_fail(err, SLO_ERR_INVALID, where,
                              "column ready_ms: expected a number >= 0, found \"%.40s\"", f);
                goto out;
            }
            if (n > 0 && g->ready_ms > rows[n - 1].ready_ms) {
                rc = slo_fail(err, SLO_ERR_INVALID, where,
                              "column ready_ms: expected a time <= the previous row's %g "
                              "(backward produces the highest index first), found %g",
                              rows[n - 1].ready_ms, g->ready_ms);
                goto out;
            }
        } else {
            const char *f = rec_get(&rec, (size_t)col_k);
            const char *fi = rec_get(&rec, (size_t)col_iv);
            if (index_field(f, &g->step) ||
                (n > 0 && g->step != rows[n - 1].step && g->step != rows[n - 1].step - 1)) {
                if (n > 0)
                    rc = slo_fail(err, SLO_ERR_INVALID, where,
                                  "column prophet_step: expected %ld or %ld (a step is a "
                                  "range of consecutive indices; arrival step 0 holds the "
                                  "highest), found \"%.40s\"",
                                  rows[n - 1].step, rows[n - 1].step - 1, f);
                else
                    rc = slo_fail(err, SLO_ERR_INVALID, where,
                                  "column prophet_step: expected an integer >= 0, found "
                                  "\"%.40s\"", f);
                goto out;
            }
            if (number_field(fi, &g->interval_ms) || g->interval_ms < 0) {
                rc = slo_fail(err, SLO_ERR_INVALID, where,
                              "column %s: expected a number >= 0, found \"%.40s\"", iv_name,
                              fi);
                goto out;
            }
            if (n > 0 && g->step == rows[n - 1].step &&
                g->interval_ms != rows[n - 1].interval_ms) {
                rc = slo_fail(err, SLO_ERR_INVALID, where,
                              "column %s: expected %g as in the other rows of step %ld, "
                              "found %g",
                              iv_name, rows[n - 1].interval_ms, g->step, g->interval_ms);
                goto out;
            }
        }
        if (col_name >= 0)
            snprintf(g->name, sizeof g->name, "%s", rec_get(&rec, (size_t)col_name));
        if (g->bytes > 0)
            any_bytes = 1;
        n++;
    }
    if (n == 0) {
        rc = slo_fail(err, SLO_ERR_INVALID, source,
                      "expected at least one gradient row after the header, found none");
        goto out;
    }
    if (!any_bytes) {
        rc = slo_fail(err, SLO_ERR_INVALID, source,
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
            rc = slo_fail(err, SLO_ERR_INVALID, where,
                          "column prophet_step: expected 0 in the last row (the highest "
                          "indices arrive first), found %ld",
                          rows[n - 1].step);
            goto out;
        }
        arrive = calloc((size_t)K, sizeof *arrive);
        if (!arrive) {
            rc = slo_fail(err, SLO_ERR_NOMEM, source, "out of memory");
            goto out;
        }
        for (size_t i = n; i-- > 0;)
            if (i + 1 == n || rows[i].step != rows[i + 1].step) {
                long k = rows[i].step;
                arrive[k] = k == 0 ? 0 : arrive[k - 1] + rows[i + 1].interval_ms;
            }
        for (size_t i = 0; i < n; i++)
            rows[i].ready_ms = arrive[rows[i].step];
    }
    layers = calloc(n, sizeof *layers);
    if (!layers) {
        rc = slo_fail(err, SLO_ERR_NOMEM, source, "out of memory");
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
    free(rec.buf);
    free(rec.start);
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
        return slo_fail(err, SLO_ERR_NOT_FOUND, "model",
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
    "a number with a unit: bits (10Gbit, 10Gb/s, 10Gbps, 100Mbit/s) or bytes per second "
    "(1.25GB/s, 1250MB/s, 1GiB/s)";

int slo_comm_parse_bandwidth(const char *text, double *bytes_per_s, slo_error_t *err)
{
    const char *src = "bandwidth";
    char *end;
    double v, scale = 1;
    const char *u;
    static const char *const bit_units[] = {"bit", "bit/s", "bits", "bits/s", "b", "b/s",
                                            "bps", NULL};
    static const char *const byte_units[] = {"B", "B/s", "Bps", "byte/s", "bytes/s", NULL};
    int bits = -1;

    if (!text || !*text)
        return slo_fail(err, SLO_ERR_INVALID, src, "expected %s, found an empty value",
                        bandwidth_forms);
    errno = 0;
    v = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(v))
        return slo_fail(err, SLO_ERR_INVALID, src, "expected %s, found \"%s\"",
                        bandwidth_forms, text);
    u = end;
    while (*u == ' ')
        u++;
    if (!*u)
        return slo_fail(err, SLO_ERR_INVALID, src, "expected %s, found \"%s\" (no unit)",
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
        u++;
    }
    for (size_t i = 0; bit_units[i]; i++)
        if (!strcmp(u, bit_units[i]))
            bits = 1;
    for (size_t i = 0; byte_units[i]; i++)
        if (!strcmp(u, byte_units[i]))
            bits = 0;
    if (bits < 0)
        return slo_fail(err, SLO_ERR_INVALID, src, "expected %s, found \"%s\" (unknown unit)",
                        bandwidth_forms, text);
    v *= scale;
    if (bits)
        v /= 8;
    if (!(v > 0) || !isfinite(v))
        return slo_fail(err, SLO_ERR_INVALID, src, "expected a bandwidth > 0, found \"%s\"",
                        text);
    *bytes_per_s = v;
    return SLO_OK;
}

int slo_comm_parse_latency(const char *text, double *s, slo_error_t *err)
{
    const char *src = "latency";
    static const char forms[] = "a number with a unit s, ms, us or ns (20us, 0.05ms)";
    char *end;
    double v, scale;
    const char *u;

    if (!text || !*text)
        return slo_fail(err, SLO_ERR_INVALID, src, "expected %s, found an empty value", forms);
    errno = 0;
    v = strtod(text, &end);
    if (end == text || errno == ERANGE || !isfinite(v))
        return slo_fail(err, SLO_ERR_INVALID, src, "expected %s, found \"%s\"", forms, text);
    u = end;
    while (*u == ' ')
        u++;
    if (!strcmp(u, "s"))
        scale = 1;
    else if (!strcmp(u, "ms"))
        scale = 1e-3;
    else if (!strcmp(u, "us") || !strcmp(u, "\xc2\xb5s"))
        scale = 1e-6;
    else if (!strcmp(u, "ns"))
        scale = 1e-9;
    else
        return slo_fail(err, SLO_ERR_INVALID, src, "expected %s, found \"%s\"%s", forms, text,
                        *u ? " (unknown unit)" : " (no unit)");
    if (v < 0)
        return slo_fail(err, SLO_ERR_INVALID, src, "expected a latency >= 0, found \"%s\"",
                        text);
    *s = v * scale;
    return SLO_OK;
}
