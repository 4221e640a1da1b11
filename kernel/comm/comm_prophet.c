/*
 * comm_prophet.c - Prophet (Zhang et al., ICPP 2021): stepwise detection and
 * the block-release state machine, as a simulator policy.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Implemented from shared/research/prophet.md ("notes"): the automatic
 * variant of the authors' code (commit 3826821): steps by the 2 x mean-gap
 * rule (notes 1.3), block budget Q_k = B x (Delta_k + 1 ms) (notes 1.5),
 * lowest-index-first release that stops at the first partition that does
 * not fit (notes 1.6 step 2), credit phase after gradient 0 (notes 1.6
 * step 3). Deliberate deviations (notes 1.8, edge cases): the credit test is
 * "credit >= length" (the code's "credit > length" plus its equality case
 * released a task twice), and when no credit-phase partition is in flight a
 * partition larger than the whole credit is released anyway instead of
 * stalling. B is the nominal per-worker link bandwidth, as in the
 * hand-tuned version used for the paper's runs (Z_NET_B, notes 1.4); with
 * PS (Prophet's setting) that is also the payload rate, with ring allreduce
 * it overstates the payload rate by w = 2(p-1)/p (doc/comm.md discusses
 * the B / w reading, which makes Prophet slower than FIFO when the network
 * is the bottleneck).
 * Partitions: each gradient is cut into ceil(s / P) equal parts, which
 * approximates BytePS's partitioning (notes 1.5, worked example). With PS
 * each partition is its own message, as BytePS pushes them to its servers.
 * With ring allreduce, serialized collectives and a latency > 0, the
 * partitions released at one instant go out as one collective per
 * contiguous byte range, the MPI mapping of notes 6.1: a 4 MB partition per
 * collective paid one latency each (VGG-16's fc6 alone is 101 partitions)
 * and made Prophet lose VGG-16 at 1 Gbit/s to FIFO by 0.04 %; merged, it
 * wins there by 0.3 % (doc/comm.md, "Prophet deviations and choices" and
 * "Prophet vs FIFO"). Otherwise every partition is its own collective.
 * Which partitions are released, and when, is unchanged.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comm_private.h"
#include "slo_private.h"

void slo_comm_steps_free(struct slo_comm_steps *st)
{
    if (!st)
        return;
    free(st->step_lo);
    free(st->gap_s);
    memset(st, 0, sizeof *st);
}

int slo_comm_detect_steps(const double *t, size_t n, struct slo_comm_steps *st, slo_error_t *err)
{
    double mean = 0;
    size_t k = 0;

    memset(st, 0, sizeof *st);
    if (n == 0)
        return slo__fail(err, SLO_ERR_INVALID, "ready times",
                        "expected at least one gradient, found none");
    for (size_t i = 0; i < n; i++)
        if (!isfinite(t[i]))
            return slo__fail(err, SLO_ERR_INVALID, "ready times",
                            "[%zu]: expected a finite time, found %g", i, t[i]);
    st->step_lo = malloc(n * sizeof *st->step_lo);
    st->gap_s = malloc(n * sizeof *st->gap_s);
    if (!st->step_lo || !st->gap_s) {
        slo_comm_steps_free(st);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    /* notes 1.3 step 2: d_bar = mean_{i=1..N-1} |t_i - t_{i-1}|, theta = 2 d_bar */
    for (size_t i = 1; i < n; i++)
        mean += fabs(t[i] - t[i - 1]);
    if (n > 1)
        mean /= (double)(n - 1);
    st->threshold_s = 2 * mean;
    st->n_grads = n;
    /* step 3: every i with d_i > theta closes a step at i-1; step 0 holds
     * gradient 0. gap_s[j] = d_{lo_j}: the idle gap after step j arrived and
     * before step j-1 starts arriving (step 4, Delta in arrival order). */
    st->step_lo[k] = 0;
    st->gap_s[k] = 0;
    k++;
    for (size_t i = 1; i < n; i++) {
        double d = fabs(t[i] - t[i - 1]);
        if (d > st->threshold_s) {
            st->step_lo[k] = i;
            st->gap_s[k] = d;
            k++;
        }
    }
    st->n_steps = k;
    return SLO_OK;
}

struct part {
    double offset, bytes;
};

struct prophet_state {
    size_t G;
    size_t *grad_layer;      /* [G] */
    struct slo_comm_steps steps;
    struct part *stack;      /* pending partitions; top = highest priority */
    size_t top;
    long e;                  /* next gradient expected (descending) */
    size_t cur;              /* step being collected (forward-order number) */
    int credit_phase;
    double credit;
    size_t credit_first_msg; /* messages from this post index on are credit phase */
    size_t n_completed;      /* completions seen (they arrive in post order) */
    size_t credit_in_flight;
    double rate_bytes_per_s; /* B of the notes: payload bytes per second */
    int fuse;                /* merge adjacent released partitions (release_flush()) */
    double *rel_off, *rel_len; /* [parts] ranges released at this instant */
    size_t n_rel;
};

static void prophet_fini(void *state)
{
    struct prophet_state *st = state;
    if (!st)
        return;
    free(st->grad_layer);
    free(st->stack);
    free(st->rel_off);
    free(st->rel_len);
    slo_comm_steps_free(&st->steps);
    free(st);
}

static int prophet_init(struct comm_sim *s, void **state, slo_error_t *err)
{
    struct prophet_state *st = calloc(1, sizeof *st);
    double *t = NULL, parts = 0;
    size_t n_parts;
    int rc;

    if (!st)
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    for (size_t j = 0; j < s->n; j++)
        if (comm_bytes(s, j) > 0) {
            st->G++;
            parts += ceil(comm_bytes(s, j) / s->params->prophet_partition_bytes);
        }
    /* counted in double: slo_comm_simulate has checked the count against
     * SLO_COMM_MAX_MESSAGES, so the conversion is exact; check again here */
    if (!(parts <= SLO_COMM_MAX_MESSAGES)) {
        prophet_fini(st);
        return slo__fail(err, SLO_ERR_INVALID, "prophet_partition_bytes",
                        "expected at most %g partitions, found %g", SLO_COMM_MAX_MESSAGES,
                        parts);
    }
    n_parts = (size_t)parts;
    st->grad_layer = malloc(st->G * sizeof *st->grad_layer);
    t = malloc(st->G * sizeof *t);
    st->stack = malloc((n_parts + 1) * sizeof *st->stack);
    st->rel_off = malloc((n_parts + 1) * sizeof *st->rel_off);
    st->rel_len = malloc((n_parts + 1) * sizeof *st->rel_len);
    if (!st->grad_layer || !t || !st->stack || !st->rel_off || !st->rel_len) {
        free(t);
        prophet_fini(st);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    for (size_t j = 0, i = 0; j < s->n; j++)
        if (comm_bytes(s, j) > 0) {
            st->grad_layer[i] = j;
            t[i] = s->ready_s[j]; /* the profiling iteration's push times */
            i++;
        }
    rc = slo_comm_detect_steps(t, st->G, &st->steps, err);
    free(t);
    if (rc) {
        prophet_fini(st);
        return rc;
    }
    st->e = (long)st->G - 1;
    st->cur = st->steps.n_steps - 1;
    st->credit = s->params->prophet_credit_bytes;
    /* B: the nominal link rate, as the hand-tuned version's Z_NET_B
     * (Mbit/s x 125 = bytes/ms, notes 1.4) that the experiments used */
    st->rate_bytes_per_s = s->link->bandwidth_bytes_per_s;
    /* merge only where every collective's latency is on the critical path:
     * ring, one collective at a time, latency > 0 (release_flush()) */
    st->fuse = s->link->collective == SLO_COMM_RING && s->link->max_in_flight == 1 &&
               slo_comm_message_latency_s(s->link) > 0;
    *state = st;
    return SLO_OK;
}

static void push_gradient(struct comm_sim *s, struct prophet_state *st, size_t layer)
{
    double bytes = comm_bytes(s, layer);
    double m = ceil(bytes / s->params->prophet_partition_bytes), part = bytes / m;
    /* last partition first, so the first one ends on top */
    for (double q = m; q-- > 0;) {
        st->stack[st->top].offset = s->offset[layer] + q * part;
        st->stack[st->top].bytes = part;
        st->top++;
    }
}

/* Release partition p: it joins what is handed to the transport at this
 * instant (release_flush()). */
static void release(struct prophet_state *st, struct part p)
{
    if (st->fuse && st->n_rel > 0 &&
        st->rel_off[st->n_rel - 1] + st->rel_len[st->n_rel - 1] >= p.offset - 1e-9 * p.bytes) {
        st->rel_len[st->n_rel - 1] = p.offset + p.bytes - st->rel_off[st->n_rel - 1];
        return;
    }
    st->rel_off[st->n_rel] = p.offset;
    st->rel_len[st->n_rel] = p.bytes;
    st->n_rel++;
}

/* Hand the partitions released at this instant to the transport. With PS
 * each partition is its own push, as BytePS sends them to its servers
 * (notes 1.1). With ring allreduce there are no servers to spread the
 * partitions over; when collectives are serialized and pay a latency, the
 * MPI mapping of notes 6.1 issues one collective per contiguous byte range
 * of what is released together (adjacent partitions merged by release()),
 * which pays one latency per range instead of one per 4 MB partition
 * (notes 6.2 item 8). With several collectives in flight the latency
 * overlaps and with none there is nothing to save, while a merged range
 * completes its lowest partition only with the last one: there each
 * partition stays its own collective. Ranges go out in ascending offset
 * (priority) order. *n_msgs: messages posted. */
static int release_flush(struct comm_sim *s, struct prophet_state *st, size_t *n_msgs,
                         slo_error_t *err)
{
    int rc = SLO_OK;
    *n_msgs = st->n_rel;
    for (size_t k = 0; k < st->n_rel && rc == SLO_OK; k++)
        rc = comm_post(s, st->rel_off[k], st->rel_len[k], err);
    st->n_rel = 0;
    return rc;
}

static int prophet_step(struct comm_sim *s, void *state, slo_error_t *err)
{
    struct prophet_state *st = state;
    size_t n_msgs;
    int rc;

    /* collect phase (notes 1.6 step 1): admit gradients strictly in
     * descending index order; a whole step releases one block */
    while (!st->credit_phase && st->e >= 0 && s->ready_s[st->grad_layer[st->e]] <= s->now) {
        push_gradient(s, st, st->grad_layer[st->e]);
        st->e--;
        if ((size_t)(st->e + 1) != st->steps.step_lo[st->cur])
            continue;
        if (st->cur == 0) { /* gradient 0 collected ("met zero") */
            st->credit_phase = 1;
            st->credit_first_msg = s->n_msg;
            break;
        }
        /* block phase (step 2): Q_k = B (Delta_k + 1 ms), lowest index first,
         * stop at the first partition that does not fit */
        {
            double q = st->rate_bytes_per_s * (st->steps.gap_s[st->cur] + s->params->prophet_slack_s);
            while (st->top > 0 && q > st->stack[st->top - 1].bytes) {
                struct part p = st->stack[--st->top];
                release(st, p);
                q -= p.bytes;
            }
            if ((rc = release_flush(s, st, &n_msgs, err)))
                return rc;
        }
        st->cur--;
    }
    /* credit phase (step 3): ascending index order under a byte credit */
    while (st->credit_phase && st->top > 0 &&
           (st->credit >= st->stack[st->top - 1].bytes ||
            (st->credit_in_flight == 0 && st->n_rel == 0))) {
        struct part p = st->stack[--st->top];
        release(st, p);
        st->credit -= p.bytes;
    }
    if ((rc = release_flush(s, st, &n_msgs, err)))
        return rc;
    st->credit_in_flight += n_msgs;
    return SLO_OK;
}

static void prophet_done(struct comm_sim *s, void *state, const struct slo_comm_message *m)
{
    struct prophet_state *st = state;
    (void)s;
    if (st->credit_phase && st->n_completed >= st->credit_first_msg) {
        st->credit += m->bytes;
        st->credit_in_flight--;
    }
    st->n_completed++;
}

static const struct comm_policy_ops prophet_ops = {
    "prophet", "steps by 2x mean gap, blocks of B x (gap + 1 ms), credit tail (Prophet)", 0,
    prophet_init, prophet_step, prophet_done, prophet_fini};

const struct comm_policy_ops *comm_prophet_ops(void)
{
    return &prophet_ops;
}
