/*
 * lookup.c - the one "embedded NAME or FILE path" rule of libslo: every
 * front end (the CLI, the SPANK plugin) names catalogs, workloads, GPU
 * profiles and layer tables the same way, through the *_open functions.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "slo_private.h"

int slo__is_path(const char *arg, const char *suffix)
{
    size_t n = strlen(arg), k = suffix ? strlen(suffix) : 0;
    return strchr(arg, '/') || (n > 5 && strcmp(arg + n - 5, ".json") == 0) ||
           (k && n > k && strcmp(arg + n - k, suffix) == 0) || access(arg, F_OK) == 0;
}

int slo__not_embedded(slo_error_t *err, const char *opt, const char *what,
                      const char *const *names, const char *arg, const char *file_kind)
{
    char list[256] = "";
    for (size_t i = 0; names && names[i]; i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
    }
    return slo__fail(err, SLO_ERR_NOT_FOUND, opt,
                     "expected an embedded %s (%s) or a %s file path, found \"%s\"", what, list,
                     file_kind, arg);
}

int slo_catalog_open(const char *name_or_path, const char *opt, struct slo_catalog *cat,
                     slo_error_t *err)
{
    char src[SLO_ERROR_SOURCE_LENGTH];
    const char *text;

    memset(cat, 0, sizeof *cat);
    if (!name_or_path)
        return slo__fail(err, SLO_ERR_INVALID, opt, "expected a catalog name or file, found none");
    if (slo__is_path(name_or_path, NULL))
        return slo_catalog_load(name_or_path, cat, err);
    if (!(text = slo_embedded_catalog(name_or_path)))
        return slo__not_embedded(err, opt ? opt : "catalog", "catalog",
                                 slo_embedded_catalog_names(), name_or_path, "JSON");
    snprintf(src, sizeof src, "embedded catalog %s", name_or_path);
    return slo_catalog_parse(text, src, cat, err);
}
