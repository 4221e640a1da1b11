/*
 * duration.c - deadlines in sbatch --time formats, plus "40m"-style suffixes.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"

/* Deadlines beyond a year are a typo, and keep every later product finite. */
#define SLO_MAX_DURATION_S (366.0 * 86400)

#define FORMS "minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS (sbatch --time), or a number with s, m, h or d (2400s, 40m, 2h)"

/* Read an unsigned decimal integer; advance *p. -1 when no digit. */
static long read_uint(const char **p)
{
    long v = 0;
    if (!isdigit((unsigned char)**p))
        return -1;
    while (isdigit((unsigned char)**p)) {
        if (v < 1000000000L) /* saturate: the caller's range check reports it */
            v = v * 10 + (**p - '0');
        (*p)++;
    }
    return v;
}

int slo_parse_duration(const char *text, double *out_s, int *bare_minutes, slo_error_t *err)
{
    const char *p = text;
    long f[4];
    int nf = 0;
    long days = -1;
    double seconds;

    if (bare_minutes)
        *bare_minutes = 0;
    if (!text || !*text)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected a duration (%s), found an empty value",
                        FORMS);

    /* Suffix form: a decimal number followed by one unit letter. */
    size_t len = strlen(text);
    char unit = text[len - 1];
    if (len >= 2 && strchr("smhd", unit)) {
        char *end;
        double v = slo_strtod(text, &end);
        if (end != text + len - 1 || !isdigit((unsigned char)text[0]) ||
            strspn(text, "0123456789.") != len - 1 || !isfinite(v))
            goto bad;
        seconds = v * (unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : 86400);
        goto done;
    }

    f[0] = read_uint(&p);
    if (f[0] < 0)
        goto bad;
    if (*p == '-') {
        days = f[0];
        p++;
        f[0] = read_uint(&p);
        if (f[0] < 0)
            goto bad;
    }
    nf = 1;
    while (*p == ':' && nf < 3) {
        p++;
        f[nf] = read_uint(&p);
        if (f[nf] < 0)
            goto bad;
        nf++;
    }
    if (*p)
        goto bad;
    if (days >= 0) {
        /* D-HH, D-HH:MM, D-HH:MM:SS */
        double h = (double)f[0], m = nf > 1 ? (double)f[1] : 0, s = nf > 2 ? (double)f[2] : 0;
        seconds = days * 86400.0 + h * 3600 + m * 60 + s;
    } else if (nf == 1) {
        seconds = f[0] * 60.0;
        if (bare_minutes)
            *bare_minutes = 1;
    } else if (nf == 2) {
        seconds = f[0] * 60.0 + f[1];
    } else {
        seconds = f[0] * 3600.0 + f[1] * 60.0 + f[2];
    }
done:
    if (seconds > SLO_MAX_DURATION_S)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                        "expected a duration of at most 366 days (527040 minutes), found \"%s\"",
                        text);
    if (!(seconds > 0))
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected a duration greater than zero, found \"%s\"",
                        text);
    *out_s = seconds;
    return SLO_OK;
bad:
    return slo__fail(err, SLO_ERR_INVALID, NULL, "expected a duration (%s), found \"%s\"", FORMS,
                    text);
}

void slo_format_duration(double seconds, char *buf, size_t len)
{
    long s = lround(seconds < 0 ? 0 : seconds);
    long d = s / 86400, h = (s % 86400) / 3600, m = (s % 3600) / 60, r = s % 60;
    if (d)
        snprintf(buf, len, "%ld-%02ld:%02ld:%02ld", d, h, m, r);
    else
        snprintf(buf, len, "%02ld:%02ld:%02ld", h, m, r);
}

double slo_strtod(const char *text, char **end)
{
    const char *p = text;
    double v;

    if (*p == '+' || *p == '-')
        p++;
    if (!(isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])))) {
        *end = (char *)text;
        return 0;
    }
    v = strtod(text, end);
    for (const char *q = text; q < *end; q++)
        if (!strchr("0123456789.eE+-", *q)) {
            *end = (char *)text;
            return 0;
        }
    return v;
}
