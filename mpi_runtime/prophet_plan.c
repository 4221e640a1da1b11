/*
 * prophet_plan.c - the kernel's plans over a registered gradient list:
 * mapping struct slo_comm_plan (and libslo's messages) onto the gradients,
 * validation, checksums and the issue rule (prophet_private.h). No MPI
 * here, so the unit test (tests/test_runtime_plan.c) runs without it.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prophet_private.h"



static int nomem(slo_error_t *err)
{
    return slo_error_set(err, SLO_ERR_NOMEM, "plan", "out of memory");
}

void slo__prophet_schedule_free(struct slo__prophet_schedule *plan)
{
    if (!plan)
        return;
    free(plan->grad_bytes);
    free(plan->block_start);
    free(plan->block_bytes);
    free(plan->block_hold);
    free(plan->pieces);
    memset(plan, 0, sizeof *plan);
}

/* ------------------------------------------------------------------ */
/* Check                                                               */
/* ------------------------------------------------------------------ */

/* qsort has no context argument in C11: sort copies, not indices (no globals) */
static int cmp_piece(const void *a, const void *b)
{
    const struct slo__prophet_piece *p = a, *q = b;
    if (p->grad != q->grad)
        return p->grad < q->grad ? -1 : 1;
    if (p->offset_bytes != q->offset_bytes)
        return p->offset_bytes < q->offset_bytes ? -1 : 1;
    return 0;
}

int slo__prophet_schedule_check(const struct slo__prophet_schedule *plan, slo_error_t *err)
{
    struct slo__prophet_piece *idx;
    size_t g, k, covered;
    const size_t G = plan->n_grads;

    if (plan->elem_bytes < 1)
        return slo_error_set(err, SLO_ERR_INVALID, "plan", "elem_bytes: expected >= 1, found 0");
    for (g = 0; g < G; g++)
        if (plan->grad_bytes[g] % plan->elem_bytes)
            return slo_error_set(err, SLO_ERR_INVALID, "plan",
                        "gradient %zu: expected a size that is a multiple of %zu bytes, "
                        "found %zu", g, plan->elem_bytes, plan->grad_bytes[g]);
    if (plan->n_blocks && (!plan->block_start || plan->block_start[0] != 0 ||
                           plan->block_start[plan->n_blocks] != plan->n_pieces))
        return slo_error_set(err, SLO_ERR_INVALID, "plan",
                    "block_start: expected 0 .. %zu (the pieces), found another range",
                    plan->n_pieces);
    if (!plan->n_blocks && plan->n_pieces)
        return slo_error_set(err, SLO_ERR_INVALID, "plan", "expected pieces only inside blocks, "
                    "found %zu pieces and no block", plan->n_pieces);
    for (size_t b = 0; b < plan->n_blocks; b++) {
        size_t sum = 0;
        if (plan->block_start[b + 1] <= plan->block_start[b])
            return slo_error_set(err, SLO_ERR_INVALID, "plan", "block %zu: expected at least one "
                        "byte range, found none", b);
        for (k = plan->block_start[b]; k < plan->block_start[b + 1]; k++) {
            const struct slo__prophet_piece *p = &plan->pieces[k];
            if (p->grad >= G || p->bytes == 0 || p->offset_bytes > plan->grad_bytes[p->grad] ||
                p->bytes > plan->grad_bytes[p->grad] - p->offset_bytes ||
                p->bytes % plan->elem_bytes || p->offset_bytes % plan->elem_bytes)
                return slo_error_set(err, SLO_ERR_INVALID, "plan",
                            "block %zu: expected ranges of whole %zu-byte elements inside "
                            "a gradient, found gradient %zu bytes %zu..%zu%s", b,
                            plan->elem_bytes, p->grad, p->offset_bytes,
                            p->offset_bytes + p->bytes,
                            p->grad >= G ? " (no such gradient)" : "");
            sum += p->bytes;
        }
        if (sum != plan->block_bytes[b])
            return slo_error_set(err, SLO_ERR_INVALID, "plan", "block %zu: expected %zu bytes (its "
                        "ranges), found %zu", b, sum, plan->block_bytes[b]);
        if (plan->block_hold[b] > G)
            return slo_error_set(err, SLO_ERR_INVALID, "plan", "block %zu: expected a hold <= %zu, "
                        "found %zu", b, G, plan->block_hold[b]);
    }
    /* tiling: sort the pieces by (gradient, offset) and walk */
    if (!(idx = malloc((plan->n_pieces + 1) * sizeof *idx)))
        return nomem(err);
    if (plan->n_pieces)
        memcpy(idx, plan->pieces, plan->n_pieces * sizeof *idx);
    qsort(idx, plan->n_pieces, sizeof *idx, cmp_piece);
    k = 0;
    for (g = 0; g < G; g++) {
        covered = 0;
        for (; k < plan->n_pieces && idx[k].grad == g; k++) {
            const struct slo__prophet_piece *p = &idx[k];
            if (p->offset_bytes != covered) {
                int code = slo_error_set(err, SLO_ERR_INVALID, "plan",
                                p->offset_bytes > covered
                                    ? "gradient %zu: bytes %zu..%zu of %zu are in no block"
                                    : "gradient %zu: bytes %zu..%zu of %zu are in two blocks",
                                g, p->offset_bytes > covered ? covered : p->offset_bytes,
                                p->offset_bytes > covered ? p->offset_bytes : covered,
                                plan->grad_bytes[g]);
                free(idx);
                return code;
            }
            covered += p->bytes;
        }
        if (covered != plan->grad_bytes[g]) {
            free(idx);
            return slo_error_set(err, SLO_ERR_INVALID, "plan",
                        "gradient %zu: bytes %zu..%zu of %zu are in no block", g, covered,
                        plan->grad_bytes[g], plan->grad_bytes[g]);
        }
    }
    free(idx);
    return SLO_OK;
}

/* ------------------------------------------------------------------ */
/* From libslo's messages                                              */
/* ------------------------------------------------------------------ */

/* Plan space: the flat buffer of the model the messages were made for. */
struct space {
    size_t n;
    const struct slo_comm_model *model;
    double *o;       /* [n + 1] plan-space offsets o_j */
    double total;
    double tol;      /* bytes */
    size_t *O;       /* [n + 1] registered offsets O_g */
    const size_t *S; /* [n] registered sizes */
    size_t elem;
};

/* The layer with bytes whose range [o_j, o_j + s_j) holds x (0 <= x < total). */
static size_t layer_at(const struct space *sp, double x)
{
    size_t lo = 0, hi = sp->n; /* o[lo] <= x < o[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp->o[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    /* o is non-decreasing; skip layers without bytes */
    while (lo + 1 < sp->n && sp->o[lo + 1] <= x)
        lo++;
    return lo;
}

/* Registered byte for the plan-space boundary x (doc in the header). */
static size_t map_boundary(const struct space *sp, double x)
{
    size_t j;
    double s, phi;
    if (x <= sp->tol)
        return 0;
    if (x >= sp->total - sp->tol)
        return sp->O[sp->n];
    j = layer_at(sp, x);
    s = sp->o[j + 1] - sp->o[j]; /* the layer's span in plan space, > 0 here */
    if (x - sp->o[j] <= sp->tol)
        return sp->O[j];
    if (sp->o[j] + s - x <= sp->tol)
        return sp->O[j] + sp->S[j];
    phi = (x - sp->o[j]) / s;
    return sp->O[j] + (size_t)llround(phi * (double)(sp->S[j] / sp->elem)) * sp->elem;
}

/* Registered gradient holding byte X (X < O[n]): the g with O_g <= X < O_g + S_g. */
static size_t grad_at(const struct space *sp, size_t X)
{
    size_t lo = 0, hi = sp->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp->O[mid] <= X)
            lo = mid;
        else
            hi = mid;
    }
    while (lo + 1 < sp->n && sp->O[lo + 1] <= X)
        lo++;
    return lo;
}

struct by_offset {
    double offset;
    size_t index;
};
static int cmp_offset(const void *a, const void *b)
{
    const struct by_offset *x = a, *y = b;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

int slo__prophet_schedule_from_messages(const struct slo_comm_message *msgs, size_t nm,
                                   const struct slo_comm_model *model, const size_t *grad_bytes,
                                   size_t elem, const size_t *hold, const char *policy,
                                   struct slo__prophet_schedule *plan, slo_error_t *err)
{
    struct space sp;
    struct by_offset *sorted = NULL;
    size_t *order = NULL, *start = NULL, *end = NULL, *Sown = NULL, n, k, nb_in;
    int rc = SLO_ERR_NOMEM;
    size_t cap = 0;

    memset(plan, 0, sizeof *plan);
    memset(&sp, 0, sizeof sp);
    if (!model || model->n_layers == 0)
        return slo_error_set(err, SLO_ERR_INVALID, "plan",
                     "expected a model with layers, found none");
    if (elem < 1)
        return slo_error_set(err, SLO_ERR_INVALID, "plan", "elem_bytes: expected >= 1, found 0");
    n = model->n_layers;
    sp.n = n;
    sp.model = model;
    sp.elem = elem;
    sp.o = malloc((n + 1) * sizeof *sp.o);
    sp.O = malloc((n + 1) * sizeof *sp.O);
    Sown = grad_bytes ? NULL : malloc(n * sizeof *Sown);
    order = malloc((nm + 1) * sizeof *order);
    sorted = malloc((nm + 1) * sizeof *sorted);
    start = malloc((nm + 1) * sizeof *start);
    end = malloc((nm + 1) * sizeof *end);
    if (!sp.o || !sp.O || (!grad_bytes && !Sown) || !order || !sorted || !start || !end)
        goto nomem;
    sp.o[0] = 0;
    for (size_t j = 0; j < n; j++) {
        double s = model->layers[j].grad_bytes;
        if (!isfinite(s) || s < 0) {
            rc = slo_error_set(err, SLO_ERR_INVALID, "plan",
                         "layer %zu: expected gradient bytes >= 0, "
                      "found %g", j, s);
            goto out;
        }
        if (!grad_bytes) {
            if (s != floor(s) || fmod(s, (double)elem) != 0 || s > 1e15) {
                rc = slo_error_set(err, SLO_ERR_INVALID, "plan",
                             "layer %zu: expected a whole number "
                          "of %zu-byte elements, found %.17g bytes", j, elem, s);
                goto out;
            }
            Sown[j] = (size_t)s;
        }
        sp.o[j + 1] = sp.o[j] + s;
    }
    /* Plan space is the kernel plan's: its boundaries are whole elements,
     * elem x round(x / elem) half away from zero (slo_comm.h, "Plans"), so
     * layer j spans the rounded offsets [o_j, o_j+1) and the buffer ends at
     * the rounded total (the identity for whole-element sizes). Layers of
     * fewer bytes than half an element may span nothing there: their
     * registered bytes go with the neighbouring block that maps over them. */
    for (size_t j = 0; j <= n; j++)
        sp.o[j] = (double)slo_comm_round_to_elements(sp.o[j], elem);
    sp.S = grad_bytes ? grad_bytes : Sown;
    sp.O[0] = 0;
    for (size_t j = 0; j < n; j++) {
        if (sp.S[j] % elem) {
            rc = slo_error_set(err, SLO_ERR_INVALID, "plan",
                         "gradient %zu: expected a size that is a "
                      "multiple of %zu bytes, found %zu", j, elem, sp.S[j]);
            goto out;
        }
        sp.O[j + 1] = sp.O[j] + sp.S[j];
    }
    sp.total = sp.o[n];
    sp.tol = fmax(1e-3, 1e-9 * sp.total);

    /* plan space: numbering, finiteness, claimed layers */
    if (nm == 0) {
        rc = slo_error_set(err, SLO_ERR_INVALID, "plan", "expected byte ranges covering the %.17g "
                  "gradient bytes, found no block", sp.total);
        goto out;
    }
    for (k = 0; k < nm; k++) {
        const struct slo_comm_message *m = &msgs[k];
        double x0 = m->offset_bytes, x1 = m->offset_bytes + m->bytes, t;
        size_t lo, hi;
        if ((k == 0 && m->block != 0) ||
            (k > 0 && m->block != msgs[k - 1].block && m->block != msgs[k - 1].block + 1)) {
            rc = slo_error_set(err, SLO_ERR_INVALID, "plan", "range %zu: expected block %zu or %zu "
                      "(blocks numbered from 0 in post order), found block %zu", k,
                      k ? msgs[k - 1].block : 0, k ? msgs[k - 1].block + 1 : 0, m->block);
            goto out;
        }
        if (!isfinite(x0) || !isfinite(m->bytes) || m->bytes <= 0 || x0 < -sp.tol ||
            x1 > sp.total + sp.tol) {
            rc = slo_error_set(err, SLO_ERR_INVALID, "plan", "block %zu: expected a byte range of "
                      "more than 0 bytes inside the %.17g gradient bytes, found offset "
                      "%.17g, %.17g bytes", m->block, sp.total, x0, m->bytes);
            goto out;
        }
        if (m->first_layer > m->last_layer || m->last_layer >= n) {
            rc = slo_error_set(err, SLO_ERR_INVALID, "plan", "block %zu: expected layers "
                      "first <= last < %zu, found %zu..%zu", m->block, n, m->first_layer,
                      m->last_layer);
            goto out;
        }
        t = fmin(sp.tol, m->bytes / 2);
        lo = layer_at(&sp, fmax(0, fmin(x0 + t, sp.total)));
        hi = layer_at(&sp, fmax(0, fmin(x1 - t, sp.total)));
        if (x0 + t >= sp.total)
            lo = hi;
        if (lo < m->first_layer || hi > m->last_layer) {
            rc = slo_error_set(err, SLO_ERR_INVALID, "plan",
                         "block %zu: expected its bytes in layers "
                      "%zu..%zu, found bytes %.17g..%.17g in layers %zu..%zu: a plan for "
                      "another gradient list", m->block, m->first_layer, m->last_layer, x0,
                      x1, lo, hi);
            goto out;
        }
        sorted[k] = (struct by_offset){x0, k};
    }
    /* tiling in plan space */
    qsort(sorted, nm, sizeof *sorted, cmp_offset);
    for (k = 0; k < nm; k++)
        order[k] = sorted[k].index;
    {
        double at = 0;
        for (k = 0; k < nm; k++) {
            const struct slo_comm_message *m = &msgs[order[k]];
            if (fabs(m->offset_bytes - at) > sp.tol) {
                rc = slo_error_set(err, SLO_ERR_INVALID, "plan",
                          m->offset_bytes > at
                              ? "expected byte ranges that cover every gradient byte once, "
                                "found bytes %.17g..%.17g in no block"
                              : "expected byte ranges that cover every gradient byte once, "
                                "found bytes %.17g..%.17g in two blocks",
                          fmin(at, m->offset_bytes), fmax(at, m->offset_bytes));
                goto out;
            }
            at = m->offset_bytes + m->bytes;
        }
        if (fabs(at - sp.total) > sp.tol) {
            rc = slo_error_set(err, SLO_ERR_INVALID, "plan", "expected byte ranges covering the "
                      "%.17g gradient bytes, found %.17g bytes covered: a plan for another "
                      "gradient list", sp.total, at);
            goto out;
        }
    }
    /* map the boundaries once each, so neighbours share them exactly */
    {
        size_t X = 0;
        for (k = 0; k < nm; k++) {
            size_t i = order[k], e;
            start[i] = X;
            e = k + 1 == nm ? sp.O[n]
                            : map_boundary(&sp, msgs[i].offset_bytes + msgs[i].bytes);
            if (e < X)
                e = X; /* map_boundary is monotone; guard against rounding */
            end[i] = e;
            X = e;
        }
    }

    /* pieces, in post order */
    nb_in = msgs[nm - 1].block + 1;
    plan->elem_bytes = elem;
    plan->n_grads = n;
    snprintf(plan->policy, sizeof plan->policy, "%s", policy ? policy : "");
    if (!(plan->grad_bytes = malloc(n * sizeof *plan->grad_bytes)) ||
        !(plan->block_start = malloc((nb_in + 1) * sizeof *plan->block_start)) ||
        !(plan->block_bytes = calloc(nb_in + 1, sizeof *plan->block_bytes)) ||
        !(plan->block_hold = malloc((nb_in + 1) * sizeof *plan->block_hold)))
        goto nomem;
    memcpy(plan->grad_bytes, sp.S, n * sizeof *plan->grad_bytes);
    plan->block_start[0] = 0;
    for (k = 0; k < nm;) {
        size_t blk = msgs[k].block, b = plan->n_blocks;
        for (; k < nm && msgs[k].block == blk; k++) {
            size_t X = start[k];
            while (X < end[k]) {
                size_t g = grad_at(&sp, X), upto = sp.O[g] + sp.S[g];
                struct slo__prophet_piece *last = plan->n_pieces > plan->block_start[b]
                                                     ? &plan->pieces[plan->n_pieces - 1]
                                                     : NULL;
                if (upto > end[k])
                    upto = end[k];
                if (last && last->grad == g && last->offset_bytes + last->bytes == X - sp.O[g]) {
                    last->bytes += upto - X;
                } else {
                    if (plan->n_pieces == cap) {
                        size_t nc = cap ? 2 * cap : 64;
                        void *q = realloc(plan->pieces, nc * sizeof *plan->pieces);
                        if (!q)
                            goto nomem;
                        plan->pieces = q;
                        cap = nc;
                    }
                    plan->pieces[plan->n_pieces++] =
                        (struct slo__prophet_piece){g, X - sp.O[g], upto - X};
                }
                plan->block_bytes[b] += upto - X;
                X = upto;
            }
        }
        if (plan->n_pieces == plan->block_start[b])
            continue; /* mapped to no bytes: dropped (the same on every rank) */
        plan->block_hold[b] = n;
        if (hold) {
            plan->block_hold[b] = hold[blk] < n ? hold[blk] : n;
            /* a hold on layers without bytes means nothing: they are ready */
            while (plan->block_hold[b] < n && sp.S[plan->block_hold[b]] == 0)
                plan->block_hold[b]++;
        }
        plan->n_blocks++;
        plan->block_start[plan->n_blocks] = plan->n_pieces;
    }
    if ((rc = slo__prophet_schedule_check(plan, err)))
        goto out;
    rc = SLO_OK;
    goto out;
nomem:
    rc = nomem(err);
out:
    if (rc)
        slo__prophet_schedule_free(plan);
    free(sp.o);
    free(sp.O);
    free(Sown);
    free(order);
    free(sorted);
    free(start);
    free(end);
    return rc;
}

/* The kernel's plan (integer ranges) as messages for
 * slo__prophet_schedule_from_messages: one per range, with its block's times. */
static int plan_messages(const struct slo_comm_plan *kp, struct slo_comm_message **out,
                         slo_error_t *err)
{
    struct slo_comm_message *m = calloc(kp->n_ranges + 1, sizeof *m);
    *out = m;
    if (!m)
        return nomem(err);
    for (size_t r = 0; r < kp->n_ranges; r++) {
        const struct slo_comm_plan_range *R = &kp->ranges[r];
        const struct slo_comm_plan_block *B = &kp->blocks[R->block];
        m[r] = (struct slo_comm_message){.block = R->block,
                                         .offset_bytes = (double)R->offset_bytes,
                                         .bytes = (double)R->size_bytes,
                                         .first_layer = R->first_layer,
                                         .last_layer = R->last_layer,
                                         .post_s = B->post_s,
                                         .start_s = B->start_s,
                                         .end_s = B->end_s,
                                         .done_s = B->done_s};
    }
    return SLO_OK;
}

int slo__prophet_plan_fits(const struct slo_comm_plan *kp, const struct slo_comm_model *model,
                           const size_t *grad_bytes, size_t n_grads, size_t elem,
                           slo_error_t *err)
{
    double total = 0;
    uint64_t want;
    const char *name = model ? model->name : "registered";
    if (kp->elem_bytes != elem)
        return slo_error_set(err, SLO_ERR_INVALID, "plan", "elem_bytes: expected %zu (the "
                            "registered gradients' element size), found %zu: a plan for "
                            "another gradient list", elem, kp->elem_bytes);
    if (model && model->n_layers != n_grads)
        return slo_error_set(err, SLO_ERR_INVALID, "plan", "expected a model of the %zu "
                            "registered gradients, found %zu layers in model \"%s\"", n_grads,
                            model->n_layers, model->name);
    if (kp->n_layers != n_grads)
        return slo_error_set(err, SLO_ERR_INVALID, "plan", "model.layers: expected %zu (the "
                            "registered gradient list, model \"%s\"), found %zu: a plan for "
                            "another gradient list (model \"%s\")", n_grads, name,
                            kp->n_layers, kp->model[0] ? kp->model : "?");
    for (size_t j = 0; j < n_grads; j++)
        total += model ? model->layers[j].grad_bytes : (double)grad_bytes[j];
    want = (uint64_t)(floor(total / (double)elem + 0.5)) * elem;
    if (kp->total_bytes != want)
        return slo_error_set(err, SLO_ERR_INVALID, "plan", "model.bytes: expected %llu (the "
                            "registered gradient list, model \"%s\"), found %llu: a plan for "
                            "another gradient list", (unsigned long long)want, name,
                            (unsigned long long)kp->total_bytes);
    return SLO_OK;
}

int slo__prophet_schedule_map(const struct slo_comm_plan *kp,
                              const struct slo_comm_model *planned_for, const size_t *grad_bytes,
                              size_t n_grads, size_t elem, struct slo__prophet_schedule *out,
                              slo_error_t *err)
{
    struct slo_comm_model own = {0};
    const struct slo_comm_model *model = planned_for;
    struct slo_comm_message *msgs = NULL;
    size_t *hold = NULL;
    int rc;

    memset(out, 0, sizeof *out);
    if (elem < 1)
        return slo_error_set(err, SLO_ERR_INVALID, "plan", "elem_bytes: expected >= 1, found 0");
    if ((rc = slo_comm_plan_check(kp, err)))
        return rc;
    if ((rc = slo__prophet_plan_fits(kp, planned_for, grad_bytes, n_grads, elem, err)))
        return rc;
    if (!model) {
        /* the plan is for the registered sizes themselves */
        if ((rc = slo_comm_model_alloc(&own, n_grads, err)))
            return rc;
        snprintf(own.name, sizeof own.name, "registered");
        for (size_t g = 0; g < n_grads; g++)
            own.layers[g].grad_bytes = (double)grad_bytes[g];
        model = &own;
    }
    if ((rc = plan_messages(kp, &msgs, err)))
        goto out;
    if (!(hold = malloc((kp->n_blocks + 1) * sizeof *hold))) {
        rc = nomem(err);
        goto out;
    }
    for (size_t b = 0; b < kp->n_blocks; b++)
        hold[b] = kp->blocks[b].hold_layer;
    rc = slo__prophet_schedule_from_messages(msgs, kp->n_ranges, model, grad_bytes, elem, hold,
                                             kp->policy, out, err);
out:
    free(msgs);
    free(hold);
    slo_comm_model_free(&own);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Checksums                                                           */
/* ------------------------------------------------------------------ */

static uint64_t fnv(uint64_t h, uint64_t word)
{
    for (int i = 0; i < 8; i++) {
        h ^= (word >> (8 * i)) & 0xff;
        h *= 1099511628211ULL;
    }
    return h;
}

uint64_t slo__prophet_grads_checksum(const size_t *grad_bytes, size_t n, size_t elem)
{
    uint64_t h = fnv(fnv(14695981039346656037ULL, elem), n);
    for (size_t g = 0; g < n; g++)
        h = fnv(h, grad_bytes[g]);
    return h;
}

uint64_t slo__prophet_schedule_checksum(const struct slo__prophet_schedule *p)
{
    uint64_t h = fnv(slo__prophet_grads_checksum(p->grad_bytes, p->n_grads, p->elem_bytes),
                     p->n_blocks);
    for (size_t b = 0; b < p->n_blocks; b++) {
        h = fnv(fnv(fnv(h, p->block_start[b + 1] - p->block_start[b]), p->block_bytes[b]),
                p->block_hold[b]);
        for (size_t k = p->block_start[b]; k < p->block_start[b + 1]; k++)
            h = fnv(fnv(fnv(h, p->pieces[k].grad), p->pieces[k].offset_bytes),
                    p->pieces[k].bytes);
    }
    return h;
}

/* ------------------------------------------------------------------ */
/* Issue rule                                                          */
/* ------------------------------------------------------------------ */

void slo__prophet_sched_free(struct slo__prophet_sched *s)
{
    if (!s)
        return;
    free(s->grad_block_start);
    free(s->grad_blocks);
    free(s->block_need);
    free(s->block_left);
    free(s->ready);
    memset(s, 0, sizeof *s);
}

int slo__prophet_sched_init(struct slo__prophet_sched *s, const struct slo__prophet_schedule *plan,
                           slo_error_t *err)
{
    const size_t G = plan->n_grads, B = plan->n_blocks;
    size_t *last_block = NULL;
    int rc;
    memset(s, 0, sizeof *s);
    if ((rc = slo__prophet_schedule_check(plan, err)))
        return rc;
    s->plan = plan;
    s->grad_block_start = calloc(G + 2, sizeof *s->grad_block_start);
    s->grad_blocks = malloc((plan->n_pieces + 1) * sizeof *s->grad_blocks);
    s->block_need = calloc(B + 1, sizeof *s->block_need);
    s->block_left = calloc(B + 1, sizeof *s->block_left);
    s->ready = calloc(G + 1, 1);
    last_block = malloc((G + 1) * sizeof *last_block);
    if (!s->grad_block_start || !s->grad_blocks || !s->block_need || !s->block_left ||
        !s->ready || !last_block) {
        free(last_block);
        slo__prophet_sched_free(s);
        return nomem(err);
    }
    /* distinct (gradient, block) pairs: pieces of one gradient in one block
     * are consecutive in block order only if merged, so dedupe by the last
     * block seen per gradient (blocks are visited in ascending order) */
    for (size_t g = 0; g < G; g++)
        last_block[g] = (size_t)-1;
    for (size_t b = 0; b < B; b++)
        for (size_t k = plan->block_start[b]; k < plan->block_start[b + 1]; k++) {
            size_t g = plan->pieces[k].grad;
            if (last_block[g] != b) {
                last_block[g] = b;
                s->grad_block_start[g + 1]++;
                s->block_need[b]++;
            }
        }
    for (size_t g = 0; g < G; g++)
        s->grad_block_start[g + 1] += s->grad_block_start[g];
    for (size_t g = 0; g < G; g++)
        last_block[g] = (size_t)-1;
    {
        size_t *fill = calloc(G + 1, sizeof *fill);
        if (!fill) {
            free(last_block);
            slo__prophet_sched_free(s);
            return nomem(err);
        }
        for (size_t b = 0; b < B; b++)
            for (size_t k = plan->block_start[b]; k < plan->block_start[b + 1]; k++) {
                size_t g = plan->pieces[k].grad;
                if (last_block[g] != b) {
                    last_block[g] = b;
                    s->grad_blocks[s->grad_block_start[g] + fill[g]++] = b;
                }
            }
        free(fill);
    }
    free(last_block);
    slo__prophet_sched_reset(s);
    return SLO_OK;
}

void slo__prophet_sched_reset(struct slo__prophet_sched *s)
{
    const struct slo__prophet_schedule *p = s->plan;
    s->n_ready = 0;
    s->next = 0;
    for (size_t b = 0; b < p->n_blocks; b++)
        s->block_left[b] = s->block_need[b];
    /* gradients without bytes are ready from the start: no block waits for them */
    for (size_t g = 0; g < p->n_grads; g++)
        s->ready[g] = p->grad_bytes[g] == 0;
    s->suffix = p->n_grads;
    while (s->suffix > 0 && s->ready[s->suffix - 1])
        s->suffix--;
}

int slo__prophet_sched_mark(struct slo__prophet_sched *s, size_t g, slo_error_t *err)
{
    const struct slo__prophet_schedule *p = s->plan;
    if (g >= p->n_grads)
        return slo_error_set(err, SLO_ERR_INVALID, "mark_ready", "gradient %zu: expected an index "
                    "below %zu (the registered gradients)", g, p->n_grads);
    if (p->grad_bytes[g] == 0)
        return SLO_OK;
    if (s->ready[g])
        return slo_error_set(err, SLO_ERR_INVALID, "mark_ready",
                     "gradient %zu: expected it once per "
                    "backward pass, found it marked ready twice", g);
    s->ready[g] = 1;
    s->n_ready++;
    for (size_t i = s->grad_block_start[g]; i < s->grad_block_start[g + 1]; i++)
        s->block_left[s->grad_blocks[i]]--;
    while (s->suffix > 0 && s->ready[s->suffix - 1])
        s->suffix--;
    return SLO_OK;
}

int slo__prophet_sched_ready(const struct slo__prophet_sched *s)
{
    size_t b = s->next;
    return b < s->plan->n_blocks && s->block_left[b] == 0 && s->suffix <= s->plan->block_hold[b];
}

size_t slo__prophet_sched_issue(struct slo__prophet_sched *s)
{
    return s->next++;
}

void slo__prophet_sched_blocks_of(const struct slo__prophet_sched *s, size_t g,
                                 const size_t **blocks, size_t *n)
{
    if (g >= s->plan->n_grads) {
        *blocks = NULL;
        *n = 0;
        return;
    }
    *blocks = s->grad_blocks + s->grad_block_start[g];
    *n = s->grad_block_start[g + 1] - s->grad_block_start[g];
}

size_t slo__prophet_sched_waiting_for(const struct slo__prophet_sched *s)
{
    const struct slo__prophet_schedule *p = s->plan;
    size_t b = s->next, best = p->n_grads;
    if (b >= p->n_blocks)
        return p->n_grads;
    for (size_t k = p->block_start[b]; k < p->block_start[b + 1]; k++)
        if (!s->ready[p->pieces[k].grad] && p->pieces[k].grad < best)
            best = p->pieces[k].grad;
    for (size_t g = p->block_hold[b]; g < p->n_grads && g < best; g++)
        if (!s->ready[g]) {
            best = g;
            break;
        }
    return best;
}
