/*
 * slo_private.h - helpers shared by libslo's modules; not installed.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_PRIVATE_H
#define SLO_PRIVATE_H

#include <jansson.h>
#include <stdarg.h>

#include "slo.h"

#if defined(__GNUC__)
#define SLO_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SLO_PRINTF(a, b)
#endif

/* Fill err (if not NULL) and return code. source may be NULL. The kernel's
 * name for the public slo_error_set (slo_core.h), one function for both. */
#define slo__fail slo_error_set

/* Largest input file read (catalogs, profiles, logs): 64 MiB. */
#define SLO_MAX_INPUT_BYTES (64 << 20)

/* Read a whole text file into a NUL-terminated malloc'd buffer; a NUL byte
 * or more than SLO_MAX_INPUT_BYTES is SLO_ERR_INVALID, found as it is read. */
int slo__read_file(const char *path, char **out, slo_error_t *err);

/* Describe a JSON value's type and, for scalars, its value ("a string \"x\"",
 * "-1", "null") into buf, for "expected ..., found ..." messages. */
const char *slo__json_describe(const json_t *v, char *buf, size_t len);

/* Field readers: path is the field's path for messages ("types[2].quota").
 * A missing required field is "missing"; optional ones keep *out. */
int slo__json_number(const json_t *obj, const char *key, int required, double min,
                    double max, const char *source, const char *path, double *out,
                    slo_error_t *err);
int slo__json_int(const json_t *obj, const char *key, int required, long min, long max,
                 const char *source, const char *path, int *out, slo_error_t *err);
int slo__json_string(const json_t *obj, const char *key, int required, const char *source,
                    const char *path, char *out, size_t len, slo_error_t *err);
/* Reject keys of obj that are not in the NULL-terminated list allowed. */
int slo__json_known_keys(const json_t *obj, const char *const *allowed, const char *source,
                        const char *path, slo_error_t *err);
/* Parse text with jansson; errors as "source:line:col: text". */
int slo__json_parse_text(const char *text, const char *source, json_t **out,
                        slo_error_t *err);
/* json_loadb of text[len] that says when it failed for memory: *oom = 1
 * (the caller returns SLO_ERR_NOMEM, not a syntax error). jansson 2.14 sets
 * json_error_out_of_memory, or no text, for some failed allocations, and
 * reports a failed string allocation in its lexer as a syntax error ("string
 * or '}' expected"): a syntax error that a second parse does not reproduce
 * is memory too, and a document is parsed twice and taken only when both
 * parses agree, as the same lexer may silently drop characters it could
 * not save (tests/test_alloc_fail.c fails every allocation). */
json_t *slo__json_loadb(const char *text, size_t len, size_t flags, json_error_t *e, int *oom);
/* json_dumps that fails (NULL) on any failed allocation: jansson 2.14's
 * dump does not check the write of an object key, so json_dumps can return a
 * document with a key missing under memory pressure (found by
 * tests/test_alloc_fail.c); this one collects the text itself. */
char *slo__json_dumps(const json_t *v, size_t flags);

/* The "embedded NAME or FILE path" rule (lookup.c): arg is a path when it
 * has a '/', ends in .json or in suffix (e.g. ".csv"; NULL: none), or names
 * an existing file. */
int slo__is_path(const char *arg, const char *suffix);
/* Fill err for an arg that is neither embedded nor a path: SLO_ERR_NOT_FOUND,
 * source opt, "expected an embedded WHAT (NAMES) or a FILE_KIND file path,
 * found "ARG"". Returns SLO_ERR_NOT_FOUND. */
int slo__not_embedded(slo_error_t *err, const char *opt, const char *what,
                      const char *const *names, const char *arg, const char *file_kind);

/* The installed copy of a NAMEd WHAT ("catalog", "workload", "profile"):
 * writes SYSCONFDIR/slo/{catalogs,workloads,gpus}/NAME.json to path[len]
 * (environment SLO_SYSCONFDIR in place of the configured sysconfdir; set
 * and empty: none) and returns 1 when that file exists, else 0 (also for a
 * name with '/' or a leading '.', or a path longer than len). */
int slo__installed_path(const char *what, const char *name, char *path, size_t len);
/* The name-or-path rule of every *_open function: arg NULL is SLO_ERR_INVALID
 * ("expected a WHAT name or file, found none", source opt); a path
 * (slo__is_path with suffix) returns SLO_OK with *text NULL and src "" -
 * the caller loads arg; an installed NAME (slo__installed_path) returns
 * SLO_OK with *text NULL and src its path - the caller loads src; an
 * embedded NAME returns SLO_OK with *text its embedded text and src
 * "embedded WHAT NAME"; else slo__not_embedded. */
int slo__open_named(const char *arg, const char *opt, const char *what, const char *suffix,
                    const char *(*embedded)(const char *), const char *const *names,
                    const char *file_kind, const char **text, char *src, size_t src_len,
                    slo_error_t *err);

/* Round half to even at `decimals` decimal places (numpy.around). */
double slo__round_even(double x, int decimals);
/* slo_plan_exact with a hint: counts[n_types] of a plan (e.g. the spot
 * search's, for the on-demand comparison: times do not depend on prices) that
 * is the first incumbent when it meets the request more cheaply than the
 * seed (kernel/train/spotdnn_plan.c). */
struct slo_train_setup;
struct slo_train_request;
struct slo_train_plan;
int slo__plan_exact_seeded(const struct slo_train_setup *s, const struct slo_train_request *req,
                           const int *hint, struct slo_train_plan *plan, slo_error_t *err);

#endif
