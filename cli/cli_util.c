/*
 * cli_util.c - error reporting and input loading shared by subcommands.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <ctype.h>
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
    double v = slo_strtod(text, &end);
    if (!*text || isspace((unsigned char)*text) || *end || !isfinite(v) || v < min || v > max) {
        cli_usage_error(cmd, "%s: expected %s, found \"%s\"", opt, what, text);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_repeated_option(const char *cmd, const struct option *longopts, int first, int code,
                        const char *value, struct cli_seen *seen)
{
    const char *now = value ? value : "";
    const struct option *lo = longopts;
    if (code < first || code - first >= CLI_MAX_OPTIONS)
        return 0;
    while (lo->name && lo->val != code)
        lo++;
    /* "--model --json": getopt takes the next option as the value; no
     * value of ours starts with "--" (a file of that name: ./--name) */
    if (value && lo->name && lo->has_arg == required_argument && strncmp(value, "--", 2) == 0) {
        cli_usage_error(cmd, "--%s: expected a value, found the option \"%s\"", lo->name,
                        value);
        return -1;
    }
    const char *prev = seen->value[code - first];
    if (prev && strcmp(prev, now) != 0) {
        cli_usage_error(cmd, "--%s: given twice with different values (\"%s\", \"%s\")",
                        lo->name ? lo->name : "?", prev, now);
        return -1;
    }
    seen->value[code - first] = now;
    return 0;
}

int cli_load_catalog(const char *arg, struct slo_catalog *cat, slo_error_t *err)
{
    return slo_catalog_open(arg, "--catalog", cat, err);
}

int cli_load_workload(const char *arg, struct slo_workload *wl, slo_error_t *err)
{
    return slo_workload_open(arg, "--workload", wl, err);
}

const char *cli_refused_option(int argc, char **argv)
{
    const char *prev = optind > 0 ? argv[optind - 1] : "";
    const char *cur = optind < argc ? argv[optind] : NULL;
    if (optopt > 0 && !(prev[0] == '-' && prev[1] == optopt && prev[2] == '\0') && cur &&
        cur[0] == '-' && cur[1] != '-' && strchr(cur + 1, optopt))
        return cur;
    return prev;
}
