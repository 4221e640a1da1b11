/*
 * sync_model.c - synchronous data-parallel training (issue 17): the
 * sync-allreduce workload profile, the step-time model (slowest worker's
 * compute + the exposed part of a ring allreduce), Pollux's statistical
 * efficiency of the global batch, and the exact planner over the catalog.
 * doc/model.md "Synchronous data-parallel" states every equation.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_comm.h"
#include "sync_private.h"

static const char *const sync_keys[] = {"name", "description", "source", "mode",
                                        "gradient_bytes", "global_batch", "batch_per_gpu",
                                        "uneven_batches", "allreduce", "efficiency",
                                        "loss_model", "instances", NULL};
static const char *const ar_keys[] = {"latency_s", "overlap", "link_mbps", NULL};
static const char *const eff_keys[] = {"b0", "phi", NULL};
static const char *const loss_keys[] = {"form", "gamma1", "gamma3", "gamma5", NULL};
static const char *const inst_keys[] = {"type", "speed_samples_per_s", "gpu_link_mbps",
                                        "network_mbps", "step_overhead_s", NULL};

static int object_field(const json_t *root, const char *key, int required, const char *src,
                        const json_t **out, slo_error_t *err)
{
    char found[96];
    const json_t *o = json_object_get(root, key);
    *out = o;
    if (!o && !required)
        return SLO_OK;
    if (!json_is_object(o))
        return slo__fail(err, SLO_ERR_INVALID, src, "%s: expected an object, found %s", key,
                         slo__json_describe(o, found, sizeof found));
    return SLO_OK;
}

int slo__sync_parse(const json_t *root, const char *source, struct slo_workload *wl,
                    int loss_optional, int *has_loss, slo_error_t *err)
{
    struct slo_sync_profile *p;
    const json_t *ar, *eff, *loss, *insts, *ub;
    char found[96];
    double gb = 0;
    int rv, bpg = 0;

    wl->mode = SLO_TRAIN_SYNC_ALLREDUCE;
    if (!(p = wl->sync = calloc(1, sizeof *p)))
        return slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
    if ((rv = slo__json_known_keys(root, sync_keys, source, "", err)) ||
        (rv = slo__json_string(root, "name", 1, source, "", wl->name, sizeof wl->name, err)))
        return rv;
    if (!json_object_get(root, "gradient_bytes"))
        return slo__fail(err, SLO_ERR_INVALID, source,
                         "gradient_bytes: a sync-allreduce profile needs the bytes allreduced "
                         "per step (the gradients, e.g. 4 x parameters for fp32), found none");
    if ((rv = slo__json_number(root, "gradient_bytes", 1, 1, 1e13, source, "",
                               &p->gradient_bytes, err)) ||
        (rv = slo__json_number(root, "global_batch", 0, 1, 1e9, source, "", &gb, err)) ||
        (rv = slo__json_int(root, "batch_per_gpu", 0, 1, 1 << 24, source, "", &bpg, err)))
        return rv;
    if ((gb > 0) == (bpg > 0))
        return slo__fail(err, SLO_ERR_INVALID, source,
                         "global_batch, batch_per_gpu: expected exactly one (a fixed global "
                         "batch, or a per-GPU batch that grows with the GPUs), found %s",
                         gb > 0 ? "both" : "neither");
    p->global_batch = gb;
    p->batch_per_gpu = bpg;
    ub = json_object_get(root, "uneven_batches");
    if (ub && !json_is_boolean(ub))
        return slo__fail(err, SLO_ERR_INVALID, source,
                         "uneven_batches: expected true or false, found %s",
                         slo__json_describe(ub, found, sizeof found));
    p->uneven_batches = ub && json_is_true(ub);
    if ((rv = object_field(root, "allreduce", 1, source, &ar, err)) ||
        (rv = slo__json_known_keys(ar, ar_keys, source, "allreduce", err)) ||
        (rv = slo__json_number(ar, "latency_s", 1, 0, 1, source, "allreduce", &p->latency_s,
                               err)) ||
        (rv = slo__json_number(ar, "overlap", 0, 0, 1, source, "allreduce", &p->overlap, err)) ||
        (rv = slo__json_number(ar, "link_mbps", 0, 1e-6, 1e9, source, "allreduce",
                               &p->link_mbps, err)))
        return rv;
    if ((rv = object_field(root, "efficiency", 1, source, &eff, err)) ||
        (rv = slo__json_known_keys(eff, eff_keys, source, "efficiency", err)) ||
        (rv = slo__json_number(eff, "b0", 1, 1, 1e9, source, "efficiency", &p->b0, err)) ||
        (rv = slo__json_number(eff, "phi", 1, 0, 1e12, source, "efficiency", &p->phi, err)))
        return rv;
    *has_loss = json_object_get(root, "loss_model") != NULL;
    if (*has_loss || !loss_optional) {
        char form[32];
        if ((rv = object_field(root, "loss_model", 1, source, &loss, err)) ||
            (rv = slo__json_known_keys(loss, loss_keys, source, "loss_model", err)) ||
            (rv = slo__json_string(loss, "form", 1, source, "loss_model", form, sizeof form,
                                   err)))
            return rv;
        if (strcmp(form, "sync-b0") != 0)
            return slo__fail(err, SLO_ERR_INVALID, source,
                             "loss_model.form: expected \"sync-b0\" in a sync-allreduce "
                             "profile (L = gamma3 / (j0 + gamma1) + gamma5), found \"%s\"",
                             form);
        /* gamma1 < 0: a delayed hyperbola (fitted over a window of the
         * curve, doc/model.md "Real runs"); j0(L) > -gamma1 > 0 then */
        if ((rv = slo__json_number(loss, "gamma1", 1, -1e9, 1e9, source, "loss_model",
                                   &p->gamma1, err)) ||
            (rv = slo__json_number(loss, "gamma3", 1, 1e-12, 1e12, source, "loss_model",
                                   &p->gamma3, err)) ||
            /* the loss floor: a loss is never negative */
            (rv = slo__json_number(loss, "gamma5", 1, 0, 1e6, source, "loss_model",
                                   &p->gamma5, err)))
            return rv;
    }
    insts = json_object_get(root, "instances");
    if (!json_is_array(insts) || json_array_size(insts) == 0)
        return slo__fail(err, SLO_ERR_INVALID, source,
                         "instances: expected a non-empty array of profiled instance types, "
                         "found %s",
                         slo__json_describe(insts, found, sizeof found));
    size_t n = json_array_size(insts);
    wl->instances = calloc(n, sizeof *wl->instances);
    p->instances = calloc(n, sizeof *p->instances);
    if (!wl->instances || !p->instances)
        return slo__fail(err, SLO_ERR_NOMEM, source, "out of memory");
    wl->n_instances = p->n_instances = n;
    for (size_t i = 0; i < n; i++) {
        const json_t *o = json_array_get(insts, i);
        struct slo_sync_instance *in = &p->instances[i];
        char path[48];
        snprintf(path, sizeof path, "instances[%zu]", i);
        if (!json_is_object(o))
            return slo__fail(err, SLO_ERR_INVALID, source, "%s: expected an object, found %s",
                             path, slo__json_describe(o, found, sizeof found));
        if ((rv = slo__json_known_keys(o, inst_keys, source, path, err)) ||
            (rv = slo__json_string(o, "type", 1, source, path, in->type, sizeof in->type,
                                   err)) ||
            (rv = slo__json_number(o, "speed_samples_per_s", 1, 1e-9, 1e9, source, path,
                                   &in->speed, err)) ||
            (rv = slo__json_number(o, "gpu_link_mbps", 0, 1e-6, 1e9, source, path,
                                   &in->gpu_link_mbps, err)) ||
            (rv = slo__json_number(o, "network_mbps", 0, 1e-6, 1e9, source, path,
                                   &in->network_mbps, err)) ||
            (rv = slo__json_number(o, "step_overhead_s", 0, 0, 1e3, source, path,
                                   &in->step_overhead_s, err)))
            return rv;
        for (size_t k = 0; k < i; k++)
            if (strcmp(p->instances[k].type, in->type) == 0)
                return slo__fail(err, SLO_ERR_INVALID, source,
                                 "%s.type: expected each instance type once, found \"%s\" "
                                 "again",
                                 path, in->type);
        snprintf(wl->instances[i].type, sizeof wl->instances[i].type, "%s", in->type);
        wl->instances[i].batch_per_gpu = bpg;
        wl->instances[i].speed = in->speed;
    }
    return SLO_OK;
}

int slo__sync_to_json(const struct slo_workload *wl, json_t *root, json_t *insts)
{
    const struct slo_sync_profile *p = wl->sync;
    json_t *ar = json_object(), *eff = json_object(), *loss = json_object();
    int bad = 0;

    if (!ar || !eff || !loss) {
        bad = 1;
        goto out;
    }
    bad |= json_object_set_new(root, "name", json_string(wl->name));
    bad |= json_object_set_new(root, "mode", json_string("sync-allreduce"));
    bad |= json_object_set_new(root, "gradient_bytes", json_real(p->gradient_bytes));
    if (p->global_batch > 0)
        bad |= json_object_set_new(root, "global_batch", json_real(p->global_batch));
    else
        bad |= json_object_set_new(root, "batch_per_gpu", json_integer(p->batch_per_gpu));
    bad |= json_object_set_new(root, "uneven_batches", json_boolean(p->uneven_batches));
    bad |= json_object_set_new(ar, "latency_s", json_real(p->latency_s));
    bad |= json_object_set_new(ar, "overlap", json_real(p->overlap));
    if (p->link_mbps > 0)
        bad |= json_object_set_new(ar, "link_mbps", json_real(p->link_mbps));
    bad |= json_object_set(root, "allreduce", ar);
    bad |= json_object_set_new(eff, "b0", json_real(p->b0));
    bad |= json_object_set_new(eff, "phi", json_real(p->phi));
    bad |= json_object_set(root, "efficiency", eff);
    bad |= json_object_set_new(loss, "form", json_string("sync-b0"));
    bad |= json_object_set_new(loss, "gamma1", json_real(p->gamma1));
    bad |= json_object_set_new(loss, "gamma3", json_real(p->gamma3));
    bad |= json_object_set_new(loss, "gamma5", json_real(p->gamma5));
    bad |= json_object_set(root, "loss_model", loss);
    for (size_t i = 0; i < p->n_instances; i++) {
        json_t *o = json_object();
        if (!o) {
            bad = 1;
            goto out;
        }
        bad |= json_object_set_new(o, "type", json_string(p->instances[i].type));
        bad |= json_object_set_new(o, "speed_samples_per_s", json_real(p->instances[i].speed));
        if (p->instances[i].gpu_link_mbps > 0)
            bad |= json_object_set_new(o, "gpu_link_mbps",
                                       json_real(p->instances[i].gpu_link_mbps));
        if (p->instances[i].network_mbps > 0)
            bad |= json_object_set_new(o, "network_mbps",
                                       json_real(p->instances[i].network_mbps));
        if (p->instances[i].step_overhead_s > 0)
            bad |= json_object_set_new(o, "step_overhead_s",
                                       json_real(p->instances[i].step_overhead_s));
        bad |= json_array_append_new(insts, o);
    }
out:
    json_decref(ar);
    json_decref(eff);
    json_decref(loss);
    return bad;
}

int slo_sync_setup_init(struct slo_train_setup *s, const struct slo_catalog *cat,
                        const struct slo_workload *wl, enum slo_pricing pricing,
                        slo_error_t *err)
{
    const struct slo_sync_profile *p = wl->sync;
    char src[SLO_ERROR_SOURCE_LENGTH];

    memset(s, 0, sizeof *s);
    if (wl->mode != SLO_TRAIN_SYNC_ALLREDUCE || !p)
        return slo__fail(err, SLO_ERR_INVALID, "mode",
                         "expected a sync-allreduce workload, found %s", wl->name);
    int rv = slo__train_setup_begin(s, cat, wl, pricing, err);
    if (rv)
        return rv;
    s->sync_types = calloc(cat->n_types ? cat->n_types : 1, sizeof *s->sync_types);
    if (!s->sync_types) {
        slo_train_setup_free(s);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    snprintf(src, sizeof src, "workload %s, catalog %s", wl->name, cat->name);
    for (size_t c = 0; c < cat->n_types; c++) {
        const struct slo_instance_type *it = &cat->types[c];
        const struct slo_sync_instance *si = NULL;
        for (size_t i = 0; i < p->n_instances; i++)
            if (strcmp(p->instances[i].type, slo_instance_profile(it)) == 0)
                si = &p->instances[i];
        struct slo_train_type *t = slo__train_setup_type(s, cat, c, si != NULL);
        if (!t)
            continue;
        struct slo_sync_type *y = &s->sync_types[s->n_types];
        t->batch = p->batch_per_gpu ? (double)it->gpus * p->batch_per_gpu : 0;
        y->speed = si->speed;
        y->t0_s = si->step_overhead_s;
        t->t_comp_s = t->batch > 0 ? t->batch / si->speed : 0;
        y->gpu_link_mbps = it->gpus > 1 ? (si->gpu_link_mbps > 0 ? si->gpu_link_mbps
                                                                 : it->pcie_mbps)
                                        : 0;
        y->network_mbps = si->network_mbps > 0 ? si->network_mbps : it->network_mbps;
        t->b_req_mbps = y->network_mbps;
        if (p->link_mbps <= 0 && it->gpus > 1 && !(y->gpu_link_mbps > 0)) {
            slo_train_setup_free(s);
            return slo__fail(err, SLO_ERR_INVALID, src,
                             "instances (%s): a sync-allreduce model needs the link between "
                             "the %d GPUs of an instance: expected gpu_link_mbps in the "
                             "profile or pcie_mbps in the catalog (or allreduce.link_mbps), "
                             "found none",
                             it->name, it->gpus);
        }
        s->n_types++;
    }
    /* A cluster of two or more instances (of one type, or of two types of
     * quota 1 each) allreduces over the NIC: without its bandwidth the step
     * time is not determined (it was printed as inf). */
    long instances = 0;
    for (size_t k = 0; k < s->n_types; k++)
        instances += s->types[k].quota > 0 ? s->types[k].quota : 0;
    for (size_t k = 0; k < s->n_types && p->link_mbps <= 0 && instances > 1; k++)
        if (s->types[k].quota > 0 && !(s->sync_types[k].network_mbps > 0)) {
            const char *name = s->types[k].name;
            slo_train_setup_free(s);
            return slo__fail(err, SLO_ERR_INVALID, src,
                             "instances (%s): a sync-allreduce model needs the NIC between "
                             "instances (the catalog allows %ld instances of the profiled "
                             "types): expected network_mbps in the catalog or the profile "
                             "(or allreduce.link_mbps), found none",
                             name, instances);
        }
    if (s->n_types == 0) {
        snprintf(src, sizeof src, "%s", cat->name);
        slo_train_setup_free(s);
        return slo__fail(err, SLO_ERR_INVALID, src,
                         "workload %s profiles none of the catalog's %zu instance types; "
                         "expected at least one type in both",
                         wl->name, cat->n_types);
    }
    return SLO_OK;
}

/* j0(L): steps at B0 from the start to loss L (may be <= 0). */
static double j0_of(const struct slo_sync_profile *p, double loss)
{
    return p->gamma3 / (loss - p->gamma5) - p->gamma1;
}

int slo_sync_iterations(const struct slo_sync_profile *p, double batch, double loss_now,
                        double target, double *j_out, slo_error_t *err)
{
    if (!(target > p->gamma5))
        return slo__fail(err, SLO_ERR_UNREACHABLE, "--slo-loss",
                         "target loss %g is at or below the workload's loss floor %g "
                         "(loss_model.gamma5): no cluster reaches it; expected a target "
                         "above it",
                         target, p->gamma5);
    double j0 = j0_of(p, target);
    if (loss_now > 0 && loss_now > p->gamma5)
        j0 -= fmax(j0_of(p, loss_now), 0);
    else if (loss_now > 0) /* already below the floor's curve: nothing measured to go by */
        j0 = 0;
    double e_ratio = p->b0 * (p->phi + batch) / ((p->phi + p->b0) * batch);
    double j = j0 * e_ratio;
    *j_out = j < 1 ? 1 : j;
    return SLO_OK;
}

int slo_sync_evaluate(const struct slo_train_setup *s, const int *counts,
                      const struct slo_train_request *req, struct slo_sync_eval *out,
                      struct slo_train_eval *plain, slo_error_t *err)
{
    const struct slo_sync_profile *p = s->wl.sync;
    int nodes = 0, gpus = 0, rv;
    double sum_speed = 0, slow = 0, link = INFINITY, price = 0, t0max = 0;

    memset(out, 0, sizeof *out);
    if (!p || !s->sync_types)
        return slo__fail(err, SLO_ERR_INVALID, "mode", "expected a sync-allreduce setup");
    for (size_t k = 0; k < s->n_types; k++) {
        const struct slo_train_type *t = &s->types[k];
        const struct slo_sync_type *y = &s->sync_types[k];
        if (counts[k] < 0 || counts[k] > t->quota)
            return slo__fail(err, SLO_ERR_INVALID, t->name,
                             "expected a count from 0 to the quota %d, found %d", t->quota,
                             counts[k]);
        if (!counts[k])
            continue;
        nodes += counts[k];
        gpus += counts[k] * t->gpus;
        sum_speed += counts[k] * y->speed;
        price += counts[k] * t->usd_per_h;
        if (y->t0_s > t0max)
            t0max = y->t0_s;
        if (t->gpus > 1)
            link = fmin(link, y->gpu_link_mbps);
    }
    if (!nodes)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected at least one instance");
    if (nodes > 1)
        for (size_t k = 0; k < s->n_types; k++)
            if (counts[k])
                link = fmin(link, s->sync_types[k].network_mbps);
    if (p->link_mbps > 0)
        link = p->link_mbps;
    double B = p->global_batch > 0 ? p->global_batch : (double)gpus * p->batch_per_gpu;
    if (B < gpus)
        return slo__fail(err, SLO_ERR_INVALID, "global_batch",
                         "expected at least one sample per GPU, found %g samples for %d GPUs",
                         B, gpus);
    out->nodes = nodes;
    out->gpus = gpus;
    out->batch = B;
    if (p->uneven_batches) {
        out->t_comp_s = t0max + B / sum_speed;
    } else {
        for (size_t k = 0; k < s->n_types; k++) /* the slowest worker at B / N */
            if (counts[k]) {
                double t = s->sync_types[k].t0_s + B / gpus * s->types[k].gpus /
                                                       s->sync_types[k].speed;
                if (t > slow)
                    slow = t;
            }
        out->t_comp_s = slow;
    }
    if (gpus > 1 && !(link > 0 && isfinite(link)))
        return slo__fail(err, SLO_ERR_INVALID, "network_mbps",
                         "the allreduce over %d GPUs on %d instances needs a link bandwidth: "
                         "expected a positive MB/s, found %g",
                         gpus, nodes, link);
    if (gpus > 1) {
        struct slo_comm_link l = {.bandwidth_bytes_per_s = link * 1e6,
                                  .latency_s = p->latency_s,
                                  .workers = gpus,
                                  .collective = SLO_COMM_RING};
        out->link_mbps = link;
        out->t_allreduce_s = slo_comm_message_latency_s(&l) +
                             slo_comm_bytes_factor(&l) * p->gradient_bytes / (link * 1e6);
    }
    out->t_exposed_s = fmax(0, out->t_allreduce_s - p->overlap * out->t_comp_s);
    out->step_s = out->t_comp_s + out->t_exposed_s;
    out->efficiency = (p->phi + p->b0) / (p->phi + B);
    if ((rv = slo_sync_iterations(p, B, req->loss_now, req->target_loss, &out->iterations,
                                  err)))
        return rv;
    out->iterations = ceil(out->iterations - 1e-9);
    out->time_s = out->iterations * out->step_s + req->overhead_s;
    out->usd_per_h = price;
    out->cost_usd = out->time_s * price / 3600;
    if (plain) {
        memset(plain, 0, sizeof *plain);
        plain->n_workers = gpus;
        plain->p_contention = -1;
        plain->b_wk_mbps = out->link_mbps;
        plain->speed = B / out->step_s;
        plain->t_exp_s = out->step_s;
        plain->wa_batch = B;
        plain->cc = 0;
        plain->iterations = out->iterations;
        plain->time_s = out->time_s;
        plain->usd_per_h = price;
        plain->cost_usd = out->cost_usd;
        plain->samples = out->iterations * B;
    }
    return SLO_OK;
}

/* The depth-first search's state. */
struct search {
    const struct slo_train_setup *s;
    const struct slo_train_request *req;
    int fastest;
    int *cur, *best;
    size_t *order;       /* types in search order: on-prem first, then by price per speed */
    double best_cost, best_time;
    int have;
    double t_lb;         /* lower bound on every cluster's time, s */
    long nodes, limit;
    int stopped, max_nodes;
    int any_reachable;
    slo_error_t why;     /* the unreachable reason, when every cluster is */
};

static void visit(struct search *st)
{
    struct slo_sync_eval e;
    slo_error_t er = {0};
    int rv = slo_sync_evaluate(st->s, st->cur, st->req, &e, NULL, &er);
    if (rv == SLO_ERR_UNREACHABLE) {
        st->why = er;
        return;
    }
    if (rv)
        return; /* e.g. a fixed batch smaller than the GPUs: not a cluster */
    st->any_reachable = 1;
    if (!st->fastest) {
        if (e.time_s > st->req->deadline_s)
            return;
        if (st->req->budget_usd > 0 && e.cost_usd > st->req->budget_usd)
            return;
        if (st->have && !(e.cost_usd < st->best_cost ||
                          (e.cost_usd == st->best_cost && e.time_s < st->best_time)))
            return;
    } else if (st->have && !(e.time_s < st->best_time ||
                             (e.time_s == st->best_time && e.cost_usd < st->best_cost))) {
        return;
    }
    st->have = 1;
    st->best_cost = e.cost_usd;
    st->best_time = e.time_s;
    memcpy(st->best, st->cur, st->s->n_types * sizeof *st->best);
}

static void dfs(struct search *st, size_t depth, int used, double price)
{
    if (st->stopped)
        return;
    if (++st->nodes > st->limit) {
        st->stopped = 1;
        return;
    }
    if (!st->fastest) {
        /* Every completion costs at least price x t_lb (prices only grow). */
        double lb = price * st->t_lb / 3600;
        if (st->have && lb > st->best_cost)
            return;
        if (st->req->budget_usd > 0 && lb > st->req->budget_usd)
            return;
    }
    if (depth == st->s->n_types) {
        if (used > 0)
            visit(st);
        return;
    }
    size_t k = st->order[depth];
    const struct slo_train_type *t = &st->s->types[k];
    int lo = st->req->existing ? st->req->existing[k] : 0;
    int hi = t->quota;
    if (st->max_nodes > 0 && hi > st->max_nodes - used)
        hi = st->max_nodes - used;
    for (int c = lo; c <= hi && !st->stopped; c++) {
        st->cur[k] = c;
        dfs(st, depth + 1, used + c, price + c * t->usd_per_h);
    }
    st->cur[k] = lo;
}

/* Search order: on-prem types first, then by price per sample/s (cheap
 * capacity first, so a good incumbent comes early and prunes). Insertion
 * sort: a catalog has few types. */
static void search_order(const struct slo_train_setup *s, size_t *order)
{
    for (size_t i = 0; i < s->n_types; i++) {
        size_t x = order[i], j = i;
        const struct slo_train_type *a = &s->types[x];
        double va = a->usd_per_h / s->sync_types[x].speed;
        while (j > 0) {
            const struct slo_train_type *b = &s->types[order[j - 1]];
            double vb = b->usd_per_h / s->sync_types[order[j - 1]].speed;
            int before = a->site != b->site ? a->site == SLO_SITE_ONPREM : va < vb;
            if (!before)
                break;
            order[j] = order[j - 1];
            j--;
        }
        order[j] = x;
    }
}

int slo_sync_plan_exact(const struct slo_train_setup *s, const struct slo_train_request *req,
                        int fastest, struct slo_train_plan *plan, slo_error_t *err)
{
    const struct slo_sync_profile *p = s->wl.sync;
    struct search st = {.s = s, .req = req, .fastest = fastest};
    double all_speed = 0, bmin, jmin;
    int used0 = 0, rv;

    memset(plan, 0, sizeof *plan);
    if (!p || !s->sync_types)
        return slo__fail(err, SLO_ERR_INVALID, "mode", "expected a sync-allreduce setup");
    /* Lower bound on time: compute alone at the best split over every
     * instance of the catalog, at the smallest batch (iterations x batch,
     * the samples, grow with B). */
    for (size_t k = 0; k < s->n_types; k++) {
        all_speed += s->types[k].quota * s->sync_types[k].speed;
        if (req->existing)
            used0 += req->existing[k];
    }
    if (req->max_workers > 0 && used0 > req->max_workers)
        return slo__fail(err, SLO_ERR_INVALID, "--existing",
                         "expected at most --max-nodes %d survivors, found %d",
                         req->max_workers, used0);
    bmin = p->global_batch > 0 ? p->global_batch : p->batch_per_gpu;
    if ((rv = slo_sync_iterations(p, bmin, req->loss_now, req->target_loss, &jmin, err)))
        return rv;
    {
        /* samples(B) = j(B) B is nondecreasing in B (phi >= 0): the least at bmin */
        /* time >= max(1, j(B)) B / S >= jmin bmin / S; the factor absorbs rounding */
        st.t_lb = all_speed > 0 ? jmin * bmin / all_speed * (1 - 1e-9) + req->overhead_s : 0;
    }
    st.cur = calloc(s->n_types ? s->n_types : 1, sizeof *st.cur);
    st.best = calloc(s->n_types ? s->n_types : 1, sizeof *st.best);
    st.order = calloc(s->n_types ? s->n_types : 1, sizeof *st.order);
    if (!st.cur || !st.best || !st.order) {
        free(st.cur);
        free(st.best);
        free(st.order);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    for (size_t k = 0; k < s->n_types; k++) {
        st.order[k] = k;
        st.cur[k] = req->existing ? req->existing[k] : 0;
    }
    search_order(s, st.order);
    st.limit = req->node_limit > 0 ? req->node_limit : 2000000;
    st.max_nodes = req->max_workers;
    dfs(&st, 0, 0, 0);
    free(st.cur);
    free(st.order);
    plan->counts = st.best;
    plan->evaluations = st.nodes;
    plan->proven = !st.stopped;
    if (!st.have) {
        if (!st.any_reachable && st.why.text[0] && !st.stopped) {
            if (err)
                *err = st.why;
            return SLO_ERR_UNREACHABLE;
        }
        return slo__fail(err, SLO_ERR_INFEASIBLE, NULL,
                         "no plan meets the SLO: loss %g within %g s%s%s", req->target_loss,
                         req->deadline_s, req->budget_usd > 0 ? " and the budget" : "",
                         st.stopped ? " (search stopped at its node limit)" : "");
    }
    struct slo_sync_eval e;
    if ((rv = slo_sync_evaluate(s, st.best, req, &e, &plan->eval, err)))
        return rv;
    plan->feasible = 1;
    return SLO_OK;
}

/* ---- slo_train_solve for sync-allreduce ---------------------------- */

/* The cheapest plan of one instance type (plus survivors). */
static int homogeneous(const struct slo_train_setup *s, const struct slo_train_request *req,
                       struct slo_train_plan *out)
{
    int *counts = calloc(s->n_types ? s->n_types : 1, sizeof *counts);
    int found = 0;
    if (!counts)
        return SLO_ERR_NOMEM;
    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < s->n_types; k++) {
        int hi = s->types[k].quota;
        if (req->max_workers > 0 && hi > req->max_workers)
            hi = req->max_workers;
        for (int c = 1; c <= hi; c++) {
            struct slo_sync_eval e;
            struct slo_train_eval pe;
            for (size_t j = 0; j < s->n_types; j++)
                counts[j] = req->existing ? req->existing[j] : 0;
            if (counts[k] > c)
                continue;
            counts[k] = c;
            out->evaluations++;
            if (slo_sync_evaluate(s, counts, req, &e, &pe, NULL))
                continue;
            if (e.time_s > req->deadline_s ||
                (req->budget_usd > 0 && e.cost_usd > req->budget_usd))
                continue;
            if (found && !(pe.cost_usd < out->eval.cost_usd))
                continue;
            if (!out->counts && !(out->counts = calloc(s->n_types, sizeof *out->counts))) {
                free(counts);
                return SLO_ERR_NOMEM;
            }
            memcpy(out->counts, counts, s->n_types * sizeof *counts);
            out->eval = pe;
            out->feasible = found = 1;
            out->proven = 1;
        }
    }
    free(counts);
    return SLO_OK;
}

static int nomem(slo_error_t *err)
{
    return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
}

int slo__sync_solve(const struct slo_train_problem *pb, const struct slo_train_options *opt,
                    struct slo_train_result *res, slo_error_t *err)
{
    struct slo_train_setup *s = &res->setup;
    slo_error_t e = {0};
    int rv;

    if (opt->search == SLO_TRAIN_SEARCH_WINDOW)
        return slo__fail(err, SLO_ERR_INVALID, "--window",
                         "expected the exact search for a sync-allreduce workload (the "
                         "sliding window is spotDNN's asynchronous Algorithm 1), found the "
                         "window alone");
    if ((rv = slo_sync_setup_init(s, pb->catalog, pb->workload, pb->pricing, err)))
        return rv;
    if (!(res->existing = calloc(s->n_types ? s->n_types : 1, sizeof *res->existing)))
        return nomem(err);
    if (pb->existing)
        for (size_t i = 0; i < pb->existing->n; i++) {
            const struct slo_cluster_entry *x = &pb->existing->entry[i];
            size_t k;
            for (k = 0; k < s->n_types; k++)
                if (strcmp(s->types[k].name, x->type) == 0)
                    break;
            if (k == s->n_types)
                return slo__fail(err, SLO_ERR_NOT_FOUND, "--existing",
                                 "expected an instance type of the catalog that the workload "
                                 "profiles, found \"%s\"",
                                 x->type);
            if (x->count < 0 || x->count > s->types[k].quota)
                return slo__fail(err, SLO_ERR_INVALID, "--existing",
                                 "%s: expected a count from 0 to the catalog's quota %d, "
                                 "found \"%s\"",
                                 x->type, s->types[k].quota, x->count_text);
            res->existing[k] = (int)x->count;
        }
    struct slo_train_request req = slo__train_request(pb, opt, res);
    rv = slo_sync_plan_exact(s, &req, 0, &res->exact, &e);
    res->have_exact = rv == SLO_OK || rv == SLO_ERR_INFEASIBLE;
    if (rv == SLO_ERR_UNREACHABLE) {
        res->status = SLO_STATUS_INFEASIBLE;
        snprintf(res->unreachable, sizeof res->unreachable, "%s", e.text);
        snprintf(res->reason, sizeof res->reason, "%s%s%s", e.source, e.source[0] ? ": " : "",
                 e.text);
        return SLO_OK;
    }
    if (rv == SLO_ERR_INFEASIBLE) {
        struct slo_train_request fr = req;
        char list[256], t[32];
        int proven = res->exact.proven;
        res->status = proven ? SLO_STATUS_INFEASIBLE : SLO_STATUS_INFEASIBLE_UNPROVEN;
        snprintf(res->cause, sizeof res->cause, "%s", e.text);
        if (req.budget_usd > 0) {
            fr.budget_usd = 0;
            rv = slo_sync_plan_exact(s, &fr, 0, &res->closest, NULL);
            if (rv == SLO_OK) {
                res->closest_kind = SLO_TRAIN_CLOSEST_CHEAPEST;
                slo_train_counts_format(s, res->closest.counts, '=', list, sizeof list);
                snprintf(res->reason, sizeof res->reason,
                         "%s; the cheapest plan%s that meets the deadline, %s, costs %.6f "
                         "USD",
                         e.text, res->closest.proven ? "" : " found", list,
                         res->closest.eval.cost_usd);
                return SLO_OK;
            }
            slo_train_plan_free(&res->closest);
            if (rv == SLO_ERR_NOMEM)
                return nomem(err);
        }
        rv = slo_sync_plan_exact(s, &req, 1, &res->closest, NULL);
        if (rv == SLO_ERR_NOMEM)
            return nomem(err);
        if (rv != SLO_OK) {
            slo_train_plan_free(&res->closest);
            snprintf(res->reason, sizeof res->reason, "%s", e.text);
            return SLO_OK;
        }
        res->closest_kind = SLO_TRAIN_CLOSEST_FASTEST;
        slo_train_counts_format(s, res->closest.counts, '=', list, sizeof list);
        slo_format_duration(res->closest.eval.time_s, t, sizeof t);
        snprintf(res->reason, sizeof res->reason,
                 "%s; the fastest plan%s, %s, needs %.2f s (%s) at %.6f USD", e.text,
                 res->closest.proven ? "" : " found", list, res->closest.eval.time_s, t,
                 res->closest.eval.cost_usd);
        return SLO_OK;
    }
    if (rv) {
        if (err)
            *err = e;
        return rv;
    }
    rv = slo__train_adopt_exact(s, res, err);
    if (rv)
        return rv;
    if (!opt->comparisons)
        return SLO_OK;
    if (pb->pricing == SLO_PRICING_SPOT) {
        struct slo_train_setup od = {0};
        if (slo_sync_setup_init(&od, pb->catalog, pb->workload, SLO_PRICING_ON_DEMAND, NULL) ==
            SLO_OK) {
            rv = slo_sync_plan_exact(&od, &req, 0, &res->on_demand, NULL);
            res->have_on_demand = rv == SLO_OK;
            slo_train_setup_free(&od);
            if (rv == SLO_ERR_NOMEM)
                return nomem(err);
        }
    }
    res->have_homogeneous = 1;
    if (homogeneous(s, &req, &res->homogeneous))
        return nomem(err);
    return SLO_OK;
}
