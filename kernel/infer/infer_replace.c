/*
 * infer_replace.c - re-placement of inference workloads as their rates
 * change (issue 19, item 4; `slo infer --current FILE`): from the deployed
 * placement to a new one that moves few workloads, each move made with
 * iGniter's shadow instance (start the new instance, shift traffic, stop the
 * old one) and every intermediate state re-predicted (slo_infer_replace in
 * slo_infer.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "slo_infer.h"
#include "slo_private.h"

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
    if (s->n == s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 16;
        struct inst *nv = realloc(s->v, nc * sizeof *nv);
        if (!nv)
            return -1;
        s->v = nv;
        s->cap = nc;
    }
    s->v[s->n++] = x;
    return 0;
}

static int state_add_gpu(struct state *s, size_t type)
{
    if (s->n_gpus == s->cap_gpus) {
        size_t nc = s->cap_gpus ? 2 * s->cap_gpus : 16;
        size_t *nt = realloc(s->gpu_type, nc * sizeof *nt);
        if (!nt)
            return -1;
        s->gpu_type = nt;
        s->cap_gpus = nc;
    }
    s->gpu_type[s->n_gpus++] = type;
    return 0;
}

static int state_push_move(struct state *s, const struct slo_infer_move *m)
{
    if (s->n_mv == s->cap_mv) {
        size_t nc = s->cap_mv ? 2 * s->cap_mv : 16;
        struct slo_infer_move *nm = realloc(s->mv, nc * sizeof *nm);
        if (!nm)
            return -1;
        s->mv = nm;
        s->cap_mv = nc;
    }
    s->mv[s->n_mv++] = *m;
    return 0;
}

static void state_remove(struct state *s, size_t i)
{
    memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof *s->v);
    s->n--;
}


struct ctx {
    const struct slo_infer_problem *pb;
    const double *price; /* [n_types] USD per GPU-hour */
    const int *exempt;   /* [n_workloads]: misses its SLO in the current placement */
    struct slo_ig_tenant *t;
    struct slo_ig_prediction *o;
    size_t *idx;
};

/* Check GPU g of s: shares sum to at most 100 % and every instance meets
 * its workload's SLO/2 and rate under the model, except the OLD copies of
 * exempt workloads. *lat_of (may be NULL) receives the latency of instance
 * want. Returns 1 if it holds, 0 if not, -1 on an internal error. */
static int gpu_ok(struct ctx *c, const struct state *s, size_t g, size_t want, double *lat_of)
{
    const struct slo_ig_profile *p = &c->pb->profiles[s->gpu_type[g]];
    size_t m = 0;
    double sum = 0;
    slo_error_t err = {0};
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i].gpu != g)
            continue;
        c->t[m].model = slo_ig_find_model(p, c->pb->workloads[s->v[i].workload].model);
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

/* Move workload wl in s as a shadow instance: its new instance (iGniter's
 * batch and solo share at its rate, raised by the unit until the GPU holds)
 * goes on the open GPU g without avoid[g] (avoid[n_avoid]; NULL: none) where
 * that share is least (ties:
 * lowest index) - its old instance still holding its share there or
 * elsewhere - else, if may_open, on a new GPU of the type where the share
 * costs least; the state with both instances is checked on every GPU, the
 * old one is stopped and the state checked again. Returns 0 moved, 1 no
 * room, 2 the state after stopping the old instance fails, -1 memory. */
static int move(struct ctx *c, struct state *s, size_t wl, const unsigned char *avoid,
                size_t n_avoid, int may_open)
{
    const struct slo_ig_workload *w = &c->pb->workloads[wl];
    size_t best_g = NONE, best_t = NONE, old = NONE, opened = 0;
    int best_b = 0, r;
    double best_r = INFINITY, best_cost = INFINITY, best_free = INFINITY;
    struct slo_infer_move m = {0};

    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].workload == wl)
            old = i;
    for (size_t g = 0; g < s->n_gpus; g++) {
        const struct slo_ig_profile *p = &c->pb->profiles[s->gpu_type[g]];
        int mi = slo_ig_find_model(p, w->model), any = 0;
        double used = 0;
        struct slo_ig_bounds bd;
        if ((avoid && g < n_avoid && avoid[g]) || mi < 0)
            continue;
        for (size_t i = 0; i < s->n; i++)
            if (s->v[i].gpu == g) {
                used += s->v[i].share_pct;
                any = 1;
            }
        if (!any)
            continue; /* emptied: a GPU is opened only below */
        slo_ig_choose_batch(p, &p->models[mi], w->rate_rps, w->slo_ms / 2, &bd);
        for (double sh = bd.r_low_pct; sh <= 100 - used + SHARE_EPS; sh += p->unit_pct) {
            if (state_push(s, (struct inst){wl, g, bd.batch, sh, NEW}))
                return -1;
            r = gpu_ok(c, s, g, NONE, NULL);
            s->n--;
            if (r < 0)
                return -1;
            if (r) {
                /* best fit: the GPU left with the least free share */
                if (100 - used - sh < best_free - SHARE_EPS) {
                    best_free = 100 - used - sh;
                    best_r = sh;
                    best_g = g;
                    best_b = bd.batch;
                }
                break;
            }
        }
    }
    if (best_g == NONE && may_open) {
        for (size_t t = 0; t < c->pb->n_types; t++) {
            const struct slo_ig_profile *p = &c->pb->profiles[t];
            int mi = slo_ig_find_model(p, w->model);
            struct slo_ig_bounds bd;
            if (mi < 0)
                continue;
            slo_ig_choose_batch(p, &p->models[mi], w->rate_rps, w->slo_ms / 2, &bd);
            if (bd.r_low_pct <= 100 && c->price[t] * bd.r_low_pct < best_cost) {
                best_cost = c->price[t] * bd.r_low_pct;
                best_t = t;
            }
        }
        if (best_t != NONE) {
            const struct slo_ig_profile *p = &c->pb->profiles[best_t];
            int mi = slo_ig_find_model(p, w->model);
            struct slo_ig_bounds bd;
            size_t g = s->n_gpus;
            slo_ig_choose_batch(p, &p->models[mi], w->rate_rps, w->slo_ms / 2, &bd);
            if (state_add_gpu(s, best_t))
                return -1;
            opened = 1;
            for (double sh = bd.r_low_pct; sh <= 100 + SHARE_EPS; sh += p->unit_pct) {
                if (state_push(s, (struct inst){wl, g, bd.batch, sh > 100 ? 100 : sh, NEW}))
                    return -1;
                r = gpu_ok(c, s, g, NONE, NULL);
                s->n--;
                if (r < 0)
                    return -1;
                if (r) {
                    best_g = g;
                    best_b = bd.batch;
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
    /* the shadow state: both instances hold resources */
    if (state_push(s, (struct inst){wl, best_g, best_b, best_r, NEW}))
        return -1;
    r = all_ok(c, s, s->n - 1, &m.shadow_latency_ms);
    if (r <= 0)
        return r < 0 ? -1 : 2;
    s->n_verified++;
    m.workload = wl;
    m.from_gpu = old == NONE ? NONE : s->v[old].gpu;
    m.from_batch = old == NONE ? 0 : s->v[old].batch;
    m.from_share_pct = old == NONE ? 0 : s->v[old].share_pct;
    m.to_gpu = best_g;
    m.to_batch = best_b;
    m.to_share_pct = best_r;
    if (old != NONE)
        state_remove(s, old); /* traffic shifted: the old instance stops */
    r = all_ok(c, s, s->n - 1, &m.latency_ms);
    if (r <= 0)
        return r < 0 ? -1 : 2;
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
        for (size_t i = 0; i < s->n; i++)
            if (s->v[i].gpu == g) {
                n++;
                if (cost)
                    *cost += price[s->gpu_type[g]];
                break;
            }
    return n;
}

/* Moves of a fresh plan (rule in slo_infer_replace's comment). */
static size_t fresh_moves(const struct slo_infer_current *cur, const struct slo_infer_result *f,
                          size_t n_workloads)
{
    size_t kept = 0, nc = cur->n_gpus, nf = f->n_gpus;
    size_t *ov = calloc((nc * nf) > 0 ? nc * nf : 1, sizeof *ov);
    unsigned char *uc = calloc(nc ? nc : 1, 1), *uf = calloc(nf ? nf : 1, 1);
    size_t *split = calloc(n_workloads, sizeof *split);
    if (!ov || !uc || !uf || !split) {
        free(ov);
        free(uc);
        free(uf);
        free(split);
        return n_workloads;
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
    for (;;) {
        size_t bi = NONE, bj = NONE, bv = 0;
        for (size_t i = 0; i < nc; i++)
            for (size_t j = 0; j < nf; j++)
                if (!uc[i] && !uf[j] && ov[i * nf + j] > bv) {
                    bv = ov[i * nf + j];
                    bi = i;
                    bj = j;
                }
        if (bi == NONE)
            break;
        uc[bi] = uf[bj] = 1;
        kept += bv;
    }
    free(ov);
    free(uc);
    free(uf);
    free(split);
    return n_workloads - kept;
}

void slo_infer_replace_result_free(struct slo_infer_replace_result *r)
{
    if (!r)
        return;
    free(r->gpu_type);
    free(r->placements);
    free(r->moves);
    memset(r, 0, sizeof *r);
}

static int no_replacement(struct slo_infer_replace_result *res, size_t wl, int split)
{
    res->status = SLO_STATUS_INFEASIBLE_UNPROVEN;
    if (split)
        snprintf(res->reason, sizeof res->reason,
                 "workload %zu does not fit on one GPU alone at its new rate (it would be "
                 "split over dedicated GPUs): plan afresh without --current",
                 wl + 1);
    else
        snprintf(res->reason, sizeof res->reason,
                 "moving workload %zu leaves a GPU whose tenants miss an SLO under the "
                 "model: plan afresh without --current",
                 wl + 1);
    return SLO_OK;
}

int slo_infer_replace(const struct slo_infer_problem *problem, const struct slo_infer_options *opt,
                      const struct slo_infer_current *cur, struct slo_infer_replace_result *res,
                      slo_error_t *err)
{
    struct slo_infer_result fresh = {0};
    struct state run = {0}, trial = {0};
    struct ctx c = {0};
    double *price = NULL, *key = NULL;
    int *exempt = NULL, *present = NULL;
    size_t n = problem ? problem->n_workloads : 0, cap_t, *order = NULL, n_mask = 0;
    unsigned char *mask = NULL, *shrunk = NULL;
    int rv;

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
    /* the fresh plan: the GPUs and moves to compare with (and the checks of
     * the problem: rates, SLOs, models, prices) */
    if ((rv = slo_infer_solve(problem, opt, &fresh, err)))
        return rv;
    res->fresh_status = fresh.status;
    res->fresh_n_gpus = fresh.n_gpus;
    res->fresh_cost_usd_per_h = fresh.cost_usd_per_h;
    cap_t = n + cur->n_placements + 1;
    price = calloc(problem->n_types, sizeof *price);
    exempt = calloc(n, sizeof *exempt);
    present = calloc(n, sizeof *present);
    c.t = calloc(cap_t, sizeof *c.t);
    c.o = calloc(cap_t, sizeof *c.o);
    c.idx = calloc(cap_t, sizeof *c.idx);
    if (!price || !exempt || !present || !c.t || !c.o || !c.idx)
        goto nomem;
    for (size_t t = 0; t < fresh.n_types; t++)
        price[t] = fresh.types[t].usd_per_gpu_h;
    c.pb = problem;
    c.price = price;
    c.exempt = exempt;
    res->fresh_moves = fresh.n_gpus ? fresh_moves(cur, &fresh, n) : n;

    /* the deployed placement at the new rates */
    for (size_t g = 0; g < cur->n_gpus; g++)
        if (state_add_gpu(&run, cur->gpu_type[g]))
            goto nomem;
    for (size_t i = 0; i < cur->n_placements; i++) {
        const struct slo_infer_current_placement *p = &cur->placements[i];
        if (state_push(&run, (struct inst){p->workload, p->gpu, p->batch, p->share_pct, STAY}))
            goto nomem;
        present[p->workload] = 1;
    }
    /* a deployed workload moves when it misses its SLO where it is, with
     * its co-runners, at its new rate */
    for (size_t g = 0; g < run.n_gpus; g++) {
        const struct slo_ig_profile *p = &problem->profiles[run.gpu_type[g]];
        size_t m = 0;
        slo_error_t e2 = {0};
        for (size_t i = 0; i < run.n; i++)
            if (run.v[i].gpu == g) {
                c.t[m].model = slo_ig_find_model(p, problem->workloads[run.v[i].workload].model);
                c.t[m].batch = run.v[i].batch;
                c.t[m].share_pct = run.v[i].share_pct;
                c.idx[m++] = i;
            }
        if (m && slo_ig_predict(p, c.t, m, c.o, NULL, &e2)) {
            rv = slo__fail(err, SLO_ERR_INVALID, "--current", "GPU %zu: %s", g + 1, e2.text);
            goto out;
        }
        for (size_t k = 0; k < m; k++) {
            const struct slo_ig_workload *w = &problem->workloads[run.v[c.idx[k]].workload];
            if (!slo_ig_meets_slo(c.o[k].latency_ms, c.o[k].throughput_rps, w->slo_ms,
                                  w->rate_rps)) {
                exempt[run.v[c.idx[k]].workload] = 1;
                run.v[c.idx[k]].role = OLD;
                res->n_missing_now++;
            }
        }
    }
    for (size_t wl = 0; wl < n; wl++)
        res->n_new += !present[wl];
    /* 1: the workloads missing their SLO, then the new ones, each by solo
     * share descending (as iGniter sorts; ties by index) */
    order = malloc(n * sizeof *order);
    key = malloc(n * sizeof *key);
    if (!order || !key)
        goto nomem;
    for (size_t wl = 0; wl < n; wl++) {
        key[wl] = 0;
        for (size_t t = 0; t < problem->n_types; t++) {
            int mi = slo_ig_find_model(&problem->profiles[t], problem->workloads[wl].model);
            struct slo_ig_bounds bd;
            if (mi < 0)
                continue;
            slo_ig_choose_batch(&problem->profiles[t], &problem->profiles[t].models[mi],
                                problem->workloads[wl].rate_rps,
                                problem->workloads[wl].slo_ms / 2, &bd);
            key[wl] = bd.r_low_pct;
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
    for (int pass = 0; pass < 2; pass++)
        for (size_t oi = 0; oi < n; oi++) {
            size_t wl = order[oi];
            if (pass == 0 ? !exempt[wl] : present[wl])
                continue;
            rv = move(&c, &run, wl, NULL, 0, 1);
            if (rv < 0)
                goto nomem;
            if (rv == 1) {
                rv = no_replacement(res, wl, 1);
                goto out;
            }
            if (rv == 2) {
                rv = no_replacement(res, wl, 0);
                goto out;
            }
        }
    /* 2: while more GPUs than the fresh plan, empty the GPU with the fewest
     * tenants that all move to other open GPUs (rule in slo_infer.h) */
    n_mask = run.n_gpus;
    mask = calloc(n_mask ? n_mask : 1, 1);
    shrunk = calloc(n, sizeof *shrunk);
    if (!mask || !shrunk)
        goto nomem;
    while (used_gpus(&run, NULL, price) > fresh.n_gpus) {
        unsigned char *tried = calloc(run.n_gpus ? run.n_gpus : 1, 1);
        int done = 0;
        if (!tried)
            goto nomem;
        for (;;) {
            size_t best = NONE, best_count = NONE;
            double best_load = INFINITY;
            int ok = 1;
            for (size_t g = 0; g < run.n_gpus; g++) {
                double load = 0;
                size_t count = 0;
                for (size_t i = 0; i < run.n; i++)
                    if (run.v[i].gpu == g) {
                        load += run.v[i].share_pct;
                        count++;
                    }
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
            if (state_copy(&trial, &run)) {
                free(tried);
                goto nomem;
            }
            for (;;) {
                size_t wl = NONE;
                for (size_t i = 0; i < trial.n && wl == NONE; i++)
                    if (trial.v[i].gpu == best)
                        wl = trial.v[i].workload;
                if (wl == NONE)
                    break;
                mask[best] = 1;
                rv = move(&c, &trial, wl, mask, n_mask, 0);
                mask[best] = 0;
                if (rv < 0) {
                    free(tried);
                    goto nomem;
                }
                if (rv) {
                    ok = 0;
                    break;
                }
            }
            /* down to the fresh plan's GPUs plus one at any number of moves;
             * to its GPUs only while fewer moves than it makes */
            if (ok && used_gpus(&run, NULL, price) <= fresh.n_gpus + 1 &&
                trial.n_mv >= res->fresh_moves)
                ok = 0;
            if (ok) {
                if (state_copy(&run, &trial)) {
                    free(tried);
                    goto nomem;
                }
                done = 1;
                break;
            }
        }
        free(tried);
        if (!done && used_gpus(&run, NULL, price) > fresh.n_gpus + 1) {
            /* no GPU empties into the others: shrink the tenant holding the
             * most share above its solo share at its new rate (a rate that
             * fell), once per workload, by a shadow move, then try again */
            size_t best = NONE;
            double best_excess = 0;
            for (size_t i = 0; i < run.n; i++) {
                const struct slo_ig_profile *p = &problem->profiles[run.gpu_type[run.v[i].gpu]];
                const struct slo_ig_workload *w = &problem->workloads[run.v[i].workload];
                int mi = slo_ig_find_model(p, w->model);
                struct slo_ig_bounds bd;
                if (mi < 0 || shrunk[run.v[i].workload])
                    continue;
                slo_ig_choose_batch(p, &p->models[mi], w->rate_rps, w->slo_ms / 2, &bd);
                if (run.v[i].share_pct - bd.r_low_pct > best_excess + SHARE_EPS &&
                    run.v[i].share_pct - bd.r_low_pct >= p->unit_pct - SHARE_EPS) {
                    best_excess = run.v[i].share_pct - bd.r_low_pct;
                    best = i;
                }
            }
            if (best != NONE) {
                size_t wl = run.v[best].workload;
                shrunk[wl] = 1;
                if (state_copy(&trial, &run))
                    goto nomem;
                rv = move(&c, &trial, wl, NULL, 0, 0);
                if (rv < 0)
                    goto nomem;
                if (rv == 0 && state_copy(&run, &trial))
                    goto nomem;
                done = 1; /* (a failed shrink is not retried: shrunk[wl]) */
            }
        }
        if (!done)
            break;
    }
    /* never more GPUs than the fresh plan plus one: else refused */
    {
        size_t used = used_gpus(&run, NULL, price);
        if (used > fresh.n_gpus + 1) {
            res->status = SLO_STATUS_INFEASIBLE_UNPROVEN;
            snprintf(res->reason, sizeof res->reason,
                     "re-placement found no placement on at most %zu GPUs (the fresh plan's %zu "
                     "plus one) that keeps the deployed workloads meeting their SLO where they "
                     "are (its best: %zu GPUs after %zu moves): plan afresh without --current "
                     "(%zu moves)",
                     fresh.n_gpus + 1, fresh.n_gpus, used, run.n_mv, res->fresh_moves);
            rv = SLO_OK;
            goto out;
        }
    }
    /* the result: the moves in order and the placement they lead to */
    res->n_gpus = run.n_gpus;
    res->gpu_type = malloc((run.n_gpus ? run.n_gpus : 1) * sizeof *res->gpu_type);
    res->placements = malloc((run.n ? run.n : 1) * sizeof *res->placements);
    res->moves = malloc((run.n_mv ? run.n_mv : 1) * sizeof *res->moves);
    if (!res->gpu_type || !res->placements || !res->moves)
        goto nomem;
    memcpy(res->gpu_type, run.gpu_type, run.n_gpus * sizeof *res->gpu_type);
    for (size_t i = 0; i < run.n; i++) {
        res->placements[i].workload = run.v[i].workload;
        res->placements[i].gpu = run.v[i].gpu;
        res->placements[i].batch = run.v[i].batch;
        res->placements[i].share_pct = run.v[i].share_pct;
    }
    res->n_placements = run.n;
    if (run.n_mv)
        memcpy(res->moves, run.mv, run.n_mv * sizeof *res->moves);
    res->n_moves = run.n_mv;
    res->n_states_verified = run.n_verified;
    res->n_gpus_used = used_gpus(&run, &res->cost_usd_per_h, price);
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
    state_free(&run);
    state_free(&trial);
    free(price);
    free(exempt);
    free(present);
    free(order);
    free(key);
    free(mask);
    free(shrunk);
    free(c.t);
    free(c.o);
    free(c.idx);
    return rv;
}
