/*
 * error.c - error reporting, file reading and JSON field helpers.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "slo_private.h"

const char *slo_code_name(int code)
{
    switch (code) {
    case SLO_OK: return "ok";
    case SLO_ERR_INVALID: return "invalid";
    case SLO_ERR_IO: return "io";
    case SLO_ERR_NOMEM: return "nomem";
    case SLO_ERR_NOT_FOUND: return "not-found";
    case SLO_ERR_UNREACHABLE: return "unreachable";
    case SLO_ERR_INFEASIBLE: return "infeasible";
    case SLO_ERR_NUMERIC: return "numeric";
    default: return "unknown";
    }
}

const char *slo_status_name(int status)
{
    switch (status) {
    case SLO_STATUS_OPTIMAL: return "optimal";
    case SLO_STATUS_FEASIBLE_UNPROVEN: return "feasible_unproven";
    case SLO_STATUS_INFEASIBLE: return "infeasible";
    case SLO_STATUS_INFEASIBLE_UNPROVEN: return "infeasible_unproven";
    default: return "unknown";
    }
}

int slo_status_feasible(int status)
{
    return status == SLO_STATUS_OPTIMAL || status == SLO_STATUS_FEASIBLE_UNPROVEN;
}

int slo_error_set(slo_error_t *err, int code, const char *source, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        snprintf(err->source, sizeof err->source, "%s", source ? source : "");
        va_start(ap, fmt);
        vsnprintf(err->text, sizeof err->text, fmt, ap);
        va_end(ap);
    }
    return code;
}

int slo__read_file(const char *path, char **out, slo_error_t *err)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rv = SLO_ERR_IO;
    struct stat st;

    *out = NULL;
    if (!f)
        return slo__fail(err, SLO_ERR_IO, path, "cannot open: %s", strerror(errno));
    if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) &&
        !S_ISCHR(st.st_mode)) {
        fclose(f);
        return slo__fail(err, SLO_ERR_IO, path, "expected a file, found %s",
                         S_ISDIR(st.st_mode) ? "a directory" : "something that is not a file");
    }
    for (;;) {
        if (cap - len < 4096) {
            size_t ncap = cap ? cap * 2 : 8192;
            char *nbuf = realloc(buf, ncap + 1);
            if (!nbuf) {
                rv = slo__fail(err, SLO_ERR_NOMEM, path, "out of memory reading the file");
                goto fail;
            }
            buf = nbuf;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        if (memchr(buf + len, '\0', got)) {
            rv = slo__fail(err, SLO_ERR_INVALID, path,
                          "expected a text file, found a NUL byte at offset %zu",
                          len + (size_t)((char *)memchr(buf + len, '\0', got) - (buf + len)));
            goto fail;
        }
        len += got;
        if (len > SLO_MAX_INPUT_BYTES) {
            rv = slo__fail(err, SLO_ERR_INVALID, path,
                          "expected an input of at most %d MiB, found more",
                          SLO_MAX_INPUT_BYTES >> 20);
            goto fail;
        }
        if (got == 0) {
            if (ferror(f)) {
                rv = slo__fail(err, SLO_ERR_IO, path, "read error: %s", strerror(errno));
                goto fail;
            }
            break;
        }
    }
    buf[len] = '\0';
    fclose(f);
    *out = buf;
    return SLO_OK;
fail:
    fclose(f);
    free(buf);
    return rv;
}

const char *slo__json_describe(const json_t *v, char *buf, size_t len)
{
    if (!v)
        snprintf(buf, len, "nothing");
    else if (json_is_string(v))
        snprintf(buf, len, "the string \"%.40s\"", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
             fabs(json_real_value(v)) < 1e15)
        snprintf(buf, len, "%.1f", json_real_value(v)); /* 1.0, not 1: it is not an integer */
    else if (json_is_real(v))
        snprintf(buf, len, "%.10g", json_real_value(v));
    else if (json_is_true(v))
        snprintf(buf, len, "true");
    else if (json_is_false(v))
        snprintf(buf, len, "false");
    else if (json_is_null(v))
        snprintf(buf, len, "null");
    else if (json_is_array(v))
        snprintf(buf, len, json_array_size(v) ? "an array" : "an empty array");
    else
        snprintf(buf, len, "an object");
    return buf;
}

static void range_text(char *buf, size_t len, double min, double max)
{
    if (min <= -DBL_MAX && max >= DBL_MAX)
        snprintf(buf, len, "a number");
    else if (max >= DBL_MAX)
        snprintf(buf, len, "a number >= %g", min);
    else if (min <= -DBL_MAX)
        snprintf(buf, len, "a number <= %g", max);
    else
        snprintf(buf, len, "a number in [%g, %g]", min, max);
}

int slo__json_number(const json_t *obj, const char *key, int required, double min,
                    double max, const char *source, const char *path, double *out,
                    slo_error_t *err)
{
    json_t *v = json_object_get(obj, key);
    char found[96], want[96];

    if (!v) {
        if (!required)
            return SLO_OK;
        range_text(want, sizeof want, min, max);
        return slo__fail(err, SLO_ERR_INVALID, source, "%s%s%s: expected %s, found it missing",
                        path, *path ? "." : "", key, want);
    }
    if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
        json_number_value(v) < min || json_number_value(v) > max) {
        range_text(want, sizeof want, min, max);
        return slo__fail(err, SLO_ERR_INVALID, source, "%s%s%s: expected %s, found %s", path,
                        *path ? "." : "", key, want, slo__json_describe(v, found, sizeof found));
    }
    *out = json_number_value(v);
    return SLO_OK;
}

int slo__json_int(const json_t *obj, const char *key, int required, long min, long max,
                 const char *source, const char *path, int *out, slo_error_t *err)
{
    json_t *v = json_object_get(obj, key);
    char found[96];

    if (!v) {
        if (!required)
            return SLO_OK;
        return slo__fail(err, SLO_ERR_INVALID, source,
                        "%s%s%s: expected an integer in [%ld, %ld], found it missing", path,
                        *path ? "." : "", key, min, max);
    }
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
        return slo__fail(err, SLO_ERR_INVALID, source,
                        "%s%s%s: expected an integer in [%ld, %ld], found %s", path,
                        *path ? "." : "", key, min, max,
                        slo__json_describe(v, found, sizeof found));
    *out = (int)json_integer_value(v);
    return SLO_OK;
}

int slo__json_string(const json_t *obj, const char *key, int required, const char *source,
                    const char *path, char *out, size_t len, slo_error_t *err)
{
    json_t *v = json_object_get(obj, key);
    char found[96];

    if (!v) {
        if (!required)
            return SLO_OK;
        return slo__fail(err, SLO_ERR_INVALID, source,
                        "%s%s%s: expected a non-empty string, found it missing", path,
                        *path ? "." : "", key);
    }
    if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) >= len)
        return slo__fail(err, SLO_ERR_INVALID, source,
                        "%s%s%s: expected a non-empty string of at most %zu characters, found %s",
                        path, *path ? "." : "", key, len - 1,
                        slo__json_describe(v, found, sizeof found));
    snprintf(out, len, "%s", json_string_value(v));
    return SLO_OK;
}

int slo__json_known_keys(const json_t *obj, const char *const *allowed, const char *source,
                        const char *path, slo_error_t *err)
{
    const char *key;
    json_t *v;

    json_object_foreach((json_t *)obj, key, v) {
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            if (strcmp(*a, key) == 0)
                ok = 1;
        if (!ok && key[0] != '_') {
            char list[384] = "";
            for (const char *const *a = allowed; *a; a++) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", a == allowed ? "" : ", ", *a);
            }
            return slo__fail(err, SLO_ERR_INVALID, source,
                            "%s%s\"%s\": unknown field; expected one of: %s", path,
                            *path ? ": " : "", key, list);
        }
    }
    return SLO_OK;
}

int slo__json_parse_text(const char *text, const char *source, json_t **out,
                        slo_error_t *err)
{
    json_error_t jerr;
    int oom;
    *out = slo__json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES, &jerr, &oom);
    if (!*out && oom)
        return slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
    if (!*out)
        return slo__fail(err, SLO_ERR_INVALID, source, "line %d, column %d: malformed JSON: %s",
                        jerr.line, jerr.column, jerr.text);
    if (!json_is_object(*out)) {
        char found[96];
        slo__json_describe(*out, found, sizeof found);
        json_decref(*out);
        *out = NULL;
        return slo__fail(err, SLO_ERR_INVALID, source, "expected a JSON object, found %s", found);
    }
    return SLO_OK;
}

double slo__round_even(double x, int decimals)
{
    double scale = pow(10.0, decimals);
    return nearbyint(x * scale) / scale;
}

json_t *slo__json_loadb(const char *text, size_t len, size_t flags, json_error_t *e, int *oom)
{
    json_t *v = json_loadb(text, len, flags, e);
    *oom = 0;
    if (v) {
        /* jansson 2.14's lexer drops the characters it cannot save when a
         * buffer fails to grow (lex_save ignores strbuffer_append_byte's
         * error) and the parse succeeds with a changed string or number
         * ("GPU" read as "PU"; tests/test_alloc_fail.c): a document is
         * taken only when a second parse gives the same value. */
        json_error_t again;
        json_t *w = json_loadb(text, len, flags, &again);
        int same = w && json_equal(v, w);
        json_decref(w);
        if (same)
            return v;
        json_decref(v);
        *oom = 1;
        snprintf(e->text, sizeof e->text, "out of memory");
        return NULL;
    }
#if JANSSON_VERSION_HEX >= 0x020b00
    if (json_error_code(e) == json_error_out_of_memory)
        *oom = 1;
#endif
    if (!e->text[0])
        *oom = 1;
    if (!*oom) {
        json_error_t again;
        json_t *w = json_loadb(text, len, flags, &again);
        if (w || again.position != e->position || strcmp(again.text, e->text) != 0)
            *oom = 1;
        json_decref(w);
    }
    return NULL;
}

struct dump_buffer {
    char *text;
    size_t len, cap;
    int failed;
};

static int dump_append(const char *buf, size_t size, void *data)
{
    struct dump_buffer *d = data;
    if (d->failed)
        return -1;
    if (size >= d->cap - d->len) {
        size_t cap = d->cap ? d->cap : 4096;
        while (size >= cap - d->len)
            cap *= 2;
        char *t = realloc(d->text, cap);
        if (!t) {
            d->failed = 1;
            return -1;
        }
        d->text = t;
        d->cap = cap;
    }
    memcpy(d->text + d->len, buf, size);
    d->len += size;
    d->text[d->len] = '\0';
    return 0;
}

char *slo__json_dumps(const json_t *v, size_t flags)
{
    struct dump_buffer d = {NULL, 0, 0, 0};
    /* a failed append is latched: jansson may not pass its -1 on */
    if (json_dump_callback(v, dump_append, &d, flags) != 0 || d.failed || !d.text) {
        free(d.text);
        return NULL;
    }
    return d.text;
}
