/*
 * comm_sim.c - discrete-event simulator of gradient communication, the
 * perfect-overlap lower bound and the policy registry.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Event model: research notes shared/research/prophet.md section 3.2;
 * lower bound and quality ratios: section 5. The transport (message cost
 * c(s) = A + w s / B) is notes 3.1. See slo_comm.h for the whole model.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comm_private.h"
#include "slo_private.h"

/* ------------------------------------------------------------------ */
/* Link                                                                */
/* ------------------------------------------------------------------ */

const char *slo_comm_collective_name(enum slo_comm_collective c)
{
    return c == SLO_COMM_PS ? "ps" : "ring";
}

/* notes 3.1: ring allreduce moves 2(p-1)/p of the buffer through each
 * worker's link; PS moves it once per direction. */
double slo_comm_bytes_factor(const struct slo_comm_link *link)
{
    if (link->collective == SLO_COMM_PS)
        return 1.0;
    return 2.0 * (link->workers - 1) / (double)link->workers;
}

/* notes 3.1: ring 2(p-1) alpha_hop; PS alpha per direction (push + pull). */
double slo_comm_message_latency_s(const struct slo_comm_link *link)
{
    if (link->collective == SLO_COMM_PS)
        return 2.0 * link->latency_s;
    return 2.0 * (link->workers - 1) * link->latency_s;
}

int slo_comm_link_check(const struct slo_comm_link *link, slo_error_t *err)
{
    if (!(link->bandwidth_bytes_per_s >= SLO_COMM_MIN_BANDWIDTH_BYTES_PER_S &&
          link->bandwidth_bytes_per_s <= SLO_COMM_MAX_BANDWIDTH_BYTES_PER_S))
        return slo__fail(err, SLO_ERR_INVALID, "bandwidth",
                        "expected a bandwidth > 0 bytes/s in %g..%g, found %g",
                        SLO_COMM_MIN_BANDWIDTH_BYTES_PER_S, SLO_COMM_MAX_BANDWIDTH_BYTES_PER_S,
                        link->bandwidth_bytes_per_s);
    if (!(link->latency_s >= 0 && link->latency_s <= SLO_COMM_MAX_LATENCY_S))
        return slo__fail(err, SLO_ERR_INVALID, "latency",
                        "expected a latency >= 0 s, at most %g s, found %g",
                        SLO_COMM_MAX_LATENCY_S, link->latency_s);
    if (link->workers < 2 || link->workers > SLO_COMM_MAX_WORKERS)
        return slo__fail(err, SLO_ERR_INVALID, "workers",
                        "expected at least 2 workers, at most %d, found %d",
                        SLO_COMM_MAX_WORKERS, link->workers);
    if (link->collective != SLO_COMM_RING && link->collective != SLO_COMM_PS)
        return slo__fail(err, SLO_ERR_INVALID, "collective",
                        "expected ring (0) or ps (1), found %d", (int)link->collective);
    if (link->max_in_flight < 0 || link->max_in_flight > SLO_COMM_MAX_IN_FLIGHT)
        return slo__fail(err, SLO_ERR_INVALID, "max_in_flight",
                        "expected an integer >= 0 (0 = unlimited), at most %d, found %d",
                        SLO_COMM_MAX_IN_FLIGHT, link->max_in_flight);
    return SLO_OK;
}

void comm_transport_init(struct comm_transport *t, const struct slo_comm_link *link)
{
    memset(t, 0, sizeof *t);
    t->beta_s_per_byte = slo_comm_bytes_factor(link) / link->bandwidth_bytes_per_s;
    t->latency_s = slo_comm_message_latency_s(link);
    t->window = link->max_in_flight;
    t->ps = link->collective == SLO_COMM_PS;
    t->link_free_s = -INFINITY;
    t->pull_free_s = -INFINITY;
}

void comm_transport_free(struct comm_transport *t)
{
    free(t->done_s);
    t->done_s = NULL;
    t->n = t->cap = 0;
}

int comm_transport_grow(struct comm_transport *t, slo_error_t *err)
{
    size_t ncap = t->cap ? 2 * t->cap : 64;
    double *nd = realloc(t->done_s, ncap * sizeof *nd);
    if (!nd)
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory in the transport");
    t->done_s = nd;
    t->cap = ncap;
    return SLO_OK;
}

/* ------------------------------------------------------------------ */
/* Model checks and the lower bound                                    */
/* ------------------------------------------------------------------ */

int slo_comm_model_check(const struct slo_comm_model *model, slo_error_t *err)
{
    int any = 0;
    const char *src = model->name[0] ? model->name : "model";
    double F = 0, Bw = 0, total = 0;

    if (model->n_layers == 0 || !model->layers)
        return slo__fail(err, SLO_ERR_INVALID, src, "expected at least one layer, found none");
    if (model->n_layers > SLO_COMM_MAX_LAYERS)
        return slo__fail(err, SLO_ERR_INVALID, src, "expected at most %d layers, found %zu",
                        SLO_COMM_MAX_LAYERS, model->n_layers);
    for (size_t j = 0; j < model->n_layers; j++) {
        const struct slo_comm_layer *l = &model->layers[j];
        if (!(isfinite(l->forward_s) && l->forward_s >= 0))
            return slo__fail(err, SLO_ERR_INVALID, src,
                            "layers[%zu].forward_s: expected a number >= 0, found %g", j,
                            l->forward_s);
        if (!(isfinite(l->backward_s) && l->backward_s >= 0))
            return slo__fail(err, SLO_ERR_INVALID, src,
                            "layers[%zu].backward_s: expected a number >= 0, found %g", j,
                            l->backward_s);
        if (!(isfinite(l->grad_bytes) && l->grad_bytes >= 0))
            return slo__fail(err, SLO_ERR_INVALID, src,
                            "layers[%zu].grad_bytes: expected a number >= 0, found %g", j,
                            l->grad_bytes);
        if (l->grad_bytes > SLO_COMM_MAX_LAYER_BYTES)
            return slo__fail(err, SLO_ERR_INVALID, src,
                            "layers[%zu].grad_bytes: expected at most %g bytes, found %g", j,
                            SLO_COMM_MAX_LAYER_BYTES, l->grad_bytes);
        F += l->forward_s;
        Bw += l->backward_s;
        total += l->grad_bytes;
        if (l->grad_bytes > 0)
            any = 1;
    }
    /* sums bound every single time and size too */
    /* a relative 1e-12 of slack: a total of exactly the limit split into
     * per-layer shares (slo_comm_model_parse_gradients) may sum a few ulps
     * above it */
    if (F > SLO_COMM_MAX_TIME_S * (1 + 1e-12) || Bw > SLO_COMM_MAX_TIME_S * (1 + 1e-12))
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "expected forward and backward times adding up to at most %g s each, "
                        "found %g s forward and %g s backward",
                        SLO_COMM_MAX_TIME_S, F, Bw);
    if (total > SLO_COMM_MAX_TOTAL_BYTES)
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "expected at most %g gradient bytes in all, found %.17g",
                        SLO_COMM_MAX_TOTAL_BYTES, total);
    if (!any)
        return slo__fail(err, SLO_ERR_INVALID, src,
                        "expected at least one layer with gradient bytes > 0, found none");
    return SLO_OK;
}

int slo_comm_lower_bound(const struct slo_comm_model *model, const struct slo_comm_link *link,
                         double *lower_bound_s, double *sequential_s, double *compute_s,
                         slo_error_t *err)
{
    int rc;
    double F = 0, Bw = 0, C = 0, prefix_c = 0, suffix = 0, best, beta;
    size_t n = model->n_layers;
    double *suf;

    if ((rc = slo_comm_model_check(model, err)) || (rc = slo_comm_link_check(link, err)))
        return rc;
    beta = slo_comm_bytes_factor(link) / link->bandwidth_bytes_per_s;
    suf = malloc(n * sizeof *suf);
    if (!suf)
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    /* suf[k] = sum_{m>=k} (f_m + b_m) */
    for (size_t k = n; k-- > 0;) {
        suffix += model->layers[k].forward_s + model->layers[k].backward_s;
        suf[k] = suffix;
    }
    for (size_t k = 0; k < n; k++) {
        F += model->layers[k].forward_s;
        Bw += model->layers[k].backward_s;
        C += beta * model->layers[k].grad_bytes;
    }
    /* notes 5: T_LB = max(F + Bw, max_k [R_k - P_k + sum_{j<=k} c_j]),
     * R_k - P_k = sum_{m>=k} (f_m + b_m). */
    best = F + Bw;
    for (size_t k = 0; k < n; k++) {
        prefix_c += beta * model->layers[k].grad_bytes;
        if (model->layers[k].grad_bytes > 0 && suf[k] + prefix_c > best)
            best = suf[k] + prefix_c;
    }
    free(suf);
    if (lower_bound_s)
        *lower_bound_s = best;
    if (sequential_s)
        *sequential_s = F + Bw + C;
    if (compute_s)
        *compute_s = F + Bw;
    return SLO_OK;
}

/* ------------------------------------------------------------------ */
/* Parameters and the policy registry                                  */
/* ------------------------------------------------------------------ */

void slo_comm_params_default(struct slo_comm_params *p)
{
    p->p3_slice_bytes = 160000.0;
    p->bs_partition_bytes = 4000000.0;
    p->bs_credit_bytes = 16000000.0;
    p->hvd_fusion_bytes = 134217728.0;
    p->hvd_cycle_s = 0.001;
    p->ddp_bucket_bytes = 26214400.0;
    p->ddp_first_bucket_bytes = 1048576.0;
    p->prophet_partition_bytes = 4096000.0;
    p->prophet_credit_bytes = 16384000.0;
    p->prophet_slack_s = 0.001;
}

int slo_comm_params_check(const struct slo_comm_params *p, slo_error_t *err)
{
    const struct { const char *name; double v; int zero_ok; } f[] = {
        {"p3_slice_bytes", p->p3_slice_bytes, 0},
        {"bs_partition_bytes", p->bs_partition_bytes, 0},
        {"bs_credit_bytes", p->bs_credit_bytes, 0},
        {"hvd_fusion_bytes", p->hvd_fusion_bytes, 0},
        {"hvd_cycle_s", p->hvd_cycle_s, 0},
        {"ddp_bucket_bytes", p->ddp_bucket_bytes, 0},
        {"ddp_first_bucket_bytes", p->ddp_first_bucket_bytes, 0},
        {"prophet_partition_bytes", p->prophet_partition_bytes, 0},
        {"prophet_credit_bytes", p->prophet_credit_bytes, 0},
        {"prophet_slack_s", p->prophet_slack_s, 1},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!isfinite(f[i].v) || f[i].v < 0 || (!f[i].zero_ok && f[i].v == 0))
            return slo__fail(err, SLO_ERR_INVALID, f[i].name, "expected a number %s 0, found %g",
                            f[i].zero_ok ? ">=" : ">", f[i].v);
    return SLO_OK;
}

const struct comm_policy_ops *comm_policy_ops(int policy)
{
    switch (policy) {
    case SLO_COMM_PROPHET: return comm_prophet_ops();
    case SLO_COMM_OPTIMAL: return comm_optimal_ops();
    default: return comm_baseline_ops(policy);
    }
}

const char *slo_comm_policy_name(int policy)
{
    const struct comm_policy_ops *ops = comm_policy_ops(policy);
    return ops ? ops->name : NULL;
}

const char *slo_comm_policy_summary(int policy)
{
    const struct comm_policy_ops *ops = comm_policy_ops(policy);
    return ops ? ops->summary : NULL;
}

int slo_comm_policy_find(const char *name)
{
    for (int p = 0; p < SLO_COMM_N_POLICIES; p++)
        if (name && strcmp(name, slo_comm_policy_name(p)) == 0)
            return p;
    return -1;
}

int slo_comm_policy_barrier(int policy)
{
    const struct comm_policy_ops *ops = comm_policy_ops(policy);
    return ops ? ops->barrier : 0;
}

/* ------------------------------------------------------------------ */
/* Simulation                                                          */
/* ------------------------------------------------------------------ */

double comm_bytes(const struct comm_sim *s, size_t j)
{
    return s->model->layers[j].grad_bytes;
}

int comm_link_idle(const struct comm_sim *s)
{
    return comm_transport_avail(&s->tr) <= s->now;
}

void comm_wake_at(struct comm_sim *s, double t)
{
    if (t > s->now && t < s->wake_s)
        s->wake_s = t;
}

/* Layer owning byte x (x in [0, total)): the j with offset[j] <= x <
 * offset[j+1]; zero-size layers never match. */
static size_t layer_at(const struct comm_sim *s, double x)
{
    size_t lo = 0, hi = s->n; /* offset[lo] <= x < offset[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->offset[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Largest j with offset[j] < x (x in (0, total]). */
static size_t layer_before(const struct comm_sim *s, double x)
{
    size_t lo = 0, hi = s->n; /* offset[lo] < x <= offset[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->offset[mid] < x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

int comm_post_block(struct comm_sim *s, size_t n, const double *offset, const double *bytes,
                    slo_error_t *err)
{
    double total = s->offset[s->n], sum = 0, S, E, D, at;
    int rc;

    for (size_t k = 0; k < n; k++) {
        if (!(bytes[k] > 0) || offset[k] < 0 ||
            offset[k] + bytes[k] > total * (1 + 1e-12) + 1e-6)
            return slo__fail(err, SLO_ERR_NUMERIC, NULL,
                            "internal: range [%g, %g) outside the %g-byte buffer", offset[k],
                            offset[k] + bytes[k], total);
        sum += bytes[k];
    }
    if (n == 0)
        return SLO_OK;
    while (s->cap_msg - s->n_msg < n) {
        size_t ncap = s->cap_msg ? 2 * s->cap_msg : 64;
        struct slo_comm_message *nm = realloc(s->msg, ncap * sizeof *nm);
        if (!nm)
            return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory posting a message");
        s->msg = nm;
        s->cap_msg = ncap;
    }
    if ((rc = comm_transport_post(&s->tr, s->now, sum, &S, &E, &D, err)))
        return rc;
    at = S;
    for (size_t k = 0; k < n; k++) {
        struct slo_comm_message *m = &s->msg[s->n_msg++];
        double hi = fmin(offset[k] + bytes[k], total);
        m->block = s->n_blocks;
        m->offset_bytes = offset[k];
        m->bytes = bytes[k];
        /* the binary searches below are a third of a chunking policy's
         * simulation: try the layer of the previous range and the one
         * below it first (slices of one layer, or layers in ready order).
         * Either way the answer is the unique layer whose half-open byte
         * range holds the byte, so the result is the same. */
        {
            size_t h = s->layer_hint;
            if (h < s->n && s->offset[h] <= offset[k] && offset[k] < s->offset[h + 1])
                m->first_layer = h;
            else if (h > 0 && h - 1 < s->n && s->offset[h - 1] <= offset[k] &&
                     offset[k] < s->offset[h])
                m->first_layer = h - 1;
            else
                m->first_layer = layer_at(s, offset[k]);
            s->layer_hint = m->first_layer;
        }
        if (s->offset[m->first_layer] < hi && hi <= s->offset[m->first_layer + 1])
            m->last_layer = m->first_layer; /* the unique j, as layer_before */
        else
            m->last_layer = layer_before(s, hi);
        if (m->last_layer < m->first_layer)
            m->last_layer = m->first_layer;
        m->post_s = s->now;
        m->start_s = S;
        /* the ranges leave the link one after the other */
        at += (E - S) * (bytes[k] / sum);
        m->end_s = k + 1 == n ? E : at;
        m->done_s = D;
    }
    s->n_blocks++;
    return SLO_OK;
}

int comm_post(struct comm_sim *s, double offset, double bytes, slo_error_t *err)
{
    return comm_post_block(s, 1, &offset, &bytes, err);
}

static void complete(struct comm_sim *s, const struct slo_comm_message *m)
{
    double lo = m->offset_bytes, hi = m->offset_bytes + m->bytes;
    for (size_t j = m->first_layer; j <= m->last_layer && j < s->n; j++) {
        double a = fmax(lo, s->offset[j]), b = fmin(hi, s->offset[j + 1]);
        if (b <= a || s->remaining[j] <= 0)
            continue;
        s->remaining[j] -= b - a;
        /* slices are computed in floating point: tolerate rounding */
        if (s->remaining[j] <= 1e-9 * comm_bytes(s, j) + 1e-6) {
            s->remaining[j] = 0;
            s->done_s[j] = m->done_s;
            s->n_open--;
        }
    }
}

static void sim_free(struct comm_sim *s)
{
    free(s->offset);
    free(s->ready_s);
    free(s->tail_s);
    free(s->remaining);
    free(s->msg);
    comm_transport_free(&s->tr);
    s->offset = s->ready_s = s->tail_s = s->remaining = NULL;
    s->msg = NULL;
}

void slo_comm_result_free(struct slo_comm_result *r)
{
    if (!r)
        return;
    free(r->done_s);
    free(r->forward_start_s);
    free(r->messages);
    slo_comm_plan_free(&r->plan);
    memset(r, 0, sizeof *r);
}

/* The pieces a chunking policy cuts the model into: at most
 * SLO_COMM_MAX_MESSAGES (computed in floating point before any size_t
 * conversion, so a tiny chunk cannot overflow a count). */
static int check_message_count(const struct slo_comm_model *model,
                               const struct slo_comm_params *params, int policy,
                               slo_error_t *err)
{
    double chunk, count = 0;
    const char *name;
    switch (policy) {
    case SLO_COMM_P3: chunk = params->p3_slice_bytes; name = "p3_slice_bytes"; break;
    case SLO_COMM_BYTESCHEDULER:
        chunk = params->bs_partition_bytes;
        name = "bs_partition_bytes";
        break;
    case SLO_COMM_PROPHET:
        chunk = params->prophet_partition_bytes;
        name = "prophet_partition_bytes";
        break;
    default: return SLO_OK;
    }
    for (size_t j = 0; j < model->n_layers; j++)
        if (model->layers[j].grad_bytes > 0)
            count += ceil(model->layers[j].grad_bytes / chunk);
    if (!(count <= SLO_COMM_MAX_MESSAGES))
        return slo__fail(err, SLO_ERR_INVALID, name,
                        "expected a size that cuts the model into at most %g pieces, found %g "
                        "bytes (%.3g pieces)",
                        SLO_COMM_MAX_MESSAGES, chunk, count);
    return SLO_OK;
}

/* (T_seq - T) / (T_seq - T_LB). When T_seq = T_LB there is nothing to
 * overlap (no compute, or ...): 1 if T reaches it, else the excess over
 * no overlap as a negative fraction of T_seq, -(T - T_seq) / T_seq, so that
 * the value is negative exactly when T is worse than no overlap. */
static double overlap_efficiency(double T, double lb, double seq)
{
    double tol = 1e-12 * seq;
    if (seq - lb > tol)
        return (seq - T) / (seq - lb);
    if (T <= seq + tol)
        return 1.0;
    return (seq - T) / seq;
}

int slo_comm_simulate(const struct slo_comm_model *model, const struct slo_comm_link *link,
                      const struct slo_comm_params *params, int policy,
                      struct slo_comm_result *result, slo_error_t *err)
{
    return slo__comm_simulate_scan(model, link, params, policy, 0, result, err);
}

int slo__comm_simulate_scan(const struct slo_comm_model *model,
                            const struct slo_comm_link *link,
                            const struct slo_comm_params *params, int policy, int full_scan,
                            struct slo_comm_result *result, slo_error_t *err)
{
    struct slo_comm_params defaults;
    const struct comm_policy_ops *ops = comm_policy_ops(policy);
    struct comm_sim s;
    void *state = NULL;
    int rc;
    size_t n = model->n_layers, next_ready, steps = 0, max_steps;
    double lb, seq;

    memset(result, 0, sizeof *result);
    memset(&s, 0, sizeof s);
    if (!ops)
        return slo__fail(err, SLO_ERR_INVALID, "policy", "expected a policy in 0..%d, found %d",
                        SLO_COMM_N_POLICIES - 1, policy);
    if (!params) {
        slo_comm_params_default(&defaults);
        params = &defaults;
    }
    if ((rc = slo_comm_lower_bound(model, link, &lb, &seq, NULL, err)) ||
        (rc = slo_comm_params_check(params, err)))
        return rc;
    if (full_scan != 0 && full_scan != 1)
        return slo__fail(err, SLO_ERR_INVALID, "optimal_full_scan", "expected 0 or 1, found %d",
                        full_scan);
    if ((rc = check_message_count(model, params, policy, err)))
        return rc;

    s.model = model;
    s.link = link;
    s.params = params;
    s.full_scan = full_scan;
    s.n = n;
    comm_transport_init(&s.tr, link);
    s.offset = malloc((n + 1) * sizeof *s.offset);
    s.ready_s = malloc(n * sizeof *s.ready_s);
    s.tail_s = malloc(n * sizeof *s.tail_s);
    s.remaining = malloc(n * sizeof *s.remaining);
    result->done_s = malloc(n * sizeof *result->done_s);
    result->forward_start_s = malloc(n * sizeof *result->forward_start_s);
    if (!s.offset || !s.ready_s || !s.tail_s || !s.remaining || !result->done_s ||
        !result->forward_start_s) {
        rc = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    s.done_s = result->done_s;
    s.offset[0] = 0;
    for (size_t j = 0; j < n; j++) {
        s.offset[j + 1] = s.offset[j] + model->layers[j].grad_bytes;
        s.forward_s += model->layers[j].forward_s;
    }
    /* notes 3.2 step 1, origin at the backward start: r_j = sum_{m>=j} b_m */
    {
        double r = 0, fs = 0;
        for (size_t j = n; j-- > 0;) {
            r += model->layers[j].backward_s;
            fs += model->layers[j].forward_s;
            s.ready_s[j] = r;
            s.tail_s[j] = fs;
        }
        s.backward_s = r;
    }
    for (size_t j = 0; j < n; j++) {
        s.remaining[j] = model->layers[j].grad_bytes;
        s.done_s[j] = s.ready_s[j];
        if (s.remaining[j] > 0)
            s.n_open++;
    }

    if (ops->init && (rc = ops->init(&s, &state, err)))
        goto out;

    /* Event loop. Ready times are visited from layer n-1 down. */
    next_ready = n; /* layers >= next_ready have been announced */
    while (next_ready > 0 && s.ready_s[next_ready - 1] <= 0)
        next_ready--;
    s.now = 0;
    /* Time strictly increases from one loop turn to the next (every event
     * at or before now is consumed), so this only guards against a policy
     * that keeps waking without posting. */
    max_steps = 100000000;
    {
        size_t next_done = 0;
        for (;;) {
            double t = INFINITY;
            s.wake_s = INFINITY;
            if ((rc = ops->step(&s, state, err)))
                goto out;
            if (s.n_open == 0)
                break;
            if (next_ready > 0)
                t = s.ready_s[next_ready - 1];
            if (next_done < s.n_msg && s.msg[next_done].done_s < t)
                t = s.msg[next_done].done_s;
            if (s.wake_s < t)
                t = s.wake_s;
            if (!(t < INFINITY) || ++steps > max_steps) {
                rc = slo__fail(err, SLO_ERR_NUMERIC, ops->name,
                              "internal: policy stalled at t = %g s with %zu layers open", s.now,
                              s.n_open);
                goto out;
            }
            if (t > s.now)
                s.now = t;
            while (next_ready > 0 && s.ready_s[next_ready - 1] <= s.now)
                next_ready--;
            while (next_done < s.n_msg && s.msg[next_done].done_s <= s.now) {
                struct slo_comm_message m = s.msg[next_done++];
                complete(&s, &m);
                if (ops->done)
                    ops->done(&s, state, &m);
            }
        }
    }

    /* notes 3.2 step 3: the next forward pass */
    {
        double *fst = result->forward_start_s, t = s.backward_s, all = s.backward_s;
        if (ops->barrier) {
            for (size_t j = 0; j < n; j++)
                if (s.done_s[j] > all)
                    all = s.done_s[j];
            t = all;
            for (size_t j = 0; j < n; j++) {
                fst[j] = t;
                t += model->layers[j].forward_s;
            }
        } else {
            for (size_t j = 0; j < n; j++) {
                fst[j] = s.done_s[j] > t ? s.done_s[j] : t;
                t = fst[j] + model->layers[j].forward_s;
            }
        }
        result->iteration_s = t;
    }
    result->policy = policy;
    result->lower_bound_s = lb;
    result->sequential_s = seq;
    result->rho = result->iteration_s / lb;
    result->overlap_efficiency = overlap_efficiency(result->iteration_s, lb, seq);
    result->backward_s = s.backward_s;
    result->n_layers = n;
    result->n_messages = s.n_msg;
    result->n_blocks = s.n_blocks;
    result->messages = s.msg;
    s.msg = NULL;
    rc = SLO_OK;
out:
    if (ops->fini)
        ops->fini(state);
    sim_free(&s);
    if (rc) {
        slo_comm_result_free(result);
    }
    return rc;
}
