/*
 * lookup.c - the one "embedded NAME or FILE path" rule of libslo: every
 * front end (the CLI, the SPANK plugin) names catalogs, workloads, GPU
 * profiles and layer tables the same way, through the *_open functions.
 * A NAME is read, in this order, from SYSCONFDIR/slo/{catalogs,workloads,
 * gpus}/NAME.json (the installed copy an admin may edit; the environment's
 * SLO_SYSCONFDIR in place of SYSCONFDIR, empty: skip), then from the copy
 * compiled into libslo (doc/slurm.md "Install").
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
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

#ifndef SLO_SYSCONFDIR
#define SLO_SYSCONFDIR "/usr/local/etc" /* configure's sysconfdir (Makefile.am) */
#endif

/* The installed directory of WHAT, under SYSCONFDIR/slo/ (make install puts
 * the compiled-in catalogs, workloads and GPU profiles there); NULL for a
 * kind that is not installed. */
static const char *installed_dir(const char *what)
{
    static const struct {
        const char *what, *dir;
    } dirs[] = {{"catalog", "catalogs"}, {"workload", "workloads"}, {"profile", "gpus"}};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (strcmp(what, dirs[i].what) == 0)
            return dirs[i].dir;
    return NULL;
}

int slo__installed_path(const char *what, const char *name, char *path, size_t len)
{
    const char *dir = installed_dir(what), *etc = getenv("SLO_SYSCONFDIR");
    int n;

    if (!etc)
        etc = SLO_SYSCONFDIR;
    if (!dir || !etc[0] || !name[0] || strchr(name, '/') || name[0] == '.')
        return 0;
    n = snprintf(path, len, "%s/slo/%s/%s.json", etc, dir, name);
    return n > 0 && (size_t)n < len && access(path, F_OK) == 0;
}

int slo__open_named(const char *arg, const char *opt, const char *what, const char *suffix,
                    const char *(*embedded)(const char *), const char *const *names,
                    const char *file_kind, const char **text, char *src, size_t src_len,
                    slo_error_t *err)
{
    *text = NULL;
    if (src_len)
        src[0] = '\0';
    if (!arg)
        return slo__fail(err, SLO_ERR_INVALID, opt, "expected a %s name or file, found none",
                         what);
    if (slo__is_path(arg, suffix))
        return SLO_OK; /* a file: the caller loads arg */
    if (slo__installed_path(what, arg, src, src_len))
        return SLO_OK; /* the installed copy: the caller loads src */
    if (src_len)
        src[0] = '\0';
    if (!(*text = embedded(arg)))
        return slo__not_embedded(err, opt, what, names, arg, file_kind);
    snprintf(src, src_len, "embedded %s %s", what, arg);
    return SLO_OK;
}

int slo_catalog_open(const char *name_or_path, const char *opt, struct slo_catalog *cat,
                     slo_error_t *err)
{
    char src[SLO_ERROR_SOURCE_LENGTH];
    const char *text;
    int rc;

    memset(cat, 0, sizeof *cat);
    if ((rc = slo__open_named(name_or_path, opt ? opt : "catalog", "catalog", NULL,
                              slo_embedded_catalog, slo_embedded_catalog_names(), "JSON",
                              &text, src, sizeof src, err)))
        return rc;
    return text ? slo_catalog_parse(text, src, cat, err)
                : slo_catalog_load(src[0] ? src : name_or_path, cat, err);
}
