/*
 * csv.c - libslo's CSV record reader (RFC 4180 subset: quoted fields with
 * "" escapes, CRLF), private (slo_csv.h): the per-layer and gradient files
 * of the comm planner (kernel/comm/comm_model.c) and the training logs with
 * their "# cluster:" comment lines (kernel/train/trainlog.c) read with it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_csv.h"
#include "slo_private.h"

static int csv_put(struct slo__csv_record *r, size_t *len, char c)
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

static int csv_field(struct slo__csv_record *r, size_t at)
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
int slo__csv_read_record(const char **p, size_t *line, struct slo__csv_record *r)
{
    const char *s = *p;
    size_t len = 0;

    r->n = 0;
    if (csv_field(r, 0))
        return -1;
    for (;;) {
        if (*s == '"' && (len == 0 || r->buf[len - 1] == '\0')) {
            s++;
            for (;;) {
                if (*s == '\0')
                    return -2;
                if (*s == '"' && s[1] == '"') {
                    if (csv_put(r, &len, '"'))
                        return -1;
                    s += 2;
                } else if (*s == '"') {
                    s++;
                    break;
                } else {
                    if (*s == '\n')
                        (*line)++;
                    if (csv_put(r, &len, *s++))
                        return -1;
                }
            }
            continue;
        }
        if (*s == ',') {
            if (csv_put(r, &len, '\0') || csv_field(r, len))
                return -1;
            s++;
            continue;
        }
        if (*s == '\0' || *s == '\n' || (*s == '\r' && (s[1] == '\n' || s[1] == '\0'))) {
            if (csv_put(r, &len, '\0'))
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
        if (csv_put(r, &len, *s++))
            return -1;
    }
}

const char *slo__csv_get(const struct slo__csv_record *r, size_t i)
{
    return r->buf + r->start[i];
}

int slo__csv_blank(const struct slo__csv_record *r)
{
    return r->n == 1 && slo__csv_get(r, 0)[strspn(slo__csv_get(r, 0), " \t")] == '\0';
}

/* Read the header record into r, skipping leading blank lines. columns
 * names the expected columns for the empty-file message. Returns SLO_OK or
 * an error code with err filled. */
int slo__csv_read_header(const char **p, size_t *line, struct slo__csv_record *r,
                         const char *source, const char *columns, char *where,
                         size_t where_len, slo_error_t *err)
{
    size_t before;
    do {
        int q;
        if (!**p)
            return slo__fail(err, SLO_ERR_INVALID, source,
                            "expected a header line with columns %s, found an empty file",
                            columns);
        before = *line;
        q = slo__csv_read_record(p, line, r);
        if (q == -1)
            return slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
        if (q == -2) {
            snprintf(where, where_len, "%s:%zu", source, *line);
            return slo__fail(err, SLO_ERR_INVALID, where,
                            "header: expected a closing double quote, found the end of the "
                            "file");
        }
    } while (slo__csv_blank(r));
    /* callers name the header line as *line - 1: a header that ends the
     * text without a newline is still on line `before` */
    if (*line == before)
        (*line)++;
    return SLO_OK;
}

/* Read the next data row into r. Returns SLO_OK with *is_row = 1 when r
 * holds a row of n_cols fields and 0 at a blank row (skip it), or an error
 * code with err filled. *row_line and where ("source:line") locate the row
 * for the caller's own messages. */
int slo__csv_next_row(const char **p, size_t *line, struct slo__csv_record *r,
                      const char *source, size_t n_cols, size_t *row_line, char *where,
                      size_t where_len, int *is_row, slo_error_t *err)
{
    int q;

    *row_line = *line;
    *is_row = 0;
    q = slo__csv_read_record(p, line, r);
    snprintf(where, where_len, "%s:%zu", source, *row_line);
    if (q == -1)
        return slo__fail(err, SLO_ERR_NOMEM, where, "out of memory");
    if (q == -2)
        return slo__fail(err, SLO_ERR_INVALID, where,
                        "expected a closing double quote, found the end of the file");
    if (slo__csv_blank(r))
        return SLO_OK;
    if (r->n != n_cols)
        return slo__fail(err, SLO_ERR_INVALID, where,
                        "expected %zu fields as in the header, found %zu", n_cols, r->n);
    *is_row = 1;
    return SLO_OK;
}

/* A comment line at *p: spaces and tabs, then prefix; its raw text runs to
 * the LF (a CR just before it is left out). Returns 1 and advances *p and
 * *line past the line, or 0 with nothing changed. */
int slo__csv_comment(const char **p, size_t *line, char prefix, const char **text,
                     size_t *len)
{
    const char *s = *p + strspn(*p, " \t"), *nl;
    size_t n;

    if (*s != prefix || prefix == '\0')
        return 0;
    nl = strchr(s, '\n');
    n = nl ? (size_t)(nl - s) : strlen(s);
    *text = s;
    *len = n > 0 && s[n - 1] == '\r' ? n - 1 : n;
    *p = s + n + (nl != NULL);
    if (nl)
        (*line)++;
    return 1;
}

/* A UTF-8 byte order mark at the start of the text (spreadsheet exports). */
const char *slo__csv_skip_bom(const char *text)
{
    if ((unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
        (unsigned char)text[2] == 0xBF)
        return text + 3;
    return text;
}

/* Header names are compared without surrounding spaces and tabs
 * ("forward_ms, backward_ms, param_bytes" is the three columns). */
void slo__csv_trim_fields(struct slo__csv_record *r)
{
    for (size_t i = 0; i < r->n; i++) {
        char *f = r->buf + r->start[i];
        size_t len, lead = strspn(f, " \t");
        r->start[i] += lead;
        f += lead;
        len = strlen(f);
        while (len > 0 && (f[len - 1] == ' ' || f[len - 1] == '\t'))
            f[--len] = '\0';
    }
}

/* "a, b, c" of a header's columns, truncated to fit buf. */
void slo__csv_list_columns(const struct slo__csv_record *r, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < r->n && used + 1 < len; i++) {
        int k = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", slo__csv_get(r, i));
        if (k < 0 || (size_t)k >= len - used) {
            if (len > 4)
                memcpy(buf + len - 4, "...", 4);
            return;
        }
        used += (size_t)k;
    }
}

void slo__csv_free(struct slo__csv_record *r)
{
    free(r->buf);
    free(r->start);
    memset(r, 0, sizeof *r);
}
