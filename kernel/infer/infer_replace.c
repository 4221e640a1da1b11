/*
 * infer_replace.c - re-placement of inference workloads as their rates
 * change (issue 19, item 4; `slo infer --current FILE`): from the deployed
 * placement to a new one that moves few workloads, each move made with
 * iGniter's shadow instance (start the new instance, shift traffic, stop the
 * old one) and every intermediate state re-predicted (slo_infer_replace in
 * slo_infer.h). Phase A moves only what must move and empties GPUs; phase B
 * re-packs (keeps all GPUs but some, plans the rest afresh) and reaches
 * that target by shadow moves with spare GPUs; the cheaper within the bound
 * (the fresh plan's GPUs plus one, fewer moves than it) is the result.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "slo_infer.h"
#include "slo_private.h"
#include "infer_private.h"

#define NONE SIZE_MAX
#define SHARE_EPS 1e-9

/* ------------------------------------------------------------------ */
/* The current placement file (the `slo infer --json` output)         */
/* ------------------------------------------------------------------ */

void slo_infer_current_free(struct slo_infer_current *cur)
{
    if (!cur)
        return;
    free(cur->gpu_type);
    free(cur->placements);
    memset(cur, 0, sizeof *cur);
}

static int find_type(const struct slo_ig_profile *prof, size_t n_types, const char *name,
                     const char *instance)
{
    for (size_t t = 0; t < n_types; t++)
        if (instance && instance[0] && prof[t].instance_type[0] &&
            !strcmp(prof[t].instance_type, instance) &&
            (!name || !strcasecmp(prof[t].gpu_model[0] ? prof[t].gpu_model : "GPU", name)))
            return (int)t;
    for (size_t t = 0; t < n_types; t++)
        if (!name || !strcasecmp(prof[t].gpu_model[0] ? prof[t].gpu_model : "GPU", name))
            return (int)t;
    return -1;
}

int slo_infer_current_parse(const char *text, const char *source,
                            const struct slo_infer_problem *problem, struct slo_infer_current *cur,
                            slo_error_t *err)
{
    json_error_t jerr;
    json_t *root, *gpus;
    char found[96];
    size_t n_pl = 0, k = 0;
    size_t *seen = NULL;
    int rv = SLO_OK;

    memset(cur, 0, sizeof *cur);
    if (!problem || !problem->profiles || !problem->n_types || !problem->workloads ||
        !problem->n_workloads)
        return slo__fail(err, SLO_ERR_INVALID, source, "expected a problem with GPU types and "
                                                       "workloads, found none");
    root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return slo__fail(err, SLO_ERR_INVALID, source, "line %d, column %d: malformed JSON: %s",
                         jerr.line, jerr.column, jerr.text);
    gpus = json_is_object(root) ? json_object_get(root, "gpus") : NULL;
    if (!json_is_array(gpus) || json_array_size(gpus) == 0) {
        rv = slo__fail(err, SLO_ERR_INVALID, source,
                       "gpus: expected a non-empty array of GPUs (the `slo infer --json` "
                       "output of the deployed plan), found %s",
                       !json_is_object(root) ? slo__json_describe(root, found, sizeof found)
                       : gpus                ? slo__json_describe(gpus, found, sizeof found)
                                             : "it missing");
        goto out;
    }
    for (size_t j = 0; j < json_array_size(gpus); j++) {
        json_t *wa = json_object_get(json_array_get(gpus, j), "workloads");
        if (!json_is_array(wa)) {
            rv = slo__fail(err, SLO_ERR_INVALID, source,
                           "gpus[%zu].workloads: expected an array of placements, found %s", j,
                           wa ? slo__json_describe(wa, found, sizeof found) : "it missing");
            goto out;
        }
        n_pl += json_array_size(wa);
    }
    cur->n_gpus = json_array_size(gpus);
    cur->gpu_type = calloc(cur->n_gpus, sizeof *cur->gpu_type);
    cur->placements = calloc(n_pl ? n_pl : 1, sizeof *cur->placements);
    seen = calloc(problem->n_workloads, sizeof *seen);
    if (!cur->gpu_type || !cur->placements || !seen) {
        rv = slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
        goto out;
    }
    for (size_t j = 0; j < cur->n_gpus; j++) {
        json_t *g = json_array_get(gpus, j), *wa = json_object_get(g, "workloads");
        json_t *gt = json_object_get(g, "gpu_type"), *it = json_object_get(g, "instance_type");
        double sum = 0;
        int t;
        if ((gt && !json_is_string(gt)) || (it && !json_is_string(it))) {
            rv = slo__fail(err, SLO_ERR_INVALID, source,
                           "gpus[%zu].%s: expected a string, found %s", j,
                           gt && !json_is_string(gt) ? "gpu_type" : "instance_type",
                           slo__json_describe(gt && !json_is_string(gt) ? gt : it, found,
                                              sizeof found));
            goto out;
        }
        t = find_type(problem->profiles, problem->n_types, gt ? json_string_value(gt) : NULL,
                      it ? json_string_value(it) : NULL);
        if (t < 0) {
            rv = slo__fail(err, SLO_ERR_INVALID, source,
                           "gpus[%zu].gpu_type: expected a GPU type of the profiles (%s%s), "
                           "found \"%s\"",
                           j, problem->profiles[0].gpu_model[0] ? problem->profiles[0].gpu_model
                                                                : "GPU",
                           problem->n_types > 1 ? ", ..." : "", json_string_value(gt));
            goto out;
        }
        cur->gpu_type[j] = (size_t)t;
        for (size_t i = 0; i < json_array_size(wa); i++) {
            json_t *o = json_array_get(wa, i);
            json_t *wi = json_object_get(o, "workload"), *mo = json_object_get(o, "model");
            json_t *ba = json_object_get(o, "batch"), *sh = json_object_get(o, "share_pct");
            json_int_t idx;
            double share;
            if (!json_is_object(o)) {
                rv = slo__fail(err, SLO_ERR_INVALID, source,
                               "gpus[%zu].workloads[%zu]: expected an object, found %s", j, i,
                               slo__json_describe(o, found, sizeof found));
                goto out;
            }
            if (!json_is_integer(wi) || (idx = json_integer_value(wi)) < 1 ||
                (size_t)idx > problem->n_workloads) {
                rv = slo__fail(err, SLO_ERR_INVALID, source,
                               "gpus[%zu].workloads[%zu].workload: expected a workload number "
                               "1..%zu of the workloads file, found %s",
                               j, i, problem->n_workloads,
                               wi ? slo__json_describe(wi, found, sizeof found) : "it missing");
                goto out;
            }
            if (!json_is_string(mo) ||
                strcmp(json_string_value(mo), problem->workloads[idx - 1].model)) {
                rv = slo__fail(err, SLO_ERR_INVALID, source,
                               "gpus[%zu].workloads[%zu].model: expected \"%s\" (workload %lld "
                               "of the workloads file), found %s%s%s",
                               j, i, problem->workloads[idx - 1].model, (long long)idx,
                               json_is_string(mo) ? "\"" : "",
                               json_is_string(mo) ? json_string_value(mo)
                               : mo               ? slo__json_describe(mo, found, sizeof found)
                                                  : "it missing",
                               json_is_string(mo) ? "\"" : "");
                goto out;
            }
            if (seen[idx - 1]) {
                rv = slo__fail(err, SLO_ERR_INVALID, source,
                               "gpus[%zu].workloads[%zu].workload: expected each workload on "
                               "one GPU, found workload %lld also on GPU %zu (a split "
                               "workload; plan it afresh without --current)",
                               j, i, (long long)idx, seen[idx - 1]);
                goto out;
            }
            if (!json_is_integer(ba) || json_integer_value(ba) < 1 ||
                json_integer_value(ba) > SLO_IG_MAX_BATCH) {
                rv = slo__fail(err, SLO_ERR_INVALID, source,
                               "gpus[%zu].workloads[%zu].batch: expected an integer 1..%d, "
                               "found %s",
                               j, i, SLO_IG_MAX_BATCH,
                               ba ? slo__json_describe(ba, found, sizeof found) : "it missing");
                goto out;
            }
            if (!json_is_number(sh) || !((share = json_number_value(sh)) > 0) || share > 100) {
                rv = slo__fail(err, SLO_ERR_INVALID, source,
                               "gpus[%zu].workloads[%zu].share_pct: expected an MPS share in "
                               "(0, 100] %%, found %s",
                               j, i, sh ? slo__json_describe(sh, found, sizeof found)
                                        : "it missing");
                goto out;
            }
            if (slo_ig_find_model(&problem->profiles[t], json_string_value(mo)) < 0) {
                rv = slo__fail(err, SLO_ERR_INVALID, source,
                               "gpus[%zu].workloads[%zu].model: expected a model of GPU type "
                               "%s's profile, found \"%s\"",
                               j, i, problem->profiles[t].gpu_model, json_string_value(mo));
                goto out;
            }
            seen[idx - 1] = j + 1;
            sum += share;
            cur->placements[k].workload = (size_t)idx - 1;
            cur->placements[k].gpu = j;
            cur->placements[k].batch = (int)json_integer_value(ba);
            cur->placements[k].share_pct = share;
            k++;
        }
        if (sum > 100 + SHARE_EPS) {
            rv = slo__fail(err, SLO_ERR_INVALID, source,
                           "gpus[%zu].workloads: expected shares summing to at most 100 %%, "
                           "found %.10g %%",
                           j, sum);
            goto out;
        }
    }
    cur->n_placements = k;
out:
    free(seen);
    json_decref(root);
    if (rv)
        slo_infer_current_free(cur);
    return rv;
}

int slo_infer_current_load(const char *path, const struct slo_infer_problem *problem,
                           struct slo_infer_current *cur, slo_error_t *err)
{
    char *text = NULL;
    int rv;
    memset(cur, 0, sizeof *cur);
    if ((rv = slo__read_file(path, &text, err)))
        return rv;
    rv = slo_infer_current_parse(text, path, problem, cur, err);
    free(text);
    return rv;
}

/* ------------------------------------------------------------------ */
/* States: instances on GPUs                                           */
/* ------------------------------------------------------------------ */

enum role { STAY = 0, OLD = 1, NEW = 2 };

struct inst {
    size_t workload, gpu;
    int batch;
    double share_pct;
    int role; /* OLD: a deployed instance of a workload missing its SLO, not yet moved */
};

/* A state of the GPUs and the moves that led to it from the deployed one. */
struct state {
    size_t n, cap;
    struct inst *v;
    size_t n_gpus, cap_gpus;
    size_t *gpu_type; /* [n_gpus] */
    size_t n_mv, cap_mv;
    struct slo_infer_move *mv;
    size_t n_verified;
};

/* Room for one more element in the array p of n elements of size bytes and
 * capacity *cap: p itself, or p reallocated to twice the capacity (16 at
 * first, *cap updated); NULL when out of memory (p untouched). The one
 * growth rule of the arrays of this file. */
static void *grow(void *p, size_t n, size_t *cap, size_t size)
{
    size_t nc;
    void *np;
    if (n < *cap)
        return p;
    nc = *cap ? 2 * *cap : 16;
    if (!(np = realloc(p, nc * size)))
        return NULL;
    *cap = nc;
    return np;
}

static void state_free(struct state *s)
{
    free(s->v);
    free(s->gpu_type);
    free(s->mv);
    memset(s, 0, sizeof *s);
}

static void *dup_array(const void *src, size_t n, size_t cap, size_t size)
{
    void *d = malloc((cap ? cap : 1) * size);
    if (d && n)
        memcpy(d, src, n * size);
    return d;
}

static int state_copy(struct state *dst, const struct state *src)
{
    struct state d = *src;
    d.v = dup_array(src->v, src->n, src->cap, sizeof *d.v);
    d.gpu_type = dup_array(src->gpu_type, src->n_gpus, src->cap_gpus, sizeof *d.gpu_type);
    d.mv = dup_array(src->mv, src->n_mv, src->cap_mv, sizeof *d.mv);
    if (!d.v || !d.gpu_type || !d.mv) {
        state_free(&d);
        return -1;
    }
    if (!d.cap)
        d.cap = 1;
    if (!d.cap_gpus)
        d.cap_gpus = 1;
    if (!d.cap_mv)
        d.cap_mv = 1;
    state_free(dst);
    *dst = d;
    return 0;
}

static int state_push(struct state *s, struct inst x)
{
    struct inst *v = grow(s->v, s->n, &s->cap, sizeof *v);
    if (!v)
        return -1;
    s->v = v;
    s->v[s->n++] = x;
    return 0;
}

static int state_add_gpu(struct state *s, size_t type)
{
    size_t *t = grow(s->gpu_type, s->n_gpus, &s->cap_gpus, sizeof *t);
    if (!t)
        return -1;
    s->gpu_type = t;
    s->gpu_type[s->n_gpus++] = type;
    return 0;
}

static int state_push_move(struct state *s, const struct slo_infer_move *m)
{
    struct slo_infer_move *mv = grow(s->mv, s->n_mv, &s->cap_mv, sizeof *mv);
    if (!mv)
        return -1;
    s->mv = mv;
    s->mv[s->n_mv++] = *m;
    return 0;
}

static void state_remove(struct state *s, size_t i)
{
    memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof *s->v);
    s->n--;
}

/* Put x back at index i (undoing state_remove; room is there: n < cap). */
static void state_insert(struct state *s, size_t i, struct inst x)
{
    memmove(&s->v[i + 1], &s->v[i], (s->n - i) * sizeof *s->v);
    s->v[i] = x;
    s->n++;
}

static size_t find_inst(const struct state *s, size_t wl)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].workload == wl)
            return i;
    return NONE;
}

static size_t gpu_tenants(const struct state *s, size_t g, double *used)
{
    size_t m = 0;
    if (used)
        *used = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].gpu == g) {
            m++;
            if (used)
                *used += s->v[i].share_pct;
        }
    return m;
}

struct ctx {
    const struct slo_infer_problem *pb;
    const struct slo_infer_options *opt;
    const struct slo_ig_profile *prof; /* [n_types] problem->profiles, opt's variant applied */
    const double *price; /* [n_types] USD per GPU-hour */
    const int *exempt;   /* [n_workloads]: misses its SLO in the current placement */
    const size_t *order; /* [n_workloads] solo share descending (the placing order) */
    const int *mi;       /* [n_workloads * n_types] model index of workload wl in
                            profile t (slo_ig_find_model), -1: none */
    const struct slo_ig_bounds *bd; /* [n_workloads * n_types] iGniter's batch and solo
                                       share at the new rate (slo_ig_choose_batch) */
    struct slo_ig_tenant *t;
    struct slo_ig_prediction *o;
    size_t *idx, cap_t;
    double *used;        /* [cap_g] scratch of best_fit: share held per GPU */
    size_t cap_g;
};

/* Workload wl's bounds on GPU type t, NULL when the profile lacks its model. */
static const struct slo_ig_bounds *bounds_of(const struct ctx *c, size_t wl, size_t t)
{
    return c->mi[wl * c->pb->n_types + t] < 0 ? NULL : &c->bd[wl * c->pb->n_types + t];
}

/* Check GPU g of s: shares sum to at most 100 % and every instance meets
 * its workload's SLO/2 and rate under the model, except the OLD copies of
 * exempt workloads. *lat_of (may be NULL) receives the latency of instance
 * want. Returns 1 if it holds, 0 if not, -1 on an internal error. */
static int gpu_ok(struct ctx *c, const struct state *s, size_t g, size_t want, double *lat_of)
{
    const struct slo_ig_profile *p = &c->prof[s->gpu_type[g]];
    size_t m = 0;
    double sum = 0;
    slo_error_t err = {0};
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i].gpu != g)
            continue;
        if (m == c->cap_t)
            return -1;
        c->t[m].model = c->mi[s->v[i].workload * c->pb->n_types + s->gpu_type[g]];
        c->t[m].batch = s->v[i].batch;
        c->t[m].share_pct = s->v[i].share_pct;
        c->idx[m++] = i;
        sum += s->v[i].share_pct;
    }
    if (m == 0)
        return 1;
    if (sum > 100 + SHARE_EPS)
        return 0;
    if (slo_ig_predict(p, c->t, m, c->o, NULL, &err))
        return 0;
    for (size_t k = 0; k < m; k++) {
        const struct inst *x = &s->v[c->idx[k]];
        const struct slo_ig_workload *w = &c->pb->workloads[x->workload];
        if (c->idx[k] == want && lat_of)
            *lat_of = c->o[k].latency_ms;
        if (x->role == OLD && c->exempt[x->workload])
            continue;
        if (!slo_ig_meets_slo(c->o[k].latency_ms, c->o[k].throughput_rps, w->slo_ms,
                              w->rate_rps))
            return 0;
    }
    return 1;
}

/* Every GPU of s holds (gpu_ok); the latency of instance want into *lat. */
static int all_ok(struct ctx *c, const struct state *s, size_t want, double *lat)
{
    for (size_t g = 0; g < s->n_gpus; g++) {
        int r = gpu_ok(c, s, g, want, lat);
        if (r <= 0)
            return r;
    }
    return 1;
}

/* The share held on each GPU of s into c->used[g] (-1: no tenant). 0, or -1
 * out of memory. */
static int shares_held(struct ctx *c, const struct state *s)
{
    if (s->n_gpus > c->cap_g) {
        double *u = realloc(c->used, s->n_gpus * sizeof *u);
        if (!u)
            return -1;
        c->used = u;
        c->cap_g = s->n_gpus;
    }
    for (size_t g = 0; g < s->n_gpus; g++)
        c->used[g] = -1;
    for (size_t i = 0; i < s->n; i++) {
        double *u = &c->used[s->v[i].gpu];
        *u = (*u < 0 ? 0 : *u) + s->v[i].share_pct;
    }
    return 0;
}

/* Best fit of workload wl among the GPUs of s that hold a tenant, without
 * skip[g] (skip[n_skip]; NULL: none): iGniter's batch and solo share at its
 * new rate (slo_ig_choose_batch), raised by the unit until GPU g holds with
 * it (gpu_ok), on the GPU left with the least free share (ties: lowest
 * index). Returns 1 with *gpu, *batch, *share set, 0 when no GPU holds it,
 * -1 out of memory. s is unchanged. */
static int best_fit(struct ctx *c, struct state *s, size_t wl, const unsigned char *skip,
                    size_t n_skip, size_t *gpu, int *batch, double *share)
{
    double best_free = INFINITY;
    int found = 0;
    if (shares_held(c, s))
        return -1;
    for (size_t g = 0; g < s->n_gpus; g++) {
        const struct slo_ig_profile *p = &c->prof[s->gpu_type[g]];
        const struct slo_ig_bounds *bd = bounds_of(c, wl, s->gpu_type[g]);
        double used = c->used[g];
        int r;
        if ((skip && g < n_skip && skip[g]) || !bd || used < 0)
            continue; /* an empty GPU: one is opened only by the callers */
        for (double sh = bd->r_low_pct; sh <= 100 - used + SHARE_EPS; sh += p->unit_pct) {
            if (state_push(s, (struct inst){wl, g, bd->batch, sh, NEW}))
                return -1;
            r = gpu_ok(c, s, g, NONE, NULL);
            s->n--;
            if (r < 0)
                return -1;
            if (r) {
                if (100 - used - sh < best_free - SHARE_EPS) {
                    best_free = 100 - used - sh;
                    *share = sh;
                    *gpu = g;
                    *batch = bd->batch;
                    found = 1;
                }
                break;
            }
        }
    }
    return found;
}

/* Phase A's move of workload wl in s as a shadow instance: its new instance
 * goes where best_fit puts it (its old instance still holding its share
 * there or elsewhere) - else, if may_open, on a new GPU of the type where
 * the share costs least; the state with both instances is checked on every
 * GPU, the old one is stopped and the state checked again. Returns 0 moved,
 * 1 no room, 2 the state after stopping the old instance fails, -1 memory. */
static int move(struct ctx *c, struct state *s, size_t wl, const unsigned char *avoid,
                size_t n_avoid, int may_open)
{
    size_t best_g = NONE, best_t = NONE, old = find_inst(s, wl), opened = 0;
    int best_b = 0, r;
    double best_r = INFINITY, best_cost = INFINITY;
    struct slo_infer_move m = {0};

    r = best_fit(c, s, wl, avoid, n_avoid, &best_g, &best_b, &best_r);
    if (r < 0)
        return -1;
    if (!r)
        best_g = NONE;
    if (best_g == NONE && may_open) {
        for (size_t t = 0; t < c->pb->n_types; t++) {
            const struct slo_ig_bounds *bd = bounds_of(c, wl, t);
            if (bd && bd->r_low_pct <= 100 && c->price[t] * bd->r_low_pct < best_cost) {
                best_cost = c->price[t] * bd->r_low_pct;
                best_t = t;
            }
        }
        if (best_t != NONE) {
            const struct slo_ig_profile *p = &c->prof[best_t];
            const struct slo_ig_bounds *bd = bounds_of(c, wl, best_t);
            size_t g = s->n_gpus;
            if (state_add_gpu(s, best_t))
                return -1;
            opened = 1;
            for (double sh = bd->r_low_pct; sh <= 100 + SHARE_EPS; sh += p->unit_pct) {
                if (state_push(s, (struct inst){wl, g, bd->batch, sh > 100 ? 100 : sh, NEW}))
                    return -1;
                r = gpu_ok(c, s, g, NONE, NULL);
                s->n--;
                if (r < 0)
                    return -1;
                if (r) {
                    best_g = g;
                    best_b = bd->batch;
                    best_r = sh > 100 ? 100 : sh;
                    break;
                }
            }
        }
    }
    if (best_g == NONE) {
        if (opened)
            s->n_gpus--;
        return 1;
    }
    /* the shadow state: both instances hold resources (the new one's GPU
     * changes; the others hold as before) */
    if (state_push(s, (struct inst){wl, best_g, best_b, best_r, NEW}))
        return -1;
    r = gpu_ok(c, s, best_g, s->n - 1, &m.shadow_latency_ms);
    if (r <= 0)
        return r < 0 ? -1 : 2;
    m.latency_ms = m.shadow_latency_ms;
    s->n_verified++;
    m.workload = wl;
    m.from_gpu = old == NONE ? NONE : s->v[old].gpu;
    m.from_batch = old == NONE ? 0 : s->v[old].batch;
    m.from_share_pct = old == NONE ? 0 : s->v[old].share_pct;
    m.to_gpu = best_g;
    m.to_batch = best_b;
    m.to_share_pct = best_r;
    if (old != NONE) {
        state_remove(s, old); /* traffic shifted: the old instance stops */
        r = gpu_ok(c, s, m.from_gpu, s->n - 1, &m.latency_ms); /* its GPU changes */
        if (r <= 0)
            return r < 0 ? -1 : 2;
    }
    s->n_verified++;
    s->v[s->n - 1].role = STAY;
    return state_push_move(s, &m) ? -1 : 0;
}

static size_t used_gpus(const struct state *s, double *cost, const double *price)
{
    size_t n = 0;
    if (cost)
        *cost = 0;
    for (size_t g = 0; g < s->n_gpus; g++)
        if (gpu_tenants(s, g, NULL)) {
            n++;
            if (cost)
                *cost += price[s->gpu_type[g]];
        }
    return n;
}

/* ------------------------------------------------------------------ */
/* Matching GPUs of two placements by workloads unchanged              */
/* ------------------------------------------------------------------ */

static size_t uf_find(size_t *parent, size_t i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

/* Kuhn-Munkres (the Hungarian method, potentials form) on the k x k matrix
 * a (row-major, minimized): p[j] (1-based, [k + 1]) receives the row of
 * column j. Scratch: u, v [k + 1], minv [k + 1], way [k + 1], used [k + 1]. */
static void hungarian(const long long *a, size_t k, size_t *p, long long *u, long long *v,
                      long long *minv, size_t *way, unsigned char *used)
{
    for (size_t j = 0; j <= k; j++)
        u[j] = v[j] = 0, p[j] = 0, way[j] = 0;
    for (size_t i = 1; i <= k; i++) {
        size_t j0 = 0;
        p[0] = i;
        for (size_t j = 0; j <= k; j++) {
            minv[j] = LLONG_MAX;
            used[j] = 0;
        }
        do {
            size_t i0 = p[j0], j1 = 0;
            long long delta = LLONG_MAX;
            used[j0] = 1;
            for (size_t j = 1; j <= k; j++)
                if (!used[j]) {
                    long long cur = a[(i0 - 1) * k + j - 1] - u[i0] - v[j];
                    if (cur < minv[j]) {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if (minv[j] < delta) {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            for (size_t j = 0; j <= k; j++)
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            size_t j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
}

/*
 * Maximum-weight one-to-one matching of nr rows to nc columns by the
 * weights w[i * nc + j] >= 0 (rows and columns may stay unmatched): match[j]
 * (of [nc]) receives the row of column j or NONE. Exact: the Hungarian
 * method on each connected component of the nonzero weights (O(k^3) for a
 * component of k rows and columns). Returns the total weight, SIZE_MAX when
 * out of memory.
 */
static size_t max_matching(const size_t *w, size_t nr, size_t nc, size_t *match)
{
    size_t nn = nr + nc, total = 0, *parent = malloc((nn ? nn : 1) * sizeof *parent);
    size_t *rows = malloc((nr ? nr : 1) * sizeof *rows);
    size_t *cols = malloc((nc ? nc : 1) * sizeof *cols);
    size_t k_cap = (nr > nc ? nr : nc) + 1;
    long long *a = NULL, *u = malloc(k_cap * sizeof *u), *v = malloc(k_cap * sizeof *v);
    long long *minv = malloc(k_cap * sizeof *minv);
    size_t *p = malloc(k_cap * sizeof *p), *way = malloc(k_cap * sizeof *way);
    unsigned char *used = malloc(k_cap), *done = calloc(nn ? nn : 1, 1);
    if (!parent || !rows || !cols || !u || !v || !minv || !p || !way || !used || !done) {
        total = SIZE_MAX;
        goto out;
    }
    for (size_t j = 0; j < nc; j++)
        match[j] = NONE;
    for (size_t i = 0; i < nn; i++)
        parent[i] = i;
    for (size_t i = 0; i < nr; i++)
        for (size_t j = 0; j < nc; j++)
            if (w[i * nc + j]) {
                size_t a1 = uf_find(parent, i), b1 = uf_find(parent, nr + j);
                if (a1 != b1)
                    parent[a1] = b1;
            }
    for (size_t root = 0; root < nn; root++) {
        size_t kr = 0, kc = 0, k;
        if (done[root] || uf_find(parent, root) != root)
            continue;
        done[root] = 1;
        for (size_t i = 0; i < nr; i++)
            if (uf_find(parent, i) == root)
                rows[kr++] = i;
        for (size_t j = 0; j < nc; j++)
            if (uf_find(parent, nr + j) == root)
                cols[kc++] = j;
        if (!kr || !kc)
            continue;
        k = kr > kc ? kr : kc;
        free(a);
        if (!(a = calloc(k * k, sizeof *a))) {
            total = SIZE_MAX;
            goto out;
        }
        for (size_t i = 0; i < kr; i++)
            for (size_t j = 0; j < kc; j++)
                a[i * k + j] = -(long long)w[rows[i] * nc + cols[j]];
        hungarian(a, k, p, u, v, minv, way, used);
        for (size_t j = 1; j <= kc; j++)
            if (p[j] >= 1 && p[j] <= kr && w[rows[p[j] - 1] * nc + cols[j - 1]]) {
                match[cols[j - 1]] = rows[p[j] - 1];
                total += w[rows[p[j] - 1] * nc + cols[j - 1]];
            }
    }
out:
    free(parent);
    free(rows);
    free(cols);
    free(a);
    free(u);
    free(v);
    free(minv);
    free(p);
    free(way);
    free(used);
    free(done);
    return total;
}

/* Moves of a fresh plan (rule in slo_infer_replace's comment): SIZE_MAX
 * when out of memory. */
static size_t fresh_moves(const struct slo_infer_current *cur, const struct slo_infer_result *f,
                          size_t n_workloads)
{
    size_t nc = cur->n_gpus, nf = f->n_gpus, kept;
    size_t *ov = calloc((nc * nf) > 0 ? nc * nf : 1, sizeof *ov);
    size_t *split = calloc(n_workloads, sizeof *split);
    size_t *match = malloc((nf ? nf : 1) * sizeof *match);
    if (!ov || !split || !match) {
        kept = SIZE_MAX;
        goto out;
    }
    for (size_t k = 0; k < f->n_placements; k++)
        split[f->placements[k].workload]++;
    for (size_t k = 0; k < f->n_placements; k++) {
        const struct slo_infer_placement *fp = &f->placements[k];
        if (split[fp->workload] != 1)
            continue;
        for (size_t i = 0; i < cur->n_placements; i++) {
            const struct slo_infer_current_placement *cp = &cur->placements[i];
            if (cp->workload == fp->workload && cp->batch == fp->batch &&
                fabs(cp->share_pct - fp->share_pct) <= SHARE_EPS &&
                cur->gpu_type[cp->gpu] == fp->type)
                ov[cp->gpu * nf + fp->gpu]++;
        }
    }
    kept = max_matching(ov, nc, nf, match);
out:
    free(ov);
    free(split);
    free(match);
    return kept == SIZE_MAX ? SIZE_MAX : n_workloads - kept;
}

/* ------------------------------------------------------------------ */
/* Phase A: fewest moves (movers and new workloads placed, GPUs emptied) */
/* ------------------------------------------------------------------ */

/* A necessary condition for emptying GPU g of s into the other open GPUs:
 * each tenant's solo share at its new rate fits in the free share of some
 * other open GPU of a type with its model, and their solo shares together
 * fit in the free share of those GPUs. (A cheap test before the trial.) */
static int may_empty(struct ctx *c, const struct state *s, size_t g)
{
    double need = 0, free_sum = 0;
    if (shares_held(c, s))
        return 1; /* (no test: the trial decides) */
    for (size_t h = 0; h < s->n_gpus; h++)
        if (h != g && c->used[h] >= 0)
            free_sum += 100 - c->used[h];
    for (size_t i = 0; i < s->n; i++) {
        const struct inst *x = &s->v[i];
        int fits = 0;
        if (x->gpu != g)
            continue;
        for (size_t h = 0; h < s->n_gpus && !fits; h++) {
            const struct slo_ig_bounds *bd = bounds_of(c, x->workload, s->gpu_type[h]);
            fits = h != g && c->used[h] >= 0 && bd &&
                   bd->r_low_pct <= 100 - c->used[h] + SHARE_EPS;
            if (fits)
                need += bd->r_low_pct;
        }
        if (!fits)
            return 0;
    }
    return need <= free_sum + SHARE_EPS;
}

/* GPUs step 2 tries to empty (fewest tenants first) before it gives up on
 * emptying one more: each trial moves all the GPU's tenants, and past the
 * first few a trial rarely succeeds (bounds the time on large plans). */
#define MAX_EMPTY_TRIALS 8

/* Steps 1-2 of slo_infer_replace's rule from base into *run. Returns 0
 * (run holds the result, which may still be over the bound), 1 a workload
 * that fits on no single GPU (*bad), 2 a state after a move that fails
 * (*bad), -1 out of memory. */
static int minimal_moves(struct ctx *c, const struct state *base, size_t fresh_gpus,
                         size_t fresh_mv, const int *present, struct state *run, size_t *bad)
{
    size_t n = c->pb->n_workloads, n_mask;
    struct state trial = {0};
    unsigned char *mask = NULL, *shrunk = NULL, *tried = NULL;
    int rv;

    if (state_copy(run, base))
        return -1;
    /* 1: the workloads missing their SLO, then the new ones */
    for (int pass = 0; pass < 2; pass++)
        for (size_t oi = 0; oi < n; oi++) {
            size_t wl = c->order[oi];
            if (pass == 0 ? !c->exempt[wl] : present[wl])
                continue;
            rv = move(c, run, wl, NULL, 0, 1);
            if (rv) {
                *bad = wl;
                goto out;
            }
        }
    /* 2: while more GPUs than the fresh plan, empty the GPU with the fewest
     * tenants that all move to other open GPUs (rule in slo_infer.h) */
    n_mask = run->n_gpus;
    mask = calloc(n_mask ? n_mask : 1, 1);
    shrunk = calloc(n, sizeof *shrunk);
    tried = malloc(n_mask ? n_mask : 1);
    rv = -1;
    if (!mask || !shrunk || !tried)
        goto out;
    while (used_gpus(run, NULL, c->price) > fresh_gpus) {
        int done = 0;
        size_t n_trials = 0;
        memset(tried, 0, n_mask ? n_mask : 1);
        while (n_trials < MAX_EMPTY_TRIALS) {
            size_t best = NONE, best_count = NONE;
            double best_load = INFINITY;
            int ok = 1;
            for (size_t g = 0; g < run->n_gpus; g++) {
                double load;
                size_t count = gpu_tenants(run, g, &load);
                if (count && !tried[g] &&
                    (count < best_count || (count == best_count && load < best_load))) {
                    best_count = count;
                    best_load = load;
                    best = g;
                }
            }
            if (best == NONE)
                break;
            tried[best] = 1;
            if (!may_empty(c, run, best))
                continue; /* its tenants cannot all fit elsewhere: no trial */
            n_trials++;
            if (state_copy(&trial, run))
                goto out_nomem;
            for (;;) {
                size_t wl = NONE;
                for (size_t i = 0; i < trial.n && wl == NONE; i++)
                    if (trial.v[i].gpu == best)
                        wl = trial.v[i].workload;
                if (wl == NONE)
                    break;
                mask[best] = 1;
                rv = move(c, &trial, wl, mask, n_mask, 0);
                mask[best] = 0;
                if (rv < 0)
                    goto out;
                if (rv) {
                    ok = 0;
                    break;
                }
            }
            /* down to the fresh plan's GPUs plus one at any number of moves;
             * to its GPUs only while fewer moves than it makes */
            if (ok && used_gpus(run, NULL, c->price) <= fresh_gpus + 1 && trial.n_mv >= fresh_mv)
                ok = 0;
            if (ok) {
                if (state_copy(run, &trial))
                    goto out_nomem;
                done = 1;
                break;
            }
        }
        if (!done && used_gpus(run, NULL, c->price) > fresh_gpus + 1) {
            /* no GPU empties into the others: shrink the tenant holding the
             * most share above its solo share at its new rate (a rate that
             * fell), once per workload, by a shadow move, then try again */
            size_t best = NONE;
            double best_excess = 0;
            for (size_t i = 0; i < run->n; i++) {
                const struct slo_ig_profile *p = &c->prof[run->gpu_type[run->v[i].gpu]];
                const struct slo_ig_bounds *bd =
                    bounds_of(c, run->v[i].workload, run->gpu_type[run->v[i].gpu]);
                if (!bd || shrunk[run->v[i].workload])
                    continue;
                if (run->v[i].share_pct - bd->r_low_pct > best_excess + SHARE_EPS &&
                    run->v[i].share_pct - bd->r_low_pct >= p->unit_pct - SHARE_EPS) {
                    best_excess = run->v[i].share_pct - bd->r_low_pct;
                    best = i;
                }
            }
            if (best != NONE) {
                size_t wl = run->v[best].workload;
                shrunk[wl] = 1;
                if (state_copy(&trial, run))
                    goto out_nomem;
                rv = move(c, &trial, wl, NULL, 0, 0);
                if (rv < 0)
                    goto out;
                if (rv == 0 && state_copy(run, &trial))
                    goto out_nomem;
                done = 1; /* (a failed shrink is not retried: shrunk[wl]) */
            }
        }
        if (!done)
            break;
    }
    rv = 0;
    goto out;
out_nomem:
    rv = -1;
out:
    state_free(&trial);
    free(mask);
    free(shrunk);
    free(tried);
    return rv;
}

/* ------------------------------------------------------------------ */
/* Phase B: re-packing, a target placement reached by shadow moves     */
/* ------------------------------------------------------------------ */

/* A target placement: where each workload ends. */
struct cand {
    size_t *tgpu;      /* [n] physical GPU of its target, or NONE: logical GPU tlog */
    size_t *tlog;      /* [n] GPU of the sub-plan (unbound until first used) or NONE */
    int *tbatch;       /* [n] */
    double *tshare;    /* [n] % */
    size_t n_log;
    size_t *log_type;  /* [n_log] GPU type of each sub-plan GPU */
    size_t *log_bind;  /* [n_log] physical GPU it is realized on, NONE until bound */
    size_t used;       /* GPUs with a tenant in the target */
    double cost;       /* USD/h */
    size_t est_moves;  /* workloads whose GPU, batch or share differ from base */
};

static void cand_free(struct cand *cd)
{
    free(cd->tgpu);
    free(cd->tlog);
    free(cd->tbatch);
    free(cd->tshare);
    free(cd->log_type);
    free(cd->log_bind);
    memset(cd, 0, sizeof *cd);
}

/*
 * The target placement for the kept GPUs keep[base->n_gpus]: on a kept GPU
 * every tenant meeting its SLO stays; every other workload (the tenants of
 * the GPUs not kept, the deployed ones missing their SLO, the new ones) is
 * placed, in the placing order, by best_fit on the kept GPUs as they end,
 * else in a fresh plan of those left (slo_infer_solve on them alone), whose
 * GPUs are matched one-to-one to the GPUs not kept by most workloads
 * unchanged (max_matching) and realized there; its other GPUs are bound
 * later, during the transition. Returns 0 (*cd set), -2 no such target
 * (the plan of those left splits a workload or has none), -1 out of
 * memory, else an slo_infer_solve error (> 0, err).
 */
static int build_cand(struct ctx *c, const struct state *base, const unsigned char *keep,
                      struct cand *cd, slo_error_t *err)
{
    size_t n = c->pb->n_workloads, n_rest = 0, nd = 0;
    struct state fin = {0};
    struct slo_infer_problem sub = *c->pb;
    struct slo_infer_result sr = {0};
    struct slo_ig_workload *sw = NULL;
    size_t *rest = NULL, *drop = NULL, *ov = NULL, *match = NULL;
    unsigned char *skip = NULL;
    int rv = -1;

    memset(cd, 0, sizeof *cd);
    cd->tgpu = malloc(n * sizeof *cd->tgpu);
    cd->tlog = malloc(n * sizeof *cd->tlog);
    cd->tbatch = calloc(n, sizeof *cd->tbatch);
    cd->tshare = calloc(n, sizeof *cd->tshare);
    rest = malloc(n * sizeof *rest);
    skip = malloc(base->n_gpus ? base->n_gpus : 1);
    drop = malloc((base->n_gpus ? base->n_gpus : 1) * sizeof *drop);
    if (!cd->tgpu || !cd->tlog || !cd->tbatch || !cd->tshare || !rest || !skip || !drop)
        goto out;
    for (size_t wl = 0; wl < n; wl++)
        cd->tgpu[wl] = cd->tlog[wl] = NONE;
    for (size_t g = 0; g < base->n_gpus; g++) {
        if (state_add_gpu(&fin, base->gpu_type[g]))
            goto out;
        skip[g] = !keep[g];
        if (!keep[g])
            drop[nd++] = g;
    }
    for (size_t i = 0; i < base->n; i++) {
        const struct inst *x = &base->v[i];
        if (keep[x->gpu] && x->role == STAY) {
            if (state_push(&fin, *x))
                goto out;
            cd->tgpu[x->workload] = x->gpu;
            cd->tbatch[x->workload] = x->batch;
            cd->tshare[x->workload] = x->share_pct;
        }
    }
    for (size_t oi = 0; oi < n; oi++) {
        size_t wl = c->order[oi], g = NONE;
        int b = 0, r;
        double sh = 0;
        if (cd->tgpu[wl] != NONE)
            continue;
        r = best_fit(c, &fin, wl, skip, base->n_gpus, &g, &b, &sh);
        if (r < 0)
            goto out;
        if (r) {
            if (state_push(&fin, (struct inst){wl, g, b, sh, STAY}))
                goto out;
            cd->tgpu[wl] = g;
            cd->tbatch[wl] = b;
            cd->tshare[wl] = sh;
        } else {
            rest[n_rest++] = wl;
        }
    }
    if (n_rest) {
        sw = malloc(n_rest * sizeof *sw);
        if (!sw)
            goto out;
        for (size_t k = 0; k < n_rest; k++)
            sw[k] = c->pb->workloads[rest[k]];
        sub.workloads = sw;
        sub.n_workloads = n_rest;
        if ((rv = slo__infer_solve(&sub, c->opt, 0, &sr, err)))
            goto out;
        rv = -1;
        if ((sr.status != SLO_STATUS_OPTIMAL && sr.status != SLO_STATUS_FEASIBLE_UNPROVEN) ||
            sr.n_placements != n_rest) {
            rv = -2;
            goto out;
        }
        cd->n_log = sr.n_gpus;
        cd->log_type = malloc(sr.n_gpus * sizeof *cd->log_type);
        cd->log_bind = malloc(sr.n_gpus * sizeof *cd->log_bind);
        ov = calloc(nd * sr.n_gpus + 1, sizeof *ov);
        match = malloc(sr.n_gpus * sizeof *match);
        if (!cd->log_type || !cd->log_bind || !ov || !match)
            goto out;
        for (size_t j = 0; j < sr.n_gpus; j++) {
            cd->log_type[j] = sr.gpus[j].type;
            cd->log_bind[j] = NONE;
        }
        for (size_t k = 0; k < sr.n_placements; k++) {
            const struct slo_infer_placement *sp = &sr.placements[k];
            size_t wl = rest[sp->workload], i = find_inst(base, wl);
            cd->tlog[wl] = sp->gpu;
            cd->tbatch[wl] = sp->batch;
            cd->tshare[wl] = sp->share_pct;
            if (i == NONE || base->gpu_type[base->v[i].gpu] != sp->type ||
                base->v[i].batch != sp->batch ||
                fabs(base->v[i].share_pct - sp->share_pct) > SHARE_EPS)
                continue;
            for (size_t d = 0; d < nd; d++)
                if (drop[d] == base->v[i].gpu)
                    ov[d * sr.n_gpus + sp->gpu]++;
        }
        if (max_matching(ov, nd, sr.n_gpus, match) == SIZE_MAX)
            goto out;
        for (size_t j = 0; j < sr.n_gpus; j++)
            if (match[j] != NONE)
                cd->log_bind[j] = drop[match[j]];
        for (size_t k = 0; k < n_rest; k++)
            if (cd->log_bind[cd->tlog[rest[k]]] != NONE)
                cd->tgpu[rest[k]] = cd->log_bind[cd->tlog[rest[k]]];
    }
    cd->used = used_gpus(&fin, &cd->cost, c->price) + cd->n_log;
    for (size_t j = 0; j < cd->n_log; j++)
        cd->cost += c->price[cd->log_type[j]];
    for (size_t wl = 0; wl < n; wl++) {
        size_t i = find_inst(base, wl);
        cd->est_moves += i == NONE || cd->tgpu[wl] != base->v[i].gpu ||
                         cd->tbatch[wl] != base->v[i].batch ||
                         fabs(cd->tshare[wl] - base->v[i].share_pct) > SHARE_EPS;
    }
    rv = 0;
out:
    if (rv)
        cand_free(cd);
    state_free(&fin);
    slo_infer_result_free(&sr);
    free(sw);
    free(rest);
    free(drop);
    free(ov);
    free(match);
    free(skip);
    return rv;
}

/* One shadow move in s: the new instance of wl at (g, batch, share) starts
 * beside the old one (GPU g re-predicted), the old one stops (its GPU
 * re-predicted; the other GPUs are unchanged). Returns 1 made (the move
 * recorded), 0 a state fails (s unchanged), -1 out of memory. */
static int shadow_move(struct ctx *c, struct state *s, size_t wl, size_t g, int batch,
                       double share)
{
    size_t old = find_inst(s, wl), from;
    struct slo_infer_move m = {0};
    struct inst saved = {0};
    int r;
    if (state_push(s, (struct inst){wl, g, batch, share, NEW}))
        return -1;
    r = gpu_ok(c, s, g, s->n - 1, &m.shadow_latency_ms);
    if (r <= 0) {
        s->n--;
        return r;
    }
    m.latency_ms = m.shadow_latency_ms;
    from = old == NONE ? NONE : s->v[old].gpu;
    if (old != NONE) {
        saved = s->v[old];
        state_remove(s, old); /* traffic shifted: the old instance stops */
        r = gpu_ok(c, s, from, s->n - 1, &m.latency_ms);
        if (r <= 0) {
            state_insert(s, old, saved);
            s->n--;
            return r;
        }
    }
    s->n_verified += 2;
    s->v[s->n - 1].role = STAY;
    m.workload = wl;
    m.from_gpu = from;
    m.from_batch = saved.batch;
    m.from_share_pct = saved.share_pct;
    m.to_gpu = g;
    m.to_batch = batch;
    m.to_share_pct = share;
    return state_push_move(s, &m) ? -1 : 1;
}

/* An empty GPU of type t not reserved (resv[n_resv]), lowest index; NONE. */
static size_t free_gpu(const struct state *s, const unsigned char *resv, size_t n_resv, size_t t)
{
    for (size_t g = 0; g < s->n_gpus; g++)
        if (s->gpu_type[g] == t && !(g < n_resv && resv[g]) && !gpu_tenants(s, g, NULL))
            return g;
    return NONE;
}

/*
 * Reach the target cd from base by shadow moves (rule 3 of slo_infer_replace)
 * into *run. resv marks the GPUs that are targets (kept, or bound to a
 * sub-plan GPU: 1) or hold a workload parked on a spare (2). Returns 0
 * reached, 1 not reached (why), -1 out of memory.
 */
static int transition(struct ctx *c, const struct state *base, const unsigned char *keep,
                      struct cand *cd, struct state *run, char *why, size_t why_len)
{
    size_t n = c->pb->n_workloads, n_pending = 0, cap_resv = 0;
    unsigned char *pending = calloc(n, 1), *parked = calloc(n, 1), *resv = NULL;
    int rv = -1;

    if (!pending || !parked || state_copy(run, base))
        goto out;
    cap_resv = run->n_gpus + n + cd->n_log + 1;
    if (!(resv = calloc(cap_resv, 1)))
        goto out;
    for (size_t g = 0; g < base->n_gpus; g++)
        resv[g] = keep[g];
    for (size_t j = 0; j < cd->n_log; j++)
        if (cd->log_bind[j] != NONE)
            resv[cd->log_bind[j]] = 1;
    for (size_t wl = 0; wl < n; wl++) {
        size_t i = find_inst(base, wl);
        pending[wl] = i == NONE || cd->tgpu[wl] != base->v[i].gpu ||
                      cd->tbatch[wl] != base->v[i].batch ||
                      fabs(cd->tshare[wl] - base->v[i].share_pct) > SHARE_EPS;
        n_pending += pending[wl];
    }
    while (n_pending) {
        int progress = 0, r;
        for (size_t oi = 0; oi < n; oi++) {
            size_t wl = c->order[oi], g = cd->tgpu[wl], L = cd->tlog[wl], from;
            if (!pending[wl])
                continue;
            if (g == NONE && cd->log_bind[L] != NONE)
                g = cd->tgpu[wl] = cd->log_bind[L];
            if (g == NONE && (g = free_gpu(run, resv, cap_resv, cd->log_type[L])) == NONE)
                continue; /* its GPU is not bound yet and none is free */
            from = find_inst(run, wl);
            from = from == NONE ? NONE : run->v[from].gpu;
            r = shadow_move(c, run, wl, g, cd->tbatch[wl], cd->tshare[wl]);
            if (r < 0)
                goto out;
            if (!r)
                continue;
            if (cd->tgpu[wl] == NONE) { /* bound on its first tenant */
                cd->log_bind[L] = cd->tgpu[wl] = g;
                resv[g] = 1;
            }
            if (parked[wl] && from != NONE && !gpu_tenants(run, from, NULL))
                resv[from] = 0; /* the spare is free again */
            pending[wl] = 0;
            n_pending--;
            progress = 1;
        }
        if (!n_pending || progress)
            continue;
        /* blocked: bind a sub-plan GPU to a new GPU (a spare): the one whose
         * tenants drain the deployed GPUs most (the sum over GPUs of the
         * part of their instances bound for it; ties: lowest index), so
         * that emptied GPUs take the next ones */
        {
            size_t best_L = NONE;
            double best_drain = -1;
            for (size_t L = 0; L < cd->n_log; L++) {
                double drain = 0;
                int any = 0;
                if (cd->log_bind[L] != NONE)
                    continue;
                for (size_t i = 0; i < run->n; i++) {
                    size_t wl = run->v[i].workload;
                    if (pending[wl] && cd->tgpu[wl] == NONE && cd->tlog[wl] == L)
                        drain += 1.0 / (double)gpu_tenants(run, run->v[i].gpu, NULL);
                }
                for (size_t wl = 0; wl < n && !any; wl++)
                    any = pending[wl] && cd->tgpu[wl] == NONE && cd->tlog[wl] == L;
                if (any && drain > best_drain) {
                    best_drain = drain;
                    best_L = L;
                }
            }
            if (best_L != NONE) {
                if (run->n_gpus + 1 > cap_resv || state_add_gpu(run, cd->log_type[best_L]))
                    goto out;
                cd->log_bind[best_L] = run->n_gpus - 1;
                resv[run->n_gpus - 1] = 1;
                continue;
            }
        }
        /* ... else park the pending workload holding the most share on a
         * GPU some pending move targets, alone on a spare GPU at its target
         * batch and share, so the moves into its GPU can be made */
        {
            size_t best = NONE, spare, type;
            double best_share = 0;
            for (size_t i = 0; i < run->n; i++) {
                const struct inst *x = &run->v[i];
                int blocks = 0;
                if (!pending[x->workload] || parked[x->workload])
                    continue;
                for (size_t wl = 0; wl < n && !blocks; wl++)
                    blocks = pending[wl] && cd->tgpu[wl] == x->gpu;
                if (blocks && x->share_pct > best_share) {
                    best_share = x->share_pct;
                    best = x->workload;
                }
            }
            if (best == NONE) {
                snprintf(why, why_len, "no shadow move into the target placement holds "
                                       "and no instance blocks one");
                rv = 1;
                goto out;
            }
            /* (of its target's type: its target batch and share hold there) */
            type = cd->tgpu[best] != NONE ? run->gpu_type[cd->tgpu[best]]
                                          : cd->log_type[cd->tlog[best]];
            spare = free_gpu(run, resv, cap_resv, type);
            if (spare == NONE) {
                if (run->n_gpus + 1 > cap_resv || state_add_gpu(run, type))
                    goto out;
                spare = run->n_gpus - 1;
            }
            r = shadow_move(c, run, best, spare, cd->tbatch[best], cd->tshare[best]);
            if (r < 0)
                goto out;
            if (!r) {
                snprintf(why, why_len,
                         "workload %zu misses its SLO alone on a spare GPU at its target "
                         "batch %d and share %.10g %%",
                         best + 1, cd->tbatch[best], cd->tshare[best]);
                rv = 1;
                goto out;
            }
            parked[best] = 1;
            resv[spare] = 2;
        }
    }
    rv = 0;
out:
    free(pending);
    free(parked);
    free(resv);
    return rv;
}

/* ------------------------------------------------------------------ */
/* slo_infer_replace                                                   */
/* ------------------------------------------------------------------ */

void slo_infer_replace_result_free(struct slo_infer_replace_result *r)
{
    if (!r)
        return;
    free(r->gpu_type);
    free(r->placements);
    free(r->moves);
    memset(r, 0, sizeof *r);
}

/* A result meets the bound: at most the fresh plan's GPUs plus one,
 * and fewer moves than the fresh plan - or no more than forced, the
 * workloads that must move in any re-placement (those missing their SLO
 * where they are and the new ones), when the fresh plan moves only those. */
static int within_bound(size_t used, size_t moves, size_t fresh_gpus, size_t fresh_mv,
                        size_t forced)
{
    return used <= fresh_gpus + 1 && (moves < fresh_mv || moves <= forced);
}

/* Is a better than b: cheaper (to 1e-9 USD/h), then fewer moves. */
static int better(double cost_a, size_t moves_a, double cost_b, size_t moves_b)
{
    if (cost_a < cost_b - 1e-9)
        return 1;
    return cost_a <= cost_b + 1e-9 && moves_a < moves_b;
}

/* A candidate of phase B's search: drop the first k GPUs of order ord. */
struct drop_try {
    int ord;
    size_t k;
    double cost;
    size_t est_moves;
};

#define MAX_TRANSITIONS 8 /* phase B targets tried by transition, cheapest first */
#define N_ORDERS 3        /* orders of dropping the deployed GPUs */

/*
 * Phase B (step 3 of the rule): for each of three orders of the deployed
 * GPUs with a tenant - (0) fewest tenants meeting their SLO first, then
 * least share those need at their new rates; (1) least needed share first,
 * then fewest tenants; (2) most share freed (100 % less the needed share)
 * per tenant moved first - the targets keeping all GPUs but the first k (k
 * = 0, 1, ...; build_cand), while their moves stay fewer than the fresh
 * plan's; the targets within the bound are reached by transition, cheapest
 * first (then fewest moves; at most MAX_TRANSITIONS), the best result
 * reached within the bound kept (a target reaches at least its estimated
 * moves, so the search stops when no target left can beat it). Returns 0
 * (*found = 1 with *out set, or 0), -1 out of memory, or an slo_infer_solve
 * error.
 */
static int repack(struct ctx *c, const struct state *base, size_t fresh_gpus, size_t fresh_mv,
                  size_t forced, struct state *out, int *found, slo_error_t *err)
{
    size_t ng = base->n_gpus, n_open = 0, n_try = 0, cap_try = 0;
    size_t *orders = malloc(N_ORDERS * (ng ? ng : 1) * sizeof *orders), *stays = NULL;
    double *need = NULL;
    unsigned char *keep = malloc(ng ? ng : 1);
    struct drop_try *tries = NULL;
    struct cand cd = {0};
    struct state run = {0};
    double best_cost = INFINITY;
    char why[SLO_REASON_LENGTH];
    int rv = -1;

    *found = 0;
    stays = calloc(ng ? ng : 1, sizeof *stays);
    need = calloc(ng ? ng : 1, sizeof *need);
    if (!orders || !keep || !stays || !need)
        goto done;
    for (size_t i = 0; i < base->n; i++) {
        const struct inst *x = &base->v[i];
        const struct slo_ig_bounds *bd = bounds_of(c, x->workload, base->gpu_type[x->gpu]);
        if (x->role != STAY || !bd)
            continue;
        stays[x->gpu]++;
        need[x->gpu] += bd->r_low_pct;
    }
    for (size_t g = 0; g < ng; g++)
        if (gpu_tenants(base, g, NULL))
            orders[n_open++] = g;
    for (int ord = 1; ord < N_ORDERS; ord++)
        memcpy(orders + (size_t)ord * ng, orders, n_open * sizeof *orders);
    for (int ord = 0; ord < N_ORDERS; ord++) { /* stable insertion sorts */
        size_t *o = orders + (size_t)ord * ng;
        for (size_t i = 1; i < n_open; i++)
            for (size_t j = i; j > 0; j--) {
                size_t a = o[j - 1], b = o[j], tmp;
                double ra = (100 - need[a]) / (double)(stays[a] + 1);
                double rb = (100 - need[b]) / (double)(stays[b] + 1);
                int before = ord == 0   ? stays[b] < stays[a] ||
                                            (stays[b] == stays[a] && need[b] < need[a] - SHARE_EPS)
                             : ord == 1 ? need[b] < need[a] - SHARE_EPS ||
                                              (fabs(need[b] - need[a]) <= SHARE_EPS &&
                                               stays[b] < stays[a])
                                        : rb > ra + SHARE_EPS;
                if (!before)
                    break;
                tmp = o[j];
                o[j] = o[j - 1];
                o[j - 1] = tmp;
            }
    }
    /* the targets */
    for (int ord = 0; ord < N_ORDERS; ord++)
        for (size_t k = ord ? 1 : 0; k <= n_open; k++) {
            int r;
            struct drop_try *t;
            memset(keep, 1, ng ? ng : 1);
            for (size_t d = 0; d < k; d++)
                keep[orders[(size_t)ord * ng + d]] = 0;
            r = build_cand(c, base, keep, &cd, err);
            if (r == -2)
                continue;
            if (r) {
                rv = r;
                goto done;
            }
            if (within_bound(cd.used, cd.est_moves, fresh_gpus, fresh_mv, forced)) {
                if (!(t = grow(tries, n_try, &cap_try, sizeof *tries)))
                    goto done;
                tries = t;
                tries[n_try++] = (struct drop_try){ord, k, cd.cost, cd.est_moves};
            }
            r = cd.est_moves >= fresh_mv && cd.est_moves > forced;
            cand_free(&cd);
            if (r)
                break; /* dropping more GPUs only moves more */
        }
    for (size_t i = 1; i < n_try; i++) /* cheapest, then fewest moves, first */
        for (size_t j = i; j > 0 && better(tries[j].cost, tries[j].est_moves, tries[j - 1].cost,
                                           tries[j - 1].est_moves);
             j--) {
            struct drop_try tmp = tries[j];
            tries[j] = tries[j - 1];
            tries[j - 1] = tmp;
        }
    for (size_t i = 0; i < n_try && i < MAX_TRANSITIONS; i++) {
        int r;
        double cost;
        /* a target can only do worse than its estimate (parked workloads
         * move twice): stop once none left can beat the best reached */
        if (*found && !better(tries[i].cost, tries[i].est_moves, best_cost, out->n_mv))
            break;
        memset(keep, 1, ng ? ng : 1);
        for (size_t d = 0; d < tries[i].k; d++)
            keep[orders[(size_t)tries[i].ord * ng + d]] = 0;
        if ((r = build_cand(c, base, keep, &cd, err)) == -2)
            continue;
        if (r) {
            rv = r;
            goto done;
        }
        r = transition(c, base, keep, &cd, &run, why, sizeof why);
        cand_free(&cd);
        if (r < 0)
            goto done;
        if (r == 0 && all_ok(c, &run, NONE, NULL) == 1 &&
            within_bound(used_gpus(&run, &cost, c->price), run.n_mv, fresh_gpus, fresh_mv,
                         forced) &&
            (!*found || better(cost, run.n_mv, best_cost, out->n_mv))) {
            struct state tmp = *out;
            *out = run;
            run = tmp;
            best_cost = cost;
            *found = 1;
        }
    }
    rv = 0;
done:
    cand_free(&cd);
    state_free(&run);
    free(orders);
    free(keep);
    free(stays);
    free(need);
    free(tries);
    return rv;
}

/* Replay the moves mv[n] from base (with best's GPUs indexed) into *out by
 * shadow_move, every state re-predicted. 1 when every move holds, 0 when one
 * fails, -1 out of memory. */
static int replay_moves(struct ctx *c, const struct state *base, const struct state *best,
                        const struct slo_infer_move *mv, size_t n, struct state *out)
{
    if (state_copy(out, base))
        return -1;
    out->n_mv = 0;
    out->n_verified = 0;
    while (out->n_gpus < best->n_gpus)
        if (state_add_gpu(out, best->gpu_type[out->n_gpus]))
            return -1;
    for (size_t k = 0; k < n; k++) {
        int r = shadow_move(c, out, mv[k].workload, mv[k].to_gpu, mv[k].to_batch,
                            mv[k].to_share_pct);
        if (r <= 0)
            return r;
    }
    return 1;
}

/* Cancel round trips in best's moves (issue 19 trial: workload 17 GPU 4 ->
 * GPU 1, later GPU 1 -> GPU 4): a workload's move i from GPU A and its next
 * move k back to GPU A become one move at k from A to k's target (none when
 * that is where it was, batch and share alike), when the whole sequence,
 * replayed from base, still holds in every state; repeated until none
 * cancels. 0, or -1 out of memory. */
static int cancel_round_trips(struct ctx *c, const struct state *base, struct state *best)
{
    struct slo_infer_move *mv = NULL;
    struct state t = {0};
    int changed = 1, rv = 0;
    while (changed && best->n_mv >= 2) {
        changed = 0;
        for (size_t i = 0; i < best->n_mv && !changed; i++) {
            const struct slo_infer_move *a = &best->mv[i];
            size_t k = i + 1, n = 0;
            if (a->from_gpu == NONE)
                continue;
            while (k < best->n_mv && best->mv[k].workload != a->workload)
                k++;
            if (k == best->n_mv || best->mv[k].to_gpu != a->from_gpu)
                continue;
            free(mv);
            mv = malloc(best->n_mv * sizeof *mv);
            if (!mv) {
                rv = -1;
                goto out;
            }
            /* the one move in k's place, else in i's */
            for (int at = 0; at < 2 && !changed; at++) {
                int r, home = best->mv[k].to_batch == a->from_batch &&
                              fabs(best->mv[k].to_share_pct - a->from_share_pct) <= SHARE_EPS;
                if (home && at == 1)
                    break; /* back where it was: no move at all, tried */
                n = 0;
                for (size_t q = 0; q < best->n_mv; q++) {
                    if (q == (at == 0 ? i : k))
                        continue;
                    if (home && q == k)
                        continue;
                    mv[n] = best->mv[q];
                    if (q == (at == 0 ? k : i))
                        mv[n] = best->mv[k];
                    n++;
                }
                r = replay_moves(c, base, best, mv, n, &t);
                if (r < 0) {
                    rv = -1;
                    goto out;
                }
                if (r == 1) {
                    if (state_copy(best, &t)) {
                        rv = -1;
                        goto out;
                    }
                    changed = 1;
                }
            }
        }
    }
out:
    free(mv);
    state_free(&t);
    return rv;
}

int slo_infer_replace(const struct slo_infer_problem *problem, const struct slo_infer_options *opt,
                      const struct slo_infer_current *cur, struct slo_infer_replace_result *res,
                      slo_error_t *err)
{
    struct slo_infer_result fresh = {0};
    struct slo_infer_options defaults;
    struct state base = {0}, a = {0}, b = {0}, *best = NULL;
    struct ctx c = {0};
    struct slo_ig_profile *prof = NULL;
    double *price = NULL, *key = NULL, cost_a = 0, cost_b = 0;
    int *exempt = NULL, *present = NULL, *mi = NULL, found_b = 0;
    struct slo_ig_bounds *bd = NULL;
    size_t n = problem ? problem->n_workloads : 0, *order = NULL, bad = NONE, used_a = 0;
    int rv, ra;

    memset(res, 0, sizeof *res);
    if (!problem || !cur || !cur->n_gpus)
        return slo__fail(err, SLO_ERR_INVALID, "--current",
                         "expected a current placement with at least one GPU, found none");
    for (size_t i = 0; i < cur->n_placements; i++)
        if (cur->placements[i].workload >= n || cur->placements[i].gpu >= cur->n_gpus ||
            cur->gpu_type[cur->placements[i].gpu] >= problem->n_types)
            return slo__fail(err, SLO_ERR_INVALID, "--current",
                             "placement %zu: expected a workload < %zu on a GPU < %zu of a "
                             "type < %zu, found workload %zu on GPU %zu",
                             i, n, cur->n_gpus, problem->n_types, cur->placements[i].workload,
                             cur->placements[i].gpu);
    if (!opt) {
        slo_infer_options_init(&defaults);
        opt = &defaults;
    }
    /* the fresh plan: the GPUs and moves to compare with (and the checks of
     * the problem: rates, SLOs, models, prices) */
    if ((rv = slo_infer_solve(problem, opt, &fresh, err)))
        return rv;
    res->fresh_status = fresh.status;
    res->fresh_n_gpus = fresh.n_gpus;
    res->fresh_cost_usd_per_h = fresh.cost_usd_per_h;
    c.cap_t = n + cur->n_placements + 1;
    price = calloc(problem->n_types, sizeof *price);
    prof = calloc(problem->n_types, sizeof *prof);
    exempt = calloc(n, sizeof *exempt);
    present = calloc(n, sizeof *present);
    c.t = calloc(c.cap_t, sizeof *c.t);
    c.o = calloc(c.cap_t, sizeof *c.o);
    c.idx = calloc(c.cap_t, sizeof *c.idx);
    if (!price || !prof || !exempt || !present || !c.t || !c.o || !c.idx)
        goto nomem;
    for (size_t t = 0; t < problem->n_types; t++) {
        /* predicted as the fresh plan predicts: opt's model variant */
        prof[t] = problem->profiles[t];
        if (opt->model_variant &&
            (rv = slo_ig_profile_set_variant(&prof[t], opt->model_variant, err)))
            goto out;
    }
    for (size_t t = 0; t < fresh.n_types; t++)
        price[t] = fresh.types[t].usd_per_gpu_h;
    mi = malloc(n * problem->n_types * sizeof *mi);
    bd = calloc(n * problem->n_types, sizeof *bd);
    if (!mi || !bd)
        goto nomem;
    for (size_t wl = 0; wl < n; wl++)
        for (size_t t = 0; t < problem->n_types; t++) {
            const struct slo_ig_workload *w = &problem->workloads[wl];
            int k = mi[wl * problem->n_types + t] = slo_ig_find_model(&prof[t], w->model);
            if (k >= 0)
                slo_ig_choose_batch(&prof[t], &prof[t].models[k], w->rate_rps, w->slo_ms / 2,
                                    &bd[wl * problem->n_types + t]);
        }
    c.mi = mi;
    c.bd = bd;
    c.pb = problem;
    c.opt = opt;
    c.prof = prof;
    c.price = price;
    c.exempt = exempt;
    if (fresh.n_gpus && (res->fresh_moves = fresh_moves(cur, &fresh, n)) == SIZE_MAX)
        goto nomem;
    if (!fresh.n_gpus)
        res->fresh_moves = n;

    /* the deployed placement at the new rates */
    for (size_t g = 0; g < cur->n_gpus; g++)
        if (state_add_gpu(&base, cur->gpu_type[g]))
            goto nomem;
    for (size_t i = 0; i < cur->n_placements; i++) {
        const struct slo_infer_current_placement *p = &cur->placements[i];
        if (state_push(&base, (struct inst){p->workload, p->gpu, p->batch, p->share_pct, STAY}))
            goto nomem;
        present[p->workload] = 1;
    }
    /* a deployed workload moves when it misses its SLO where it is, with
     * its co-runners, at its new rate */
    for (size_t g = 0; g < base.n_gpus; g++) {
        const struct slo_ig_profile *p = &prof[base.gpu_type[g]];
        size_t m = 0;
        slo_error_t e2 = {0};
        for (size_t i = 0; i < base.n; i++)
            if (base.v[i].gpu == g) {
                c.t[m].model = slo_ig_find_model(p, problem->workloads[base.v[i].workload].model);
                c.t[m].batch = base.v[i].batch;
                c.t[m].share_pct = base.v[i].share_pct;
                c.idx[m++] = i;
            }
        if (m && slo_ig_predict(p, c.t, m, c.o, NULL, &e2)) {
            rv = slo__fail(err, SLO_ERR_INVALID, "--current", "GPU %zu: %s", g + 1, e2.text);
            goto out;
        }
        for (size_t k = 0; k < m; k++) {
            const struct slo_ig_workload *w = &problem->workloads[base.v[c.idx[k]].workload];
            if (!slo_ig_meets_slo(c.o[k].latency_ms, c.o[k].throughput_rps, w->slo_ms,
                                  w->rate_rps)) {
                exempt[base.v[c.idx[k]].workload] = 1;
                base.v[c.idx[k]].role = OLD;
                res->n_missing_now++;
            }
        }
    }
    for (size_t wl = 0; wl < n; wl++)
        res->n_new += !present[wl];
    /* a workload the fresh plan splits needs more than one GPU alone at its
     * new rate (its least solo share r_low > 100 %, notes 2.2): no
     * placement holds it on one GPU, so none re-places it */
    {
        size_t *parts = calloc(n, sizeof *parts);
        if (!parts)
            goto nomem;
        for (size_t k = 0; k < fresh.n_placements && bad == NONE; k++)
            if (++parts[fresh.placements[k].workload] > 1)
                bad = fresh.placements[k].workload;
        free(parts);
        if (bad != NONE) {
            res->status = SLO_STATUS_INFEASIBLE_UNPROVEN;
            snprintf(res->reason, sizeof res->reason,
                     "workload %zu does not fit on one GPU alone at its new rate (it would be "
                     "split over dedicated GPUs): plan afresh without --current",
                     bad + 1);
            rv = SLO_OK;
            goto out;
        }
    }
    /* the placing order: solo share descending (as iGniter sorts; ties by
     * index) */
    order = malloc(n * sizeof *order);
    key = malloc(n * sizeof *key);
    if (!order || !key)
        goto nomem;
    for (size_t wl = 0; wl < n; wl++) {
        key[wl] = 0;
        for (size_t t = 0; t < problem->n_types; t++)
            if (bounds_of(&c, wl, t)) {
                key[wl] = bounds_of(&c, wl, t)->r_low_pct;
                break;
            }
        order[wl] = wl;
    }
    for (size_t i = 1; i < n; i++) /* stable insertion sort, descending key */
        for (size_t j = i; j > 0 && key[order[j]] > key[order[j - 1]]; j--) {
            size_t tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    c.order = order;
    /* phase A: fewest moves */
    ra = minimal_moves(&c, &base, fresh.n_gpus, res->fresh_moves, present, &a, &bad);
    if (ra < 0)
        goto nomem;
    if (ra == 0) {
        used_a = used_gpus(&a, &cost_a, price);
        if (within_bound(used_a, a.n_mv, fresh.n_gpus, res->fresh_moves,
                         res->n_missing_now + res->n_new))
            best = &a;
    }
    /* phase B: re-packing, when phase A is over the bound or costs more
     * than the fresh plan */
    if (!best || cost_a > fresh.cost_usd_per_h + 1e-9) {
        rv = repack(&c, &base, fresh.n_gpus, res->fresh_moves, res->n_missing_now + res->n_new,
                    &b, &found_b, err);
        if (rv < 0)
            goto nomem;
        if (rv)
            goto out;
        if (found_b) {
            used_gpus(&b, &cost_b, price);
            if (!best || better(cost_b, b.n_mv, cost_a, a.n_mv))
                best = &b;
        }
    }
    if (!best) {
        res->status = SLO_STATUS_INFEASIBLE_UNPROVEN;
        if (ra == 0)
            snprintf(res->reason, sizeof res->reason,
                     "re-placement found no placement on at most %zu GPUs (the fresh plan's %zu "
                     "plus one) with fewer moves than the fresh plan's %zu (keeping workloads "
                     "where they are: %zu GPUs after %zu moves; re-packing more: none): plan "
                     "afresh without --current",
                     fresh.n_gpus + 1, fresh.n_gpus, res->fresh_moves, used_a, a.n_mv);
        else
            snprintf(res->reason, sizeof res->reason,
                     "re-placement found no placement on at most %zu GPUs (the fresh plan's %zu "
                     "plus one) with fewer moves than the fresh plan's %zu (moving workload %zu "
                     "leaves a GPU whose tenants miss an SLO; re-packing more: none): plan "
                     "afresh without --current",
                     fresh.n_gpus + 1, fresh.n_gpus, res->fresh_moves, bad + 1);
        rv = SLO_OK;
        goto out;
    }
    if (cancel_round_trips(&c, &base, best))
        goto nomem;
    /* the result: the moves in order and the placement they lead to */
    res->n_gpus = best->n_gpus;
    res->gpu_type = malloc((best->n_gpus ? best->n_gpus : 1) * sizeof *res->gpu_type);
    res->placements = malloc((best->n ? best->n : 1) * sizeof *res->placements);
    res->moves = malloc((best->n_mv ? best->n_mv : 1) * sizeof *res->moves);
    if (!res->gpu_type || !res->placements || !res->moves)
        goto nomem;
    memcpy(res->gpu_type, best->gpu_type, best->n_gpus * sizeof *res->gpu_type);
    for (size_t i = 0; i < best->n; i++) {
        res->placements[i].workload = best->v[i].workload;
        res->placements[i].gpu = best->v[i].gpu;
        res->placements[i].batch = best->v[i].batch;
        res->placements[i].share_pct = best->v[i].share_pct;
    }
    res->n_placements = best->n;
    if (best->n_mv)
        memcpy(res->moves, best->mv, best->n_mv * sizeof *res->moves);
    res->n_moves = best->n_mv;
    /* honest counts: workloads moved, and round trips the cancelling kept */
    for (size_t k = 0; k < best->n_mv; k++) {
        size_t q = 0, wl = best->mv[k].workload;
        while (q < k && best->mv[q].workload != wl)
            q++;
        res->n_workloads_moved += q == k;
        for (q = 0; q < k; q++)
            if (best->mv[q].workload == wl && best->mv[q].from_gpu == best->mv[k].to_gpu) {
                res->n_round_trips++;
                break;
            }
    }
    res->n_states_verified = best->n_verified;
    res->n_gpus_used = used_gpus(best, &res->cost_usd_per_h, price);
    res->status = SLO_STATUS_FEASIBLE_UNPROVEN;
    snprintf(res->reason, sizeof res->reason,
             "re-placement: %zu GPU%s, %.10g USD/h, %zu move%s; a fresh plan: %zu GPU%s, "
             "%.10g USD/h, %zu move%s (fewest moves not proven)",
             res->n_gpus_used, res->n_gpus_used == 1 ? "" : "s", res->cost_usd_per_h,
             res->n_moves, res->n_moves == 1 ? "" : "s", fresh.n_gpus,
             fresh.n_gpus == 1 ? "" : "s", fresh.cost_usd_per_h, res->fresh_moves,
             res->fresh_moves == 1 ? "" : "s");
    rv = SLO_OK;
    goto out;
nomem:
    rv = slo__fail(err, SLO_ERR_NOMEM, "--current", "out of memory");
    slo_infer_replace_result_free(res);
out:
    slo_infer_result_free(&fresh);
    state_free(&base);
    state_free(&a);
    state_free(&b);
    free(prof);
    free(price);
    free(exempt);
    free(present);
    free(order);
    free(key);
    free(mi);
    free(bd);
    free(c.used);
    free(c.t);
    free(c.o);
    free(c.idx);
    return rv;
}
