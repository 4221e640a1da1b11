/*
 * comm_plan.c - the one comm plan format: its check, its JSON writer and
 * its strict reader (slo_comm.h, "Plans"; doc/comm.md, "Plan JSON"). The
 * reader takes a plan object or a whole `slo comm --json` document.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_comm.h"
#include "slo_private.h"

#define ULL(x) ((unsigned long long)(x))

static int nomem(slo_error_t *err)
{
    return slo__fail(err, SLO_ERR_NOMEM, "plan", "out of memory");
}

/* ------------------------------------------------------------------ */
/* Check                                                               */
/* ------------------------------------------------------------------ */

struct span {
    uint64_t lo, hi;
    size_t block, range;
};

static int cmp_span(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->range < y->range ? -1 : x->range > y->range;
}

/* source/prefix: for messages ("plan", "" or the reader's file and JSON
 * path of the policy's blocks) */
static int check_plan(const struct slo_comm_plan *p, const char *source, const char *prefix,
                      slo_error_t *err)
{
    struct span *sp;
    uint64_t at = 0;

    if (p->elem_bytes < 1)
        return slo__fail(err, SLO_ERR_INVALID, source, "elem_bytes: expected >= 1, found 0");
    for (size_t b = 0; b < p->n_blocks; b++) {
        const struct slo_comm_plan_block *B = &p->blocks[b];
        uint64_t sum = 0;
        if (B->n_ranges == 0 || B->first_range != (b ? p->blocks[b - 1].first_range +
                                                           p->blocks[b - 1].n_ranges
                                                     : 0) ||
            B->first_range + B->n_ranges > p->n_ranges)
            return slo__fail(err, SLO_ERR_INVALID, source,
                             "%sblocks[%zu]: expected the next non-empty run of ranges, found "
                             "ranges %zu..%zu", prefix, b, B->first_range,
                             B->first_range + B->n_ranges);
        for (size_t r = B->first_range; r < B->first_range + B->n_ranges; r++) {
            const struct slo_comm_plan_range *R = &p->ranges[r];
            size_t ri = r - B->first_range;
            if (R->block != b)
                return slo__fail(err, SLO_ERR_INVALID, source,
                                 "%sblocks[%zu].ranges[%zu]: expected block %zu, found %zu",
                                 prefix, b, ri, b, R->block);
            if (R->size_bytes == 0)
                return slo__fail(err, SLO_ERR_INVALID, source,
                                 "%sblocks[%zu].ranges[%zu].bytes: expected a number > 0, "
                                 "found 0", prefix, b, ri);
            if (R->offset_bytes % p->elem_bytes || R->size_bytes % p->elem_bytes)
                return slo__fail(err, SLO_ERR_INVALID, source,
                                 "%sblocks[%zu].ranges[%zu]: expected whole %zu-byte elements, "
                                 "found offset %llu, %llu bytes", prefix, b, ri, p->elem_bytes,
                                 ULL(R->offset_bytes), ULL(R->size_bytes));
            if (R->first_layer > R->last_layer || R->last_layer >= p->n_layers)
                return slo__fail(err, SLO_ERR_INVALID, source,
                                 "%sblocks[%zu]: expected layers first <= last < %zu, found "
                                 "%zu..%zu", prefix, b, p->n_layers, R->first_layer,
                                 R->last_layer);
            sum += R->size_bytes;
        }
        if (sum != B->size_bytes)
            return slo__fail(err, SLO_ERR_INVALID, source,
                             "%sblocks[%zu].bytes: expected %llu (the sum of its ranges), found "
                             "%llu", prefix, b, ULL(sum), ULL(B->size_bytes));
        if (B->hold_layer > p->n_layers)
            return slo__fail(err, SLO_ERR_INVALID, source,
                             "%sblocks[%zu].hold_layer: expected a layer 0..%zu (%zu: no hold), "
                             "found %zu", prefix, b, p->n_layers, p->n_layers, B->hold_layer);
    }
    if (p->n_ranges != (p->n_blocks ? p->blocks[p->n_blocks - 1].first_range +
                                          p->blocks[p->n_blocks - 1].n_ranges
                                    : 0))
        return slo__fail(err, SLO_ERR_INVALID, source,
                         "%sexpected every range in a block, found %zu ranges", prefix,
                         p->n_ranges);
    if (p->n_ranges == 0)
        return slo__fail(err, SLO_ERR_INVALID, source,
                         "expected byte ranges covering the %llu gradient bytes, found no block",
                         ULL(p->total_bytes));
    if (!(sp = malloc(p->n_ranges * sizeof *sp)))
        return nomem(err);
    for (size_t r = 0; r < p->n_ranges; r++)
        sp[r] = (struct span){p->ranges[r].offset_bytes,
                              p->ranges[r].offset_bytes + p->ranges[r].size_bytes,
                              p->ranges[r].block, r};
    qsort(sp, p->n_ranges, sizeof *sp, cmp_span);
    for (size_t k = 0; k < p->n_ranges; k++) {
        if (sp[k].lo != at) {
            int rc = slo__fail(err, SLO_ERR_INVALID, source,
                               sp[k].lo > at
                                   ? "expected byte ranges that cover every gradient byte "
                                     "once, found bytes %llu..%llu in no block"
                                   : "expected byte ranges that cover every gradient byte "
                                     "once, found bytes %llu..%llu in two blocks",
                               ULL(sp[k].lo < at ? sp[k].lo : at),
                               ULL(sp[k].lo < at ? at : sp[k].lo));
            free(sp);
            return rc;
        }
        at = sp[k].hi;
    }
    free(sp);
    if (at != p->total_bytes)
        return slo__fail(err, SLO_ERR_INVALID, source,
                         at < p->total_bytes
                             ? "expected byte ranges that cover every gradient byte once, "
                               "found bytes %llu..%llu in no block"
                             : "expected byte ranges inside the gradient bytes 0..%llu, found "
                               "bytes up to %llu",
                         ULL(at < p->total_bytes ? at : p->total_bytes),
                         ULL(at < p->total_bytes ? p->total_bytes : at));
    return SLO_OK;
}

int slo_comm_plan_check(const struct slo_comm_plan *plan, slo_error_t *err)
{
    return check_plan(plan, "plan", "", err);
}

/* ------------------------------------------------------------------ */
/* Holds                                                               */
/* ------------------------------------------------------------------ */

int slo_comm_plan_hold_at_post(struct slo_comm_plan *plan, const struct slo_comm_model *model,
                               slo_error_t *err)
{
    size_t n, *hold, *next;
    double *ready, eps;

    if (!model || model->n_layers != plan->n_layers)
        return slo__fail(err, SLO_ERR_INVALID, "plan", "model: expected %zu layers (the "
                         "plan's), found %zu", plan->n_layers, model ? model->n_layers : 0);
    n = model->n_layers;
    for (size_t b = 0; b < plan->n_blocks; b++)
        if (!isfinite(plan->blocks[b].post_s))
            return slo__fail(err, SLO_ERR_INVALID, "plan", "blocks[%zu].post_s: expected a "
                             "number >= 0 (the block's hold), found it missing", b);
    ready = malloc((n + 1) * sizeof *ready);
    hold = malloc((plan->n_blocks + 1) * sizeof *hold);
    next = malloc((n + 1) * sizeof *next);
    if (!ready || !hold || !next) {
        free(ready);
        free(hold);
        free(next);
        return nomem(err);
    }
    ready[n] = 0;
    next[n] = n;
    for (size_t j = n; j-- > 0;) {
        ready[j] = ready[j + 1] + model->layers[j].backward_s;
        next[j] = model->layers[j].grad_bytes > 0 ? j : next[j + 1];
    }
    eps = 1e-9 * fmax(1.0, ready[0]);
    for (size_t b = 0; b < plan->n_blocks; b++) {
        const struct slo_comm_plan_block *B = &plan->blocks[b];
        double x = B->post_s + eps;
        /* The lowest layer the policy had seen ready when it posted the
         * block: ready[] does not increase with j (backward times >= 0), so
         * the first L with ready[L] <= x - every layer L..n-1 ready - is a
         * binary search (n if none). */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (ready[mid] <= x)
                hi = mid;
            else
                lo = mid + 1;
        }
        hold[b] = lo < B->first_layer ? lo : B->first_layer;
        /* a hold on layers without bytes means nothing: they are ready */
        hold[b] = hold[b] < n ? next[hold[b]] : n;
    }
    for (size_t b = 0; b < plan->n_blocks; b++)
        plan->blocks[b].hold_layer = hold[b];
    free(ready);
    free(hold);
    free(next);
    return SLO_OK;
}

/* ------------------------------------------------------------------ */
/* Writer                                                              */
/* ------------------------------------------------------------------ */

static int set_time(json_t *o, const char *key, double v)
{
    return isfinite(v) ? json_object_set_new(o, key, json_real(v)) : 0;
}

int slo_comm_plan_to_json(const struct slo_comm_plan *p, char **text, slo_error_t *err)
{
    json_t *root, *blocks;
    int bad;
    int rc;

    *text = NULL;
    if ((rc = slo_comm_plan_check(p, err)))
        return rc;
    root = json_object();
    blocks = json_array();
    bad = !root || !blocks;
    bad = bad || json_object_set_new(root, "policy", json_string(p->policy)) ||
          json_object_set_new(root, "model",
                              json_pack("{s:s,s:I,s:I}", "name", p->model, "layers",
                                        (json_int_t)p->n_layers, "bytes",
                                        (json_int_t)p->total_bytes)) ||
          json_object_set_new(root, "elem_bytes", json_integer((json_int_t)p->elem_bytes)) ||
          set_time(root, "iteration_s", p->iteration_s) ||
          json_object_set_new(root, "n_blocks", json_integer((json_int_t)p->n_blocks));
    for (size_t b = 0; !bad && b < p->n_blocks; b++) {
        const struct slo_comm_plan_block *B = &p->blocks[b];
        json_t *o = json_object(), *ranges = json_array();
        bad = !o || !ranges;
        bad = bad ||
              json_object_set_new(o, "first_layer", json_integer((json_int_t)B->first_layer)) ||
              json_object_set_new(o, "last_layer", json_integer((json_int_t)B->last_layer)) ||
              json_object_set_new(o, "bytes", json_integer((json_int_t)B->size_bytes)) ||
              set_time(o, "post_s", B->post_s) || set_time(o, "start_s", B->start_s) ||
              set_time(o, "end_s", B->end_s) || set_time(o, "done_s", B->done_s) ||
              (B->hold_layer < p->n_layers &&
               json_object_set_new(o, "hold_layer", json_integer((json_int_t)B->hold_layer)));
        for (size_t r = B->first_range; !bad && r < B->first_range + B->n_ranges; r++)
            bad = json_array_append_new(
                ranges, json_pack("{s:I,s:I}", "offset_bytes",
                                  (json_int_t)p->ranges[r].offset_bytes, "bytes",
                                  (json_int_t)p->ranges[r].size_bytes));
        if (bad) {
            json_decref(ranges);
            json_decref(o);
        } else if (json_object_set_new(o, "ranges", ranges)) {
            json_decref(o); /* set_new released ranges */
            bad = 1;
        } else if (json_array_append_new(blocks, o)) {
            bad = 1; /* append_new released o */
        }
    }
    if (bad || json_object_set_new(root, "blocks", blocks)) {
        if (bad)
            json_decref(blocks);
        json_decref(root);
        return nomem(err);
    }
    *text = slo__json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(root);
    return *text ? SLO_OK : nomem(err);
}

/* ------------------------------------------------------------------ */
/* Reader                                                              */
/* ------------------------------------------------------------------ */

static const char *describe(const json_t *v, char *buf, size_t len)
{
    if (!v)
        snprintf(buf, len, "it missing");
    else if (json_is_string(v))
        snprintf(buf, len, "the string \"%.60s\"", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%.17g", json_real_value(v));
    else if (json_is_true(v) || json_is_false(v))
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
    else if (json_is_null(v))
        snprintf(buf, len, "null");
    else
        snprintf(buf, len, "%s", json_is_object(v) ? "an object" : "a list");
    return buf;
}

/* Keys of obj not in the NULL-terminated list allowed. */
static int known_keys(const json_t *obj, const char *const *allowed, const char *source,
                      const char *path, slo_error_t *err)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        const char *const *a = allowed;
        while (*a && strcmp(*a, key) != 0)
            a++;
        if (!*a) {
            char list[512] = "";
            for (a = allowed; *a; a++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         a == allowed ? "" : ", ", *a);
            return slo__fail(err, SLO_ERR_INVALID, source,
                             "%s%s\"%s\": unknown key; expected one of: %s", path,
                             *path ? ": " : "", key, list);
        }
    }
    return SLO_OK;
}

/* A non-negative integer field (> 0 if positive) of obj at path. */
static int int_field(const json_t *obj, const char *key, int positive, const char *source,
                     const char *path, uint64_t *out, slo_error_t *err)
{
    const json_t *v = json_object_get(obj, key);
    char buf[96];
    if (json_is_real(v) && isfinite(json_real_value(v)) &&
        (positive ? json_real_value(v) > 0 : json_real_value(v) >= 0))
        return slo__fail(err, SLO_ERR_INVALID, source,
                         "%s.%s: expected a whole number (an integer), found %s%s", path, key,
                         describe(v, buf, sizeof buf),
                         json_real_value(v) == floor(json_real_value(v))
                             ? ".0, a real (a plan written before plans held integer byte "
                               "offsets: make it again with this slo comm --json)"
                             : "");
    if (!json_is_integer(v) || json_integer_value(v) < (positive ? 1 : 0))
        return slo__fail(err, SLO_ERR_INVALID, source, "%s.%s: expected a number %s 0, found %s",
                         path, key, positive ? ">" : ">=", describe(v, buf, sizeof buf));
    *out = (uint64_t)json_integer_value(v);
    return SLO_OK;
}

/* An optional time >= 0 (NAN when missing). */
static int time_field(const json_t *obj, const char *key, const char *source, const char *path,
                      double *out, slo_error_t *err)
{
    const json_t *v = json_object_get(obj, key);
    char buf[96];
    *out = NAN;
    if (!v)
        return SLO_OK;
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0)
        return slo__fail(err, SLO_ERR_INVALID, source, "%s.%s: expected a number >= 0, found %s",
                         path, key, describe(v, buf, sizeof buf));
    *out = json_number_value(v);
    return SLO_OK;
}

static int parse_root(const char *text, const char *source, json_t **root, slo_error_t *err)
{
    json_error_t je;
    char buf[96];
    int oom;
    *root = slo__json_loadb(text, strlen(text), JSON_REJECT_DUPLICATES, &je, &oom);
    if (!*root && oom)
        return nomem(err);
    if (!*root)
        return slo__fail(err, SLO_ERR_INVALID, source, "line %d column %d: expected `slo comm "
                         "--json` output, found %s: %s", je.line, je.column,
                         strstr(je.text, "duplicate") ? "a key given twice" : "no JSON", je.text);
    if (!json_is_object(*root)) {
        int rc = slo__fail(err, SLO_ERR_INVALID, source, "expected an object (`slo comm "
                           "--json` output), found %s", describe(*root, buf, sizeof buf));
        json_decref(*root);
        *root = NULL;
        return rc;
    }
    return SLO_OK;
}

static int policies_of(const json_t *root, const char *source, const json_t **pols,
                       slo_error_t *err)
{
    char buf[96];
    *pols = json_object_get(root, "policies");
    if (!json_is_array(*pols))
        return slo__fail(err, SLO_ERR_INVALID, source, "policies: expected a list (`slo "
                         "comm --json` output), found %s", describe(*pols, buf, sizeof buf));
    for (size_t i = 0; i < json_array_size(*pols); i++) {
        const json_t *name = json_object_get(json_array_get(*pols, i), "name");
        if (!json_is_string(name))
            return slo__fail(err, SLO_ERR_INVALID, source, "policies[%zu].name: expected a "
                             "string, found %s", i, describe(name, buf, sizeof buf));
        /* each policy once (trial finding M8): a second entry would never be used */
        for (size_t k = 0; k < i; k++)
            if (strcmp(json_string_value(json_object_get(json_array_get(*pols, k), "name")),
                       json_string_value(name)) == 0)
                return slo__fail(err, SLO_ERR_INVALID, source, "policies[%zu].name: expected "
                                 "each policy once, found \"%s\" again (policies[%zu] is "
                                 "\"%s\" too)", i, json_string_value(name), k,
                                 json_string_value(name));
    }
    return SLO_OK;
}

int slo_comm_plan_policies(const char *text, const char *source,
                           char (*names)[SLO_COMM_NAME_LENGTH], size_t max, size_t *n,
                           slo_error_t *err)
{
    json_t *root;
    const json_t *pols;
    int rc = parse_root(text, source, &root, err);
    *n = 0;
    if (rc)
        return rc;
    if (json_object_get(root, "blocks") && !json_object_get(root, "policies")) {
        /* a plan object: its one policy */
        const json_t *name = json_object_get(root, "policy");
        char buf[96];
        if (!json_is_string(name))
            rc = slo__fail(err, SLO_ERR_INVALID, source, "policy: expected a string, found %s",
                           describe(name, buf, sizeof buf));
        else if (max > 0)
            snprintf(names[(*n)++], SLO_COMM_NAME_LENGTH, "%s", json_string_value(name));
        json_decref(root);
        return rc;
    }
    if (!(rc = policies_of(root, source, &pols, err)))
        for (size_t i = 0; i < json_array_size(pols) && *n < max; i++)
            snprintf(names[(*n)++], SLO_COMM_NAME_LENGTH, "%s",
                     json_string_value(json_object_get(json_array_get(pols, i), "name")));
    json_decref(root);
    return rc;
}

static const char *const doc_keys[] = {"model", "link", "compute_s", "communication_s",
                                       "sequential_s", "lower_bound_s", "policies", NULL};
static const char *const model_keys[] = {"name", "layers", "gradients", "bytes", NULL};
static const char *const link_keys[] = {"bandwidth_bytes_per_s", "latency_s", "workers",
                                        "collective", "max_in_flight", "message_latency_s",
                                        "bytes_factor", NULL};
static const char *const policy_keys[] = {"name", "summary", "barrier", "iteration_s", "rho",
                                          "overlap_efficiency", "speedup_vs_fifo", "n_blocks",
                                          "elem_bytes", "blocks", NULL};
static const char *const plan_keys[] = {"policy", "model", "elem_bytes", "iteration_s",
                                        "n_blocks", "blocks", NULL};
static const char *const block_keys[] = {"first_layer", "last_layer", "bytes", "post_s",
                                         "start_s", "end_s", "done_s", "hold_layer",
                                         "ranges", NULL};
static const char *const range_keys[] = {"offset_bytes", "bytes", NULL};

/* The blocks of one plan (policy entry or plan object) at path. */
static int read_blocks(const json_t *blocks, const char *source, const char *path,
                       struct slo_comm_plan *p, slo_error_t *err)
{
    char buf[96], bpath[160], rpath[200];
    size_t cap = 0;
    int rc;

    if (!json_is_array(blocks))
        return slo__fail(err, SLO_ERR_INVALID, source, "%s.blocks: expected a list, found %s",
                         path, describe(blocks, buf, sizeof buf));
    p->blocks = calloc(json_array_size(blocks) + 1, sizeof *p->blocks);
    if (!p->blocks)
        return nomem(err);
    for (size_t b = 0; b < json_array_size(blocks); b++) {
        const json_t *blk = json_array_get(blocks, b), *ranges;
        struct slo_comm_plan_block *B = &p->blocks[b];
        uint64_t first, last, bytes, hold = p->n_layers, rsum = 0;
        snprintf(bpath, sizeof bpath, "%s.blocks[%zu]", path, b);
        if (!json_is_object(blk))
            return slo__fail(err, SLO_ERR_INVALID, source, "%s: expected an object, found %s",
                             bpath, describe(blk, buf, sizeof buf));
        if ((rc = known_keys(blk, block_keys, source, bpath, err)) ||
            (rc = int_field(blk, "first_layer", 0, source, bpath, &first, err)) ||
            (rc = int_field(blk, "last_layer", 0, source, bpath, &last, err)) ||
            (rc = time_field(blk, "post_s", source, bpath, &B->post_s, err)) ||
            (rc = time_field(blk, "start_s", source, bpath, &B->start_s, err)) ||
            (rc = time_field(blk, "end_s", source, bpath, &B->end_s, err)) ||
            (rc = time_field(blk, "done_s", source, bpath, &B->done_s, err)) ||
            (rc = int_field(blk, "bytes", 1, source, bpath, &bytes, err)) ||
            (json_object_get(blk, "hold_layer") &&
             (rc = int_field(blk, "hold_layer", 0, source, bpath, &hold, err))))
            return rc;
        if (first > last || last >= p->n_layers)
            return slo__fail(err, SLO_ERR_INVALID, source, "%s: expected layers first <= last "
                             "< %zu, found %llu..%llu", bpath, p->n_layers, ULL(first),
                             ULL(last));
        if (hold > p->n_layers)
            return slo__fail(err, SLO_ERR_INVALID, source, "%s.hold_layer: expected a layer "
                             "0..%zu (%zu: no hold), found %llu", bpath, p->n_layers,
                             p->n_layers, ULL(hold));
        B->hold_layer = (size_t)hold;
        ranges = json_object_get(blk, "ranges");
        if (!json_is_array(ranges) || json_array_size(ranges) == 0)
            return slo__fail(err, SLO_ERR_INVALID, source, "%s.ranges: expected a non-empty "
                             "list, found %s", bpath, describe(ranges, buf, sizeof buf));
        B->first_layer = (size_t)first;
        B->last_layer = (size_t)last;
        B->size_bytes = bytes;
        B->first_range = p->n_ranges;
        for (size_t r = 0; r < json_array_size(ranges); r++) {
            const json_t *jr = json_array_get(ranges, r);
            struct slo_comm_plan_range *R;
            uint64_t off, len;
            snprintf(rpath, sizeof rpath, "%s.ranges[%zu]", bpath, r);
            if (!json_is_object(jr))
                return slo__fail(err, SLO_ERR_INVALID, source, "%s: expected an object, found "
                                 "%s", rpath, describe(jr, buf, sizeof buf));
            if ((rc = known_keys(jr, range_keys, source, rpath, err)) ||
                (rc = int_field(jr, "offset_bytes", 0, source, rpath, &off, err)) ||
                (rc = int_field(jr, "bytes", 1, source, rpath, &len, err)))
                return rc;
            if (off % p->elem_bytes || len % p->elem_bytes)
                return slo__fail(err, SLO_ERR_INVALID, source, "%s: expected whole %zu-byte "
                                 "elements, found offset %llu, %llu bytes", rpath,
                                 p->elem_bytes, ULL(off), ULL(len));
            if (off > p->total_bytes || len > p->total_bytes - off)
                return slo__fail(err, SLO_ERR_INVALID, source, "%s: expected bytes inside the "
                                 "%llu gradient bytes, found %llu..%llu", rpath,
                                 ULL(p->total_bytes), ULL(off), ULL(off + len));
            if (p->n_ranges == cap) {
                size_t nc = cap ? 2 * cap : 64;
                void *q = realloc(p->ranges, nc * sizeof *p->ranges);
                if (!q)
                    return nomem(err);
                p->ranges = q;
                cap = nc;
            }
            R = &p->ranges[p->n_ranges++];
            R->block = b;
            R->offset_bytes = off;
            R->size_bytes = len;
            /* a range's layers: its block's (the document names layers per block) */
            R->first_layer = B->first_layer;
            R->last_layer = B->last_layer;
            rsum += len;
        }
        B->n_ranges = p->n_ranges - B->first_range;
        if (rsum != bytes)
            return slo__fail(err, SLO_ERR_INVALID, source, "%s.bytes: expected %llu (the sum of "
                             "its ranges), found %llu", bpath, ULL(rsum), ULL(bytes));
        p->n_blocks++;
    }
    return check_plan(p, source, "", err);
}


int slo_comm_plan_parse(const char *text, const char *source, const char *policy,
                        size_t elem, struct slo_comm_plan *p, slo_error_t *err)
{
    json_t *root;
    const json_t *jm, *jl, *jb, *pol = NULL, *pols, *je;
    char buf[96], path[64] = "", names[256] = "";
    size_t pi = 0;
    int rc;

    memset(p, 0, sizeof *p);
    if (elem < 1)
        return slo__fail(err, SLO_ERR_INVALID, source, "elem_bytes: expected >= 1, found 0");
    if ((rc = parse_root(text, source, &root, err)))
        return rc;
    p->elem_bytes = elem;
    p->iteration_s = NAN;
    if (json_object_get(root, "blocks") && !json_object_get(root, "policies")) {
        /* a plan object (slo_comm_plan_to_json) */
        pol = root;
        if ((rc = known_keys(root, plan_keys, source, "", err)))
            goto out;
    } else {
        if ((rc = known_keys(root, doc_keys, source, "", err)))
            goto out;
        if (json_is_object(json_object_get(root, "link")) &&
            (rc = known_keys(json_object_get(root, "link"), link_keys, source, "link", err)))
            goto out;
    }
    /* the model the plan was made for */
    jm = json_object_get(root, "model");
    jl = json_object_get(jm, "layers");
    if (!json_is_object(jm) || !json_is_integer(jl) || json_integer_value(jl) < 1) {
        rc = slo__fail(err, SLO_ERR_INVALID, source, "model.layers: expected the number of "
                       "layers (`slo comm --json` output), found %s",
                       describe(json_is_object(jm) ? jl : jm, buf, sizeof buf));
        goto out;
    }
    if ((rc = known_keys(jm, model_keys, source, "model", err)))
        goto out;
    p->n_layers = (size_t)json_integer_value(jl);
    jb = json_object_get(jm, "bytes");
    if (!json_is_number(jb) || !isfinite(json_number_value(jb)) || json_number_value(jb) <= 0 ||
        json_number_value(jb) > SLO_COMM_MAX_TOTAL_BYTES) {
        rc = slo__fail(err, SLO_ERR_INVALID, source, "model.bytes: expected a number > 0, found "
                       "%s", describe(jb, buf, sizeof buf));
        goto out;
    }
    p->total_bytes = slo_comm_round_to_elements(json_number_value(jb), elem);
    if (json_is_string(json_object_get(jm, "name")))
        snprintf(p->model, sizeof p->model, "%s", json_string_value(json_object_get(jm, "name")));
    if (pol != root) {
        if ((rc = policies_of(root, source, &pols, err)))
            goto out;
        for (size_t i = 0; i < json_array_size(pols); i++) {
            const json_t *q = json_array_get(pols, i), *name = json_object_get(q, "name");
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     json_string_value(name));
            if (!pol && (policy ? strcmp(json_string_value(name), policy) == 0 : i == 0)) {
                pol = q;
                pi = i;
            }
        }
        if (!pol || (!policy && json_array_size(pols) != 1)) {
            rc = slo__fail(err, SLO_ERR_INVALID, source,
                           policy ? "policies: expected a policy named \"%s\", found %s%s"
                                  : "policies: expected exactly one policy%s, found %s%s",
                           policy ? policy : "", *names ? "" : "none", names);
            goto out;
        }
        snprintf(path, sizeof path, "policies[%zu]", pi);
        if ((rc = known_keys(pol, policy_keys, source, path, err)))
            goto out;
        snprintf(p->policy, sizeof p->policy, "%s",
                 json_string_value(json_object_get(pol, "name")));
    } else {
        /* a plan object: its policy is a string, the one asked for (if any),
         * and its bytes the whole number the writer puts there */
        const json_t *jp = json_object_get(pol, "policy");
        if (jp && !json_is_string(jp)) {
            rc = slo__fail(err, SLO_ERR_INVALID, source, "policy: expected a policy name (a "
                           "string), found %s", describe(jp, buf, sizeof buf));
            goto out;
        }
        if (policy && (!jp || strcmp(json_string_value(jp), policy) != 0)) {
            rc = slo__fail(err, SLO_ERR_INVALID, source,
                           "policy: expected the policy \"%s\", found %s", policy,
                           describe(jp, buf, sizeof buf));
            goto out;
        }
        if (!json_is_integer(jb)) {
            rc = slo__fail(err, SLO_ERR_INVALID, source, "model.bytes: expected a whole "
                           "number of bytes (an integer), found %s",
                           describe(jb, buf, sizeof buf));
            goto out;
        }
        if (jp)
            snprintf(p->policy, sizeof p->policy, "%s", json_string_value(jp));
    }
    je = json_object_get(pol, "elem_bytes");
    if (je && (!json_is_integer(je) || json_integer_value(je) != (json_int_t)elem)) {
        rc = slo__fail(err, SLO_ERR_INVALID, source, "%s%selem_bytes: expected %zu (the "
                       "element size of the gradients), found %s", path, *path ? "." : "",
                       elem, describe(je, buf, sizeof buf));
        goto out;
    }
    if ((rc = time_field(pol, "iteration_s", source, *path ? path : "plan", &p->iteration_s,
                         err)))
        goto out;
    rc = read_blocks(json_object_get(pol, "blocks"), source, *path ? path : "plan", p, err);
    if (!rc) {
        /* n_blocks, where written, counts the blocks */
        const json_t *jn = json_object_get(pol, "n_blocks");
        if (jn && (!json_is_integer(jn) || json_integer_value(jn) < 0 ||
                   (size_t)json_integer_value(jn) != p->n_blocks))
            rc = slo__fail(err, SLO_ERR_INVALID, source, "%s%sn_blocks: expected %zu (the "
                           "blocks listed), found %s", path, *path ? "." : "", p->n_blocks,
                           describe(jn, buf, sizeof buf));
    }
out:
    if (rc)
        slo_comm_plan_free(p);
    json_decref(root);
    return rc;
}

int slo_comm_plan_load(const char *path, const char *policy, size_t elem,
                       struct slo_comm_plan *plan, slo_error_t *err)
{
    char *text;
    int rc;
    memset(plan, 0, sizeof *plan);
    if ((rc = slo__read_file(path, &text, err)))
        return rc;
    rc = slo_comm_plan_parse(text, path, policy, elem, plan, err);
    free(text);
    return rc;
}
