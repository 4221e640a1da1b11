/*
 * catalog.c - instance catalog: instance types, spot pools, prices, quotas,
 * bandwidths.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"

/* No instance costs a million dollars an hour: a larger price is a typo. */
#define SLO_MAX_USD_PER_H 1e6
/* Largest quota of one entry (type or pool). */
#define SLO_MAX_QUOTA 100000

static const char *const catalog_keys[] = {"name", "description", "source", "types",
                                           "restart_overhead_s", NULL};
static const char *const type_keys[] = {"name", "gpu_model", "gpus", "gpu_memory_gb", "site",
                                        "spot_usd_per_h", "on_demand_usd_per_h", "usd_per_h",
                                        "quota", "network_mbps", "pcie_mbps", "pools",
                                        "interruption_rate", NULL};
static const char *const pool_keys[] = {"zone", "spot_usd_per_h", "on_demand_usd_per_h", "quota",
                                        "interruption_rate", NULL};

/* Where an entry of cat->types came from, for messages. */
struct origin {
    size_t type;  /* index in the JSON types[] */
    long pool;    /* index in its pools[], -1 for a plain type */
};

/* A name may not hold the separators of TYPE=N lists, nor '@' (TYPE@ZONE). */
static int bad_name(const char *s)
{
    return strpbrk(s, "=,@ \t") != NULL;
}

/* AWS Spot Instance Advisor's "frequency of interruption" buckets (the share
 * of instances of a pool interrupted over the trailing month) and the
 * monthly share each stands for: its upper bound; the open bucket ">20%"
 * publishes none and is read as one more bucket width, 25%. */
static const struct {
    const char *text;
    double monthly;
} advisor_buckets[] = {
    {"<5%", 0.05}, {"5-10%", 0.10}, {"10-15%", 0.15}, {"15-20%", 0.20}, {">20%", 0.25}};

int slo_interruption_bucket_rate(const char *bucket, double *p_revoke_h)
{
    for (size_t i = 0; bucket && i < sizeof advisor_buckets / sizeof advisor_buckets[0]; i++)
        if (strcmp(bucket, advisor_buckets[i].text) == 0) {
            /* exponential lifetimes: P(revoked within a month of 730 h) = f
             * gives P(within an hour) = 1 - (1 - f)^(1/730) */
            *p_revoke_h = -expm1(log1p(-advisor_buckets[i].monthly) / SLO_HOURS_PER_MONTH);
            return SLO_OK;
        }
    return SLO_ERR_INVALID;
}

/* The optional "interruption_rate" of a type or pool object o (path names
 * it): a number in [0, 1] or an Advisor bucket string, into *t. */
static int parse_rate(const json_t *o, const char *src, const char *path,
                      struct slo_instance_type *t, slo_error_t *err)
{
    const json_t *v = json_object_get(o, "interruption_rate");
    char found[96];
    double p = -1;

    if (!v)
        return SLO_OK;
    if (t->site != SLO_SITE_CLOUD)
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "%s.interruption_rate: only cloud (spot) types are revoked; expected "
                        "none on an on-prem type, found %s",
                        path, slo__json_describe(v, found, sizeof found));
    if (json_is_number(v))
        p = json_number_value(v);
    else if (json_is_string(v) && slo_interruption_bucket_rate(json_string_value(v), &p))
        p = -1;
    if (!(p >= 0 && p <= 1))
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "%s.interruption_rate: expected the probability that a running spot "
                        "instance is revoked within an hour, a number in [0, 1], or a Spot "
                        "Instance Advisor bucket (\"<5%%\", \"5-10%%\", \"10-15%%\", "
                        "\"15-20%%\", \">20%%\"), found %s",
                        path, slo__json_describe(v, found, sizeof found));
    t->interruption_rate = p;
    t->has_interruption_rate = 1;
    return SLO_OK;
}

/* Parse types[i] except its pools: the type's own fields into *t. */
static int parse_type(const json_t *o, size_t i, const char *src, struct slo_instance_type *t,
                      const json_t **pools, slo_error_t *err)
{
    char path[128], site[16] = "cloud", found[96];
    int rv;

    memset(t, 0, sizeof *t);
    snprintf(path, sizeof path, "types[%zu]", i);
    if (!json_is_object(o))
        return slo__fail(err, SLO_ERR_INVALID, src, "%s: expected an object, found %s", path,
                        slo__json_describe(o, found, sizeof found));
    if ((rv = slo__json_known_keys(o, type_keys, src, path, err)) ||
        (rv = slo__json_string(o, "name", 1, src, path, t->name, sizeof t->name, err)))
        return rv;
    if (bad_name(t->name))
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "%s.name: expected an instance type name without '=', ',', '@' or "
                        "spaces (they separate TYPE=N lists; '@' names a spot pool, TYPE@ZONE), "
                        "found \"%s\"",
                        path, t->name);
    memcpy(t->type, t->name, sizeof t->type);
    /* From here on, name the type rather than its index. */
    snprintf(path, sizeof path, "types[%zu] (%s)", i, t->name);
    *pools = json_object_get(o, "pools");
    if ((rv = slo__json_string(o, "gpu_model", 1, src, path, t->gpu_model, sizeof t->gpu_model,
                              err)) ||
        (rv = slo__json_int(o, "gpus", 1, 1, 1024, src, path, &t->gpus, err)) ||
        (rv = slo__json_number(o, "gpu_memory_gb", 0, 0, 1e6, src, path, &t->gpu_memory_gb,
                              err)) ||
        (rv = slo__json_string(o, "site", 0, src, path, site, sizeof site, err)) ||
        (!*pools &&
         (rv = slo__json_int(o, "quota", 1, 0, SLO_MAX_QUOTA, src, path, &t->quota, err))) ||
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
        if (*pools) {
            const char *own = json_object_get(o, "spot_usd_per_h") ? "spot_usd_per_h"
                              : json_object_get(o, "quota")        ? "quota"
                                                                   : NULL;
            if (own)
                return slo__fail(err, SLO_ERR_INVALID, src,
                                "%s.%s: a type with pools[] takes each pool's spot_usd_per_h "
                                "and quota from its pool, expected none on the type, found one",
                                path, own);
        } else if ((rv = slo__json_number(o, "spot_usd_per_h", 1, 0, SLO_MAX_USD_PER_H, src,
                                          path, &t->spot_usd_per_h, err)))
            return rv;
        if ((rv = slo__json_number(o, "on_demand_usd_per_h", 1, 0, SLO_MAX_USD_PER_H, src, path,
                                  &t->on_demand_usd_per_h, err)))
            return rv;
    } else if (strcmp(site, "onprem") == 0) {
        t->site = SLO_SITE_ONPREM;
        if (json_object_get(o, "spot_usd_per_h") || json_object_get(o, "on_demand_usd_per_h"))
            return slo__fail(err, SLO_ERR_INVALID, src,
                            "%s: an on-prem type has one rate, usd_per_h (amortized, may be 0), "
                            "not spot or on-demand prices",
                            path);
        if (*pools)
            return slo__fail(err, SLO_ERR_INVALID, src,
                            "%s.pools: only cloud types have spot pools; expected none on an "
                            "on-prem type, found %s",
                            path, slo__json_describe(*pools, found, sizeof found));
        if ((rv = slo__json_number(o, "usd_per_h", 1, 0, SLO_MAX_USD_PER_H, src, path,
                                  &t->on_demand_usd_per_h, err)))
            return rv;
        t->spot_usd_per_h = t->on_demand_usd_per_h;
    } else {
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "%s.site: expected \"cloud\" or \"onprem\", found \"%s\"", path, site);
    }
    if ((rv = parse_rate(o, src, path, t, err)))
        return rv;
    if (*pools && (!json_is_array(*pools) || json_array_size(*pools) == 0))
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "%s.pools: expected a non-empty array of spot pools "
                        "({\"zone\", \"spot_usd_per_h\", \"quota\"}), found %s",
                        path, slo__json_describe(*pools, found, sizeof found));
    return SLO_OK;
}

/* Parse pools[j] of type *t (types[i]) into *p, a copy of *t named TYPE@ZONE. */
static int parse_pool(const json_t *o, size_t i, size_t j, const struct slo_instance_type *t,
                      const char *src, struct slo_instance_type *p, slo_error_t *err)
{
    char path[256], found[96];
    int rv;

    *p = *t;
    snprintf(path, sizeof path, "types[%zu] (%s).pools[%zu]", i, t->name, j);
    if (!json_is_object(o))
        return slo__fail(err, SLO_ERR_INVALID, src, "%s: expected an object, found %s", path,
                        slo__json_describe(o, found, sizeof found));
    if ((rv = slo__json_known_keys(o, pool_keys, src, path, err)) ||
        (rv = slo__json_string(o, "zone", 1, src, path, p->zone, sizeof p->zone, err)))
        return rv;
    if (!p->zone[0] || bad_name(p->zone))
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "%s.zone: expected a zone name (\"us-east-1a\") without '=', ',', '@' "
                        "or spaces, found \"%s\"",
                        path, p->zone);
    if ((size_t)snprintf(p->name, sizeof p->name, "%s@%s", t->name, p->zone) >= sizeof p->name)
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "%s.zone: expected TYPE@ZONE of at most %d characters, found "
                        "\"%s@%s\"",
                        path, SLO_NAME_LENGTH - 1, t->name, p->zone);
    snprintf(path, sizeof path, "types[%zu] (%s).pools[%zu] (%s)", i, t->name, j, p->zone);
    if ((rv = slo__json_number(o, "spot_usd_per_h", 1, 0, SLO_MAX_USD_PER_H, src, path,
                              &p->spot_usd_per_h, err)) ||
        (rv = slo__json_number(o, "on_demand_usd_per_h", 0, 0, SLO_MAX_USD_PER_H, src, path,
                              &p->on_demand_usd_per_h, err)) ||
        (rv = slo__json_int(o, "quota", 1, 0, SLO_MAX_QUOTA, src, path, &p->quota, err)) ||
        (rv = parse_rate(o, src, path, p, err)))
        return rv;
    return SLO_OK;
}

/* Sort entries by name, then by position (they are in one array): equal
 * names end up adjacent, the first in file order first. */
static int by_name(const void *a, const void *b)
{
    const struct slo_instance_type *x = *(const struct slo_instance_type *const *)a,
                                   *y = *(const struct slo_instance_type *const *)b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x > y) - (x < y);
}

/* The first repeated name in file order: O(n log n), so a catalog of
 * thousands of pools loads in milliseconds. */
static int check_unique(const struct slo_catalog *cat, const struct origin *from,
                        const char *src, slo_error_t *err)
{
    size_t n = cat->n_types, again = n, first = 0;
    const struct slo_instance_type **ix = malloc((n ? n : 1) * sizeof *ix);
    if (!ix)
        return slo__fail(err, SLO_ERR_NOMEM, src, "out of memory");
    for (size_t i = 0; i < n; i++)
        ix[i] = &cat->types[i];
    qsort(ix, n, sizeof *ix, by_name);
    for (size_t r = 1; r < n; r++) {
        size_t i = (size_t)(ix[r] - cat->types);
        if (strcmp(ix[r]->name, ix[r - 1]->name) == 0 && i < again) {
            again = i;
            first = (size_t)(ix[r - 1] - cat->types);
        }
    }
    free(ix);
    if (again == n)
        return SLO_OK;
    const struct origin *a = &from[again], *f = &from[first];
    if (a->pool < 0 || f->pool < 0 || a->type != f->type)
        /* Two types[] of one name (pools of one type are TYPE@ZONE, and no
         * type name holds '@', so these are plain types or two pooled
         * types[] sharing a name and a zone). */
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "types[%zu].name: expected a unique instance type, found \"%s\" "
                        "again (first at types[%zu])",
                        a->type, cat->types[again].type, f->type);
    return slo__fail(err, SLO_ERR_INVALID, src,
                    "types[%zu] (%s).pools[%ld].zone: expected each zone once per instance "
                    "type, found \"%s\" again (first at pools[%ld])",
                    a->type, cat->types[again].type, a->pool, cat->types[again].zone, f->pool);
}

/* Two types[] entries of one name, one with pools and one without, or
 * both with pools in different zones, would give the planner one profile
 * under two entries by accident: type names are unique too. */
static int check_types_unique(const json_t *types, const char *src, slo_error_t *err)
{
    size_t n = json_array_size(types);
    struct slo_catalog names = {.n_types = n, .types = calloc(n, sizeof *names.types)};
    struct origin *from = calloc(n, sizeof *from);
    int rv;

    if (!names.types || !from) {
        free(names.types);
        free(from);
        return slo__fail(err, SLO_ERR_NOMEM, src, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value(json_object_get(json_array_get(types, i), "name"));
        snprintf(names.types[i].name, sizeof names.types[i].name, "%s", s ? s : "");
        memcpy(names.types[i].type, names.types[i].name, sizeof names.types[i].type);
        from[i] = (struct origin){i, -1};
    }
    rv = check_unique(&names, from, src, err);
    free(names.types);
    free(from);
    return rv;
}

int slo_catalog_parse(const char *text, const char *source, struct slo_catalog *cat,
                      slo_error_t *err)
{
    json_t *root = NULL, *types;
    struct origin *from = NULL;
    char found[96];
    int rv, any_quota = 0;
    size_t n = 0;

    memset(cat, 0, sizeof *cat);
    if ((rv = slo__json_parse_text(text, source, &root, err)))
        return rv;
    if ((rv = slo__json_known_keys(root, catalog_keys, source, "", err)) ||
        (rv = slo__json_string(root, "name", 1, source, "", cat->name, sizeof cat->name, err)))
        goto fail;
    if ((rv = slo__json_number(root, "restart_overhead_s", 0, 0, 86400, source, "",
                               &cat->restart_overhead_s, err)))
        goto fail;
    cat->has_restart_overhead = json_object_get(root, "restart_overhead_s") != NULL;
    types = json_object_get(root, "types");
    if (!json_is_array(types) || json_array_size(types) == 0) {
        rv = slo__fail(err, SLO_ERR_INVALID, source,
                      "types: expected a non-empty array of instance types, found %s",
                      slo__json_describe(types, found, sizeof found));
        goto fail;
    }
    /* One entry per plain type and one per pool. */
    for (size_t i = 0; i < json_array_size(types); i++) {
        const json_t *p = json_object_get(json_array_get(types, i), "pools");
        n += json_is_array(p) && json_array_size(p) > 0 ? json_array_size(p) : 1;
    }
    cat->types = calloc(n, sizeof *cat->types);
    from = calloc(n, sizeof *from);
    if (!cat->types || !from) {
        rv = slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < json_array_size(types); i++) {
        struct slo_instance_type t;
        const json_t *pools = NULL;
        if ((rv = parse_type(json_array_get(types, i), i, source, &t, &pools, err)))
            goto fail;
        if (!pools) {
            from[cat->n_types] = (struct origin){i, -1};
            cat->types[cat->n_types++] = t;
        }
        for (size_t j = 0; pools && j < json_array_size(pools); j++) {
            if ((rv = parse_pool(json_array_get(pools, j), i, j, &t, source,
                                 &cat->types[cat->n_types], err)))
                goto fail;
            from[cat->n_types++] = (struct origin){i, (long)j};
        }
    }
    if ((rv = check_types_unique(types, source, err)) ||
        (rv = check_unique(cat, from, source, err)))
        goto fail;
    for (size_t k = 0; k < cat->n_types; k++)
        any_quota |= cat->types[k].quota > 0;
    if (!any_quota) {
        rv = slo__fail(err, SLO_ERR_INVALID, source,
                      "types[].quota: expected at least one instance type with quota > 0 "
                      "(in its own quota or a pool's), found every quota 0");
        goto fail;
    }
    free(from);
    json_decref(root);
    return SLO_OK;
fail:
    free(from);
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

int slo_catalog_find_type(const struct slo_catalog *cat, const char *type)
{
    for (size_t i = 0; i < cat->n_types; i++)
        if (strcmp(slo_instance_profile(&cat->types[i]), type) == 0)
            return (int)i;
    return -1;
}

const char *slo_instance_profile(const struct slo_instance_type *t)
{
    return t->type[0] ? t->type : t->name;
}
