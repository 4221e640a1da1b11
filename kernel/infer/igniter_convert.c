/*
 * igniter_convert.c - the standard profiling tools' CSV outputs read into the
 * figures of an inference GPU profile (issue 19, item 1; `slo convert`):
 * Triton perf_analyzer -f CSV, nvidia-smi --query-gpu --format=csv and Nsight
 * Compute --csv, read with libslo's CSV reader (kernel/core/csv.c).
 * Declared in slo_infer.h ("Converters"); doc/infer.md "Profiling your GPU".
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_csv.h"
#include "slo_infer.h"
#include "slo_private.h"

/* A tool's CSV text: its header and the reader's position. */
struct table {
    const char *source;
    const char *p;             /* the next row */
    size_t line;               /* its line */
    size_t header_line;
    struct slo__csv_record hdr, rec;
    char where[SLO_ERROR_SOURCE_LENGTH]; /* "source:line" of the last row read */
};

static void table_free(struct table *t)
{
    slo__csv_free(&t->hdr);
    slo__csv_free(&t->rec);
}

/* Does the line [s, s + len) contain want? */
static int line_has(const char *s, size_t len, const char *want)
{
    size_t n = strlen(want);
    for (size_t i = 0; n <= len && i <= len - n; i++)
        if (!strncmp(s + i, want, n))
            return 1;
    return 0;
}

/* Open text as CSV whose header is the first line containing want (the
 * tools print banners before it: ncu's "==PROF==" lines); the header's
 * fields are trimmed. SLO_OK or SLO_ERR_INVALID / SLO_ERR_NOMEM (err). */
static int table_open(const char *text, const char *source, const char *want, struct table *t,
                      slo_error_t *err)
{
    const char *p = slo__csv_skip_bom(text);
    int rv;

    memset(t, 0, sizeof *t);
    t->source = source;
    t->line = 1;
    for (;;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (!*p)
            return slo__fail(err, SLO_ERR_INVALID, source,
                             "expected a CSV header with \"%s\", found none", want);
        if (line_has(p, len, want))
            break;
        p += len + (nl != NULL);
        t->line++;
    }
    t->p = p;
    if ((rv = slo__csv_read_header(&t->p, &t->line, &t->hdr, source, want, t->where,
                                   sizeof t->where, err))) {
        table_free(t);
        return rv;
    }
    slo__csv_trim_fields(&t->hdr);
    t->header_line = t->line - 1;
    return SLO_OK;
}

/* The next data row into t->rec (fields trimmed) with f[k] = its field in
 * column cols[k] for k < n (cols from table_columns): 1, or 0 at the end, or
 * -1 with *rc and err set (another field count than the header, an open
 * quote: SLO_ERR_INVALID naming "source:line"; SLO_ERR_NOMEM). */
static int table_row(struct table *t, const long *cols, size_t n, const char **f, int *rc,
                     slo_error_t *err)
{
    while (*t->p) {
        size_t row_line;
        int is_row;
        if ((*rc = slo__csv_next_row(&t->p, &t->line, &t->rec, t->source, t->hdr.n, &row_line,
                                     t->where, sizeof t->where, &is_row, err)))
            return -1;
        if (is_row) {
            slo__csv_trim_fields(&t->rec);
            for (size_t k = 0; k < n; k++)
                f[k] = slo__csv_get(&t->rec, (size_t)cols[k]);
            return 1;
        }
    }
    return 0;
}

/* Column whose header is name, or name followed by " [" (nvidia-smi's
 * "power.draw [W]"); -1 if none. */
static long column(const struct table *t, const char *name)
{
    size_t n = strlen(name);
    for (size_t k = 0; k < t->hdr.n; k++) {
        const char *h = slo__csv_get(&t->hdr, k);
        if (!strcmp(h, name) || (!strncmp(h, name, n) && !strncmp(h + n, " [", 2)))
            return (long)k;
    }
    return -1;
}

/* The header's columns are missing one of names[n]: the error at the
 * header line naming the first missing one and the columns found. */
static int missing_column(struct table *t, const char *expected, const char *const *names,
                          const long *cols, size_t n, slo_error_t *err)
{
    char list[160], where[SLO_ERROR_SOURCE_LENGTH];
    size_t k = 0;
    while (k + 1 < n && cols[k] >= 0)
        k++;
    slo__csv_list_columns(&t->hdr, list, sizeof list);
    snprintf(where, sizeof where, "%s:%zu", t->source, t->header_line);
    return slo__fail(err, SLO_ERR_INVALID, where,
                     "expected %s, found no \"%s\" column (header: %s)", expected, names[k],
                     list);
}

/* table_open on the header line containing anchor, then cols[k] = the
 * column of names[k] for k < n: 0, or the error (SLO_ERR_INVALID from
 * table_open, or missing_column with expected) with *t freed. */
static int table_columns(const char *text, const char *source, const char *anchor,
                         const char *const *names, size_t n, const char *expected, long *cols,
                         struct table *t, slo_error_t *err)
{
    int rv = table_open(text, source, anchor, t, err);
    if (rv)
        return rv;
    for (size_t k = 0; k < n; k++)
        cols[k] = column(t, names[k]);
    for (size_t k = 0; k < n; k++)
        if (cols[k] < 0) {
            rv = missing_column(t, expected, names, cols, n, err);
            table_free(t);
            return rv;
        }
    return SLO_OK;
}

/* A number with an optional unit suffix (nvidia-smi "250.12 W") and
 * thousands separators (ncu "1,024.5"): 0, or -1 if text is none. */
static int number(const char *text, const char *unit, double *out)
{
    char buf[128], *w = buf, *end;
    if (strlen(text) >= sizeof buf)
        return -1;
    for (const char *p = text; *p; p++)
        if (*p != ',')
            *w++ = *p;
    *w = '\0';
    *out = slo_strtod(buf, &end);
    if (end == buf || !isfinite(*out))
        return -1;
    while (*end == ' ')
        end++;
    if (*end && !(unit && !strcmp(end, unit)))
        return -1;
    return 0;
}

/* Field text of the row just read (t->where) as a number (number(): unit,
 * its optional suffix) into *v, when it is > lo (lo_open) or >= lo, and
 * <= hi: SLO_OK, or SLO_ERR_INVALID at t->where "column LABEL: expected
 * WHAT, found \"text\"". */
static int field_number(const struct table *t, const char *text, const char *unit, double lo,
                        int lo_open, double hi, const char *label, const char *what, double *v,
                        slo_error_t *err)
{
    if (number(text, unit, v) || (lo_open ? !(*v > lo) : !(*v >= lo)) || !(*v <= hi))
        return slo__fail(err, SLO_ERR_INVALID, t->where,
                         "column %s: expected %s, found \"%.40s\"", label, what, text);
    return SLO_OK;
}

/* After a table's row loop ended with r (table_row's last return, rc its
 * *rc) and rows data rows read: SLO_OK when it reached the end after at
 * least one row; else rc (the row's error), or SLO_ERR_INVALID at the
 * table's source "expected data rows after the header, found none". */
static int table_end(const struct table *t, int r, int rc, size_t rows, slo_error_t *err)
{
    if (r < 0)
        return rc;
    if (!rows)
        return slo__fail(err, SLO_ERR_INVALID, t->source,
                         "expected data rows after the header, found none");
    return SLO_OK;
}

static int load(const char *path, char **text, slo_error_t *err)
{
    if (!path)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected a file name, found NULL");
    return slo__read_file(path, text, err);
}

int slo_ig_convert_perf_analyzer(const char *text, const char *source, double *gpu_ms,
                                 slo_error_t *err)
{
    static const char *const names[2] = {"Concurrency", "Server Compute Infer"};
    struct table t;
    long cols[2];
    const char *f[2];
    double best_c = 0, best_ms = 0;
    int rv, r, any = 0;

    if (!source)
        source = "perf_analyzer CSV";
    if (!text || !gpu_ms)
        return slo__fail(err, SLO_ERR_INVALID, source, "expected a text and a result, found NULL");
    if ((rv = table_columns(text, source, "Concurrency", names, 2,
                            "perf_analyzer -f CSV columns \"Concurrency\" and \"Server "
                            "Compute Infer\" (Triton 2.x)",
                            cols, &t, err)))
        return rv;
    while ((r = table_row(&t, cols, 2, f, &rv, err)) == 1) {
        double conc, us;
        if ((rv = field_number(&t, f[0], NULL, 1, 0, INFINITY, "Concurrency",
                               "a concurrency >= 1", &conc, err)) ||
            (rv = field_number(&t, f[1], NULL, 0, 1, INFINITY, "Server Compute Infer",
                               "a time > 0 us", &us, err)))
            goto out;
        if (!any || conc < best_c) {
            best_c = conc;
            best_ms = us / 1000.0;
            any = 1;
        }
    }
    if ((rv = table_end(&t, r, rv, (size_t)any, err)))
        goto out;
    *gpu_ms = best_ms;
    rv = SLO_OK;
out:
    table_free(&t);
    return rv;
}

int slo_ig_convert_nvidia_smi(const char *text, const char *source, double *power_w,
                              double *clock_mhz, slo_error_t *err)
{
    static const char *const names[2] = {"power.draw", "clocks.sm"};
    struct table t;
    long cols[2];
    const char *fs[2];
    double sp = 0, sf = 0;
    size_t n = 0;
    int rv, r;

    if (!source)
        source = "nvidia-smi CSV";
    if (!text || !power_w || !clock_mhz)
        return slo__fail(err, SLO_ERR_INVALID, source, "expected a text and results, found NULL");
    if ((rv = table_columns(text, source, "power.draw", names, 2,
                            "nvidia-smi --query-gpu CSV columns \"power.draw\" and "
                            "\"clocks.sm\"",
                            cols, &t, err)))
        return rv;
    /* nvidia-smi lists every GPU of the machine unless -i picks one: the
     * means of several boards are no board's figure */
    static const char *const ids[3] = {"index", "uuid", "pci.bus_id"};
    long idc = -1;
    const char *id_name = NULL;
    char first_id[64] = "";
    for (int k = 0; k < 3 && idc < 0; k++)
        if ((idc = column(&t, ids[k])) >= 0)
            id_name = ids[k];
    while ((r = table_row(&t, cols, 2, fs, &rv, err)) == 1) {
        double p, f;
        if (idc >= 0) {
            const char *id = slo__csv_get(&t.rec, (size_t)idc);
            if (!n)
                snprintf(first_id, sizeof first_id, "%s", id);
            else if (strncmp(id, first_id, sizeof first_id - 1) != 0) {
                rv = slo__fail(err, SLO_ERR_INVALID, t.where,
                               "column %s: expected the samples of one GPU (nvidia-smi -i N), "
                               "found \"%.40s\" after \"%.40s\"",
                               id_name, id, first_id);
                goto out;
            }
        }
        if ((rv = field_number(&t, fs[0], "W", 0, 1, INFINITY, "power.draw", "a power > 0 W", &p,
                               err)) ||
            (rv = field_number(&t, fs[1], "MHz", 0, 1, INFINITY, "clocks.sm", "a clock > 0 MHz", &f,
                               err)))
            goto out;
        sp += p;
        sf += f;
        n++;
    }
    if ((rv = table_end(&t, r, rv, n, err)))
        goto out;
    *power_w = sp / (double)n;
    *clock_mhz = sf / (double)n;
    rv = SLO_OK;
out:
    table_free(&t);
    return rv;
}

#define NCU_L2 "lts__t_sectors.avg.pct_of_peak_sustained_elapsed"
#define NCU_TIME "gpu__time_duration.sum"

int slo_ig_convert_ncu(const char *text, const char *source, struct slo_ig_ncu_summary *out,
                       slo_error_t *err)
{
    static const char *const names[4] = {"ID", "Metric Name", "Metric Unit", "Metric Value"};
    struct table t;
    long cols[4], last_id = -1;
    const char *f[4];
    double wsum = 0, dsum = 0, dur = -1, l2 = -1;
    size_t n = 0;
    int rv, r;

    if (!source)
        source = "Nsight Compute CSV";
    if (!text || !out)
        return slo__fail(err, SLO_ERR_INVALID, source, "expected a text and a result, found NULL");
    if ((rv = table_columns(text, source, "Metric Name", names, 4,
                            "Nsight Compute --csv columns \"ID\", \"Metric Name\", \"Metric "
                            "Unit\" and \"Metric Value\"",
                            cols, &t, err)))
        return rv;
    /* rows are grouped by kernel ID; a kernel closes when the ID changes */
    for (;;) {
        long id = -2;
        r = table_row(&t, cols, 4, f, &rv, err);
        if (r < 0)
            goto out;
        if (r) {
            const char *fid = f[0];
            char *end;
            id = strtol(fid, &end, 10);
            if (end == fid || *end || id < 0) {
                rv = slo__fail(err, SLO_ERR_INVALID, t.where,
                               "column ID: expected a kernel number, found \"%.40s\"", fid);
                goto out;
            }
        }
        if (id != last_id && last_id >= 0) {
            if (dur < 0 || l2 < 0) {
                rv = slo__fail(err, SLO_ERR_INVALID, source,
                               "kernel ID %ld: expected metrics " NCU_TIME " and " NCU_L2
                               ", found %s missing",
                               last_id, dur < 0 ? NCU_TIME : "the L2 metric");
                goto out;
            }
            wsum += l2 * dur;
            dsum += dur;
            n++;
            dur = l2 = -1;
        }
        if (!r)
            break;
        last_id = id;
        {
            const char *name = f[1], *unit = f[2], *val = f[3];
            double v;
            if (!strcmp(name, NCU_TIME)) {
                double scale = !strcmp(unit, "nsecond")   ? 1e-6
                               : !strcmp(unit, "usecond") ? 1e-3
                               : !strcmp(unit, "msecond") ? 1.0
                               : !strcmp(unit, "second")  ? 1e3
                                                          : -1;
                if (scale < 0 || number(val, NULL, &v) || v < 0) {
                    rv = slo__fail(err, SLO_ERR_INVALID, t.where,
                                   "column Metric Value: " NCU_TIME ": expected a duration in "
                                   "nsecond, usecond, msecond or second, found \"%.40s\" %.20s",
                                   val, unit);
                    goto out;
                }
                dur = v * scale;
            } else if (!strcmp(name, NCU_L2)) {
                if ((rv = field_number(&t, val, NULL, 0, 0, 100, "Metric Value: L2 metric",
                                       "a percentage in [0, 100]", &v, err)))
                    goto out;
                l2 = v;
            }
        }
    }
    if (n == 0 || !(dsum > 0)) {
        rv = slo__fail(err, SLO_ERR_INVALID, source,
                       "expected kernels with a duration > 0, found none");
        goto out;
    }
    out->l2_pct = wsum / dsum;
    out->kernels = n;
    out->busy_ms = dsum;
    rv = SLO_OK;
out:
    table_free(&t);
    return rv;
}

int slo_ig_convert_perf_analyzer_load(const char *path, double *gpu_ms, slo_error_t *err)
{
    char *text = NULL;
    int rv = load(path, &text, err);
    if (!rv)
        rv = slo_ig_convert_perf_analyzer(text, path, gpu_ms, err);
    free(text);
    return rv;
}

int slo_ig_convert_nvidia_smi_load(const char *path, double *power_w, double *clock_mhz,
                                   slo_error_t *err)
{
    char *text = NULL;
    int rv = load(path, &text, err);
    if (!rv)
        rv = slo_ig_convert_nvidia_smi(text, path, power_w, clock_mhz, err);
    free(text);
    return rv;
}

int slo_ig_convert_ncu_load(const char *path, struct slo_ig_ncu_summary *out, slo_error_t *err)
{
    char *text = NULL;
    int rv = load(path, &text, err);
    if (!rv)
        rv = slo_ig_convert_ncu(text, path, out, err);
    free(text);
    return rv;
}
