/*
 * plan.c - node inventory -> quotas, libslo planning, plan -> SLO_* records.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Only the NODE_STATE_* constants: no libslurm function is called here. */
#include <slurm/slurm.h>

#include "plan.h"

const char *const sslo_record_names[SSLO_N_RECORDS + 1] = {
    "SLO_PLAN_VERSION", "SLO_MODE",        "SLO_PARTITION",      "SLO_NODES",
    "SLO_INSTANCES",    "SLO_CONSTRAINT",  "SLO_GRES",           "SLO_SPOT",
    "SLO_PRICING",      "SLO_COST_USD",    "SLO_COST_USD_PER_H", "SLO_TIME_S",
    "SLO_DEADLINE_S",   "SLO_LOSS",        "SLO_ITERATIONS",     "SLO_WORKERS",
    "SLO_WORKLOAD",     NULL};

enum {
    R_VERSION, R_MODE, R_PARTITION, R_NODES, R_INSTANCES, R_CONSTRAINT, R_GRES, R_SPOT,
    R_PRICING, R_COST, R_COST_PER_H, R_TIME, R_DEADLINE, R_LOSS, R_ITERATIONS, R_WORKERS,
    R_WORKLOAD
};

int sslo_node_usable(uint32_t state)
{
    uint32_t base = state & NODE_STATE_BASE;
    int powered_off = (state & (NODE_STATE_POWERED_DOWN | NODE_STATE_POWERING_UP)) != 0;

    if (base == NODE_STATE_DOWN || base == NODE_STATE_FUTURE)
        return 0;
    if ((base == NODE_STATE_UNKNOWN || (state & NODE_STATE_NO_RESPOND)) && !powered_off)
        return 0;
    if (state & (NODE_STATE_DRAIN | NODE_STATE_FAIL | NODE_STATE_INVALID_REG))
        return 0;
    return 1;
}

int sslo_features_have(const char *features, const char *feature)
{
    size_t n = strlen(feature);
    const char *p = features;

    if (!features || !n)
        return 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, feature, n) == 0)
            return 1;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* 1 when a node in partitions may run a plan holding a type of site under
 * pricing (sslo_inventory_count). */
static int in_plan_partition(const struct sslo_config *cfg, const char *partitions,
                             enum slo_site site, enum slo_pricing pricing)
{
    const char *own = site == SLO_SITE_ONPREM        ? cfg->onprem_partition
                      : pricing == SLO_PRICING_SPOT ? cfg->spot_partition
                                                    : cfg->ondemand_partition;
    return sslo_features_have(partitions, own) ||
           sslo_features_have(partitions, cfg->burst_partition);
}

void sslo_inventory_count(const struct sslo_config *cfg, const struct slo_catalog *cat,
                          const struct sslo_node *nodes, size_t n_nodes,
                          enum slo_pricing pricing, int *usable)
{
    for (size_t k = 0; k < cat->n_types; k++) {
        const struct slo_instance_type *t = &cat->types[k];
        usable[k] = 0;
        for (size_t i = 0; i < n_nodes; i++) {
            const struct sslo_node *nd = &nodes[i];
            if (!nd->name || !sslo_node_usable(nd->state) ||
                !sslo_features_have(nd->features, t->name) ||
                !in_plan_partition(cfg, nd->partitions, t->site, pricing))
                continue;
            if (t->site == SLO_SITE_CLOUD) {
                int spot = sslo_features_have(nd->features, "spot");
                int od = sslo_features_have(nd->features, "ondemand");
                if (pricing == SLO_PRICING_SPOT && od && !spot)
                    continue;
                if (pricing == SLO_PRICING_ON_DEMAND && spot && !od)
                    continue;
            }
            usable[k]++;
        }
    }
}

void sslo_apply_inventory(struct slo_catalog *cat, const int *usable, int max_nodes)
{
    for (size_t k = 0; k < cat->n_types; k++) {
        int q = cat->types[k].quota;
        if (usable[k] < q)
            q = usable[k];
        if (max_nodes < q)
            q = max_nodes;
        cat->types[k].quota = q < 0 ? 0 : q;
    }
}

int sslo_inventory_quotas(const struct sslo_config *cfg, struct slo_catalog *cat,
                          const struct sslo_node *nodes, size_t n_nodes,
                          enum slo_pricing pricing, int **usable)
{
    /* calloc(0, ...) may return NULL (C11 7.22.3): ask for one element. */
    *usable = calloc(cat->n_types ? cat->n_types : 1, sizeof **usable);
    if (!*usable)
        return -1;
    sslo_inventory_count(cfg, cat, nodes, n_nodes, pricing, *usable);
    sslo_apply_inventory(cat, *usable, cfg->max_nodes);
    return 0;
}

int sslo_catalog_check_pools(const struct slo_catalog *cat, const char *path, char *msg,
                             size_t len)
{
    size_t pools = 0, first = 0;
    for (size_t k = 0; k < cat->n_types; k++)
        if (cat->types[k].zone[0] && !pools++)
            first = k;
    if (!pools)
        return 0;
    snprintf(msg, len,
             "instance catalog %s: expected one entry per instance type (nodes are counted "
             "and requested by their instance-type feature, which does not name a spot "
             "pool), found %zu spot pool%s (first \"%s\"); give the plugin a catalog "
             "without \"pools\"",
             path, pools, pools == 1 ? "" : "s", cat->types[first].name);
    return -1;
}

/* Append to buf (size len) at its end. Returns 0, or -1 when the text did
 * not fit (buf then holds what fit). */
__attribute__((format(printf, 3, 4))) static int append(char *buf, size_t len, const char *fmt,
                                                         ...)
{
    size_t used = strlen(buf);
    va_list ap;
    int n;
    if (used + 1 >= len)
        return -1;
    va_start(ap, fmt);
    n = vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= len - used ? -1 : 0;
}

/* Replace buf's text. */
__attribute__((format(printf, 3, 4))) static void set(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* The plan as "TYPE:N,..." (slo_train_counts_format) for a message: a list
 * that does not fit ends in "...". */
static void plan_text(const struct slo_train_setup *s, const int *counts, char *buf, size_t len)
{
    if (slo_train_counts_format(s, counts, ':', buf, len) && len > 4)
        strcpy(buf + len - 4, "...");
}

/* Nothing meets the SLO: the search's verdict and the closest feasible point
 * that slo_train_solve found (both within max_workers), in the plugin's
 * words: the usable nodes, and the site's node limit when it binds. */
static void closest_point(const struct slo_train_result *res, int max_workers, char *out,
                          size_t len)
{
    const struct slo_train_setup *s = &res->setup;
    const struct slo_train_plan *p = &res->closest;
    char list[SSLO_VALUE_LENGTH], t[32], within[64] = "";

    long total = 0;
    for (size_t k = 0; k < s->n_types; k++)
        total += s->types[k].quota;
    /* Named only when it binds: more usable nodes than the site allows. */
    if (max_workers > 0 && total > max_workers)
        set(within, sizeof within, " (at most max_nodes=%d nodes)", max_workers);
    switch (res->closest_kind) {
    case SLO_TRAIN_CLOSEST_CHEAPEST:
        plan_text(s, p->counts, list, sizeof list);
        set(out, len, "%s; the cheapest plan%s%s that meets the deadline, %s, costs %.6f USD",
            res->cause, p->proven ? "" : " found", within, list, p->eval.cost_usd);
        break;
    case SLO_TRAIN_CLOSEST_FASTEST:
        plan_text(s, p->counts, list, sizeof list);
        slo_format_duration(p->eval.time_s, t, sizeof t);
        set(out, len, "%s; the fastest plan%s with the usable nodes%s, %s, needs %.2f s (%s) "
                      "at %.6f USD",
            res->cause, p->proven ? "" : " found", within, list, p->eval.time_s, t,
            p->eval.cost_usd);
        break;
    default:
        set(out, len, "%s; %s", res->cause, res->unreachable);
        break;
    }
}

/* A record that does not fit: SLO_ERR_INVALID naming it. */
static int record_error(slo_error_t *err, int r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int record_error(slo_error_t *err, int r, const char *fmt, ...)
{
    va_list ap;
    if (err) {
        err->code = SLO_ERR_INVALID;
        snprintf(err->source, sizeof err->source, "%s",
                 r >= 0 ? sslo_record_names[r] : SSLO_BUDGET_RECORD);
        va_start(ap, fmt);
        vsnprintf(err->text, sizeof err->text, fmt, ap);
        va_end(ap);
    }
    return SLO_ERR_INVALID;
}

static void put(struct sslo_plan_result *out, int r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void put(struct sslo_plan_result *out, int r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->values[r], sizeof out->values[r], fmt, ap);
    va_end(ap);
}

/* value (finite, >= 0) with `decimals` decimals, then without trailing zeros
 * or a trailing '.': "%.6f" of 0.5 -> "0.5", of 2 -> "2". No exponent, so
 * job_submit.lua's ^%d+%.?%d*$ holds. */
static int fixed_into(char *v, int r, int decimals, double value, slo_error_t *err)
{
    int n;

    if (!isfinite(value) || value < 0)
        return record_error(err, r, "expected a finite number >= 0, found %g", value);
    n = snprintf(v, SSLO_VALUE_LENGTH > SSLO_NUMBER_LENGTH + 1 ? SSLO_NUMBER_LENGTH + 1
                                                                 : SSLO_VALUE_LENGTH,
                 "%.*f", decimals, value);
    if (n < 0 || n > SSLO_NUMBER_LENGTH)
        return record_error(err, r,
                            "%g needs %d characters as a fixed-point decimal, more than %d "
                            "(job_submit.lua's limit)",
                            value, n, SSLO_NUMBER_LENGTH);
    if (strchr(v, '.')) {
        char *end = v + strlen(v);
        while (end[-1] == '0')
            *--end = '\0';
        if (end[-1] == '.')
            end[-1] = '\0';
    }
    return SLO_OK;
}

static int put_fixed(struct sslo_plan_result *out, int r, int decimals, double value,
                     slo_error_t *err)
{
    return fixed_into(out->values[r], r, decimals, value, err);
}

/* value with `digits` significant digits, in fixed point (put_fixed). */
static int put_significant(struct sslo_plan_result *out, int r, int digits, double value,
                           slo_error_t *err)
{
    char e[64];
    int exp10 = 0;

    if (isfinite(value) && value > 0) {
        /* The decimal exponent after rounding to `digits` digits. */
        snprintf(e, sizeof e, "%.*e", digits - 1, value);
        exp10 = atoi(strchr(e, 'e') + 1);
    }
    return put_fixed(out, r, digits - 1 - exp10 > 0 ? digits - 1 - exp10 : 0, value, err);
}

static int format_plan(const struct sslo_config *cfg, const struct slo_catalog *cat,
                       const int *usable, const struct slo_train_setup *s,
                       const struct slo_train_plan *p, const struct sslo_plan_request *req,
                       struct sslo_plan_result *out, slo_error_t *err)
{
    const struct slo_train_eval *e = &p->eval;
    int nodes = 0, n_used = 0, min_gpus = 0, onprem = 0, cloud = 0, rv;
    char dl[32], t[32], *c = out->values[R_CONSTRAINT];
    const char *partition;

    for (size_t k = 0; k < s->n_types; k++) {
        if (!p->counts[k])
            continue;
        nodes += p->counts[k];
        n_used++;
        if (!min_gpus || s->types[k].gpus < min_gpus)
            min_gpus = s->types[k].gpus;
        if (s->types[k].site == SLO_SITE_ONPREM)
            onprem = 1;
        else
            cloud = 1;
    }
    partition = onprem && cloud ? cfg->burst_partition
                : onprem        ? cfg->onprem_partition
                : req->pricing == SLO_PRICING_SPOT ? cfg->spot_partition
                                                   : cfg->ondemand_partition;
    out->nodes = nodes;
    put(out, R_VERSION, "1");
    put(out, R_MODE, "%s", sslo_mode_name(req->mode));
    put(out, R_PARTITION, "%s", partition);
    put(out, R_NODES, "%d", nodes);
    if (slo_train_counts_format(s, p->counts, ':', out->values[R_INSTANCES],
                                SSLO_VALUE_LENGTH))
        return record_error(err, R_INSTANCES,
                            "the plan's type:count list is longer than %d characters (%d "
                            "instance types; shorter type names or fewer types needed)",
                            SSLO_VALUE_LENGTH - 1, n_used);
    /* One type: its feature; several: Slurm's feature-count form [a*1&b*2]. */
    c[0] = '\0';
    rv = 0;
    for (size_t k = 0; k < s->n_types && !rv; k++) {
        if (!p->counts[k])
            continue;
        if (n_used == 1)
            rv = append(c, SSLO_VALUE_LENGTH, "%s", s->types[k].name);
        else
            rv = append(c, SSLO_VALUE_LENGTH, "%s%s*%d", c[0] ? "&" : "[", s->types[k].name,
                        p->counts[k]);
    }
    if (!rv && n_used > 1)
        rv = append(c, SSLO_VALUE_LENGTH, "]");
    if (rv)
        return record_error(err, R_CONSTRAINT,
                            "the plan's Slurm constraint is longer than %d characters (%d "
                            "instance types; shorter type names or fewer types needed)",
                            SSLO_VALUE_LENGTH - 1, n_used);
    put(out, R_GRES, "gpu:%d", min_gpus);
    put(out, R_SPOT, "%d", cloud && req->pricing == SLO_PRICING_SPOT);
    /* What the plan is priced at: the requested cloud pricing only when it
     * has a cloud type (an all-on-prem plan recorded "spot" was a false
     * record; job_submit.lua checks it). */
    put(out, R_PRICING, "%s", cloud ? sslo_pricing_name(req->pricing) : "on-prem");
    if ((rv = put_fixed(out, R_COST, 6, e->cost_usd, err)) ||
        (rv = put_fixed(out, R_COST_PER_H, 4, e->usd_per_h, err)) ||
        (rv = put_fixed(out, R_TIME, 2, e->time_s, err)) ||
        (rv = put_fixed(out, R_DEADLINE, 0, req->deadline_s, err)) ||
        (rv = put_significant(out, R_LOSS, 10, req->loss, err)) ||
        (rv = put_fixed(out, R_ITERATIONS, 0, e->iterations, err)))
        return rv;
    put(out, R_WORKERS, "%d", e->n_workers);
    put(out, R_WORKLOAD, "%s", req->workload);
    out->budget[0] = '\0';
    if (req->budget_usd > 0 && (rv = fixed_into(out->budget, -1, 6, req->budget_usd, err)))
        return rv;

    /* The table is for people: a line that does not fit is cut. */
    slo_format_duration(req->deadline_s, dl, sizeof dl);
    slo_format_duration(e->time_s, t, sizeof t);
    out->table[0] = '\0';
    append(out->table, SSLO_TABLE_LENGTH,
           "plan for workload %s: loss %.10g within %s (%.0f s), %s prices, mode %s\n",
           req->workload, req->loss, dl, req->deadline_s, sslo_pricing_name(req->pricing),
           sslo_mode_name(req->mode));
    /* The name column fits the plan's longest name (up to 63 characters). */
    int w = 16;
    for (size_t k = 0; k < s->n_types; k++) {
        int len = (int)strlen(cat->types[s->types[k].catalog_index].name);
        if (p->counts[k] && len > w)
            w = len;
    }
    append(out->table, SSLO_TABLE_LENGTH, "  %-*s %-7s %-6s %4s %5s %6s %10s\n", w,
           "instance type", "site", "GPU", "GPUs", "nodes", "usable", "USD/h each");
    for (size_t k = 0; k < s->n_types; k++) {
        const struct slo_instance_type *it = &cat->types[s->types[k].catalog_index];
        if (!p->counts[k])
            continue;
        append(out->table, SSLO_TABLE_LENGTH, "  %-*s %-7s %-6s %4d %5d %6d %10.4f\n", w,
               it->name, it->site == SLO_SITE_ONPREM ? "onprem" : "cloud", it->gpu_model,
               it->gpus, p->counts[k], usable ? usable[s->types[k].catalog_index] : it->quota,
               s->types[k].usd_per_h);
    }
    append(out->table, SSLO_TABLE_LENGTH,
           "  partition %s, %d node%s, gpu:%d per node, constraint %s\n", partition, nodes,
           nodes == 1 ? "" : "s", min_gpus, c);
    append(out->table, SSLO_TABLE_LENGTH,
           "  predicted %.2f s (%s), %.6f USD at %.4f USD/h, %.0f iterations, %d worker%s%s\n",
           e->time_s, t, e->cost_usd, e->usd_per_h, e->iterations, e->n_workers,
           e->n_workers == 1 ? "" : "s", p->proven ? "" : " (search stopped: not proven cheapest)");
    return SLO_OK;
}

/* --slo-confidence (issue 13 item 4): slo_risk_plan on the same problem and
 * search as the plan without it (sslo_plan), formatted as format_plan. */
static int risk_pick(const struct sslo_config *cfg, const struct slo_catalog *cat,
                     const int *usable, const struct slo_train_problem *pb,
                     const struct slo_train_options *opt, const struct slo_train_result *res,
                     const struct sslo_plan_request *req, struct sslo_plan_result *out,
                     slo_error_t *err)
{
    const struct slo_train_setup *s = &res->setup;
    struct slo_risk_plan_result rp;
    /* the pause a revocation costs: the catalog's, else slo train's default */
    double restart_s = cat->has_restart_overhead ? cat->restart_overhead_s : 30;
    double *rates = calloc(cat->n_types ? cat->n_types : 1, sizeof *rates);
    char list[SSLO_VALUE_LENGTH];
    int rv;

    memset(&rp, 0, sizeof rp);
    if (!rates) {
        if (err) {
            err->code = SLO_ERR_NOMEM;
            set(err->source, sizeof err->source, "--slo-confidence");
            set(err->text, sizeof err->text, "out of memory");
        }
        return SLO_ERR_NOMEM;
    }
    for (size_t k = 0; k < cat->n_types; k++)
        rates[k] = cat->types[k].has_interruption_rate ? cat->types[k].interruption_rate : 0;
    for (size_t k = 0; k < s->n_types; k++) {
        const struct slo_instance_type *it = &cat->types[s->types[k].catalog_index];
        if (it->site == SLO_SITE_CLOUD && s->types[k].quota > 0 && !it->has_interruption_rate) {
            if (err) {
                err->code = SLO_ERR_INVALID;
                set(err->source, sizeof err->source, "--slo-confidence");
                set(err->text, sizeof err->text,
                    "expected an interruption rate for every spot type a plan may use, found "
                    "none: catalog %s gives no interruption_rate for %s (ask the site admin; "
                    "doc/formats.md)",
                    cat->name, it->name);
            }
            free(rates);
            return SLO_ERR_INVALID;
        }
    }
    rv = slo_risk_plan(pb, opt, rates, restart_s, req->confidence, &rp, err);
    free(rates);
    if (rv != SLO_OK)
        return rv;
    if (!rp.found || !rp.meets_confidence) {
        if (rp.found && rp.over_budget) { /* the budget binds the expected cost */
            plan_text(s, rp.counts, list, sizeof list);
            set(out->reason, sizeof out->reason,
                "--budget: expected a plan whose expected cost under --slo-confidence %g is "
                "at most %.10g USD, found none: the cheapest in expectation of %d candidate%s, "
                "%s at %s prices (%.2f s, %.6f USD without revocations), meets the deadline "
                "with probability %.4f at an expected %.6f USD",
                req->confidence, pb->budget_usd, rp.candidates, rp.candidates == 1 ? "" : "s",
                list, rp.on_demand ? "on-demand" : "spot", rp.time_s, rp.cost_usd,
                rp.risk.p_meet, rp.risk.expected_cost_usd);
        } else if (rp.found) {
            plan_text(s, rp.counts, list, sizeof list);
            set(out->reason, sizeof out->reason,
                "no plan meets the deadline with probability >= %g (--slo-confidence): the "
                "most likely of %d candidate%s, %s at %s prices (%.2f s, %.6f USD without "
                "revocations), meets it with probability %.4f",
                req->confidence, rp.candidates, rp.candidates == 1 ? "" : "s", list,
                rp.on_demand ? "on-demand" : "spot", rp.time_s, rp.cost_usd, rp.risk.p_meet);
        } else {
            set(out->reason, sizeof out->reason,
                "no plan meets the deadline with probability >= %g (--slo-confidence): none "
                "meets it even without revocations",
                req->confidence);
        }
        rv = SLO_ERR_INFEASIBLE;
    } else if (rp.on_demand) {
        out->on_demand_pick = 1;
        out->p_meet = 1;
    } else {
        struct slo_train_plan p = {.feasible = 1, .counts = rp.counts, .eval = rp.eval,
                                   .proven = rp.proven};
        rv = format_plan(cfg, cat, usable, s, &p, req, out, err);
        if (rv == SLO_OK) {
            out->feasible = 1;
            out->p_meet = rp.risk.p_meet;
            append(out->table, SSLO_TABLE_LENGTH,
                   "  --slo-confidence %g: P(deadline met) %.4f, expected cost %.6f USD with "
                   "on-demand replacements after %.0f s restarts (%d candidates, slack for %d "
                   "revocations)\n",
                   req->confidence, rp.risk.p_meet, rp.risk.expected_cost_usd, restart_s,
                   rp.candidates, rp.slack_revocations);
        }
    }
    slo_risk_plan_result_free(&rp);
    return rv;
}

int sslo_plan(const struct sslo_config *cfg, const struct slo_catalog *cat, const int *usable,
              const struct slo_workload *wl, const struct sslo_plan_request *req,
              struct sslo_plan_result *out, slo_error_t *err)
{
    struct slo_train_problem pb = {
        .catalog = cat,
        .workload = wl,
        .pricing = req->pricing,
        .target_loss = req->loss,
        .deadline_s = req->deadline_s,
        .budget_usd = req->budget_usd,
        .loss_now = req->loss_now,
        .elapsed_s = req->elapsed_s,
        .overhead_s = req->overhead_s,
    };
    struct slo_train_options opt;
    struct slo_train_result res;
    const struct slo_train_setup *s = &res.setup;
    int rv, any = 0;

    memset(out, 0, sizeof *out);
    slo_train_options_init(&opt);
    opt.search = SLO_TRAIN_SEARCH_EXACT;
    /* The site's node limit bounds the search itself (one worker per node):
     * a cheapest plan above it says nothing about the plans within it. */
    opt.max_workers = cfg->max_nodes;
    opt.comparisons = 0;
    rv = slo_train_solve(&pb, &opt, &res, err);
    if (rv != SLO_OK)
        goto out;
    for (size_t k = 0; k < s->n_types; k++)
        any |= s->types[k].quota > 0;
    if (!any) {
        char list[SSLO_VALUE_LENGTH] = "";
        for (size_t k = 0; k < s->n_types; k++)
            append(list, sizeof list, "%s%s", list[0] ? ", " : "", s->types[k].name);
        set(out->reason, sizeof out->reason,
                 "no usable Slurm node has the feature of an instance type that workload %s "
                 "profiles (%s)%s",
                 wl->name, list,
                 req->pricing == SLO_PRICING_ON_DEMAND ? " with on-demand pricing" : "");
        rv = SLO_ERR_INFEASIBLE;
        goto out;
    }
    if (!slo_status_feasible(res.status)) {
        if (!res.cause[0]) { /* the loss is out of reach before any search */
            set(out->reason, sizeof out->reason, "no plan reaches loss %.10g: %s", req->loss,
                res.unreachable);
            rv = SLO_ERR_UNREACHABLE;
        } else {
            closest_point(&res, opt.max_workers, out->reason, sizeof out->reason);
            rv = SLO_ERR_INFEASIBLE;
        }
        goto out;
    }
    out->p_meet = -1;
    if (req->confidence > 0 && req->pricing == SLO_PRICING_SPOT) {
        rv = risk_pick(cfg, cat, usable, &pb, &opt, &res, req, out, err);
        goto out;
    }
    rv = format_plan(cfg, cat, usable, s, &res.plan, req, out, err);
    if (rv == SLO_OK)
        out->feasible = 1;
out:
    if (!out->feasible) {
        for (int i = 0; i < SSLO_N_RECORDS; i++)
            out->values[i][0] = '\0';
        out->table[0] = '\0';
        out->budget[0] = '\0';
    }
    slo_train_result_free(&res);
    return rv;
}

int sslo_replan_budget(double budget_usd, double spent_before_usd, double rate_usd_per_h,
                       double run_s, double *spent_usd, double *left_usd)
{
    if (!isfinite(budget_usd) || budget_usd <= 0 || !isfinite(spent_before_usd) ||
        spent_before_usd < 0 || !isfinite(rate_usd_per_h) || rate_usd_per_h < 0 ||
        !isfinite(run_s) || run_s < 0)
        return -1;
    *spent_usd = spent_before_usd + rate_usd_per_h * run_s / 3600.0;
    *left_usd = budget_usd - *spent_usd;
    return 0;
}

const char *sslo_plan_value(const struct sslo_plan_result *r, const char *name)
{
    for (int i = 0; i < SSLO_N_RECORDS; i++)
        if (strcmp(sslo_record_names[i], name) == 0)
            return r->values[i];
    return NULL;
}

void sslo_mark_value(const char *mark, const char *name, char *v, size_t len)
{
    size_t n = strlen(name);
    const char *p = mark;
    v[0] = '\0';
    while ((p = strstr(p, name)) != NULL) {
        if (p > mark && p[-1] == ' ' && p[n] == '=') {
            size_t k = strcspn(p + n + 1, " ");
            if (k < len) {
                memcpy(v, p + n + 1, k);
                v[k] = '\0';
            }
            return;
        }
        p += n;
    }
}
