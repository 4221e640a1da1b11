/*
 * cluster.c - the cluster list "TYPE=N,TYPE=N" of training logs ("# cluster:",
 * doc/formats.md "Training logs") and of `slo train --existing`: one parser,
 * one formatter.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"

#define MAX_SHOWN 40

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

/* [s, s+*len) without the blanks at both ends; returns the new start. */
static const char *trim(const char *s, size_t *len)
{
    while (*len && is_blank(*s))
        s++, (*len)--;
    while (*len && is_blank(s[*len - 1]))
        (*len)--;
    return s;
}

static int has_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (is_blank(s[i]))
            return 1;
    return 0;
}

/* One item [item, item+len) into e; 0 or -1 with err filled. Blanks are
 * allowed around the type and the count, not inside either ("a = 1 0" is
 * not a count of 10), and nothing is cut: an over-long type is an error and
 * an over-long count is no count (e->count = -1). */
static int parse_item(const char *item, size_t len,
                      struct slo_cluster_entry *e, slo_error_t *err)
{
    const char *eq = memchr(item, '=', len), *type, *count;
    size_t tlen, clen;
    char *end;

    if (!eq)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                         "expected TYPE=N[,TYPE=N...], found \"%.*s\"", (int)len, item);
    tlen = (size_t)(eq - item);
    type = trim(item, &tlen);
    clen = len - (size_t)(eq - item) - 1;
    count = trim(eq + 1, &clen);
    if (tlen == 0 || has_blank(type, tlen))
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                         "expected TYPE=N[,TYPE=N...], found \"%.*s\"", (int)len, item);
    if (tlen >= SLO_NAME_LENGTH)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                         "expected a type name of at most %d characters, found \"%.*s...\"",
                         SLO_NAME_LENGTH - 1, MAX_SHOWN, type);
    memcpy(e->type, type, tlen);
    e->type[tlen] = '\0';
    /* as written, cut with "..." when it does not fit */
    if (clen < sizeof e->count_text)
        snprintf(e->count_text, sizeof e->count_text, "%.*s", (int)clen, count);
    else
        snprintf(e->count_text, sizeof e->count_text, "%.*s...",
                 (int)(sizeof e->count_text - 4), count);
    e->count = -1;
    /* Digits only: no sign, no blank inside, at most 1e9; leading zeros are
     * the number's own ("0003" is 3, as strtol reads it). */
    size_t d = 0;
    while (d < clen && count[d] >= '0' && count[d] <= '9')
        d++;
    if (clen > 0 && d == clen) {
        size_t z = 0;
        while (z + 1 < clen && count[z] == '0')
            z++;
        if (clen - z <= 10) {
            char digits[11];
            memcpy(digits, count + z, clen - z);
            digits[clen - z] = '\0';
            errno = 0;
            long n = strtol(digits, &end, 10);
            if (!*end && !errno && n <= 1000000000L)
                e->count = n;
        }
    }
    return 0;
}

int slo_cluster_parse(const char *spec, struct slo_cluster *out, slo_error_t *err)
{
    const char *p = spec;

    if (!spec || !out)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected a cluster list and a cluster "
                         "to fill, found NULL");
    out->n = 0;
    /* An empty item anywhere: the whole list is malformed. */
    for (const char *q = spec;;) {
        const char *comma = strchr(q, ',');
        size_t len = comma ? (size_t)(comma - q) : strlen(q), i = 0;
        while (i < len && is_blank(q[i]))
            i++;
        if (i == len)
            return slo__fail(err, SLO_ERR_INVALID, NULL,
                             "expected TYPE=N[,TYPE=N...], found \"%s\"", spec);
        if (!comma)
            break;
        q = comma + 1;
    }
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (out->n == SLO_CLUSTER_MAX_TYPES)
            return slo__fail(err, SLO_ERR_INVALID, NULL,
                             "expected at most %d instance types", SLO_CLUSTER_MAX_TYPES);
        if (parse_item(p, len, &out->entry[out->n], err))
            return SLO_ERR_INVALID;
        for (size_t i = 0; i < out->n; i++)
            if (strcmp(out->entry[i].type, out->entry[out->n].type) == 0)
                return slo__fail(err, SLO_ERR_INVALID, NULL,
                                 "expected each instance type once, found %s again",
                                 out->entry[i].type);
        out->n++;
        if (!comma)
            return SLO_OK;
        p = comma + 1;
    }
}

/* Append "TYPE<kv>N" to buf (used characters *used). */
static int append_item(char *buf, size_t len, size_t *used, const char *type, char kv, long n)
{
    int w;
    if (*used + 1 >= len)
        return -1;
    w = snprintf(buf + *used, len - *used, "%s%s%c%ld", *used ? "," : "", type, kv, n);
    if (w < 0 || (size_t)w >= len - *used) {
        *used = strlen(buf);
        return -1;
    }
    *used += (size_t)w;
    return 0;
}

int slo_cluster_format(const struct slo_cluster *c, char kv, char *buf, size_t len)
{
    size_t used = 0;

    if (!len)
        return -1;
    buf[0] = '\0';
    for (size_t i = 0; i < c->n; i++)
        if (c->entry[i].count > 0 &&
            append_item(buf, len, &used, c->entry[i].type, kv, c->entry[i].count))
            return -1;
    return 0;
}

int slo_train_counts_format(const struct slo_train_setup *s, const int *counts, char kv,
                            char *buf, size_t len)
{
    size_t used = 0;

    if (!len)
        return -1;
    buf[0] = '\0';
    for (size_t k = 0; k < s->n_types; k++)
        if (counts[k] > 0 && append_item(buf, len, &used, s->types[k].name, kv, counts[k]))
            return -1;
    return 0;
}
