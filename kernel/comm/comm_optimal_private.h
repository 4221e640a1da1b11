/*
 * comm_optimal_private.h - the optimal block planner's state, shared by its
 * three parts (not installed): the planner (comm_optimal.c), the treap
 * window query over the pending-gradient stack (comm_treap.c) and the
 * snapshots that let a later target resume a run (comm_snapshot.c). The
 * derivation is at the top of comm_optimal.c.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_COMM_OPTIMAL_PRIVATE_H
#define SLO_COMM_OPTIMAL_PRIVATE_H

#include <stdint.h>
#include <stdlib.h>

#include "comm_private.h"

#define TP_NIL SIZE_MAX

struct range {
    double lo, hi;
    size_t g; /* the gradient holding byte lo: grad_at(lo), kept up to date
               * as lo moves up (a binary search per block per target cost
               * half the planning time) */
};

struct planner {
    size_t G;
    double *off;  /* [G+1] */
    double *r;    /* [G] */
    double *tail; /* [G] */
    double *gbytes; /* [G] bytes of gradient k (comm_bytes() of its layer) */
    double *pmin; /* [G+1] pmin[a] = min_{k<a} (-Fs_k - bocc o_{k+1}) */
    double *gdone; /* [G] */
    size_t *grad_of; /* [n layers] gradient index of a layer with bytes, else G */
    double A1, bocc, A2, bext;
    double floor_s; /* Bw + F */
    int ps_pipelined;
    double piece_bytes; /* PS pipelined: largest block */
    struct comm_transport tr;
    /* pending bytes: runs in descending offset, the lowest on top */
    struct range *runs;
    size_t n_runs;
    /* rsum[k] = bytes of runs 0..k summed in that order, for k < n_runs - 1:
     * only the top run changes (a block takes from it, an arrival extends
     * it) until it is gone, so the sum over the runs is rsum[n_runs - 2] +
     * the top run, the very same floating-point sum as the loop over all
     * runs it replaces */
    double *rsum;
    /* Exact byte sums (pending_cap()'s window query): Q = 2^(E-53) with
     * o_G < 2^E, qscale = 1/Q; off_exact: every offset is a multiple of Q
     * (pipelined PS only); rexact[k] (k < n_runs - 1, kept with rsum when
     * off_exact): the lower ends of runs 0..k are (the upper end of a run
     * is an offset: set when the run is made, only lo moves) */
    double qscale;
    int off_exact;
    unsigned char *rexact;
    struct range *take; /* ranges of the block being sent */
    size_t n_take;
    /* PS pipelined: the pending gradients as a stack, the lowest on top
     * (pending_cap()): gradient, pending bytes above it, and the running
     * maximum of tail - bocc x above from the bottom up */
    size_t *stk_g;
    double *stk_above, *stk_max;
    double *stk_key; /* tail - bocc x above of each entry, as pushed */
    size_t n_stk;
    /* PS pipelined: stack entries 0 .. tp_built-1 (tp_built <= n_stk) in a
     * treap ordered by (stk_key, position), children tp_l/tp_r (TP_NIL:
     * none), for pending_cap()'s window query; filled lazily by it */
    size_t *tp_l, *tp_r;
    size_t tp_root, tp_built;
    double eps_bytes;   /* block sizes this small are rounding: 1e-9 of all bytes */
    double eps_left;    /* pending bytes this small are dropped as rounding
                         * leftovers: eps_bytes, but below half the least
                         * gradient */
    /* tail DP over units */
    struct range *units;
    size_t *ugrad;
    double *ucum, *h, *g;
    size_t *next, *deque;
    size_t n_units;
    /* the recorded plan */
    int record;
    int recording; /* send_lowest records: record, or a run that may take a snapshot */
    /* PS pipelined: the state of the first finite target's run just before
     * its first decision the target shaped (see run_target) */
    struct {
        int valid;
        double target, t, link_free_s, pull_free_s;
        size_t a, tr_n, n_runs, n_stk, n_out, n_blocks;
        size_t cap_done, cap_out, cap_blocks;
        double *done_s, *rsum, *gdone, *stk_above, *stk_max, *stk_key;
        unsigned char *rexact;
        struct range *runs, *out;
        size_t *stk_g, *block_end, *block_lowest;
    } snap;
    /* full_scan (comm_oracle.h): pending_cap() visits every pending
     * gradient (no early stop, no window query), for tests/test_comm.c to
     * compare the plans with and without them */
    int full_scan;
    /* set by run_target when the target shaped the plan (see there) */
    int constrained;
    struct range *out;       /* ranges */
    size_t n_out, cap_out;
    size_t *block_end;       /* block b holds out[block_end[b-1] .. block_end[b]) */
    size_t *block_lowest;    /* lowest gradient of block b: ready at r[.] */
    size_t n_blocks, cap_blocks;
};

/* *ptr resized to n elements of size bytes (n > 0); on failure -1 and
 * the old array stays (planner_free() frees it) */
static inline int comm_opt_resize(void **ptr, size_t n, size_t size)
{
    void *np = realloc(*ptr, n * size);
    if (!np)
        return -1;
    *ptr = np;
    return 0;
}

static inline int comm_opt_grow(void **ptr, size_t *cap, size_t need, size_t size)
{
    size_t ncap = *cap ? *cap : 64;
    if (need <= *cap)
        return 0;
    while (ncap < need)
        ncap *= 2;
    if (comm_opt_resize(ptr, ncap, size))
        return -1;
    *cap = ncap;
    return 0;
}

/* comm_treap.c: stack entries 0 .. tp_built-1 in a treap ordered by
 * (stk_key, position), for pending_cap()'s window query. */
/* Insert stack position i into subtree t; returns the new root. */
size_t comm_tp_insert(struct planner *p, size_t t, size_t i);
/* The stack shrank to n_stk entries: drop the treap's entries above it. */
void comm_tp_truncate(struct planner *p);

/* comm_snapshot.c: run_target's state (see there). SLO_ERR_NOMEM only. */
/* Copy the state of run_target (t, a and everything a block or an
 * arrival changes) into p->snap, for target `target`. */
int comm_snap_save(struct planner *p, double target, double t, size_t a, slo_error_t *err);
/* The state saved by comm_snap_save back into p; *t and *a. The recorded
 * blocks only when p->recording. */
int comm_snap_restore(struct planner *p, double *t, size_t *a, slo_error_t *err);

#endif
