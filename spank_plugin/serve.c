/*
 * serve.c - --slo-serve: plan a serving job with slo_infer_solve, format the
 * SLO_* records and the table (pure code, serve.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

const char *const sslo_serve_record_names[SSLO_SERVE_N_RECORDS + 1] = {
    "SLO_PLAN_VERSION", "SLO_MODE",          "SLO_KIND",           "SLO_PARTITION",
    "SLO_NODES",        "SLO_CONSTRAINT",    "SLO_GRES",           "SLO_SERVE_GPUS",
    "SLO_SERVE_TENANTS", "SLO_SERVE_PLAN",   "SLO_SERVE_PROFILE",  "SLO_PRICING",
    "SLO_COST_USD_PER_H", NULL};

enum {
    S_VERSION, S_MODE, S_KIND, S_PARTITION, S_NODES, S_CONSTRAINT, S_GRES, S_GPUS, S_TENANTS,
    S_PLAN, S_PROFILE, S_PRICING, S_COST_PER_H
};

static int serve_error(slo_error_t *err, int code, const char *source, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int serve_error(slo_error_t *err, int code, const char *source, const char *fmt, ...)
{
    va_list ap;
    if (err) {
        err->code = code;
        snprintf(err->source, sizeof err->source, "%s", source);
        va_start(ap, fmt);
        vsnprintf(err->text, sizeof err->text, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* value (finite, >= 0) with `decimals` decimals and no trailing zeros or
 * '.', into v[len] (job_submit.lua's ^%d+%.?%d*$). Returns 0, or -1 when it
 * is not finite or does not fit in SSLO_NUMBER_LENGTH characters. */
static int fixed(char *v, size_t len, int decimals, double value)
{
    int n;
    if (!isfinite(value) || value < 0)
        return -1;
    n = snprintf(v, len, "%.*f", decimals, value);
    if (n < 0 || n > SSLO_NUMBER_LENGTH || (size_t)n >= len)
        return -1;
    if (strchr(v, '.')) {
        char *end = v + strlen(v);
        while (end[-1] == '0')
            *--end = '\0';
        if (end[-1] == '.')
            end[-1] = '\0';
    }
    return 0;
}

/* Append to a fixed buffer; 1 once it overflowed. */
struct text {
    char *s;
    size_t len, used;
    int full;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (t->full)
        return;
    va_start(ap, fmt);
    n = vsnprintf(t->s + t->used, t->len - t->used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= t->len - t->used) {
        t->s[t->used] = '\0';
        t->full = 1;
        return;
    }
    t->used += (size_t)n;
}

int sslo_serve_plan(const struct sslo_config *cfg, const struct slo_catalog *cat,
                    const struct slo_ig_profile *prof, const struct sslo_serve_spec *specs,
                    size_t n, enum slo_pricing pricing, enum sslo_mode mode,
                    struct sslo_serve_result *out, slo_error_t *err)
{
    struct slo_ig_workload w[SSLO_MAX_SERVE];
    struct slo_infer_problem problem = {0};
    struct slo_infer_options opt;
    struct slo_infer_result res = {0};
    const struct slo_instance_type *it = NULL;
    const char *partition, *pricing_name;
    int rv, gres_sum = 0;

    memset(out, 0, sizeof *out);
    if (n == 0 || n > SSLO_MAX_SERVE)
        return serve_error(err, SLO_ERR_INVALID, "--slo-serve",
                           "expected 1 to %d served models, found %zu", SSLO_MAX_SERVE, n);
    for (size_t i = 0; i < n; i++) {
        if (slo_ig_find_model(prof, specs[i].model) < 0) {
            char names[768] = "";
            struct text t = {names, sizeof names, 0, 0};
            for (size_t m = 0; m < prof->n_models; m++)
                add(&t, "%s%s", m ? ", " : "", prof->models[m].name);
            return serve_error(err, SLO_ERR_NOT_FOUND, "--slo-serve",
                               "unknown model \"%s\"; the profile %s has: %s%s", specs[i].model,
                               prof->source, names, t.full ? "..." : "");
        }
        memset(&w[i], 0, sizeof w[i]);
        snprintf(w[i].model, sizeof w[i].model, "%s", specs[i].model);
        w[i].rate_rps = specs[i].rate_rps;
        w[i].slo_ms = specs[i].slo_ms;
    }

    problem.profiles = prof;
    problem.n_types = 1;
    problem.catalog = cat;
    problem.pricing = pricing;
    problem.instance_types = NULL;
    problem.workloads = w;
    problem.n_workloads = n;
    slo_infer_options_init(&opt);
    opt.policy = SLO_IG_POLICY_IGNITER;
    if ((rv = slo_infer_solve(&problem, &opt, &res, err)) != SLO_OK)
        return rv;
    if (res.n_gpus == 0) {
        snprintf(out->reason, sizeof out->reason, "no serving plan meets every SLO: %.*s",
                 (int)(sizeof out->reason - 40), res.reason);
        slo_infer_result_free(&res);
        return SLO_ERR_INFEASIBLE;
    }
    if (!res.mps_verified) {
        rv = serve_error(err, SLO_ERR_INVALID, "--slo-serve",
                         "the plan's MPS shares do not round to Slurm's gres/mps units: %s",
                         res.mps_reason);
        goto out;
    }
    if (res.n_placements > SSLO_SERVE_MAX_TENANTS) {
        rv = serve_error(err, SLO_ERR_INVALID, "--slo-serve",
                         "the plan has %zu tenants, more than the %d of one serving job; "
                         "serve fewer models or lower rates per job",
                         res.n_placements, SSLO_SERVE_MAX_TENANTS);
        goto out;
    }
    if (res.types[0].instance_type[0] && cat) {
        int k = slo_catalog_find_type(cat, res.types[0].instance_type);
        if (k >= 0)
            it = &cat->types[k];
    }
    if (it && (int)res.n_gpus > it->gpus) {
        rv = serve_error(err, SLO_ERR_INVALID, "--slo-serve",
                         "the plan needs %zu GPUs, one node of instance type %s has %d; a "
                         "serving job is one node: split the models over several jobs",
                         res.n_gpus, it->name, it->gpus);
        goto out;
    }
    if (!it || it->site == SLO_SITE_ONPREM) {
        partition = cfg->onprem_partition;
        pricing_name = "on-prem";
    } else {
        partition = pricing == SLO_PRICING_SPOT ? cfg->spot_partition : cfg->ondemand_partition;
        pricing_name = pricing == SLO_PRICING_SPOT ? "spot" : "on-demand";
    }

    /* SLO_SERVE_PLAN: MODEL:GPU:BATCH:MPS:RATE:SLO per placement */
    {
        struct text t = {out->values[S_PLAN], SSLO_VALUE_LENGTH, 0, 0};
        for (size_t i = 0; i < res.n_placements; i++) {
            const struct slo_infer_placement *pl = &res.placements[i];
            char rate[SSLO_NUMBER_LENGTH + 1], slo[SSLO_NUMBER_LENGTH + 1];
            if (fixed(rate, sizeof rate, 6, pl->rate_rps) ||
                fixed(slo, sizeof slo, 6, w[pl->workload].slo_ms)) {
                rv = serve_error(err, SLO_ERR_INVALID, "SLO_SERVE_PLAN",
                                 "workload %zu (%s): rate %g req/s or SLO %g ms does not fit "
                                 "in %d characters as a fixed-point decimal",
                                 pl->workload + 1, w[pl->workload].model, pl->rate_rps,
                                 w[pl->workload].slo_ms, SSLO_NUMBER_LENGTH);
                goto out;
            }
            add(&t, "%s%s:%zu:%d:%d:%s:%s", i ? "," : "", w[pl->workload].model, pl->gpu,
                pl->batch, pl->mps_gres_count, rate, slo);
            if (res.n_gpus == 1)
                gres_sum += pl->mps_gres_count;
        }
        if (t.full) {
            rv = serve_error(err, SLO_ERR_INVALID, "SLO_SERVE_PLAN",
                             "the plan's %zu tenants need more than %d characters; serve "
                             "fewer models per job",
                             res.n_placements, SSLO_VALUE_LENGTH - 1);
            goto out;
        }
    }
    snprintf(out->values[S_VERSION], SSLO_VALUE_LENGTH, "1");
    snprintf(out->values[S_MODE], SSLO_VALUE_LENGTH, "%s", sslo_mode_name(mode));
    snprintf(out->values[S_KIND], SSLO_VALUE_LENGTH, "serve");
    snprintf(out->values[S_PARTITION], SSLO_VALUE_LENGTH, "%s", partition);
    snprintf(out->values[S_NODES], SSLO_VALUE_LENGTH, "1");
    snprintf(out->values[S_CONSTRAINT], SSLO_VALUE_LENGTH, "%s", it ? it->name : "");
    if (res.n_gpus == 1)
        snprintf(out->values[S_GRES], SSLO_VALUE_LENGTH, "mps:%d", gres_sum);
    else
        snprintf(out->values[S_GRES], SSLO_VALUE_LENGTH, "gpu:%zu", res.n_gpus);
    snprintf(out->values[S_GPUS], SSLO_VALUE_LENGTH, "%zu", res.n_gpus);
    snprintf(out->values[S_TENANTS], SSLO_VALUE_LENGTH, "%zu", res.n_placements);
    if (strlen(prof->source) >= SSLO_VALUE_LENGTH) {
        rv = serve_error(err, SLO_ERR_INVALID, "SLO_SERVE_PROFILE",
                         "the profile's name is longer than %d characters",
                         SSLO_VALUE_LENGTH - 1);
        goto out;
    }
    snprintf(out->values[S_PROFILE], SSLO_VALUE_LENGTH, "%s", prof->source);
    snprintf(out->values[S_PRICING], SSLO_VALUE_LENGTH, "%s", pricing_name);
    if (fixed(out->values[S_COST_PER_H], SSLO_VALUE_LENGTH, 4, res.cost_usd_per_h)) {
        rv = serve_error(err, SLO_ERR_INVALID, "SLO_COST_USD_PER_H",
                         "%g USD/h does not fit as a fixed-point decimal", res.cost_usd_per_h);
        goto out;
    }

    /* the table */
    {
        struct text t = {out->table, sizeof out->table, 0, 0};
        add(&t, "serving plan: %zu model%s on %zu %s GPU%s (profile %s), %s prices, mode %s\n", n,
            n == 1 ? "" : "s", res.n_gpus, res.types[0].gpu_model[0] ? res.types[0].gpu_model : "",
            res.n_gpus == 1 ? "" : "s", prof->source, pricing_name, sslo_mode_name(mode));
        add(&t, "  tenant model            rate/s   SLO ms  GPU batch  share%%  mps  latency ms "
                "SLO/2 ms\n");
        for (size_t i = 0; i < res.n_placements; i++) {
            const struct slo_infer_placement *pl = &res.placements[i];
            add(&t, "  %-6zu %-14s %9.1f %8.1f %4zu %5d %7.2f %4d %11.2f %8.2f\n", i + 1,
                w[pl->workload].model, pl->rate_rps, w[pl->workload].slo_ms, pl->gpu, pl->batch,
                pl->share_pct, pl->mps_gres_count, pl->mps_latency_ms, pl->slo_half_ms);
        }
        add(&t, "  partition %s, 1 node, gres %s%s%s, %.4f USD/h\n", partition,
            out->values[S_GRES], it ? ", constraint " : "", it ? it->name : "",
            res.cost_usd_per_h);
        add(&t, "  the shares rounded to gres/mps units were re-predicted: every SLO holds");
    }
    out->n_gpus = (int)res.n_gpus;
    out->n_tenants = (int)res.n_placements;
    out->feasible = 1;
    rv = SLO_OK;
out:
    slo_infer_result_free(&res);
    return rv;
}

const char *sslo_serve_value(const struct sslo_serve_result *r, const char *name)
{
    for (int i = 0; i < SSLO_SERVE_N_RECORDS; i++)
        if (strcmp(sslo_serve_record_names[i], name) == 0)
            return r->values[i];
    return NULL;
}

/* A decimal >= 0 of p[0, len) into *v (strtod on a copy). */
static int parse_number(const char *p, size_t len, double *v)
{
    char buf[SSLO_NUMBER_LENGTH + 1], *end;
    if (len == 0 || len > SSLO_NUMBER_LENGTH || strspn(p, "0123456789.") < len)
        return -1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    errno = 0;
    *v = strtod(buf, &end);
    return *end || errno || !isfinite(*v) ? -1 : 0;
}

static int parse_int(const char *p, size_t len, int lo, int hi, int *v)
{
    long x = 0;
    if (len == 0 || len > 6 || strspn(p, "0123456789") < len)
        return -1;
    for (size_t i = 0; i < len; i++)
        x = x * 10 + (p[i] - '0');
    if (x < lo || x > hi)
        return -1;
    *v = (int)x;
    return 0;
}

int sslo_serve_parse_plan(const char *text, struct sslo_serve_tenant *t, int max, int *n)
{
    const char *p = text;

    *n = 0;
    if (!text || !*text)
        return -1;
    for (;;) {
        size_t item = strcspn(p, ","), f[6], fl[6], at = 0;
        struct sslo_serve_tenant x;
        if (*n >= max)
            return -1;
        for (int k = 0; k < 6; k++) {
            size_t l = strcspn(p + at, ":,");
            if (at + l > item || (k < 5 && p[at + l] != ':') || (k == 5 && at + l != item))
                return -1;
            f[k] = at;
            fl[k] = l;
            at += l + 1;
        }
        memset(&x, 0, sizeof x);
        if (fl[0] == 0 || fl[0] >= sizeof x.model ||
            strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") <
                fl[0])
            return -1;
        memcpy(x.model, p, fl[0]);
        if (parse_int(p + f[1], fl[1], 0, SSLO_SERVE_MAX_TENANTS - 1, &x.gpu) ||
            parse_int(p + f[2], fl[2], 1, SLO_IG_MAX_BATCH, &x.batch) ||
            parse_int(p + f[3], fl[3], 1, SLO_MPS_COUNT_PER_GPU, &x.mps_pct) ||
            parse_number(p + f[4], fl[4], &x.rate_rps) || !(x.rate_rps > 0) ||
            parse_number(p + f[5], fl[5], &x.slo_ms) || !(x.slo_ms > 0))
            return -1;
        t[(*n)++] = x;
        if (!p[item])
            return 0;
        p += item + 1;
    }
}
