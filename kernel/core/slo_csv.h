/*
 * slo_csv.h - libslo's CSV record reader (kernel/core/csv.c); private to
 * libslo, not installed, not exported (slo__ names).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_CSV_H
#define SLO_CSV_H

#include <stddef.h>

#include "slo_core.h"

/* One record: its fields' texts, NUL-separated in buf. Start empty ({0});
 * release with slo__csv_free. */
struct slo__csv_record {
    char *buf;      /* field texts, NUL-separated */
    size_t cap;
    size_t *start;  /* [n] offsets into buf */
    size_t n, fcap;
};

/* Parse one record at *p (RFC 4180 subset: quoted fields with "" escapes,
 * CRLF or LF); advances *p and *line (newlines inside quotes count).
 * Returns 0, -1 for out of memory, -2 for an unterminated quote (then
 * field r->n - 1 is the one whose quote is open). */
int slo__csv_read_record(const char **p, size_t *line, struct slo__csv_record *r);
/* Field i (< r->n) of the record. */
const char *slo__csv_get(const struct slo__csv_record *r, size_t i);
/* 1 when the record is one field of spaces and tabs only (a blank line). */
int slo__csv_blank(const struct slo__csv_record *r);
/* Read the header record into r, skipping leading blank lines; columns
 * names the expected columns for the empty-file message; where (of
 * where_len bytes) receives "source:line" for a quote error. SLO_OK or
 * SLO_ERR_INVALID / SLO_ERR_NOMEM with err filled. */
int slo__csv_read_header(const char **p, size_t *line, struct slo__csv_record *r,
                         const char *source, const char *columns, char *where,
                         size_t where_len, slo_error_t *err);
/* Read the next data row into r: *is_row = 1 when r holds a row of n_cols
 * fields, 0 at a blank row (skip it); *row_line and where ("source:line")
 * locate the row. Errors (where as source): an unterminated quote, another
 * number of fields than the header (SLO_ERR_INVALID), SLO_ERR_NOMEM. */
int slo__csv_next_row(const char **p, size_t *line, struct slo__csv_record *r,
                      const char *source, size_t n_cols, size_t *row_line, char *where,
                      size_t where_len, int *is_row, slo_error_t *err);
/* A comment line: when the line at *p, after spaces and tabs, begins with
 * prefix (e.g. '#'), sets *text and *len to the line's raw text from the
 * prefix on, without its LF or CRLF (no quote or comma processing), advances
 * *p past the line and *line past its newline, and returns 1; otherwise
 * returns 0 and changes nothing. Call it where a record would start. */
int slo__csv_comment(const char **p, size_t *line, char prefix, const char **text,
                     size_t *len);
/* The text after a leading UTF-8 byte order mark (spreadsheet exports). */
const char *slo__csv_skip_bom(const char *text);
/* Strip the spaces and tabs around every field (header names). */
void slo__csv_trim_fields(struct slo__csv_record *r);
/* "a, b, c" of the record's fields, truncated with "..." to fit buf. */
void slo__csv_list_columns(const struct slo__csv_record *r, char *buf, size_t len);
/* Release a record's arrays and empty it. */
void slo__csv_free(struct slo__csv_record *r);

#endif
