/*
 * cli_util.c - error reporting and input loading shared by subcommands.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_report(const char *cmd, const slo_error_t *err)
{
    if (err->source[0])
        fprintf(stderr, "slo %s: %s: %s\n", cmd, err->source, err->text);
    else
        fprintf(stderr, "slo %s: %s\n", cmd, err->text);
    return err->code == SLO_ERR_NOMEM ? SLO_EXIT_INTERNAL : SLO_EXIT_USAGE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "slo %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return SLO_EXIT_USAGE;
}

int cli_parse_double(const char *cmd, const char *opt, const char *text, double min,
                     double max, const char *what, double *out)
{
    char *end;
    double v = strtod(text, &end);
    if (!*text || *end || !isfinite(v) || v < min || v > max) {
        cli_usage_error(cmd, "%s: expected %s, found \"%s\"", opt, what, text);
        return -1;
    }
    *out = v;
    return 0;
}

static int is_path(const char *arg)
{
    size_t n = strlen(arg);
    return strchr(arg, '/') || (n > 5 && strcmp(arg + n - 5, ".json") == 0);
}

static void list_names(char *buf, size_t len, const char *const *names)
{
    buf[0] = '\0';
    for (size_t i = 0; names[i]; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
    }
}

int cli_load_catalog(const char *arg, struct slo_catalog *cat, slo_error_t *err)
{
    char src[SLO_ERROR_SOURCE_LENGTH], names[256];
    const char *text;

    if (is_path(arg))
        return slo_catalog_load(arg, cat, err);
    text = slo_embedded_catalog(arg);
    if (!text) {
        list_names(names, sizeof names, slo_embedded_catalog_names());
        memset(cat, 0, sizeof *cat);
        err->code = SLO_ERR_NOT_FOUND;
        snprintf(err->source, sizeof err->source, "--catalog");
        snprintf(err->text, sizeof err->text,
                 "expected an embedded catalog (%s) or a JSON file path, found \"%s\"", names,
                 arg);
        return err->code;
    }
    snprintf(src, sizeof src, "embedded catalog %s", arg);
    return slo_catalog_parse(text, src, cat, err);
}

int cli_load_workload(const char *arg, struct slo_workload *wl, slo_error_t *err)
{
    char src[SLO_ERROR_SOURCE_LENGTH], names[256];
    const char *text;

    if (is_path(arg))
        return slo_workload_load(arg, wl, err);
    text = slo_embedded_workload(arg);
    if (!text) {
        list_names(names, sizeof names, slo_embedded_workload_names());
        memset(wl, 0, sizeof *wl);
        err->code = SLO_ERR_NOT_FOUND;
        snprintf(err->source, sizeof err->source, "--workload");
        snprintf(err->text, sizeof err->text,
                 "expected an embedded workload (%s) or a JSON file path, found \"%s\"", names,
                 arg);
        return err->code;
    }
    snprintf(src, sizeof src, "embedded workload %s", arg);
    return slo_workload_parse(text, src, wl, err);
}
