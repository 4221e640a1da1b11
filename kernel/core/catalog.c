/*
 * catalog.c - instance catalog: instance types, prices, quotas, bandwidths.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"

/* No instance costs a million dollars an hour: a larger price is a typo. */
#define SLO_MAX_USD_PER_H 1e6

static const char *const catalog_keys[] = {"name", "description", "source", "types", NULL};
static const char *const type_keys[] = {"name", "gpu_model", "gpus", "gpu_memory_gb", "site",
                                        "spot_usd_per_h", "on_demand_usd_per_h", "usd_per_h",
                                        "quota", "network_mbps", "pcie_mbps", NULL};

static int parse_type(const json_t *o, size_t i, const char *src, struct slo_instance_type *t,
                      slo_error_t *err)
{
    char path[128], site[16] = "cloud", found[96];
    int rv;

    snprintf(path, sizeof path, "types[%zu]", i);
    if (!json_is_object(o))
        return slo__fail(err, SLO_ERR_INVALID, src, "%s: expected an object, found %s", path,
                        slo__json_describe(o, found, sizeof found));
    if ((rv = slo__json_known_keys(o, type_keys, src, path, err)) ||
        (rv = slo__json_string(o, "name", 1, src, path, t->name, sizeof t->name, err)))
        return rv;
    if (strpbrk(t->name, "=, \t"))
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "%s.name: expected an instance type name without '=', ',' or spaces "
                        "(they separate TYPE=N lists), found \"%s\"",
                        path, t->name);
    /* From here on, name the type rather than its index. */
    snprintf(path, sizeof path, "types[%zu] (%s)", i, t->name);
    t->gpus = 0;
    t->quota = 0;
    if ((rv = slo__json_string(o, "gpu_model", 1, src, path, t->gpu_model, sizeof t->gpu_model,
                              err)) ||
        (rv = slo__json_int(o, "gpus", 1, 1, 1024, src, path, &t->gpus, err)) ||
        (rv = slo__json_number(o, "gpu_memory_gb", 0, 0, 1e6, src, path, &t->gpu_memory_gb,
                              err)) ||
        (rv = slo__json_string(o, "site", 0, src, path, site, sizeof site, err)) ||
        (rv = slo__json_int(o, "quota", 1, 0, 100000, src, path, &t->quota, err)) ||
        (rv = slo__json_number(o, "network_mbps", 0, 1e-6, 1e9, src, path, &t->network_mbps,
                              err)) ||
        (rv = slo__json_number(o, "pcie_mbps", 0, 1e-6, 1e9, src, path, &t->pcie_mbps, err)))
        return rv;
    if (strcmp(site, "cloud") == 0) {
        t->site = SLO_SITE_CLOUD;
        if (json_object_get(o, "usd_per_h"))
            return slo__fail(err, SLO_ERR_INVALID, src,
                            "%s.usd_per_h: only on-prem types have one rate; a cloud type "
                            "takes spot_usd_per_h and on_demand_usd_per_h",
                            path);
        if ((rv = slo__json_number(o, "spot_usd_per_h", 1, 0, SLO_MAX_USD_PER_H, src, path,
                                  &t->spot_usd_per_h, err)) ||
            (rv = slo__json_number(o, "on_demand_usd_per_h", 1, 0, SLO_MAX_USD_PER_H, src, path,
                                  &t->on_demand_usd_per_h, err)))
            return rv;
    } else if (strcmp(site, "onprem") == 0) {
        t->site = SLO_SITE_ONPREM;
        if (json_object_get(o, "spot_usd_per_h") || json_object_get(o, "on_demand_usd_per_h"))
            return slo__fail(err, SLO_ERR_INVALID, src,
                            "%s: an on-prem type has one rate, usd_per_h (amortized, may be 0), "
                            "not spot or on-demand prices",
                            path);
        if ((rv = slo__json_number(o, "usd_per_h", 1, 0, SLO_MAX_USD_PER_H, src, path,
                                  &t->on_demand_usd_per_h, err)))
            return rv;
        t->spot_usd_per_h = t->on_demand_usd_per_h;
    } else {
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "%s.site: expected \"cloud\" or \"onprem\", found \"%s\"", path, site);
    }
    return SLO_OK;
}

int slo_catalog_parse(const char *text, const char *source, struct slo_catalog *cat,
                      slo_error_t *err)
{
    json_t *root = NULL, *types;
    char found[96];
    int rv, any_quota = 0;

    memset(cat, 0, sizeof *cat);
    if ((rv = slo__json_parse_text(text, source, &root, err)))
        return rv;
    if ((rv = slo__json_known_keys(root, catalog_keys, source, "", err)) ||
        (rv = slo__json_string(root, "name", 1, source, "", cat->name, sizeof cat->name, err)))
        goto fail;
    types = json_object_get(root, "types");
    if (!json_is_array(types) || json_array_size(types) == 0) {
        rv = slo__fail(err, SLO_ERR_INVALID, source,
                      "types: expected a non-empty array of instance types, found %s",
                      slo__json_describe(types, found, sizeof found));
        goto fail;
    }
    cat->n_types = json_array_size(types);
    cat->types = calloc(cat->n_types, sizeof *cat->types);
    if (!cat->types) {
        rv = slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < cat->n_types; i++) {
        if ((rv = parse_type(json_array_get(types, i), i, source, &cat->types[i], err)))
            goto fail;
        for (size_t k = 0; k < i; k++)
            if (strcmp(cat->types[k].name, cat->types[i].name) == 0) {
                rv = slo__fail(err, SLO_ERR_INVALID, source,
                              "types[%zu].name: expected a unique instance type, found \"%s\" "
                              "again (first at types[%zu])",
                              i, cat->types[i].name, k);
                goto fail;
            }
        any_quota |= cat->types[i].quota > 0;
    }
    if (!any_quota) {
        rv = slo__fail(err, SLO_ERR_INVALID, source,
                      "types[].quota: expected at least one instance type with quota > 0, "
                      "found every quota 0");
        goto fail;
    }
    json_decref(root);
    return SLO_OK;
fail:
    json_decref(root);
    slo_catalog_free(cat);
    return rv;
}

int slo_catalog_load(const char *path, struct slo_catalog *cat, slo_error_t *err)
{
    char *text;
    int rv;

    memset(cat, 0, sizeof *cat);
    if ((rv = slo__read_file(path, &text, err)))
        return rv;
    rv = slo_catalog_parse(text, path, cat, err);
    free(text);
    return rv;
}

void slo_catalog_free(struct slo_catalog *cat)
{
    if (!cat)
        return;
    free(cat->types);
    memset(cat, 0, sizeof *cat);
}

int slo_catalog_find(const struct slo_catalog *cat, const char *name)
{
    for (size_t i = 0; i < cat->n_types; i++)
        if (strcmp(cat->types[i].name, name) == 0)
            return (int)i;
    return -1;
}

double slo_instance_price(const struct slo_instance_type *t, enum slo_pricing pricing)
{
    if (t->site == SLO_SITE_ONPREM || pricing == SLO_PRICING_ON_DEMAND)
        return t->on_demand_usd_per_h;
    return t->spot_usd_per_h;
}
