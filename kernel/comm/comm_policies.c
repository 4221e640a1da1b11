/*
 * comm_policies.c - the published baseline schedulers as simulator
 * policies: FIFO (wait-free backprop), PRIO (TicTac-style whole-tensor
 * priority), P3, ByteScheduler, Horovod tensor fusion, PyTorch DDP buckets.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Each follows "Simulate as" of shared/research/prophet.md section 2 (cited
 * as notes 2.N). Layer index = priority: lower index = needed first by the
 * next forward pass = more urgent.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "comm_private.h"
#include "slo_private.h"

/* Lowest layer index whose gradient is ready: ready times do not increase
 * with the index, so the ready set is always {a, .., n-1}. */
static size_t lowest_ready(const struct comm_sim *s, size_t a)
{
    while (a > 0 && s->ready_s[a - 1] <= s->now)
        a--;
    return a;
}

/* ------------------------------------------------------------------ */
/* FIFO / wait-free backprop (notes 2.1): each gradient whole, as soon as */
/* it is ready, in ready order; nothing held back.                     */
/* ------------------------------------------------------------------ */

struct fifo_state {
    size_t next; /* layers >= next have been posted */
};

static int fifo_init(struct comm_sim *s, void **state, slo_error_t *err)
{
    struct fifo_state *st = calloc(1, sizeof *st);
    if (!st)
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    st->next = s->n;
    *state = st;
    return SLO_OK;
}

static int fifo_step(struct comm_sim *s, void *state, slo_error_t *err)
{
    struct fifo_state *st = state;
    int rc;
    while (st->next > 0 && s->ready_s[st->next - 1] <= s->now) {
        size_t j = --st->next;
        if (comm_bytes(s, j) > 0 && (rc = comm_post(s, s->offset[j], comm_bytes(s, j), err)))
            return rc;
    }
    return SLO_OK;
}

/* ------------------------------------------------------------------ */
/* Chunked priority: PRIO (notes 2.2), P3 (notes 2.3), ByteScheduler    */
/* (notes 2.4). Gradients are cut into chunks of at most `chunk` bytes  */
/* (the last one smaller); the lowest-index ready chunk goes first.     */
/* PRIO and P3 hand a chunk to the transport only when it can start it  */
/* at once (the send side picks by priority at that moment);            */
/* ByteScheduler hands chunks over while its byte credit is > 0 and     */
/* gets the credit back on completion (bytecore.py: test "credit > 0",  */
/* so the window may overshoot by one partition).                       */
/* ------------------------------------------------------------------ */

enum chunk_mode { CHUNK_PRIO, CHUNK_P3, CHUNK_BS };

struct chunk_state {
    enum chunk_mode mode;
    double chunk;
    double credit, credit_max;
    size_t a;       /* lowest ready layer */
    double *posted; /* [n] bytes of layer j posted so far */
    /* ready layers with bytes still to post, lowest index on top: layers
     * become ready from the highest index down, so a newly ready layer is
     * always below every one in the stack, and the policy always takes the
     * top. O(1) amortized per chunk (a scan from `a` over fully posted
     * layers made P3 quadratic in the number of layers). */
    size_t *stack;
    size_t top;
};

static int chunk_init_mode(struct comm_sim *s, void **state, enum chunk_mode mode,
                           slo_error_t *err)
{
    struct chunk_state *st = calloc(1, sizeof *st);
    if (!st || !(st->posted = calloc(s->n, sizeof *st->posted)) ||
        !(st->stack = malloc(s->n * sizeof *st->stack))) {
        if (st)
            free(st->posted);
        free(st);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    st->mode = mode;
    st->chunk = mode == CHUNK_PRIO  ? INFINITY
                : mode == CHUNK_P3 ? s->params->p3_slice_bytes
                                   : s->params->bs_partition_bytes;
    st->credit = st->credit_max = s->params->bs_credit_bytes;
    st->a = s->n;
    *state = st;
    return SLO_OK;
}

static int prio_init(struct comm_sim *s, void **state, slo_error_t *err)
{
    return chunk_init_mode(s, state, CHUNK_PRIO, err);
}
static int p3_init(struct comm_sim *s, void **state, slo_error_t *err)
{
    return chunk_init_mode(s, state, CHUNK_P3, err);
}
static int bs_init(struct comm_sim *s, void **state, slo_error_t *err)
{
    return chunk_init_mode(s, state, CHUNK_BS, err);
}

static int chunk_step(struct comm_sim *s, void *state, slo_error_t *err)
{
    struct chunk_state *st = state;
    int rc;

    {
        size_t a = lowest_ready(s, st->a);
        for (size_t j = st->a; j-- > a;)
            if (comm_bytes(s, j) > 0)
                st->stack[st->top++] = j;
        st->a = a;
    }
    for (;;) {
        size_t j;
        double len;
        while (st->top > 0 && st->posted[st->stack[st->top - 1]] >=
                                  comm_bytes(s, st->stack[st->top - 1]))
            st->top--;
        if (st->top == 0)
            return SLO_OK; /* nothing ready and unposted: wait for a ready event */
        j = st->stack[st->top - 1];
        if (st->mode == CHUNK_BS) {
            if (!(st->credit > 0))
                return SLO_OK; /* wait for a completion */
        } else if (!comm_link_idle(s)) {
            comm_wake_at(s, comm_transport_avail(&s->tr));
            return SLO_OK;
        }
        len = fmin(st->chunk, comm_bytes(s, j) - st->posted[j]);
        if ((rc = comm_post(s, s->offset[j] + st->posted[j], len, err)))
            return rc;
        st->posted[j] += len;
        st->credit -= len;
    }
}

static void chunk_done(struct comm_sim *s, void *state, const struct slo_comm_message *m)
{
    struct chunk_state *st = state;
    (void)s;
    st->credit = fmin(st->credit + m->bytes, st->credit_max);
}

static void chunk_fini(void *state)
{
    struct chunk_state *st = state;
    if (st) {
        free(st->posted);
        free(st->stack);
    }
    free(st);
}

/* ------------------------------------------------------------------ */
/* Horovod tensor fusion (notes 2.6): at every cycle boundary k x cycle  */
/* (boundaries aligned to the backward start), all gradients ready and  */
/* not yet sent are packed in ready order into fusion buffers of at     */
/* most the threshold (a larger tensor goes alone) and sent FIFO.       */
/* ------------------------------------------------------------------ */

static int hvd_step(struct comm_sim *s, void *state, slo_error_t *err)
{
    struct fifo_state *st = state;
    double cycle = s->params->hvd_cycle_s, thr = s->params->hvd_fusion_bytes;
    double k, boundary, lo, top;
    size_t a = lowest_ready(s, st->next);
    int rc;

    if (a == st->next)
        return SLO_OK; /* nothing new is ready */
    k = ceil(s->now / cycle - 1e-9);
    boundary = k * cycle;
    if (boundary > s->now + 1e-12 * fmax(1.0, s->now)) {
        comm_wake_at(s, boundary);
        return SLO_OK;
    }
    /* the buffer is the byte range [lo, top) of the layers packed so far,
     * taken from the offsets: a running sum of the sizes, posted at
     * top - sum, came out below 0 or below the lowest layer's first byte
     * with fractional sizes (the same with whole bytes < 2^53) */
    top = lo = s->offset[st->next];
    for (size_t j = st->next; j-- > a;) {
        double b = comm_bytes(s, j);
        if (b == 0)
            continue;
        if (lo < top && (top - lo) + b > thr) {
            if ((rc = comm_post(s, lo, top - lo, err)))
                return rc;
            top = lo;
        }
        lo = s->offset[j];
    }
    if (lo < top && (rc = comm_post(s, lo, top - lo, err)))
        return rc;
    st->next = a;
    return SLO_OK;
}

/* ------------------------------------------------------------------ */
/* PyTorch DDP (notes 2.7): static buckets filled in reverse layer order, */
/* closed once they reach the cap (1 MiB for the first, 25 MiB after);  */
/* a bucket is sent when all its gradients are ready and every earlier  */
/* bucket has been sent.                                                */
/* ------------------------------------------------------------------ */

struct ddp_state {
    size_t n_buckets, next;
    double *lo, *hi;  /* byte range of bucket k */
    size_t *lowest;   /* lowest layer of bucket k (ready last) */
};

static void ddp_fini(void *state)
{
    struct ddp_state *st = state;
    if (st) {
        free(st->lo);
        free(st->hi);
        free(st->lowest);
    }
    free(st);
}

static int ddp_init(struct comm_sim *s, void **state, slo_error_t *err)
{
    struct ddp_state *st = calloc(1, sizeof *st);
    double size = 0, top = s->offset[s->n];
    size_t k = 0;

    if (!st || !(st->lo = malloc(s->n * sizeof *st->lo)) ||
        !(st->hi = malloc(s->n * sizeof *st->hi)) ||
        !(st->lowest = malloc(s->n * sizeof *st->lowest))) {
        ddp_fini(st);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    for (size_t j = s->n; j-- > 0;) {
        double cap = k == 0 ? s->params->ddp_first_bucket_bytes : s->params->ddp_bucket_bytes;
        if (comm_bytes(s, j) == 0)
            continue;
        size += comm_bytes(s, j);
        st->lowest[k] = j;
        if (size >= cap) {
            st->lo[k] = s->offset[j];
            st->hi[k] = top;
            top = s->offset[j];
            size = 0;
            k++;
        }
    }
    if (size > 0) {
        st->lo[k] = s->offset[st->lowest[k]];
        st->hi[k] = top;
        k++;
    }
    st->n_buckets = k;
    *state = st;
    return SLO_OK;
}

static int ddp_step(struct comm_sim *s, void *state, slo_error_t *err)
{
    struct ddp_state *st = state;
    int rc;
    while (st->next < st->n_buckets && s->ready_s[st->lowest[st->next]] <= s->now) {
        size_t k = st->next++;
        if ((rc = comm_post(s, st->lo[k], st->hi[k] - st->lo[k], err)))
            return rc;
    }
    return SLO_OK;
}

static void free_state(void *state)
{
    free(state);
}

static const struct comm_policy_ops baselines[] = {
    {"fifo", "wait-free backprop: each gradient whole when ready, in ready order", 0,
     fifo_init, fifo_step, NULL, free_state},
    {"prio", "whole gradients, lowest layer first when the link is free (TicTac)", 0,
     prio_init, chunk_step, NULL, chunk_fini},
    {"p3", "160 KB slices, lowest layer first when the link is free (P3)", 0, p3_init,
     chunk_step, NULL, chunk_fini},
    {"bytescheduler", "4 MB partitions, priority queue, 16 MB credit (ByteScheduler)", 0,
     bs_init, chunk_step, chunk_done, chunk_fini},
    {"horovod", "fusion buffer 128 MiB every 1 ms cycle, ready order, barrier (Horovod)", 1,
     fifo_init, hvd_step, NULL, free_state},
    {"ddp", "buckets of 25 MiB (first 1 MiB) in reverse order, barrier (PyTorch DDP)", 1,
     ddp_init, ddp_step, NULL, ddp_fini},
};

const struct comm_policy_ops *comm_baseline_ops(int policy)
{
    if (policy < 0 || (size_t)policy >= sizeof baselines / sizeof baselines[0])
        return NULL;
    return &baselines[policy];
}
