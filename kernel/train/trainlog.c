/*
 * trainlog.c - per-worker training logs (CSV, doc/formats.md "Training logs")
 * and their conversion into loss samples for slo_fit_loss (research notes
 * 1.11; spotDNN Eq. 4 for the measured weighted-average batch).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_csv.h"
#include "slo_private.h"

#define MAX_FIELD_SHOWN 40
#define MAX_COLUMNS 1024

/* Required columns first (N_REQ), then the optional ones StepLogger writes
 * (python/slo/trainlog.py): step_s (the step's wall time, s), batch (the
 * worker's samples per step), type (the worker's instance type). */
enum { COL_TIME, COL_STEP, COL_SAMPLES, COL_LOSS, N_REQ, COL_STEP_S = N_REQ, COL_BATCH,
       COL_TYPE, N_COLS };
static const char *const col_names[N_COLS] = {"time_s", "global_step", "global_samples",
                                              "loss", "step_s", "batch", "type"};
/* Largest value of each column (the smallest is 0): time_s 1e11 s (wall
 * clock seconds since 1970 are allowed, up to the year 5138); the PS's counts
 * 1e15 (below 2^53, so exact in a double); loss 1e6. Beyond these nothing is
 * physical and the fit's sums could overflow (issue 15). */
static const double col_max[N_COLS] = {1e11, 1e15, 1e15, 1e6, 1e6, 1 << 30, 0};

/* Parser state for one file. */
struct log_reader {
    const char *path;
    size_t line;              /* line the current record starts on, from 1 */
    int have_header;
    size_t n_fields;          /* fields per row, from the header */
    size_t col[N_COLS];       /* field index of each column */
    int has[N_COLS];          /* 1 when the header has the column */
    struct slo__csv_record header; /* the header's fields, once read */
    size_t cap;
    struct slo_train_log *log;
    slo_error_t *err;
};

/* ------------------------------------------------------------------ */
/* Small string helpers                                                */
/* ------------------------------------------------------------------ */

/* Trim spaces and tabs at the start and spaces, tabs and CRs at the end of
 * [s, s+len); returns the new start. */
static const char *trim(const char *s, size_t *len)
{
    while (*len && (s[0] == ' ' || s[0] == '\t'))
        s++, (*len)--;
    while (*len && (s[*len - 1] == ' ' || s[*len - 1] == '\t' || s[*len - 1] == '\r'))
        (*len)--;
    return s;
}

/* Trim every field of the record in place (the rule of trim). */
static void trim_fields(struct slo__csv_record *rec)
{
    for (size_t i = 0; i < rec->n; i++) {
        size_t len = strlen(slo__csv_get(rec, i));
        const char *t = trim(slo__csv_get(rec, i), &len);
        rec->start[i] = (size_t)(t - rec->buf);
        rec->buf[rec->start[i] + len] = '\0';
    }
}

/* 1 when [s, e) holds only spaces, tabs, CRs and LFs (a blank line). */
static int blank_span(const char *s, const char *e)
{
    for (; s < e; s++)
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
            return 0;
    return 1;
}

/* ------------------------------------------------------------------ */
/* Cluster specs: "TYPE=N,TYPE=N" (slo_cluster_parse)                  */
/* ------------------------------------------------------------------ */

static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct slo_cluster_entry *)a)->type,
                  ((const struct slo_cluster_entry *)b)->type);
}

/* Parse spec (slo_cluster_parse) with worker counts 1..100000, entries
 * sorted by type name; why gets the reason on failure. */
static int parse_cluster(const char *spec, struct slo_cluster *c, char *why, size_t wlen)
{
    slo_error_t e = {0};

    if (slo_cluster_parse(spec, c, &e)) {
        snprintf(why, wlen, "%s", e.text);
        return -1;
    }
    for (size_t i = 0; i < c->n; i++)
        if (c->entry[i].count < 1 || c->entry[i].count > 100000) {
            snprintf(why, wlen, "expected a worker count >= 1 for %s, found \"%s\"",
                     c->entry[i].type, c->entry[i].count_text);
            return -1;
        }
    qsort(c->entry, c->n, sizeof c->entry[0], cmp_entry);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Reading one log                                                     */
/* ------------------------------------------------------------------ */

/* "# cluster: ..." comment (line, trimmed, starts with '#'): returns 1 and
 * sets *value when line is one. */
static int is_cluster_comment(const char *line, size_t len, const char **value, size_t *vlen)
{
    static const char key[] = "cluster:";
    const char *p = line + 1;
    size_t rest = len - 1;

    p = trim(p, &rest);
    if (rest < sizeof key - 1 || strncmp(p, key, sizeof key - 1) != 0)
        return 0;
    *vlen = rest - (sizeof key - 1);
    *value = trim(p + sizeof key - 1, vlen);
    return 1;
}

static int read_cluster_line(struct log_reader *r, const char *value, size_t vlen)
{
    struct slo_cluster c;
    char spec[512], why[SLO_ERROR_TEXT_LENGTH];

    if (r->have_header)
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu: expected the \"# cluster:\" comment before the header, "
                        "found it after",
                        r->line);
    if (r->log->cluster[0])
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu: expected one \"# cluster:\" comment, found a second", r->line);
    if (vlen >= sizeof spec)
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu, cluster: expected at most %zu characters, found %zu",
                        r->line, sizeof spec - 1, vlen);
    snprintf(spec, sizeof spec, "%.*s", (int)vlen, value);
    if (parse_cluster(spec, &c, why, sizeof why))
        return slo__fail(r->err, SLO_ERR_INVALID, r->path, "line %zu, cluster: %s", r->line,
                        why);
    if (slo_cluster_format(&c, '=', r->log->cluster, sizeof r->log->cluster))
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu, cluster: expected at most %zu characters, found more",
                        r->line, sizeof r->log->cluster - 1);
    r->log->cluster_line = r->line;
    return SLO_OK;
}

/* "# model: NAME" and "# parameter_bytes: N" (StepLogger's model and
 * parameter_bytes): each at most once, before the header; other comments are
 * ignored. */
static int read_model_comment(struct log_reader *r, const char *t, size_t len)
{
    static const char km[] = "model:", kb[] = "parameter_bytes:";
    const char *p = t + 1;
    size_t rest = len - 1;
    int is_model;

    p = trim(p, &rest);
    if (rest >= sizeof km - 1 && strncmp(p, km, sizeof km - 1) == 0)
        is_model = 1;
    else if (rest >= sizeof kb - 1 && strncmp(p, kb, sizeof kb - 1) == 0)
        is_model = 0;
    else
        return SLO_OK;
    size_t klen = is_model ? sizeof km - 1 : sizeof kb - 1, vlen = rest - klen;
    const char *v = trim(p + klen, &vlen);
    const char *key = is_model ? "model" : "parameter_bytes";
    if (r->have_header)
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu: expected the \"# %s:\" comment before the header, found it "
                        "after",
                        r->line, key);
    if (is_model ? r->log->model_line != 0 : r->log->bytes_line != 0)
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu: expected one \"# %s:\" comment, found a second (first on "
                        "line %zu)",
                        r->line, key, is_model ? r->log->model_line : r->log->bytes_line);
    if (is_model) {
        if (vlen == 0 || vlen >= sizeof r->log->model)
            return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                            "line %zu, model: expected a name of 1 to %zu characters, found %zu",
                            r->line, sizeof r->log->model - 1, vlen);
        snprintf(r->log->model, sizeof r->log->model, "%.*s", (int)vlen, v);
        r->log->model_line = r->line;
        return SLO_OK;
    }
    char num[64], *end;
    double x = NAN;
    if (vlen > 0 && vlen < sizeof num) {
        snprintf(num, sizeof num, "%.*s", (int)vlen, v);
        x = slo_strtod(num, &end);
        if (*end != '\0')
            x = NAN;
    }
    if (!(x >= 1 && x <= 1e13 && x == floor(x)))
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu, parameter_bytes: expected a whole number of bytes in [1, "
                        "1e13], found \"%.*s\"",
                        r->line, vlen > MAX_FIELD_SHOWN ? MAX_FIELD_SHOWN : (int)vlen, v);
    r->log->parameter_bytes = x;
    r->log->bytes_line = r->line;
    return SLO_OK;
}

/* A comment line (raw text from its '#' on): the cluster comment, the model
 * comments, or ignored. */
static int read_comment(struct log_reader *r, const char *text, size_t len)
{
    const char *value;
    size_t vlen;
    const char *t = trim(text, &len);

    if (is_cluster_comment(t, len, &value, &vlen))
        return read_cluster_line(r, value, vlen);
    return read_model_comment(r, t, len);
}

static int read_header(struct log_reader *r, const struct slo__csv_record *rec)
{
    if (!r->log->cluster[0])
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu: expected a \"# cluster: TYPE=N,...\" comment before the "
                        "header, found the header first",
                        r->line);
    if (rec->n > MAX_COLUMNS)
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu: expected at most %d columns, found %zu", r->line,
                        MAX_COLUMNS, rec->n);
    for (int c = 0; c < N_COLS; c++) {
        int found = 0;
        for (size_t i = 0; i < rec->n; i++) {
            if (strcmp(slo__csv_get(rec, i), col_names[c]) != 0)
                continue;
            if (found)
                return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                                "line %zu: expected column %s once, found it twice", r->line,
                                col_names[c]);
            r->col[c] = i;
            found = 1;
        }
        r->has[c] = found;
        if (!found && c < N_REQ)
            return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                            "line %zu: expected a header with columns time_s, global_step, "
                            "global_samples, loss; column %s is missing",
                            r->line, col_names[c]);
    }
    r->log->has_step_s = r->has[COL_STEP_S];
    r->n_fields = rec->n;
    r->have_header = 1;
    return SLO_OK;
}

/* Parse the number in field f (trimmed) of column c. */
static int parse_value(struct log_reader *r, int c, const char *f, double *out)
{
    size_t len = strlen(f);
    char *end;

    if (len > 0 && len < 64) {
        *out = slo_strtod(f, &end);
        if (*end == '\0' && isfinite(*out) && *out >= 0 && *out <= col_max[c])
            return SLO_OK;
        if (*end == '\0' && isfinite(*out) && *out >= 0)
            return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                            "line %zu, column %s: expected a number in [0, %g], found \"%.*s\"",
                            r->line, col_names[c], col_max[c],
                            len > MAX_FIELD_SHOWN ? MAX_FIELD_SHOWN : (int)len, f);
    }
    return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                    "line %zu, column %s: expected a number >= 0, found \"%.*s\"", r->line,
                    col_names[c], len > MAX_FIELD_SHOWN ? MAX_FIELD_SHOWN : (int)len, f);
}

static int grow(struct log_reader *r)
{
    struct slo_train_log *log = r->log;
    size_t ncap = r->cap ? 2 * r->cap : 256;
    double **arrays[N_REQ + 1] = {&log->time_s, &log->global_step, &log->global_samples,
                                  &log->loss, &log->step_s};

    for (int c = 0; c < N_REQ + 1; c++) {
        double *p = realloc(*arrays[c], ncap * sizeof *p);
        if (!p)
            return slo__fail(r->err, SLO_ERR_NOMEM, r->path, "out of memory at line %zu",
                            r->line);
        *arrays[c] = p;
    }
    r->cap = ncap;
    return SLO_OK;
}

/* The optional batch and type columns: one value per log (a worker has one
 * type and one batch), the type one of the cluster comment's. */
static int read_extras(struct log_reader *r, const struct slo__csv_record *rec,
                       const double *v)
{
    struct slo_train_log *log = r->log;

    if (r->has[COL_BATCH]) {
        if (v[COL_BATCH] < 1 || v[COL_BATCH] != floor(v[COL_BATCH]))
            return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                            "line %zu, column batch: expected a whole number of samples >= 1, "
                            "found %.17g",
                            r->line, v[COL_BATCH]);
        if (log->n_rows && v[COL_BATCH] != log->batch)
            return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                            "line %zu, column batch: expected the same batch on every row of "
                            "one worker's log (%.17g), found %.17g",
                            r->line, log->batch, v[COL_BATCH]);
        log->batch = v[COL_BATCH];
    }
    if (r->has[COL_TYPE]) {
        const char *t = slo__csv_get(rec, r->col[COL_TYPE]);
        if (log->n_rows && strcmp(t, log->type) != 0)
            return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                            "line %zu, column type: expected the same instance type on every "
                            "row of one worker's log (%s), found \"%.*s\"",
                            r->line, log->type, MAX_FIELD_SHOWN, t);
        if (!log->n_rows) {
            struct slo_cluster c;
            char why[SLO_ERROR_TEXT_LENGTH];
            int in = 0;
            if (parse_cluster(log->cluster, &c, why, sizeof why) == 0)
                for (size_t i = 0; i < c.n; i++)
                    in |= strcmp(c.entry[i].type, t) == 0;
            if (!in)
                return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                                "line %zu, column type: expected one of the cluster's types "
                                "(%s, line %zu), found \"%.*s\"",
                                r->line, log->cluster, log->cluster_line, MAX_FIELD_SHOWN, t);
            snprintf(log->type, sizeof log->type, "%s", t);
        }
    }
    return SLO_OK;
}

static int read_row(struct log_reader *r, const struct slo__csv_record *rec)
{
    struct slo_train_log *log = r->log;
    double v[N_COLS] = {0};
    int rv;

    if (rec->n != r->n_fields)
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu: expected %zu fields as in the header, found %zu", r->line,
                        r->n_fields, rec->n);
    for (int c = 0; c < COL_TYPE; c++)
        if (r->has[c] && (rv = parse_value(r, c, slo__csv_get(rec, r->col[c]), &v[c])))
            return rv;
    if ((rv = read_extras(r, rec, v)))
        return rv;
    if (log->n_rows && v[COL_TIME] < log->time_s[log->n_rows - 1])
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu, column time_s: expected a value >= %.17g (the previous "
                        "row's; time must not go back), found %.17g",
                        r->line, log->time_s[log->n_rows - 1], v[COL_TIME]);
    if (log->n_rows && v[COL_STEP] < log->global_step[log->n_rows - 1])
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu, column global_step: expected a value >= %.17g (the "
                        "previous row's; global_step must not decrease), found %.17g",
                        r->line, log->global_step[log->n_rows - 1], v[COL_STEP]);
    if (log->n_rows && v[COL_SAMPLES] < log->global_samples[log->n_rows - 1])
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu, column global_samples: expected a value >= %.17g (the "
                        "previous row's; the PS's sample count must not decrease), found %.17g",
                        r->line, log->global_samples[log->n_rows - 1], v[COL_SAMPLES]);
    if (v[COL_SAMPLES] < v[COL_STEP])
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu, column global_samples: expected at least global_step (%.17g; "
                        "every parameter update uses a batch of >= 1 sample), found %.17g",
                        r->line, v[COL_STEP], v[COL_SAMPLES]);
    if (log->n_rows == r->cap && (rv = grow(r)))
        return rv;
    log->time_s[log->n_rows] = v[COL_TIME];
    log->global_step[log->n_rows] = v[COL_STEP];
    log->global_samples[log->n_rows] = v[COL_SAMPLES];
    log->loss[log->n_rows] = v[COL_LOSS];
    log->step_s[log->n_rows] = r->has[COL_STEP_S] ? v[COL_STEP_S] : 0;
    log->n_rows++;
    return SLO_OK;
}

/* The quote of field i (from 0) of the record on r->line is not closed:
 * name the column (its header name) or, in the header, the field. */
static int open_quote(struct log_reader *r, size_t i)
{
    static const char what[] = "expected a closing double quote, found the end of the file";

    if (!r->have_header)
        return slo__fail(r->err, SLO_ERR_INVALID, r->path, "line %zu, field %zu: %s", r->line,
                        i + 1, what);
    if (i >= r->header.n)
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu, field %zu (the header has %zu): %s", r->line, i + 1,
                        r->header.n, what);
    return slo__fail(r->err, SLO_ERR_INVALID, r->path, "line %zu, column %.*s: %s", r->line,
                    MAX_FIELD_SHOWN, slo__csv_get(&r->header, i), what);
}

/* One record at *p (advanced past it): a comment line, a blank line, the
 * header or a row. */
static int read_one(struct log_reader *r, const char **p, size_t *line,
                    struct slo__csv_record *rec)
{
    const char *text, *from = *p;
    size_t len;
    int q;

    r->line = *line;
    if (slo__csv_comment(p, line, '#', &text, &len))
        return read_comment(r, text, len);
    q = slo__csv_read_record(p, line, rec);
    if (q == -1)
        return slo__fail(r->err, SLO_ERR_NOMEM, r->path, "out of memory at line %zu", r->line);
    if (q == -2)
        return open_quote(r, rec->n - 1);
    if (blank_span(from, *p))
        return SLO_OK;
    trim_fields(rec);
    if (r->have_header)
        return read_row(r, rec);
    if ((q = read_header(r, rec)))
        return q;
    /* keep the header's names for later messages; rec starts afresh */
    r->header = *rec;
    memset(rec, 0, sizeof *rec);
    return SLO_OK;
}

/* The file's records through the kernel's CSV reader (slo_csv.h). */
static int read_records(struct log_reader *r, const char *text)
{
    struct slo__csv_record rec = {0};
    const char *p = slo__csv_skip_bom(text), *body = p;
    size_t line = 1;
    int rv = SLO_OK;

    while (*p && !rv)
        rv = read_one(r, &p, &line, &rec);
    slo__csv_free(&rec);
    slo__csv_free(&r->header);
    if (rv)
        return rv;
    /* the line after the last one: a last line without a newline counts */
    if (*body && p[-1] != '\n')
        line++;
    if (!r->have_header)
        return slo__fail(r->err, SLO_ERR_INVALID, r->path,
                        "line %zu: expected %sa header line with columns time_s, global_step, "
                        "global_samples, loss, found the end of the file",
                        line, r->log->cluster[0] ? "" : "a \"# cluster: TYPE=N,...\" "
                                                        "comment and ");
    return SLO_OK;
}

/*
 * slo_train_log_load - read one per-worker CSV training log (format:
 * doc/formats.md "Training logs"). On success log owns [n_rows] arrays of
 * time_s (s), global_step (PS updates), global_samples (samples) and loss,
 * and log->cluster holds the normalized "TYPE=N,..." spec (sorted by type,
 * no spaces). Errors (source = path, text "line L[, column C]: expected ...,
 * found ..."): SLO_ERR_IO, SLO_ERR_INVALID, SLO_ERR_NOMEM; log is left empty.
 */
int slo_train_log_load(const char *path, struct slo_train_log *log, slo_error_t *err)
{
    struct log_reader r;
    char *text;
    int rv;

    memset(log, 0, sizeof *log);
    if ((rv = slo__read_file(path, &text, err)))
        return rv;
    memset(&r, 0, sizeof r);
    r.path = path;
    r.log = log;
    r.err = err;
    snprintf(log->source, sizeof log->source, "%s", path);
    rv = read_records(&r, text);
    free(text);
    if (rv)
        slo_train_log_free(log);
    return rv;
}

void slo_train_log_free(struct slo_train_log *log)
{
    if (!log)
        return;
    free(log->time_s);
    free(log->global_step);
    free(log->global_samples);
    free(log->loss);
    free(log->step_s);
    memset(log, 0, sizeof *log);
}

/* ------------------------------------------------------------------ */
/* Logs to loss samples                                                */
/* ------------------------------------------------------------------ */

/* One profiling run: the logs sharing a cluster string. */
struct run_info {
    double bw, cc;
    int n_workers;
};

/* Index of the setup type named name, or -1. */
static int setup_find(const struct slo_train_setup *s, const char *name)
{
    for (size_t k = 0; k < s->n_types; k++)
        if (strcmp(s->types[k].name, name) == 0)
            return (int)k;
    return -1;
}

/* R of the cluster (Eq. 5) from the per-worker speeds b^k / T^k (Eqs. 6-8). */
static int cluster_cc(const struct slo_train_setup *s, const struct slo_cluster_entry *e,
                      size_t ne, int n, const char *src, double *cc, slo_error_t *err)
{
    double *speeds = malloc((size_t)n * sizeof *speeds);
    size_t w = 0;

    if (!speeds)
        return slo__fail(err, SLO_ERR_NOMEM, src, "out of memory");
    for (size_t i = 0; i < ne; i++) {
        int k = setup_find(s, e[i].type);
        if (k < 0) {
            free(speeds);
            return slo__fail(err, SLO_ERR_INVALID, src,
                            "cluster: instance type %s is not in the catalog and workload "
                            "(needed for the convergence coefficient R); expected one of the "
                            "setup's %zu types",
                            e[i].type, s->n_types);
        }
        double v = s->types[k].batch / slo_train_iteration_time(s, (size_t)k, n);
        for (int c = 0; c < e[i].count; c++)
            speeds[w++] = v;
    }
    *cc = slo_convergence_coefficient(speeds, w);
    free(speeds);
    return SLO_OK;
}

/* Measured b_w, n and R of the run whose first log is logs[first]. */
static int run_of(const struct slo_train_log *logs, size_t n_logs, size_t first,
                  const struct slo_train_setup *s, int need_cc, struct run_info *run,
                  slo_error_t *err)
{
    const struct slo_train_log *lg = &logs[first];
    struct slo_cluster c;
    double max_step = 0, max_samples = 0;
    char why[SLO_ERROR_TEXT_LENGTH];

    for (size_t i = first; i < n_logs; i++) {
        if (strcmp(logs[i].cluster, lg->cluster) != 0)
            continue;
        for (size_t r = 0; r < logs[i].n_rows; r++) {
            max_step = fmax(max_step, logs[i].global_step[r]);
            max_samples = fmax(max_samples, logs[i].global_samples[r]);
        }
    }
    if (!(max_step > 0 && max_samples > 0))
        return slo__fail(err, SLO_ERR_INVALID, lg->source,
                        "cluster %s: expected rows with global_step > 0 and global_samples "
                        "> 0 in its logs, found none",
                        lg->cluster);
    if (parse_cluster(lg->cluster, &c, why, sizeof why))
        return slo__fail(err, SLO_ERR_INVALID, lg->source, "cluster: %s", why);
    run->bw = max_samples / max_step; /* Eq. 4: samples per PS update */
    run->n_workers = 0;
    for (size_t i = 0; i < c.n; i++)
        run->n_workers += (int)c.entry[i].count;
    run->cc = 0;
    if (!need_cc)
        return SLO_OK;
    if (!s)
        return slo__fail(err, SLO_ERR_INVALID, lg->source,
                        "expected a model setup to compute the convergence coefficient R, "
                        "found none");
    return cluster_cc(s, c.entry, c.n, run->n_workers, lg->source, &run->cc, err);
}

/* Index of the first log with the same cluster as logs[i]. */
static size_t first_of_cluster(const struct slo_train_log *logs, size_t i)
{
    size_t f = 0;
    while (strcmp(logs[f].cluster, logs[i].cluster) != 0)
        f++;
    return f;
}

/* Append log's rows with global_samples > 0 as samples of run. */
static void append_samples(const struct slo_train_log *log, const struct run_info *run,
                           struct slo_loss_sample *out, size_t *n_out)
{
    for (size_t r = 0; r < log->n_rows; r++) {
        if (log->global_samples[r] == 0)
            continue;
        struct slo_loss_sample *p = &out[(*n_out)++];
        p->iterations = log->global_samples[r] / run->bw;
        p->wa_batch = run->bw;
        p->cc = run->cc;
        p->n_workers = run->n_workers;
        p->loss = log->loss[r];
    }
}

/*
 * slo_train_logs_to_samples - loss samples from per-worker logs[n_logs].
 * Logs with the same cluster string form one profiling run: b_w = max
 * global_samples / max global_step over its logs (samples per PS update,
 * Eq. 4), n = the sum of the spec's counts, R = Eq. 5 over the per-worker
 * speeds b^k / T^k(n) of the setup s (Eqs. 6-8) when need_cc, else 0 (s may
 * then be NULL). Every row with global_samples > 0 becomes a sample with
 * iterations = global_samples / b_w. *out is malloc'd [*n_out], in log and
 * row order. Errors: SLO_ERR_INVALID (no logs, a run
 * with no rows, an unknown type when R is needed), SLO_ERR_NOMEM.
 */
int slo_train_logs_to_samples(const struct slo_train_log *logs, size_t n_logs,
                              const struct slo_train_setup *s, int need_cc,
                              struct slo_loss_sample **out, size_t *n_out,
                              slo_error_t *err)
{
    struct run_info *runs;
    size_t total = 0;
    int rv = SLO_OK;

    *out = NULL;
    *n_out = 0;
    if (n_logs == 0)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected at least one training log");
    runs = malloc(n_logs * sizeof *runs);
    for (size_t i = 0; runs && i < n_logs; i++)
        total += logs[i].n_rows;
    *out = runs ? malloc((total ? total : 1) * sizeof **out) : NULL;
    if (!*out) {
        free(runs);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    for (size_t i = 0; i < n_logs && !rv; i++) {
        size_t f = first_of_cluster(logs, i);
        if (f == i)
            rv = run_of(logs, n_logs, i, s, need_cc, &runs[i], err);
        if (!rv)
            append_samples(&logs[i], &runs[f], *out, n_out);
    }
    free(runs);
    if (rv) {
        free(*out);
        *out = NULL;
        *n_out = 0;
    }
    return rv;
}
