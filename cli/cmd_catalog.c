/*
 * cmd_catalog.c - `slo catalog`: check a catalog; build or refresh one from
 * the cloud's own answers (issue 20).
 *   slo catalog check NAME|FILE
 *   slo catalog import [--base NAME|FILE] [--quota N] [--name NAME] [--output FILE]
 *                      (--spot-prices F --instance-types F --pricing F | --from-aws ...)
 *
 * The import reads the JSON that the aws CLI prints (shapes of botocore's
 * service models, botocore/data/ec2/2016-11-15/service-2.json and
 * botocore/data/pricing/2017-10-15/service-2.json):
 *   aws ec2 describe-spot-price-history  {"SpotPriceHistory": [SpotPrice...]}
 *       SpotPrice: AvailabilityZone, InstanceType, ProductDescription,
 *       SpotPrice (a decimal string, USD per instance-hour), Timestamp (ISO 8601)
 *   aws ec2 describe-instance-types      {"InstanceTypes": [InstanceTypeInfo...]}
 *       InstanceTypeInfo: InstanceType, GpuInfo.Gpus[] {Name, Count,
 *       MemoryInfo.SizeInMiB}, NetworkInfo.NetworkPerformance ("25 Gigabit")
 *   aws pricing get-products             {"PriceList": ["{...}" ...]}
 *       each a JSON text (jsonvalue): product.attributes {instanceType,
 *       regionCode, operatingSystem, tenancy, preInstalledSw, capacitystatus},
 *       terms.OnDemand.*.priceDimensions.* {unit "Hrs", pricePerUnit.USD}
 * and writes a catalog with spot pools (doc/formats.md): one pool per
 * (instance type, zone) at that zone's LATEST spot price.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _XOPEN_SOURCE 700 /* mkstemp, fsync, fdopen */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define CMD "catalog import"
#define NAMELEN SLO_NAME_LENGTH

/* ------------------------------------------------------------ messages */

/* "an object with keys A, B", "an array", "the string \"x\"", ... */
static const char *describe(const json_t *v, char *buf, size_t len)
{
    if (!v)
        snprintf(buf, len, "nothing");
    else if (json_is_object(v)) {
        const char *key;
        json_t *val;
        size_t used = (size_t)snprintf(buf, len, "an object with keys");
        int n = 0;
        json_object_foreach((json_t *)v, key, val)
        {
            if (n == 4 || used >= len) {
                if (used < len)
                    snprintf(buf + used, len - used, ", ...");
                break;
            }
            used += (size_t)snprintf(buf + used, len - used, "%s %s", n ? "," : "", key);
            n++;
        }
        if (n == 0)
            snprintf(buf, len, "an empty object");
    } else if (json_is_array(v))
        snprintf(buf, len, "an array of %zu", json_array_size(v));
    else if (json_is_string(v))
        snprintf(buf, len, "the string \"%.60s\"", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, len, "the number %lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "the number %g", json_real_value(v));
    else
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : json_is_false(v) ? "false" : "null");
    return buf;
}

/* A string field of obj, or NULL (after printing "SRC: PATH.KEY: expected
 * WHAT, found ..." when required). */
static const char *str_field(const json_t *obj, const char *key, int required, const char *src,
                             const char *path, const char *what, int *bad)
{
    json_t *v = json_object_get(obj, key);
    char found[160];
    if (v && json_is_string(v) && json_string_length(v) > 0 && json_string_length(v) < NAMELEN)
        return json_string_value(v);
    if (json_is_string(v) && json_string_length(v) >= NAMELEN)
        cli_usage_error(CMD, "%s: %s.%s: expected %s of at most %d characters, found one of "
                        "%zu (\"%.40s...\")", src, path, key, what, NAMELEN - 1,
                        json_string_length(v), json_string_value(v));
    else if (v || required)
        cli_usage_error(CMD, "%s: %s.%s: expected %s, found %s", src, path, key, what,
                        describe(v, found, sizeof found));
    if (v || required)
        *bad = 1;
    return NULL;
}

/* A USD amount the aws CLI prints as a decimal string ("0.918000"). */
static int usd_field(const json_t *obj, const char *key, const char *src, const char *path,
                     double *out)
{
    json_t *v = json_object_get(obj, key);
    char found[160], *end;
    const char *s = json_string_value(v);
    double x = s ? slo_strtod(s, &end) : NAN;
    if (!s || !*s || *end || !isfinite(x) || x < 0 || x > 1e6)
        return cli_usage_error(CMD,
                               "%s: %s.%s: expected a price in USD per instance-hour as a "
                               "decimal string (\"0.918000\"), found %s",
                               src, path, key, describe(v, found, sizeof found));
    *out = x;
    return 0;
}

/* The whole answer is not what that aws command prints. */
static int shape_error(const char *src, const char *command, const char *key,
                       const json_t *root)
{
    char found[160];
    return cli_usage_error(CMD,
                           "%s: expected the JSON that `aws %s` prints (an object with a %s "
                           "array), found %s",
                           src, command, key, describe(root, found, sizeof found));
}

/* ------------------------------------------------------------ time */

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's
 * days_from_civil). */
static long long days_from_civil(long long y, int m, int d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* ISO 8601 as the aws CLI prints a Timestamp: "2023-01-15T10:23:45.000Z"
 * (v1), "2023-01-15T10:23:45+00:00" (v2). *ms: milliseconds since the epoch,
 * UTC. Returns 0, or -1 when text is not such a time. */
static int parse_timestamp(const char *text, long long *ms)
{
    int y, mo, d, h, mi, s, n = 0, frac = 0, digits = 0;
    if (sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &n) != 6 || n != 19)
        return -1;
    const char *p = text + n;
    if (*p == '.') {
        for (p++; isdigit((unsigned char)*p); p++)
            if (digits++ < 3)
                frac = frac * 10 + (*p - '0');
        if (digits == 0)
            return -1;
        for (int k = digits; k < 3; k++)
            frac *= 10;
    }
    long long off_s = 0;
    if (*p == 'Z')
        p++;
    else if (*p == '+' || *p == '-') {
        int oh, om, m2 = 0;
        if (sscanf(p + 1, "%2d:%2d%n", &oh, &om, &m2) != 2 || m2 != 5)
            return -1;
        off_s = (*p == '-' ? -1 : 1) * (oh * 3600LL + om * 60LL);
        p += 6;
    } else
        return -1;
    /* the days of month mo of year y (Gregorian leap years) */
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (*p || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 60)
        return -1;
    if (d > mdays[mo - 1] + (mo == 2 && (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))))
        return -1;
    long long t = days_from_civil(y, mo, d) * 86400LL + h * 3600LL + mi * 60LL + s - off_s;
    *ms = t * 1000 + frac;
    return 0;
}

/* ------------------------------------------------------------ the inputs */

struct spot {
    char type[NAMELEN], zone[NAMELEN], stamp[40];
    double usd;
    long long ms;
    size_t index; /* in SpotPriceHistory[] */
};

struct itype {
    char type[NAMELEN], gpu_model[NAMELEN];
    int gpus;
    double gpu_memory_gb, network_mbps; /* 0 when not stated */
};

struct ondemand {
    char type[NAMELEN], region[NAMELEN];
    double usd;
    size_t index; /* in PriceList[] */
};

struct import {
    const char *os;                  /* pricing operatingSystem for the spot product */
    struct spot *spot;               /* latest per (type, zone) after spot_latest */
    size_t n_spot;
    struct itype *types;
    size_t n_types;
    struct ondemand *od;
    size_t n_od;
    char newest[40];                 /* newest Timestamp used */
    /* --spot-advisor (issue 13): the Spot Instance Advisor's data */
    const json_t *advisor;           /* its spot_advisor object, or NULL */
    const char *asrc;                /* its file name */
    const char *aos;                 /* its OS key: "Linux" or "Windows" */
    double range_rate[16];           /* hourly rate of ranges[].index i, -1 unknown */
};

/* p holds n elements; make room for one more (capacity doubles each time n
 * reaches a power of two: 1, 2, 4, ...). */
static void *grow(void *p, size_t n, size_t size)
{
    if (n & (n - 1))
        return p;
    void *q = realloc(p, (n ? 2 * n : 1) * size);
    if (!q) {
        fprintf(stderr, "slo " CMD ": out of memory\n");
        exit(SLO_EXIT_INTERNAL);
    }
    return q;
}

static int load_json(const char *path, const char *label, json_t **out)
{
    json_error_t je;
    struct stat st;
    *out = NULL;
    /* jansson reads a directory as an empty file ("'[' or '{' expected near
     * end of file"): say what it is, as the other commands do */
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cli_usage_error(CMD, "%s: expected a file, found a directory", label);
    *out = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!*out)
        return cli_usage_error(CMD, "%s:%d:%d: %s", label, je.line, je.column, je.text);
    return 0;
}

static int read_spot(const json_t *root, const char *src, const char *product,
                     struct import *im)
{
    const json_t *list = json_object_get(root, "SpotPriceHistory");
    int bad = 0;
    if (!json_is_object(root) || !json_is_array(list))
        return shape_error(src, "ec2 describe-spot-price-history", "SpotPriceHistory", root);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *e = json_array_get(list, i);
        char path[64], found[160];
        const char *type, *zone, *desc, *stamp;
        struct spot sp = {.index = i};
        snprintf(path, sizeof path, "SpotPriceHistory[%zu]", i);
        if (!json_is_object(e))
            return cli_usage_error(CMD, "%s: %s: expected a SpotPrice object, found %s", src,
                                   path, describe(e, found, sizeof found));
        if (!(type = str_field(e, "InstanceType", 1, src, path, "an instance type", &bad)) ||
            !(zone = str_field(e, "AvailabilityZone", 1, src, path, "a zone (\"us-east-1a\")",
                               &bad)) ||
            !(desc = str_field(e, "ProductDescription", 1, src, path,
                               "a product (\"Linux/UNIX\")", &bad)) ||
            !(stamp = str_field(e, "Timestamp", 1, src, path, "an ISO 8601 time", &bad)))
            return -1;
        if (strcmp(desc, product) != 0)
            continue; /* another operating system's price */
        if (parse_timestamp(stamp, &sp.ms))
            return cli_usage_error(CMD,
                                   "%s: %s.Timestamp: expected an ISO 8601 time "
                                   "(\"2023-01-15T10:23:45.000Z\"), found \"%s\"",
                                   src, path, stamp);
        if (usd_field(e, "SpotPrice", src, path, &sp.usd))
            return -1;
        if (strpbrk(zone, "=,@ \t") || strpbrk(type, "=,@ \t"))
            return cli_usage_error(CMD, "%s: %s: expected an instance type and a zone without "
                                   "'=', ',', '@' or spaces, found \"%s\" in \"%s\"",
                                   src, path, type, zone);
        snprintf(sp.type, sizeof sp.type, "%s", type);
        snprintf(sp.zone, sizeof sp.zone, "%s", zone);
        snprintf(sp.stamp, sizeof sp.stamp, "%s", stamp);
        im->spot = grow(im->spot, im->n_spot, sizeof *im->spot);
        im->spot[im->n_spot++] = sp;
    }
    return 0;
}

static int by_pool_newest(const void *a, const void *b)
{
    const struct spot *x = a, *y = b;
    int c = strcmp(x->type, y->type);
    if (!c)
        c = strcmp(x->zone, y->zone);
    if (!c)
        c = (x->ms < y->ms) - (x->ms > y->ms); /* newest first */
    if (!c)
        c = (x->index > y->index) - (x->index < y->index);
    return c;
}

/* Keep each (type, zone)'s latest price. Two different prices at the same
 * latest time leave the price undetermined: refused. */
static int spot_latest(struct import *im, const char *src)
{
    size_t w = 0;
    if (im->n_spot > 1) /* qsort(NULL, 0, ...) is undefined */
        qsort(im->spot, im->n_spot, sizeof *im->spot, by_pool_newest);
    for (size_t r = 0; r < im->n_spot; r++) {
        const struct spot *s = &im->spot[r];
        if (w && strcmp(im->spot[w - 1].type, s->type) == 0 &&
            strcmp(im->spot[w - 1].zone, s->zone) == 0) {
            const struct spot *l = &im->spot[w - 1];
            if (s->ms == l->ms && s->usd != l->usd)
                return cli_usage_error(CMD,
                                       "%s: SpotPriceHistory[%zu]: expected one latest price "
                                       "of %s in %s, found %g and %g (SpotPriceHistory[%zu]) "
                                       "both at %s",
                                       src, s->index, s->type, s->zone, s->usd, l->usd,
                                       l->index, s->stamp);
            continue;
        }
        im->spot[w++] = *s;
        long long newest_ms;
        if (!im->newest[0] || (parse_timestamp(im->newest, &newest_ms) == 0 && s->ms > newest_ms))
            snprintf(im->newest, sizeof im->newest, "%s", s->stamp);
    }
    im->n_spot = w;
    return 0;
}

/* "25 Gigabit", "Up to 10 Gigabit", "100 Gigabit" -> MB/s (Gbit/s x 125);
 * 0 for "Moderate", "High" and the like (no number). */
static double network_mbps(const char *perf)
{
    double g;
    char unit[16];
    if (!perf)
        return 0;
    if (strncmp(perf, "Up to ", 6) == 0)
        perf += 6;
    if (sscanf(perf, "%lf %15s", &g, unit) == 2 && strcmp(unit, "Gigabit") == 0 && g > 0 &&
        isfinite(g))
        return g * 125;
    return 0;
}

static int read_types(const json_t *root, const char *src, struct import *im)
{
    const json_t *list = json_object_get(root, "InstanceTypes");
    int bad = 0;
    if (!json_is_object(root) || !json_is_array(list))
        return shape_error(src, "ec2 describe-instance-types", "InstanceTypes", root);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *e = json_array_get(list, i), *gi, *gpus;
        char path[96], found[160];
        const char *type;
        struct itype t;
        memset(&t, 0, sizeof t);
        snprintf(path, sizeof path, "InstanceTypes[%zu]", i);
        if (!json_is_object(e))
            return cli_usage_error(CMD, "%s: %s: expected an InstanceTypeInfo object, found %s",
                                   src, path, describe(e, found, sizeof found));
        if (!(type = str_field(e, "InstanceType", 1, src, path, "an instance type", &bad)))
            return -1;
        snprintf(t.type, sizeof t.type, "%s", type);
        snprintf(path, sizeof path, "InstanceTypes[%zu] (%s)", i, type);
        gi = json_object_get(e, "GpuInfo");
        if (gi) {
            gpus = json_object_get(gi, "Gpus");
            if (!json_is_object(gi) || !json_is_array(gpus) || json_array_size(gpus) == 0)
                return cli_usage_error(CMD,
                                       "%s: %s.GpuInfo: expected an object with a non-empty "
                                       "Gpus array, found %s",
                                       src, path, describe(gi, found, sizeof found));
            for (size_t g = 0; g < json_array_size(gpus); g++) {
                const json_t *d = json_array_get(gpus, g), *count = json_object_get(d, "Count");
                const json_t *mem = json_object_get(json_object_get(d, "MemoryInfo"),
                                                    "SizeInMiB");
                char gp[192];
                const char *name;
                snprintf(gp, sizeof gp, "%s.GpuInfo.Gpus[%zu]", path, g);
                if (!(name = str_field(d, "Name", 1, src, gp, "a GPU name (\"V100\")", &bad)))
                    return -1;
                if (!json_is_integer(count) || json_integer_value(count) < 1 ||
                    json_integer_value(count) > 1024)
                    return cli_usage_error(CMD, "%s: %s.Count: expected a GPU count in 1..1024, "
                                           "found %s",
                                           src, gp, describe(count, found, sizeof found));
                if (g > 0 && strcmp(name, t.gpu_model) != 0)
                    return cli_usage_error(CMD,
                                           "%s: %s.Name: expected one GPU model per instance "
                                           "type (a catalog entry has one), found \"%s\" after "
                                           "\"%s\"",
                                           src, gp, name, t.gpu_model);
                snprintf(t.gpu_model, sizeof t.gpu_model, "%s", name);
                t.gpus += (int)json_integer_value(count);
                if (json_is_integer(mem) && json_integer_value(mem) > 0)
                    t.gpu_memory_gb = (double)json_integer_value(mem) / 1024;
            }
            if (t.gpus > 1024)
                return cli_usage_error(CMD, "%s: %s.GpuInfo: expected at most 1024 GPUs, found %d",
                                       src, path, t.gpus);
        }
        t.network_mbps = network_mbps(json_string_value(
            json_object_get(json_object_get(e, "NetworkInfo"), "NetworkPerformance")));
        im->types = grow(im->types, im->n_types, sizeof *im->types);
        im->types[im->n_types++] = t;
    }
    return 0;
}

static const struct itype *find_itype(const struct import *im, const char *type)
{
    for (size_t i = 0; i < im->n_types; i++)
        if (strcmp(im->types[i].type, type) == 0)
            return &im->types[i];
    return NULL;
}

/* terms.OnDemand: one term, one dimension priced per hour. */
static int ondemand_price(const json_t *terms, const char *src, const char *path, double *usd)
{
    const json_t *od = json_object_get(terms, "OnDemand"), *term = NULL, *dims, *dim = NULL;
    const char *key;
    char found[160], p[256];
    if (!json_is_object(od) || json_object_size(od) != 1)
        return cli_usage_error(CMD, "%s: %s.terms.OnDemand: expected an object with one term, "
                               "found %s",
                               src, path, describe(od, found, sizeof found));
    json_object_foreach((json_t *)od, key, term) break;
    dims = json_object_get(term, "priceDimensions");
    if (!json_is_object(dims) || json_object_size(dims) != 1)
        return cli_usage_error(CMD, "%s: %s.terms.OnDemand.%s.priceDimensions: expected an "
                               "object with one price dimension, found %s",
                               src, path, key, describe(dims, found, sizeof found));
    const char *dkey;
    json_object_foreach((json_t *)dims, dkey, dim) break;
    snprintf(p, sizeof p, "%s.terms.OnDemand...priceDimensions.%s", path, dkey);
    const char *unit = json_string_value(json_object_get(dim, "unit"));
    if (!unit || strcmp(unit, "Hrs") != 0)
        return cli_usage_error(CMD, "%s: %s.unit: expected \"Hrs\" (a price per hour), found %s",
                               src, p, describe(json_object_get(dim, "unit"), found,
                                                sizeof found));
    snprintf(p + strlen(p), sizeof p - strlen(p), ".pricePerUnit");
    return usd_field(json_object_get(dim, "pricePerUnit"), "USD", src, p, usd);
}

static int read_pricing(const json_t *root, const char *src, struct import *im)
{
    const json_t *list = json_object_get(root, "PriceList");
    if (!json_is_object(root) || !json_is_array(list))
        return shape_error(src, "pricing get-products", "PriceList", root);
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *item = json_array_get(list, i), *owned = NULL;
        const json_t *prod, *attr;
        char path[64], found[160];
        int bad = 0, rv = 0;
        snprintf(path, sizeof path, "PriceList[%zu]", i);
        if (json_is_string(item)) { /* the aws CLI prints each product as JSON text */
            json_error_t je;
            if (!(owned = json_loads(json_string_value(item), JSON_REJECT_DUPLICATES, &je)))
                return cli_usage_error(CMD, "%s: %s: expected a product as JSON text, found "
                                       "malformed JSON (%d:%d: %s)",
                                       src, path, je.line, je.column, je.text);
            item = owned;
        }
        prod = json_object_get(item, "product");
        attr = json_object_get(prod, "attributes");
        if (!json_is_object(item) || !json_is_object(attr)) {
            cli_usage_error(CMD, "%s: %s: expected a product (an object with "
                            "product.attributes and terms), found %s",
                            src, path, describe(item, found, sizeof found));
            json_decref(owned);
            return -1;
        }
        const char *family = json_string_value(json_object_get(prod, "productFamily"));
        const char *type = NULL, *region = NULL, *os, *tenancy, *sw, *cap;
        os = json_string_value(json_object_get(attr, "operatingSystem"));
        tenancy = json_string_value(json_object_get(attr, "tenancy"));
        sw = json_string_value(json_object_get(attr, "preInstalledSw"));
        cap = json_string_value(json_object_get(attr, "capacitystatus"));
        /* The spot product's on-demand twin: same OS, shared tenancy, no
         * pre-installed software, used capacity (not a reservation). */
        if ((family && strncmp(family, "Compute Instance", 16) != 0) || !os ||
            strcmp(os, im->os) != 0 || (tenancy && strcmp(tenancy, "Shared") != 0) ||
            (sw && strcmp(sw, "NA") != 0) || (cap && strcmp(cap, "Used") != 0)) {
            json_decref(owned);
            continue;
        }
        char ap[96];
        snprintf(ap, sizeof ap, "%s.product.attributes", path);
        struct ondemand o = {.index = i};
        if (!(type = str_field(attr, "instanceType", 1, src, ap, "an instance type", &bad)) ||
            !(region = str_field(attr, "regionCode", 1, src, ap, "a region (\"us-east-1\")",
                                 &bad)) ||
            (rv = ondemand_price(json_object_get(item, "terms"), src, path, &o.usd))) {
            json_decref(owned);
            return -1;
        }
        snprintf(o.type, sizeof o.type, "%s", type);
        snprintf(o.region, sizeof o.region, "%s", region);
        json_decref(owned);
        int dup = 0;
        for (size_t k = 0; k < im->n_od && !dup; k++)
            if (strcmp(im->od[k].type, o.type) == 0 && strcmp(im->od[k].region, o.region) == 0) {
                if (im->od[k].usd != o.usd)
                    return cli_usage_error(CMD,
                                           "%s: %s: expected one on-demand price of %s in %s, "
                                           "found %g and %g (PriceList[%zu])",
                                           src, path, o.type, o.region, o.usd, im->od[k].usd,
                                           im->od[k].index);
                dup = 1;
            }
        if (!dup) {
            im->od = grow(im->od, im->n_od, sizeof *im->od);
            im->od[im->n_od++] = o;
        }
    }
    return 0;
}

/* "us-east-1a" -> "us-east-1"; a Local Zone "us-west-2-lax-1a" -> "us-west-2-lax-1",
 * which is also its regionCode in the price list. */
static void zone_region(const char *zone, char *region, size_t len)
{
    size_t n = strlen(zone);
    while (n > 0 && islower((unsigned char)zone[n - 1]))
        n--;
    snprintf(region, len, "%.*s", (int)n, zone);
}

static const struct ondemand *find_ondemand(const struct import *im, const char *type,
                                            const char *region)
{
    for (size_t k = 0; k < im->n_od; k++)
        if (strcmp(im->od[k].type, type) == 0 && strcmp(im->od[k].region, region) == 0)
            return &im->od[k];
    return NULL;
}

/* ------------------------------------------------------------ the aws CLI */

static int on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[4096];
    while (path && *path) {
        size_t n = strcspn(path, ":");
        snprintf(buf, sizeof buf, "%.*s/%s", (int)n, n ? path : ".", prog);
        if (access(buf, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

/* Run argv (argv[0] "aws") with its stdout into a temporary file (path in
 * out, caller unlinks); its stderr goes to ours (to /dev/null when quiet).
 * Returns 0, or -1 after saying why (quiet: -1 without a word when aws
 * fails). */
static int run_aws(char *const argv[], char *out, size_t len, int quiet)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(out, len, "%s/slo-aws-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(out), status;
    if (fd < 0)
        return cli_usage_error(CMD, "--from-aws: cannot create a temporary file %s: %s", out,
                               strerror(errno));
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        unlink(out);
        return cli_usage_error(CMD, "--from-aws: cannot run aws: %s", strerror(errno));
    }
    if (pid == 0) {
        dup2(fd, STDOUT_FILENO);
        close(fd);
        if (quiet) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0)
                dup2(null, STDERR_FILENO);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "slo " CMD ": --from-aws: cannot run %s: %s\n", argv[0],
                strerror(errno));
        _exit(127);
    }
    close(fd);
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            unlink(out);
            return cli_usage_error(CMD, "--from-aws: waiting for aws: %s", strerror(errno));
        }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        unlink(out);
        if (quiet)
            return -1;
        return cli_usage_error(CMD,
                               "--from-aws: `aws %s %s` failed (%s %d; its message is above): "
                               "is the aws CLI configured (aws configure)?",
                               argv[1], argv[2], WIFEXITED(status) ? "exit status" : "signal",
                               WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
    return 0;
}

/* Run one aws command and load its JSON. */
static int aws_json(char *const argv[], const char *label, json_t **out)
{
    char path[4096];
    if (run_aws(argv, path, sizeof path, 0))
        return -1;
    int rv = load_json(path, label, out);
    unlink(path);
    return rv;
}

/* ------------------------------------------------------------ output */

static void set_num(json_t *o, const char *key, double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        json_object_set_new(o, key, json_integer((json_int_t)v));
    else
        json_object_set_new(o, key, json_real(v));
}

/* The type-level fields of entry t, as the catalog format has them. */
static json_t *type_json(const struct slo_instance_type *t, const char *name)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(name));
    json_object_set_new(o, "gpu_model", json_string(t->gpu_model));
    json_object_set_new(o, "gpus", json_integer(t->gpus));
    if (t->gpu_memory_gb > 0)
        set_num(o, "gpu_memory_gb", t->gpu_memory_gb);
    json_object_set_new(o, "site", json_string(t->site == SLO_SITE_ONPREM ? "onprem" : "cloud"));
    if (t->site == SLO_SITE_ONPREM)
        set_num(o, "usd_per_h", t->on_demand_usd_per_h);
    else
        set_num(o, "on_demand_usd_per_h", t->on_demand_usd_per_h);
    if (t->network_mbps > 0)
        set_num(o, "network_mbps", t->network_mbps);
    if (t->pcie_mbps > 0)
        set_num(o, "pcie_mbps", t->pcie_mbps);
    return o;
}

/* Entries first..last-1 (consecutive, of one type) as one types[] object:
 * a plain entry, or a type with its pools. */
static json_t *group_json(const struct slo_instance_type *e, size_t n)
{
    const char *type = slo_instance_profile(&e[0]);
    json_t *o = type_json(&e[0], e[0].zone[0] ? type : e[0].name);
    if (!e[0].zone[0]) {
        if (e[0].site == SLO_SITE_CLOUD)
            set_num(o, "spot_usd_per_h", e[0].spot_usd_per_h);
        json_object_set_new(o, "quota", json_integer(e[0].quota));
        if (e[0].has_interruption_rate)
            json_object_set_new(o, "interruption_rate", json_real(e[0].interruption_rate));
        return o;
    }
    json_t *pools = json_array();
    for (size_t k = 0; k < n; k++) {
        json_t *p = json_object();
        json_object_set_new(p, "zone", json_string(e[k].zone));
        set_num(p, "spot_usd_per_h", e[k].spot_usd_per_h);
        json_object_set_new(p, "quota", json_integer(e[k].quota));
        if (e[k].on_demand_usd_per_h != e[0].on_demand_usd_per_h)
            set_num(p, "on_demand_usd_per_h", e[k].on_demand_usd_per_h);
        if (e[k].has_interruption_rate)
            json_object_set_new(p, "interruption_rate", json_real(e[k].interruption_rate));
        json_array_append_new(pools, p);
    }
    json_object_set_new(o, "pools", pools);
    return o;
}

/* Write text to path atomically: a temporary file in the same directory,
 * flushed to disk, renamed over path. Nothing half-written is left. */
static int write_atomic(const char *path, const char *text)
{
    size_t n = strlen(path);
    char *tmp = malloc(n + 16);
    if (!tmp)
        return cli_usage_error(CMD, "out of memory");
    snprintf(tmp, n + 16, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        cli_usage_error(CMD, "--output %s: cannot create %s: %s", path, tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    int ok = f && fputs(text, f) >= 0 && fflush(f) == 0 && fsync(fd) == 0;
    int saved = errno;
    ok = (f ? fclose(f) == 0 : close(fd) == 0) && ok;
    /* a refreshed catalog keeps its mode; a new one is 0644 like a file of cp */
    struct stat st;
    mode_t mode = stat(path, &st) == 0 ? (st.st_mode & 07777) : 0644;
    if (ok && chmod(tmp, mode) != 0)
        ok = 0, saved = errno;
    if (ok && rename(tmp, path) != 0)
        ok = 0, saved = errno;
    if (!ok) {
        unlink(tmp);
        cli_usage_error(CMD, "--output %s: cannot write: %s", path, strerror(saved));
    }
    free(tmp);
    return ok ? 0 : -1;
}

/* ------------------------------------------------------------ the command */

struct import_opts {
    const char *base, *spot, *types, *pricing, *output, *name, *region, *type_list,
        *product, *advisor;
    int from_aws, quota;
};

static void usage_import(FILE *f)
{
    fprintf(f,
            "usage: slo catalog import [--base NAME|FILE] [--quota N] [--name NAME]\n"
            "                          [--product-description D] [--output FILE]\n"
            "                          (--spot-prices F --instance-types F --pricing F |\n"
            "                           --from-aws [--region R] [--types T1,T2,...])\n"
            "\n"
            "Build or refresh an instance catalog (doc/formats.md) from the JSON the aws CLI\n"
            "prints: one spot pool per (instance type, zone) at the zone's latest spot price\n"
            "(aws ec2 describe-spot-price-history), GPUs and NIC bandwidth from aws ec2\n"
            "describe-instance-types, the on-demand price of the zone's region from aws\n"
            "pricing get-products. Instance types without GPUs are left out.\n"
            "  --spot-prices F      output of aws ec2 describe-spot-price-history\n"
            "  --instance-types F   output of aws ec2 describe-instance-types\n"
            "  --pricing F          output of aws pricing get-products\n"
            "  --from-aws           run those three aws commands instead (needs the aws CLI\n"
            "                       on PATH and configured); --region R (default: aws\n"
            "                       configure get region), --types LIST (default: the\n"
            "                       --base catalog's cloud types)\n"
            "  --base NAME|FILE     catalog to refresh: its on-prem entries are kept as they\n"
            "                       are, its cloud types not in the import are kept with\n"
            "                       their old prices, and its quotas are kept: a pool keeps\n"
            "                       its quota, a new pool of a type listed without pools\n"
            "                       gets that type's quota; its pcie_mbps are kept\n"
            "  --quota N            quota of each other new pool (default 0)\n"
            "  --product-description D  spot product (default Linux/UNIX)\n"
            "  --spot-advisor F     AWS Spot Instance Advisor's data (spot-advisor-data.json):\n"
            "                       each pool's interruption_rate from its region's bucket\n"
            "                       (doc/formats.md; a pool it does not list keeps --base's)\n"
            "  --name NAME          catalog name (default: the base's, else aws-import)\n"
            "  --output FILE        write FILE atomically (temporary file + rename);\n"
            "                       default stdout\n");
}

/* The Spot Instance Advisor's data (the feed behind its web page):
 * {"ranges": [{"index": I, "label": "<5%", ...}, ...], "spot_advisor":
 * {REGION: {"Linux"|"Windows": {TYPE: {"s": SAVINGS, "r": I}}}}, ...}.
 * Checks the shape and turns each range's label into an hourly rate
 * (slo_interruption_bucket_rate). */
static int read_advisor(const json_t *root, const char *src, struct import *im)
{
    const json_t *ranges = json_object_get(root, "ranges");
    const json_t *adv = json_object_get(root, "spot_advisor");
    char found[256], what[128];

    if (!json_is_object(root) || !json_is_array(ranges) || !json_is_object(adv)) {
        /* name what is there: the top-level keys when one is missing, the
         * value when it has the wrong type (never a bare "nothing") */
        const char *key = !json_is_array(ranges) ? "ranges" : "spot_advisor";
        const json_t *v = !json_is_array(ranges) ? ranges : adv;
        if (!json_is_object(root))
            describe(root, found, sizeof found);
        else if (!v)
            snprintf(found, sizeof found, "%s, no \"%s\"",
                     describe(root, what, sizeof what), key);
        else
            snprintf(found, sizeof found, "\"%s\" as %s", key, describe(v, what, sizeof what));
        return cli_usage_error(CMD, "--spot-advisor %s: expected the Spot Instance Advisor's "
                               "data, an object with \"ranges\" (an array) and "
                               "\"spot_advisor\" (an object), found %s",
                               src, found);
    }
    const json_int_t n_rates = (json_int_t)(sizeof im->range_rate / sizeof im->range_rate[0]);
    for (json_int_t i = 0; i < n_rates; i++)
        im->range_rate[i] = -1;
    for (size_t i = 0; i < json_array_size(ranges); i++) {
        const json_t *r = json_array_get(ranges, i);
        const json_t *ix = json_object_get(r, "index");
        const char *label = json_string_value(json_object_get(r, "label"));
        double p;
        if (!json_is_integer(ix) || json_integer_value(ix) < 0 ||
            json_integer_value(ix) >= n_rates)
            return cli_usage_error(CMD, "--spot-advisor %s: ranges[%zu].index: expected an "
                                   "integer from 0 to 15, found %s",
                                   src, i, describe(ix, found, sizeof found));
        if (!label || slo_interruption_bucket_rate(label, &p) != SLO_OK)
            return cli_usage_error(CMD, "--spot-advisor %s: ranges[%zu].label: expected a Spot "
                                   "Instance Advisor bucket (\"<5%%\", \"5-10%%\", "
                                   "\"10-15%%\", \"15-20%%\", \">20%%\"), found %s",
                                   src, i,
                                   describe(json_object_get(r, "label"), found, sizeof found));
        im->range_rate[json_integer_value(ix)] = p;
    }
    im->advisor = adv;
    im->asrc = src;
    im->aos = strncmp(im->os, "Windows", 7) == 0 ? "Windows" : "Linux";
    return 0;
}

/* The advisor's rate of type in region into *p: 1 when it lists one, 0
 * when it does not, -1 (after the message) for a bad entry. */
static int advisor_rate(const struct import *im, const char *region, const char *type,
                        double *p)
{
    const json_t *e = json_object_get(
        json_object_get(json_object_get(im->advisor, region), im->aos), type);
    const json_t *r = json_object_get(e, "r");
    char found[96];

    if (!im->advisor || !e)
        return 0;
    if (!json_is_integer(r) || json_integer_value(r) < 0 ||
        json_integer_value(r) >= (json_int_t)(sizeof im->range_rate / sizeof im->range_rate[0]) ||
        im->range_rate[json_integer_value(r)] < 0) {
        cli_usage_error(CMD, "--spot-advisor %s: spot_advisor.%s.%s.%s.r: expected the index "
                        "of one of its ranges[], found %s",
                        im->asrc, region, im->aos, type, describe(r, found, sizeof found));
        return -1;
    }
    *p = im->range_rate[json_integer_value(r)];
    return 1;
}

/* Pricing's operatingSystem for a spot ProductDescription. */
static const char *pricing_os(const char *product)
{
    static const struct { const char *spot, *os; } map[] = {
        {"Linux/UNIX", "Linux"},
        {"Linux/UNIX (Amazon VPC)", "Linux"},
        {"Red Hat Enterprise Linux", "RHEL"},
        {"Red Hat Enterprise Linux (Amazon VPC)", "RHEL"},
        {"SUSE Linux", "SUSE"},
        {"SUSE Linux (Amazon VPC)", "SUSE"},
        {"Windows", "Windows"},
        {"Windows (Amazon VPC)", "Windows"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(product, map[i].spot) == 0)
            return map[i].os;
    return NULL;
}

/* --from-aws: the three answers, by running the aws CLI. */
static int fetch_aws(const struct import_opts *o, const struct slo_catalog *base,
                     json_t **spot, json_t **types, json_t **pricing)
{
    char region[NAMELEN] = "", now[32], filter[160];
    const char *names[512];
    size_t n = 0;
    int rv = -1;

    if (!on_path("aws"))
        return cli_usage_error(CMD, "--from-aws: expected the aws CLI on PATH, found none "
                               "(install awscli, or give --spot-prices, --instance-types and "
                               "--pricing files)");
    if (o->region)
        snprintf(region, sizeof region, "%s", o->region);
    else {
        char *argv[] = {"aws", "configure", "get", "region", NULL}, path[4096];
        if (run_aws(argv, path, sizeof path, 1) == 0) { /* exit 1 when none is set */
            FILE *f = fopen(path, "r");
            if (f && fgets(region, sizeof region, f))
                region[strcspn(region, "\r\n")] = 0;
            if (f)
                fclose(f);
            unlink(path);
        }
        if (!region[0])
            return cli_usage_error(CMD, "--from-aws: expected a region, found none: give "
                                   "--region R or configure one (aws configure set region R)");
    }
    /* the instance types to ask about */
    char *list = o->type_list ? strdup(o->type_list) : NULL, *save = NULL;
    if (o->type_list && !list)
        return cli_usage_error(CMD, "out of memory");
    for (char *t = list ? strtok_r(list, ",", &save) : NULL; t;
         t = strtok_r(NULL, ",", &save)) {
        if (n == 512) {
            free(list);
            return cli_usage_error(CMD, "--types: expected at most 512 instance types, found "
                                   "more");
        }
        names[n++] = t;
    }
    for (size_t k = 0; !list && base && k < base->n_types; k++) {
        const char *t = slo_instance_profile(&base->types[k]);
        int seen = base->types[k].site != SLO_SITE_CLOUD;
        for (size_t j = 0; j < n && !seen; j++)
            seen = strcmp(names[j], t) == 0;
        if (!seen && n == 512)
            return cli_usage_error(CMD, "--from-aws: expected at most 512 cloud types in "
                                   "--base, found more: give --types");
        if (!seen)
            names[n++] = t;
    }
    if (n == 0) {
        free(list);
        return cli_usage_error(CMD, "--from-aws: expected instance types to import, found "
                               "none: give --types T1,T2 or a --base catalog with cloud types");
    }
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);

    char *a1[16 + 512], *a2[16 + 512];
    size_t k1 = 0, k2 = 0;
    const char *h1[] = {"aws", "ec2", "describe-spot-price-history", "--region", region,
                        "--product-descriptions", o->product, "--start-time", now,
                        "--output", "json", "--instance-types"};
    const char *h2[] = {"aws", "ec2", "describe-instance-types", "--region", region,
                        "--output", "json", "--instance-types"};
    for (size_t i = 0; i < sizeof h1 / sizeof h1[0]; i++)
        a1[k1++] = (char *)h1[i];
    for (size_t i = 0; i < sizeof h2 / sizeof h2[0]; i++)
        a2[k2++] = (char *)h2[i];
    for (size_t i = 0; i < n; i++)
        a1[k1++] = a2[k2++] = (char *)names[i];
    a1[k1] = a2[k2] = NULL;
    snprintf(filter, sizeof filter, "Type=TERM_MATCH,Field=regionCode,Value=%s", region);
    char osf[96];
    snprintf(osf, sizeof osf, "Type=TERM_MATCH,Field=operatingSystem,Value=%s",
             pricing_os(o->product));
    /* The price list API answers in us-east-1 for every region. */
    char *a3[] = {"aws", "pricing", "get-products", "--region", "us-east-1", "--service-code",
                  "AmazonEC2", "--format-version", "aws_v1", "--output", "json", "--filters",
                  filter, osf, "Type=TERM_MATCH,Field=tenancy,Value=Shared",
                  "Type=TERM_MATCH,Field=preInstalledSw,Value=NA",
                  "Type=TERM_MATCH,Field=capacitystatus,Value=Used", NULL};
    if (aws_json(a1, "aws ec2 describe-spot-price-history", spot) == 0 &&
        aws_json(a2, "aws ec2 describe-instance-types", types) == 0 &&
        aws_json(a3, "aws pricing get-products", pricing) == 0)
        rv = 0;
    free(list);
    return rv;
}

/* Does the import describe base entry e's type (GPUs and at least one
 * price)? */
static int imported(const struct import *im, const char *type)
{
    const struct itype *it = find_itype(im, type);
    if (!it || it->gpus == 0)
        return 0;
    for (size_t k = 0; k < im->n_spot; k++)
        if (strcmp(im->spot[k].type, type) == 0)
            return 1;
    return 0;
}

/* The pools of imported type `type` (spot[] is sorted by type, zone). */
static int type_json_imported(const struct import *im, const struct slo_catalog *base,
                              const char *type, int quota, json_t **out)
{
    const struct itype *it = find_itype(im, type);
    struct slo_instance_type *e = NULL;
    size_t n = 0;
    int pb = base ? slo_catalog_find_type(base, type) : -1;
    const struct slo_instance_type *b = pb >= 0 ? &base->types[pb] : NULL;
    size_t inherited = 0; /* new pools given the base type's own quota */

    for (size_t k = 0; k < im->n_spot; k++) {
        const struct spot *s = &im->spot[k];
        char region[NAMELEN];
        if (strcmp(s->type, type) != 0)
            continue;
        zone_region(s->zone, region, sizeof region);
        const struct ondemand *od = find_ondemand(im, type, region);
        if (!od) {
            free(e);
            return cli_usage_error(CMD,
                                   "--pricing: expected the on-demand price of %s in %s (for "
                                   "its spot pool %s), found none among %zu matching products",
                                   type, region, s->zone, im->n_od);
        }
        e = grow(e, n, sizeof *e);
        struct slo_instance_type *p = &e[n++];
        memset(p, 0, sizeof *p);
        if ((size_t)snprintf(p->name, sizeof p->name, "%s@%s", type, s->zone) >= sizeof p->name) {
            free(e);
            return cli_usage_error(CMD, "%s: expected TYPE@ZONE of at most %d characters, found "
                                   "%s@%s", "--spot-prices", NAMELEN - 1, type, s->zone);
        }
        snprintf(p->type, sizeof p->type, "%s", type);
        snprintf(p->zone, sizeof p->zone, "%s", s->zone);
        snprintf(p->gpu_model, sizeof p->gpu_model, "%s", it->gpu_model);
        p->gpus = it->gpus;
        p->gpu_memory_gb = it->gpu_memory_gb;
        p->site = SLO_SITE_CLOUD;
        p->spot_usd_per_h = s->usd;
        p->on_demand_usd_per_h = od->usd;
        p->network_mbps = it->network_mbps > 0 ? it->network_mbps : b ? b->network_mbps : 0;
        p->pcie_mbps = b ? b->pcie_mbps : 0;
        /* quotas: the site's, where it said one */
        int same = base ? slo_catalog_find(base, p->name) : -1;
        p->quota = same >= 0 ? base->types[same].quota : b && !b->zone[0] ? b->quota : quota;
        inherited += same < 0 && b && !b->zone[0];
        /* the site's interruption rate (issue 13): the pool's, else a plain
         * type's (another zone's pool says nothing about this one) */
        const struct slo_instance_type *r = same >= 0           ? &base->types[same]
                                            : b && !b->zone[0] ? b
                                                               : NULL;
        if (r && r->has_interruption_rate) {
            p->interruption_rate = r->interruption_rate;
            p->has_interruption_rate = 1;
        }
        /* the advisor's bucket for the pool's region replaces it */
        double ar = 0;
        int got = advisor_rate(im, region, type, &ar);
        if (got < 0) {
            free(e);
            return -1;
        }
        if (got) {
            p->interruption_rate = ar;
            p->has_interruption_rate = 1;
        }
    }
    /* The base's one quota of the type is now each pool's: say what that
     * sums to, since the site may have meant it for the type */
    if (inherited > 1 && b->quota > 0)
        fprintf(stderr, "slo " CMD ": note: %s's quota %d in --base is now the quota of each of "
                "its %zu pools (%zu instances in all); edit pools[].quota if %d is the limit "
                "for the type\n", type, b->quota, inherited, inherited * (size_t)b->quota,
                b->quota);
    /* A zone the base had and the cloud no longer prices goes, said once. */
    for (size_t k = 0; base && k < base->n_types; k++) {
        const struct slo_instance_type *bp = &base->types[k];
        int priced = 0;
        if (!bp->zone[0] || strcmp(slo_instance_profile(bp), type) != 0)
            continue;
        for (size_t j = 0; j < n && !priced; j++)
            priced = strcmp(e[j].zone, bp->zone) == 0;
        if (!priced)
            fprintf(stderr, "slo " CMD ": note: pool %s of --base has no spot price in the "
                    "import; left out\n", bp->name);
    }
    *out = group_json(e, n);
    free(e);
    return 0;
}

static int cmd_import(int argc, char **argv)
{
    enum { O_BASE = 256, O_SPOT, O_TYPES, O_PRICING, O_FROM_AWS, O_REGION, O_TYPELIST, O_QUOTA,
           O_NAME, O_OUTPUT, O_PRODUCT, O_ADVISOR, O_HELP };
    static const struct option longopts[] = {
        {"base", required_argument, NULL, O_BASE},
        {"spot-prices", required_argument, NULL, O_SPOT},
        {"instance-types", required_argument, NULL, O_TYPES},
        {"pricing", required_argument, NULL, O_PRICING},
        {"from-aws", no_argument, NULL, O_FROM_AWS},
        {"region", required_argument, NULL, O_REGION},
        {"types", required_argument, NULL, O_TYPELIST},
        {"quota", required_argument, NULL, O_QUOTA},
        {"name", required_argument, NULL, O_NAME},
        {"output", required_argument, NULL, O_OUTPUT},
        {"product-description", required_argument, NULL, O_PRODUCT},
        {"spot-advisor", required_argument, NULL, O_ADVISOR},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0}};
    struct import_opts o = {.product = "Linux/UNIX"};
    struct cli_seen seen = {{0}};
    struct slo_catalog base = {0}, check = {0};
    struct import im = {0};
    json_t *jspot = NULL, *jtypes = NULL, *jpricing = NULL, *jadvisor = NULL, *root = NULL,
           *types;
    slo_error_t err = {0};
    char *text = NULL;
    int c, status = SLO_EXIT_USAGE;
    double q;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (cli_repeated_option(CMD, longopts, O_BASE, c, optarg, &seen))
            return SLO_EXIT_USAGE;
        switch (c) {
        case O_BASE: o.base = optarg; break;
        case O_SPOT: o.spot = optarg; break;
        case O_TYPES: o.types = optarg; break;
        case O_PRICING: o.pricing = optarg; break;
        case O_FROM_AWS: o.from_aws = 1; break;
        case O_REGION: o.region = optarg; break;
        case O_TYPELIST: o.type_list = optarg; break;
        case O_QUOTA:
            if (cli_parse_double(CMD, "--quota", optarg, 0, 100000,
                                 "a whole number of instances in 0..100000", &q))
                return SLO_EXIT_USAGE;
            if (q != floor(q))
                return cli_usage_error(CMD, "--quota: expected a whole number of instances in "
                                       "0..100000, found \"%s\"", optarg);
            o.quota = (int)q;
            break;
        case O_NAME: o.name = optarg; break;
        case O_OUTPUT: o.output = optarg; break;
        case O_PRODUCT: o.product = optarg; break;
        case O_ADVISOR: o.advisor = optarg; break;
        case O_HELP:
        case 'h': usage_import(stdout); return SLO_EXIT_OK;
        case ':': return cli_usage_error(CMD, "%s: expected a value", argv[optind - 1]);
        default: return cli_usage_error(CMD, "unknown option \"%s\" (slo catalog import "
                                        "--help)", cli_refused_option(argc, argv));
        }
    }
    if (optind < argc)
        return cli_usage_error(CMD, "expected options only, found \"%s\"", argv[optind]);
    if (o.from_aws && (o.spot || o.types || o.pricing))
        return cli_usage_error(CMD, "--from-aws: expected either --from-aws or the three "
                               "files, found both");
    if (!o.from_aws && (!o.spot || !o.types || !o.pricing))
        return cli_usage_error(CMD, "expected --spot-prices F, --instance-types F and "
                               "--pricing F (the aws CLI's JSON), or --from-aws; found %s "
                               "missing",
                               !o.spot ? "--spot-prices" : !o.types ? "--instance-types"
                                                                    : "--pricing");
    if (!o.from_aws && (o.region || o.type_list))
        return cli_usage_error(CMD, "%s: only with --from-aws", o.region ? "--region" : "--types");
    if (!(im.os = pricing_os(o.product)))
        return cli_usage_error(CMD, "--product-description: expected a spot product of "
                               "describe-spot-price-history (\"Linux/UNIX\", \"SUSE Linux\", "
                               "\"Red Hat Enterprise Linux\", \"Windows\", each optionally "
                               "with \" (Amazon VPC)\"), found \"%s\"",
                               o.product);
    if (o.name && (!*o.name || strlen(o.name) >= NAMELEN))
        return cli_usage_error(CMD, "--name: expected a name of 1..%d characters, found \"%s\"",
                               NAMELEN - 1, o.name);
    if (o.base && slo_catalog_open(o.base, "--base", &base, &err))
        return cli_report(CMD, &err);

    if (o.from_aws) {
        if (fetch_aws(&o, o.base ? &base : NULL, &jspot, &jtypes, &jpricing))
            goto done;
    } else if (load_json(o.spot, o.spot, &jspot) || load_json(o.types, o.types, &jtypes) ||
               load_json(o.pricing, o.pricing, &jpricing))
        goto done;
    const char *ssrc = o.from_aws ? "aws ec2 describe-spot-price-history" : o.spot;
    const char *tsrc = o.from_aws ? "aws ec2 describe-instance-types" : o.types;
    const char *psrc = o.from_aws ? "aws pricing get-products" : o.pricing;
    if (read_spot(jspot, ssrc, o.product, &im) || spot_latest(&im, ssrc) ||
        read_types(jtypes, tsrc, &im) || read_pricing(jpricing, psrc, &im))
        goto done;
    if (o.advisor && (load_json(o.advisor, o.advisor, &jadvisor) ||
                      read_advisor(jadvisor, o.advisor, &im)))
        goto done;
    if (im.n_spot == 0) {
        cli_usage_error(CMD, "%s: expected at least one %s spot price, found none among %zu "
                        "entries",
                        ssrc, o.product,
                        json_array_size(json_object_get(jspot, "SpotPriceHistory")));
        goto done;
    }
    /* Priced types the catalog cannot describe are left out, said once each. */
    for (size_t k = 0; k < im.n_spot; k++) {
        if (k && strcmp(im.spot[k].type, im.spot[k - 1].type) == 0)
            continue;
        const struct itype *it = find_itype(&im, im.spot[k].type);
        if (!it)
            fprintf(stderr, "slo " CMD ": note: %s has spot prices but no entry in %s; left out\n",
                    im.spot[k].type, tsrc);
        else if (it->gpus == 0)
            fprintf(stderr, "slo " CMD ": note: %s has no GPUs (no GpuInfo in %s); left out\n",
                    im.spot[k].type, tsrc);
    }

    /* --spot-advisor without the pools' region (or its OS) changes no rate:
     * say so once per region, naming the regions it lists. */
    for (size_t k = 0; im.advisor && k < im.n_spot; k++) {
        char region[NAMELEN], prev[NAMELEN] = "", listed[256] = "";
        int noted = 0;
        zone_region(im.spot[k].zone, region, sizeof region);
        if (!imported(&im, im.spot[k].type) ||
            json_object_get(json_object_get(im.advisor, region), im.aos))
            continue;
        for (size_t j = 0; j < k && !noted; j++) {
            zone_region(im.spot[j].zone, prev, sizeof prev);
            noted = imported(&im, im.spot[j].type) && strcmp(prev, region) == 0;
        }
        if (noted)
            continue;
        const char *key;
        json_t *val;
        size_t used = 0, n = 0;
        json_object_foreach((json_t *)im.advisor, key, val)
        {
            if (!json_object_get(val, im.aos))
                continue;
            if (used < sizeof listed)
                used += (size_t)snprintf(listed + used, sizeof listed - used, "%s%s",
                                         n ? ", " : "", n == 8 ? "..." : key);
            if (++n > 8)
                break;
        }
        fprintf(stderr, "slo " CMD ": note: --spot-advisor %s lists no %s types in region %s "
                "(it lists %s); its pools %s\n",
                im.asrc, im.aos, region, n ? listed : "no region",
                o.base ? "keep --base's interruption_rate" : "get no interruption_rate");
    }

    /* The catalog: the base's entries in their order (on-prem as they are,
     * imported types replaced by their pools), then the new types. */
    root = json_object();
    types = json_array();
    json_object_set_new(root, "name", json_string(o.name             ? o.name
                                                  : base.name[0] ? base.name
                                                                 : "aws-import"));
    char desc[512], src[1024];
    snprintf(desc, sizeof desc,
             "Spot pools at the latest %s spot price of each zone (newest %s), GPUs and "
             "network from describe-instance-types, on-demand prices from the price list%s%s.",
             o.product, im.newest, o.base ? "; on-prem entries and quotas from " : "",
             o.base ? o.base : "");
    snprintf(src, sizeof src, "slo catalog import from %s, %s and %s", ssrc, tsrc, psrc);
    json_object_set_new(root, "description", json_string(desc));
    json_object_set_new(root, "source", json_string(src));
    if (base.has_restart_overhead)
        set_num(root, "restart_overhead_s", base.restart_overhead_s);
    json_object_set_new(root, "types", types);
    char **done_types = calloc(im.n_spot + 1, sizeof *done_types);
    size_t n_done = 0;
    if (!done_types) {
        fprintf(stderr, "slo " CMD ": out of memory\n");
        status = SLO_EXIT_INTERNAL;
        goto done;
    }
    for (size_t k = 0; k < base.n_types;) {
        const char *type = slo_instance_profile(&base.types[k]);
        size_t n = 1;
        while (base.types[k].zone[0] && k + n < base.n_types && base.types[k + n].zone[0] &&
               strcmp(slo_instance_profile(&base.types[k + n]), type) == 0)
            n++;
        json_t *t;
        if (base.types[k].site == SLO_SITE_CLOUD && imported(&im, type)) {
            if (type_json_imported(&im, &base, type, o.quota, &t)) {
                free(done_types);
                goto done;
            }
            done_types[n_done++] = (char *)type;
        } else {
            if (base.types[k].site == SLO_SITE_CLOUD)
                fprintf(stderr, "slo " CMD ": note: %s of --base %s has no spot price in the "
                        "import; kept with its old prices\n", type, o.base);
            t = group_json(&base.types[k], n);
        }
        json_array_append_new(types, t);
        k += n;
    }
    for (size_t k = 0; k < im.n_spot; k++) {
        const char *type = im.spot[k].type;
        int dup = !imported(&im, type);
        for (size_t j = 0; j < n_done && !dup; j++)
            dup = strcmp(done_types[j], type) == 0;
        if (dup)
            continue;
        json_t *t;
        if (type_json_imported(&im, o.base ? &base : NULL, type, o.quota, &t)) {
            free(done_types);
            goto done;
        }
        json_array_append_new(types, t);
        done_types[n_done++] = (char *)type;
    }
    free(done_types);

    text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    if (!text) {
        fprintf(stderr, "slo " CMD ": out of memory\n");
        status = SLO_EXIT_INTERNAL;
        goto done;
    }
    /* What is written loads: the catalog parser is the judge. */
    if (slo_catalog_parse(text, "the imported catalog", &check, &err)) {
        if (strstr(err.text, "every quota 0"))
            cli_usage_error(CMD, "expected at least one pool or type with quota > 0, found "
                            "every quota 0: give --quota N (instances per new pool) or a "
                            "--base catalog with quotas");
        else
            cli_report(CMD, &err);
        goto done;
    }
    size_t len = strlen(text);
    if (o.output) {
        char *with_nl = malloc(len + 2);
        if (!with_nl) {
            status = SLO_EXIT_INTERNAL;
            goto done;
        }
        memcpy(with_nl, text, len);
        memcpy(with_nl + len, "\n", 2);
        int w = write_atomic(o.output, with_nl);
        free(with_nl);
        if (w)
            goto done;
        fprintf(stderr, "slo " CMD ": wrote %s: %zu entries\n", o.output, check.n_types);
    } else
        printf("%s\n", text);
    status = SLO_EXIT_OK;
done:
    free(text);
    json_decref(root);
    json_decref(jspot);
    json_decref(jtypes);
    json_decref(jpricing);
    json_decref(jadvisor);
    free(im.spot);
    free(im.types);
    free(im.od);
    slo_catalog_free(&base);
    slo_catalog_free(&check);
    return status;
}

/* `slo catalog check NAME|FILE`: load it as every planner does and say
 * what it holds. */
static int cmd_check(int argc, char **argv)
{
    struct slo_catalog cat;
    slo_error_t err = {0};
    size_t pools = 0, onprem = 0, types = 0;
    long quota = 0;
    if (argc != 2 || argv[1][0] == '-') {
        if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
            printf("usage: slo catalog check NAME|FILE\n\nLoad a catalog as the planners do and "
                   "count its entries; exit 2 with the first error.\n");
            return SLO_EXIT_OK;
        }
        return cli_usage_error("catalog check", "expected one catalog NAME or FILE, found %d "
                               "arguments",
                               argc - 1);
    }
    if (slo_catalog_open(argv[1], "catalog", &cat, &err))
        return cli_report("catalog check", &err);
    for (size_t k = 0; k < cat.n_types; k++) {
        pools += cat.types[k].zone[0] != 0;
        onprem += cat.types[k].site == SLO_SITE_ONPREM;
        types += !cat.types[k].zone[0] ||
                 k == 0 || strcmp(cat.types[k].type, cat.types[k - 1].type) != 0;
        quota += cat.types[k].quota;
    }
    printf("catalog %s: %zu entries (%zu instance types, %zu spot pools, %zu on-prem), "
           "quota %ld instances in all\n",
           cat.name, cat.n_types, types, pools, onprem, quota);
    slo_catalog_free(&cat);
    return SLO_EXIT_OK;
}

int slo_cmd_catalog(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "import") == 0)
        return cmd_import(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "check") == 0)
        return cmd_check(argc - 1, argv + 1);
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: slo catalog import ...   build or refresh a catalog from the aws CLI's "
               "JSON\n"
               "       slo catalog check NAME|FILE   load a catalog and count its entries\n"
               "(slo catalog import --help)\n");
        return SLO_EXIT_OK;
    }
    return cli_usage_error("catalog", "expected a subcommand (import, check), found %s%s%s",
                           argc >= 2 ? "\"" : "none", argc >= 2 ? argv[1] : "",
                           argc >= 2 ? "\"" : "");
}
