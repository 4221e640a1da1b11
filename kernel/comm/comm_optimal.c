/*
 * comm_optimal.c - our block planner for the alpha-beta cost model, and
 * the policy replaying its static plan.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Derivation (doc/comm.md, "Optimal blocks"). Let G gradients (layers with
 * bytes) have byte offsets o_i in the flat forward-order buffer, ready times
 * r_i (non-increasing in i) and tails Fs_i = sum of the forward times of
 * their layer and every later layer. With per-layer dependencies the period
 * is T = max(Bw + F, max_i done_i + Fs_i) (slo_comm.h), so T <= T* exactly
 * when every gradient i is complete by its deadline d_i = T* - Fs_i. A
 * block (one collective, possibly gathering several byte ranges) occupies
 * the link A1 + bocc x bytes and completes A2 + bext x bytes after it
 * leaves it: serialized collectives (max_in_flight = 1): A1 = A, bocc = beta
 * (2 beta for PS: push, then pull), A2 = bext = 0; otherwise A1 = 0,
 * bocc = beta, A2 = A, bext = 0 for ring and beta for PS (pull behind push).
 *
 * 1. Tail (every gradient ready; exact). The pending bytes, cut at gradient
 *    boundaries into units u with tails Fs(u), are sent in forward order
 *    (with all releases past, largest tail first is optimal, Jackson's rule,
 *    and Fs decreases with the index), grouped by the dynamic program over
 *    the forward order
 *      h(u) = min_{v>u} [ A1 + bocc D + max(A2 + bext D + Fs(u), h(v)) ],
 *      D = bytes of units u..v-1, h(end) = -inf,
 *    the least max(done + tail) of the units from u on, relative to their
 *    start: the rest's objective shifts by exactly the first block's link
 *    time, which makes the recursion exact (bext = 0 here: for pipelined
 *    PS the tail is sent in small pieces instead, see drain()). Solved in
 *    O(U) with a monotone deque (drain()).
 * 2. During backward (for a target T*). Whenever the link can take a block,
 *    the pending bytes are sent lowest offset first (earliest deadline
 *    first), in one block as large as the deadlines allow: every gradient k
 *    still to arrive needs max(L, r_k) + bocc o_{k+1} + A1 + A2 <= d_k, where
 *    L is when the link frees (the bytes of gradients 0..k are o_{k+1}, all
 *    unsent), so the block must leave the link by
 *      M = T* + min_{k not arrived} (-Fs_k - bocc o_{k+1}) - A1 - A2
 *    (a prefix minimum, O(1) per block); a pending gradient j the block
 *    passes only partly waits for all bytes below it, so the block may go
 *    past the pending bytes up to j only if the link frees by
 *    d_j - A1 - A2 - bocc o_a (pending_cap()); and the lowest pending
 *    gradient must meet its own deadline. When less than a latency's worth fits
 *    before M, the link waits for the next arrival (inserted idle time).
 * 3. The period is not monotone in T* (a lower target forces smaller
 *    blocks), so T* is scanned on a grid from T_LB to 2 T_LB and refined
 *    around the best point, together with T* = infinity (everything pending
 *    in one block); the plan with the least simulated period is kept.
 *    The scan stops once a plan meets a lower bound on every schedule
 *    (schedule_bound()), and skips the targets above one that did not
 *    shape its plan (free_target in plan_blocks()).
 * 4. Each published policy's schedule, replayed as a static plan, is a
 *    candidate as well (consider_baselines() gives the argument that the
 *    replay is never slower than the policy, and the lower bounds that
 *    skip replays which cannot win).
 * Cost: per target O(G + blocks) (step 2 stops early), O(G) per block for
 * pipelined PS at worst (pending_cap(); it stops once no later gradient
 * can lower the cap, one look-up in a stack of the pending gradients, or
 * when the pull is backed up finds the few gradients that can in a treap
 * in O(log G) each, when the byte counts are exact),
 * plus the O(U) DP; at most 28 targets, for pipelined PS all but the
 * first finite one resumed from the state where it first depended on the
 * target (run_target()); plus one simulation of each published policy
 * that a bound does not rule out.
 * The plan is static (identical on every worker); the policy replays it,
 * so its expected times are the simulator's.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "comm_optimal_private.h"
#include "slo_private.h"

static size_t grad_at(const struct planner *p, double x)
{
    size_t lo = 0, hi = p->G; /* off[lo] <= x < off[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->off[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* grad_at(x) for x >= off[g] (x moved up from a byte of gradient g): the
 * unique i with off[i] <= x < off[i+1] (the last gradient when x is past
 * the end), as grad_at finds it, in O(1) amortized. */
static size_t grad_from(const struct planner *p, size_t g, double x)
{
    while (g + 1 < p->G && p->off[g + 1] <= x)
        g++;
    return g;
}

/* fmin() without the libm call (it is not inlined by default, and was a
 * tenth of the planning time): the same value, NaN operands included (the
 * other one is returned); of two equal values the first. */
static inline double min2(double a, double b)
{
    return a < b ? a : b < a ? b : a == a ? a : b;
}

/* x (0 <= x <= o_G) is a multiple of Q (see struct planner): x / Q, an
 * exact scaling by a power of two below 2^53, is an integer (the
 * conversion is exact for it; no libm call) */
static int on_grid(const struct planner *p, double x)
{
    double y = x * p->qscale;
    return y == (double)(int64_t)y;
}

/* Post one block of bytes taken from the bottom of the pending runs (the
 * lowest q bytes), at time t. Remainders below eps_bytes (rounding) go
 * with the block. */
static int send_lowest(struct planner *p, double t, double q, slo_error_t *err)
{
    double S, E, D, left = q, sum = 0;
    size_t lowest = p->G;
    int rc;

    p->n_take = 0;
    while (left > p->eps_bytes && p->n_runs > 0) {
        struct range *top = &p->runs[p->n_runs - 1];
        double size = top->hi - top->lo, take = min2(left, size);
        if (size - take <= p->eps_bytes)
            take = size;
        p->take[p->n_take].lo = top->lo;
        p->take[p->n_take].hi = take == size ? top->hi : top->lo + take;
        p->take[p->n_take].g = top->g;
        p->n_take++;
        sum += take;
        left -= take;
        if (take == size) {
            p->n_runs--;
        } else {
            top->lo += take;
            top->g = grad_from(p, top->g, top->lo);
        }
    }
    if (p->n_take == 0)
        return SLO_OK;
    {
        /* the stack of pending gradients loses those now fully sent */
        size_t low = p->n_runs > 0 ? p->runs[p->n_runs - 1].g : p->G;
        while (p->n_stk > 0 && p->stk_g[p->n_stk - 1] < low)
            p->n_stk--;
        if (p->tp_built > p->n_stk)
            comm_tp_truncate(p);
    }
    if ((rc = comm_transport_post(&p->tr, t, sum, &S, &E, &D, err)))
        return rc;
    for (size_t r = 0; r < p->n_take; r++) {
        double hi = p->take[r].hi;
        size_t g = p->take[r].g;
        if (g < lowest)
            lowest = g;
        /* gradients touched: each completes no earlier than D */
        for (size_t k = g; k < p->G && p->off[k] < hi; k++)
            if (D > p->gdone[k])
                p->gdone[k] = D;
        if (p->recording) {
            if (comm_opt_grow((void **)&p->out, &p->cap_out, p->n_out + 1, sizeof *p->out))
                return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
            p->out[p->n_out++] = p->take[r];
        }
    }
    if (p->recording) {
        if (comm_opt_grow((void **)&p->block_end, &p->cap_blocks, p->n_blocks + 1,
                          sizeof(size_t)) ||
            comm_opt_resize((void **)&p->block_lowest, p->cap_blocks, sizeof(size_t)))
            return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        p->block_end[p->n_blocks] = p->n_out;
        p->block_lowest[p->n_blocks] = lowest;
        p->n_blocks++;
    }
    return SLO_OK;
}

/* Step 1: the tail DP over the pending runs, then post its blocks. */
static int drain(struct planner *p, double t, slo_error_t *err)
{
    size_t U = 0;
    int rc;

    /* units: pending runs cut at gradient boundaries, ascending offsets */
    for (size_t k = p->n_runs; k-- > 0;) {
        double lo = p->runs[k].lo, hi = p->runs[k].hi;
        size_t g = p->runs[k].g;
        for (; lo < hi; g++) {
            double end = min2(hi, p->off[g + 1]);
            p->units[U].lo = lo;
            p->units[U].hi = end;
            p->ugrad[U] = g;
            U++;
            lo = end;
        }
    }
    p->n_units = U;
    p->ucum[0] = 0;
    for (size_t u = 0; u < U; u++)
        p->ucum[u + 1] = p->ucum[u] + (p->units[u].hi - p->units[u].lo);
    /* h(u) = A1 - bocc C_u + min_v [bocc C_v + max(K_u, h(v))], K_u = A2 + Fs(u),
     * C = cumulative bytes. h does not increase with u (dropping the first
     * unit of a plan never delays the rest), and K_u does not decrease as u
     * goes down, so {v : h(v) <= K_u} = [vs, U] with vs moving left: there
     * the best v is vs; below it the term is g(v) = bocc C_v + h(v), whose
     * minimum over the window [u+1, vs-1] (both ends moving left) is kept in
     * a monotone deque. O(U) in all. */
    p->h[U] = -INFINITY;
    {
        size_t vs = U, head = 0, tail = 0, *dq = p->deque;
        double *g = p->g;
        for (size_t u = U; u-- > 0;) {
            double K = p->A2 + p->tail[p->ugrad[u]], c1, c2 = INFINITY;
            size_t v = u + 1;
            if (v < U) {
                g[v] = p->bocc * p->ucum[v] + p->h[v];
                if (v < vs) {
                    while (tail > head && g[dq[tail - 1]] >= g[v])
                        tail--;
                    dq[tail++] = v;
                }
            }
            while (vs - 1 >= u + 1 && p->h[vs - 1] <= K)
                vs--;
            while (head < tail && dq[head] >= vs)
                head++;
            c1 = p->bocc * p->ucum[vs] + K;
            if (head < tail)
                c2 = g[dq[head]];
            if (c2 < c1) {
                p->h[u] = p->A1 - p->bocc * p->ucum[u] + c2;
                p->next[u] = dq[head];
            } else {
                p->h[u] = p->A1 - p->bocc * p->ucum[u] + c1;
                p->next[u] = vs;
            }
        }
    }
    if (p->ps_pipelined) {
        /* PS with several blocks in flight: a block is pulled only after its
         * whole push, so the n-th block of a back-to-back chain completes at
         * start + beta (bytes so far + largest block so far) + A; with the
         * latency overlapped, small blocks in forward order are best: cut
         * into pieces of at most piece_bytes (the DP above does not model
         * the pull chain) */
        for (size_t u = 0; u < U; u++) {
            double left = p->units[u].hi - p->units[u].lo;
            while (left > 0) {
                double q = left > p->piece_bytes ? p->piece_bytes : left;
                double av = comm_transport_avail(&p->tr);
                if (left - q < 1e-9 * left)
                    q = left;
                if ((rc = send_lowest(p, av > t ? av : t, q, err)))
                    return rc;
                left -= q;
            }
        }
        if (p->n_runs > 0) { /* rounding leftovers */
            double av = comm_transport_avail(&p->tr);
            return send_lowest(p, av > t ? av : t, INFINITY, err);
        }
        return SLO_OK;
    }
    for (size_t u = 0; u < U;) {
        size_t v = p->next[u];
        double av = comm_transport_avail(&p->tr);
        /* the last block also takes any rounding leftovers */
        if ((rc = send_lowest(p, av > t ? av : t, v == U ? INFINITY : p->ucum[v] - p->ucum[u],
                              err)))
            return rc;
        u = v;
    }
    return SLO_OK;
}

/* Largest block (bytes) started at t whose link time ends by y: the push
 * link for ring and serialized PS; for pipelined PS also the pull link,
 * which frees at max(t + beta q, pull_free) + beta q. */
static double q_for(const struct planner *p, double t, double y)
{
    if (p->ps_pipelined) {
        double a = (y - t) / (2 * p->bocc), b = (y - p->tr.pull_free_s) / p->bocc;
        return a < b ? a : b;
    }
    return (y - t - p->A1) / p->bocc;
}

/* Pipelined PS, pending_cap(): the bound after pending gradient g, whose
 * pending bytes and those of every lower gradient are cum (P_g): returns
 * min(bound, best_g) for g's largest feasible block best_g, or bound and
 * sets p->constrained when no block lets g meet its deadline. One function
 * for the scan and the window query in pending_cap(), so that both
 * evaluate a gradient with the very same floating-point operations. */
static inline double ps_gradient_cap(struct planner *p, double target, double t, size_t a,
                                     double b, double P, size_t g, double cum, double bound)
{
    double y, r1, r2, best; /* b = bocc, P = pull_free_s */
    /* need F(q) <= y: q <= P_j gives max(t + b q, P) <= y - b P_j,
     * q > P_j gives t + 2 b q <= y and P + b q <= y */
    y = target - p->tail[g] - p->A2 - b * p->off[a];
    if (P + b * cum > y) {
        /* infeasible whatever q is: ignore */
        p->constrained = 1; /* a higher target may make it count */
        return bound;
    }
    r1 = (y - b * cum - t) / b;
    /* best = min(r1, cum), or r2 when r2 > cum: with cum and r1
     * both >= bound it cannot lower the bound (skips r2) */
    if (cum >= bound && r1 >= bound)
        return bound;
    r2 = min2((y - t) / (2 * b), (y - P) / b);
    best = min2(r1, cum);
    if (r2 > cum && r2 > best)
        best = r2;
    return best < bound ? best : bound;
}

/* pending_cap()'s window query: every treap node with lo < stk_key <= hi,
 * lo rising as the bound falls (see there) */
struct ps_window {
    double target, t, base, margin2, hi, pending, bound;
    size_t a;
};

static void ps_window_visit(struct planner *p, struct ps_window *w, size_t n)
{
    while (n != TP_NIL) {
        double key = p->stk_key[n];
        if (key <= w->hi) /* keys after n are >= key */
            ps_window_visit(p, w, p->tp_r[n]);
        if (key <= w->hi && key > w->base - w->t - p->bocc * w->bound - w->margin2)
            w->bound = ps_gradient_cap(p, w->target, w->t, w->a, p->bocc, p->tr.pull_free_s,
                                       p->stk_g[n], w->pending - p->stk_above[n], w->bound);
        if (!(key > w->base - w->t - p->bocc * w->bound - w->margin2))
            return; /* keys before n are <= key */
        n = p->tp_l[n];
    }
}

/* Largest q <= q0 with, for every pending gradient j (ascending), q <= P_j
 * or the link frees by d_j - A1 - A2 - bocc o_a (q_for), P_j = pending bytes of
 * gradients <= j. Stops once P_j passes the bound: later j cannot lower it.
 * pending: the pending bytes (sum over the runs, as run_target has it). */
static double pending_cap(struct planner *p, double target, double t, size_t a,
                          double q0, double pending)
{
    double bound = q0, cum = 0;
    if (p->ps_pipelined) {
        /* PS: a block is pulled only after its whole push (store and
         * forward), so the bytes up to j finish no earlier than
         * max(t + beta q, pull_free) + beta (o_a + max(P_j, q)) + A: the
         * block size matters even when it stops below j.
         *
         * Early stop (the result and the constrained flag as without it).
         * Per feasible j the loop below computes best_j = r2 when r2 > P_j,
         * else min(r1, P_j) (the skip is only a shortcut: with P_j and r1
         * >= bound, best_j >= bound), so best_j >= min(r1, P_j) always;
         * the result is min(q0, min_j best_j). Once P_j >= bound (it only
         * grows with j), every later j leaves the bound and the flag as
         * they are if it is feasible with r1 >= bound, i.e. if
         *   z_j = y_j - bocc P_j >= max(t + bocc bound, pull_free)
         * (only t + bocc bound when the flag is already set: an infeasible
         * j only sets it). z_j = target - A2 - bocc o_a - w_j with
         * w_j = Fs_j + bocc P_j, and P_j = pending - above_j, above_j the
         * pending bytes of gradients > j: a block takes the lowest pending
         * bytes and an arrival is below every pending byte, so above_j is
         * fixed while j is pending. The stack (stk_*, lowest on top, kept
         * by run_target and send_lowest) holds per pending gradient
         * Fs_j - bocc above_j and the maximum of it over the gradients
         * above, so max_{later j} w_j is one look-up. The test is in
         * floating point against sums of at most G + 2 terms each
         * (P_j here, above_j there, pending in run_target) of terms of
         * size <= bocc o_G; the margin of (2 G + 16) DBL_EPSILON S, S the
         * sum of the magnitudes involved, covers their rounding, so
         * the stop never skips a j that the loop would have used.
         *
         * Window query (the same result and flag). The stop fails when the
         * pull is backed up (pull_free about t + bocc bound or later): the
         * later j that block it are infeasible ones, which change nothing
         * once the flag is set, or a few deep in the stack, and the loop
         * walked the whole stack per block (50,000 layers: 7.8 s). By the above, a later j can change the
         * bound only if z_j < t + bocc bound, and only if it is feasible,
         * z_j >= pull_free; in keys k_j = Fs_j - bocc above_j, z_j =
         * base - k_j: lo < k_j <= hi with lo = base - t - bocc bound - 2 m
         * and hi = base - pull_free + 2 m (m the margin; twice it covers
         * the rounding of base, k_j, lo and hi besides that of the loop's
         * own test, each a few DBL_EPSILON S). A treap of the stack
         * entries ordered by key yields exactly these j (and maybe some
         * visited already, which the minimum takes twice, harmlessly),
         * each evaluated by ps_gradient_cap() as the loop would; the
         * bound only falls, so lo only rises while the query runs. The
         * flag: set already, or some later j has k_j > hi (zmin <
         * pull_free - 2 m), which the loop finds infeasible. The loop's
         * P_j is a running sum from the top, this one pending - above_j:
         * they are the same double when every byte count involved is
         * exact, checked as: every offset and the lower end of every
         * pending run (its upper end is an offset) are multiples of
         * Q = 2^(E-53), o_G < 2^E (on_grid(), rexact[]). Then every difference and every sum of such counts
         * (at most o_G) is a multiple of Q below 2^53 Q, representable,
         * so no operation rounds: the loop's P_j, pending (rsum) and
         * above_j (built at arrivals from ends that are still ends of
         * pending runs or offsets: a gradient's pending bytes only lose
         * their lowest part once every lower gradient is sent) are the
         * exact byte counts. Otherwise, or with few entries left, the
         * loop goes on as before. Cost O((1 + window) log G) per block,
         * plus O(log G) per stack entry entered into or dropped from the
         * treap. */
        double b = p->bocc, P = p->tr.pull_free_s;
        double base = target - p->A2 - b * p->off[a] - b * pending;
        double margin = (2.0 * (double)p->G + 16) * DBL_EPSILON *
                        (fabs(target) + fabs(t) + (isfinite(P) ? fabs(P) : 0) +
                         2 * b * p->off[p->G] + p->tail[0] + p->A2);
        size_t left = p->n_stk; /* stack entries not visited yet */
        for (size_t k = p->n_runs; k-- > 0;) {
            double lo = p->runs[k].lo, hi = p->runs[k].hi;
            size_t g = p->runs[k].g;
            for (; lo < hi; g++) {
                double end = min2(hi, p->off[g + 1]);
                if (cum >= bound && left > 0 && !p->full_scan) {
                    /* min over gradients g and above of z_j */
                    double zmin = base - p->stk_max[left - 1];
                    if (zmin - t >= b * bound + margin &&
                        (p->constrained || zmin >= P + margin))
                        return bound;
                    if (left >= 32 && (p->constrained || zmin < P - 2 * margin) &&
                        p->off_exact && (p->n_runs < 2 || p->rexact[p->n_runs - 2]) &&
                        on_grid(p, p->runs[p->n_runs - 1].lo)) {
                        /* window query (see above): some later j infeasible
                         * (the loop sets the flag), or the flag is set */
                        struct ps_window w;
                        p->constrained = 1;
                        while (p->tp_built < left) {
                            p->tp_root = comm_tp_insert(p, p->tp_root, p->tp_built);
                            p->tp_built++;
                        }
                        w.target = target;
                        w.t = t;
                        w.a = a;
                        w.base = base;
                        w.margin2 = 2 * margin;
                        w.hi = base - P + 2 * margin;
                        w.pending = pending;
                        w.bound = bound;
                        ps_window_visit(p, &w, p->tp_root);
                        return w.bound;
                    }
                }
                if (left > 0)
                    left--;
                cum += end - lo;
                lo = end;
                bound = ps_gradient_cap(p, target, t, a, b, P, g, cum, bound);
            }
        }
        return bound;
    }
    for (size_t k = p->n_runs; k-- > 0;) {
        double lo = p->runs[k].lo, hi = p->runs[k].hi;
        size_t g = p->runs[k].g;
        for (; lo < hi; g++) {
            double end = min2(hi, p->off[g + 1]), c;
            cum += end - lo;
            if (cum >= bound)
                return bound;
            c = q_for(p, t, target - p->tail[g] - p->A1 - p->A2 - p->bocc * p->off[a]);
            if (c < bound && cum < bound)
                bound = c > cum ? c : cum;
            lo = end;
        }
    }
    return bound;
}

/* Steps 1-2 for target T*; returns the period of the resulting plan.
 *
 * Pipelined PS: the first run with a finite target x saves its state
 * just before its first decision that sets p->constrained (comm_snap_save, comm_snapshot.c:
 * after that iteration's arrivals, before it waits or sends), and a later
 * run with target x' >= x starts from there (comm_snap_restore). Exact: up to
 * that point every decision of x left the flag unset, so it sent
 * min(pending, piece) (the caps were at least that, and the waits and the
 * ignored gradients set the flag); every cap is a non-decreasing function
 * of the target in floating point too (sums, differences and quotients by
 * positive constants, min and max: q_for(), the own-deadline cap,
 * pending_cap() per gradient as shown at free_target in plan_blocks(), and
 * the set of infeasible gradients there only shrinks), so at x' on the
 * same state every decision was the same unconstrained one, and the steps
 * without a target (arrivals, the drain's start, waits for an empty
 * queue) are the same: the run of x' reaches the very same state there.
 * Re-running that iteration's arrival steps on the restored state changes
 * nothing (they were done). In the bench's PS cases the first such
 * decision comes after about 95 % of the blocks. */

static int run_target(struct planner *p, double target, double *period, slo_error_t *err)
{
    size_t a = p->G; /* gradients >= a have arrived */
    double t = p->r[p->G - 1], T;
    double qmin = (p->A1 + p->A2) / p->bocc;
    int rc, take = 0; /* take: save the state at the first constrained decision */

    p->constrained = 0;
    p->recording = p->record;
    if (p->ps_pipelined && isfinite(target) && p->snap.valid && target >= p->snap.target) {
        if ((rc = comm_snap_restore(p, &t, &a, err)))
            return rc;
    } else {
        take = p->ps_pipelined && isfinite(target) && !p->snap.valid;
        p->recording = p->record || take;
        p->tr.n = 0;
        p->tr.link_free_s = p->tr.pull_free_s = -INFINITY;
        p->n_runs = 0;
        p->n_stk = 0;
        comm_tp_truncate(p);
        p->n_out = 0;
        p->n_blocks = 0;
        for (size_t g = 0; g < p->G; g++)
            p->gdone[g] = -INFINITY;
    }
    for (;;) {
        double av = comm_transport_avail(&p->tr), pending, q, first_part, cap;
        size_t g0;
        int wait = 0;
        if (av > t)
            t = av;
        while (a > 0 && p->r[a - 1] <= t) {
            a--;
            if (p->ps_pipelined) {
                /* push gradient a: every pending byte is above it */
                size_t i = p->n_stk;
                double above = 0, key;
                if (i > 0 && p->n_runs > 0)
                    above = p->stk_above[i - 1] +
                            (p->off[p->stk_g[i - 1] + 1] - p->runs[p->n_runs - 1].lo);
                key = p->tail[a] - p->bocc * above;
                p->stk_g[i] = a;
                p->stk_above[i] = above;
                p->stk_key[i] = key;
                p->stk_max[i] = i > 0 && p->stk_max[i - 1] > key ? p->stk_max[i - 1] : key;
                p->n_stk = i + 1;
            }
            if (p->n_runs > 0 && p->runs[p->n_runs - 1].lo == p->off[a + 1]) {
                p->runs[p->n_runs - 1].lo = p->off[a];
                p->runs[p->n_runs - 1].g = grad_from(p, a, p->off[a]);
            } else {
                if (p->n_runs > 0) /* the top run stays as it is below the new one */
                    p->rsum[p->n_runs - 1] =
                        (p->n_runs > 1 ? p->rsum[p->n_runs - 2] : 0) +
                        (p->runs[p->n_runs - 1].hi - p->runs[p->n_runs - 1].lo);
                if (p->n_runs > 0 && p->off_exact)
                    p->rexact[p->n_runs - 1] =
                        (p->n_runs > 1 ? p->rexact[p->n_runs - 2] : 1) &&
                        on_grid(p, p->runs[p->n_runs - 1].lo);
                p->runs[p->n_runs].lo = p->off[a];
                p->runs[p->n_runs].hi = p->off[a + 1];
                p->runs[p->n_runs].g = grad_from(p, a, p->off[a]);
                p->n_runs++;
            }
        }
        if (a == 0) {
            if ((rc = drain(p, t, err)))
                return rc;
            break;
        }
        if (p->n_runs == 0) {
            t = p->r[a - 1];
            continue;
        }
        pending = (p->n_runs > 1 ? p->rsum[p->n_runs - 2] : 0) +
                  (p->runs[p->n_runs - 1].hi - p->runs[p->n_runs - 1].lo);
        if (pending <= p->eps_bytes) {
            /* at most eps_bytes pending: remainders that small went with
             * their block (send_lowest()), so these are whole gradients.
             * Below eps_left they are rounding leftovers and dropped; else
             * a tiny gradient (a 4-byte scalar in a 4 GB model, which was
             * dropped and stalled the replay) waits for the next arrival
             * and goes with later bytes, or with the tail (drain()) */
            if (pending <= p->eps_left) {
                p->n_runs = p->n_stk = 0;
                comm_tp_truncate(p);
            }
            t = p->r[a - 1];
            continue;
        }
        /* step 2: leave the link by M for the gradients still to arrive */
        q = isfinite(target)
                ? q_for(p, t, target + p->pmin[a] - p->A1 - p->A2)
                : INFINITY;
        if (q < pending && (q < qmin || q <= p->eps_bytes)) {
            wait = 1; /* for the next arrival */
            p->constrained = 1;
        } else {
            if (q > pending)
                q = pending;
            g0 = p->runs[p->n_runs - 1].g;
            first_part = min2(p->runs[p->n_runs - 1].hi, p->off[g0 + 1]) -
                         p->runs[p->n_runs - 1].lo;
            if (isfinite(target)) {
                /* the lowest pending gradient meets its own deadline if it can */
                cap = q_for(p, t, target - p->tail[g0] - p->A2);
                if (cap < first_part)
                    cap = first_part;
                if (q > cap)
                    q = cap;
                /* pending gradient j left partly unsent waits for every byte
                 * of lower index: q may pass the pending bytes up to j (P_j)
                 * only if t + A1 + bocc (q + o_a) + A1 + A2 <= d_j.
                 * Pipelined PS: the block is cut to a piece below anyway, and
                 * pending_cap(q0) = min(q0, c) for a c that does not depend on
                 * q0, so capping q0 first gives min(q, piece) as before; the
                 * tests below see only min(q, piece) as well (piece >= qmin =
                 * A / beta > eps_bytes, and q <= pending <= piece when pending
                 * is at most a piece). A smaller q0 lets pending_cap stop
                 * sooner. */
                if (p->ps_pipelined && q > p->piece_bytes)
                    q = p->piece_bytes;
                q = pending_cap(p, target, t, a, q, pending);
                /* without a target the block is every pending byte, for
                 * pipelined PS cut to a piece */
                if (q < (p->ps_pipelined && pending > p->piece_bytes ? p->piece_bytes
                                                                     : pending))
                    p->constrained = 1;
                if ((q < first_part && q < qmin) || q <= p->eps_bytes)
                    wait = 1;
            }
        }
        if (take && p->constrained) {
            /* the first decision the target shaped: nothing of it applied yet */
            if ((rc = comm_snap_save(p, target, t, a, err)))
                return rc;
            take = 0;
        }
        if (wait) {
            t = p->r[a - 1];
            continue;
        }
        if (p->ps_pipelined && q > p->piece_bytes)
            q = p->piece_bytes;
        if ((rc = send_lowest(p, t, q, err)))
            return rc;
    }
    T = p->floor_s;
    for (size_t g = 0; g < p->G; g++)
        if (p->gdone[g] + p->tail[g] > T)
            T = p->gdone[g] + p->tail[g];
    *period = T;
    return SLO_OK;
}

static void planner_free(struct planner *p)
{
    free(p->off);
    free(p->r);
    free(p->tail);
    free(p->gbytes);
    free(p->pmin);
    free(p->gdone);
    free(p->grad_of);
    free(p->runs);
    free(p->rsum);
    free(p->rexact);
    free(p->take);
    free(p->units);
    free(p->ugrad);
    free(p->ucum);
    free(p->h);
    free(p->next);
    free(p->g);
    free(p->deque);
    free(p->stk_g);
    free(p->stk_above);
    free(p->stk_max);
    free(p->stk_key);
    free(p->tp_l);
    free(p->tp_r);
    free(p->out);
    free(p->block_end);
    free(p->block_lowest);
    free(p->snap.done_s);
    free(p->snap.rsum);
    free(p->snap.rexact);
    free(p->snap.gdone);
    free(p->snap.stk_above);
    free(p->snap.stk_max);
    free(p->snap.stk_key);
    free(p->snap.runs);
    free(p->snap.out);
    free(p->snap.stk_g);
    free(p->snap.block_end);
    free(p->snap.block_lowest);
    comm_transport_free(&p->tr);
    memset(p, 0, sizeof *p);
}

static int consider_baselines(const struct comm_sim *s, struct planner *p, slo_error_t *err);
static double schedule_bound(const struct comm_sim *s, const struct planner *p, int pol);

static int plan_blocks(const struct comm_sim *s, struct planner *p, slo_error_t *err)
{
    size_t G = 0;
    int rc, serialized = s->link->max_in_flight == 1;
    int ps = s->link->collective == SLO_COMM_PS;
    double beta = slo_comm_bytes_factor(s->link) / s->link->bandwidth_bytes_per_s;
    double A = slo_comm_message_latency_s(s->link), lb, lo, hi, best_T, best_target, T, bound;
    double free_target = INFINITY;

    memset(p, 0, sizeof *p);
    for (size_t j = 0; j < s->n; j++)
        G += comm_bytes(s, j) > 0;
    p->G = G;
    p->off = malloc((G + 1) * sizeof *p->off);
    p->r = malloc(G * sizeof *p->r);
    p->tail = malloc(G * sizeof *p->tail);
    p->gbytes = malloc(G * sizeof *p->gbytes);
    p->pmin = malloc((G + 1) * sizeof *p->pmin);
    p->gdone = malloc(G * sizeof *p->gdone);
    p->grad_of = malloc(s->n * sizeof *p->grad_of);
    p->runs = malloc((G + 1) * sizeof *p->runs);
    p->rsum = malloc((G + 1) * sizeof *p->rsum);
    p->take = malloc((G + 1) * sizeof *p->take);
    p->units = malloc((2 * G + 2) * sizeof *p->units);
    p->ugrad = malloc((2 * G + 2) * sizeof *p->ugrad);
    p->ucum = malloc((2 * G + 3) * sizeof *p->ucum);
    p->h = malloc((2 * G + 3) * sizeof *p->h);
    p->next = malloc((2 * G + 3) * sizeof *p->next);
    p->g = malloc((2 * G + 3) * sizeof *p->g);
    p->deque = malloc((2 * G + 3) * sizeof *p->deque);
    p->stk_g = malloc((G + 1) * sizeof *p->stk_g);
    p->stk_above = malloc((G + 1) * sizeof *p->stk_above);
    p->stk_max = malloc((G + 1) * sizeof *p->stk_max);
    comm_transport_init(&p->tr, s->link);
    if (!p->off || !p->r || !p->tail || !p->gbytes || !p->pmin || !p->gdone || !p->grad_of ||
        !p->runs || !p->rsum || !p->take || !p->units || !p->ugrad || !p->ucum || !p->h ||
        !p->next || !p->g || !p->deque || !p->stk_g || !p->stk_above || !p->stk_max)
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    p->tp_root = TP_NIL;
    if (ps && !serialized) { /* pipelined PS: pending_cap()'s stack and treap */
        p->stk_key = malloc((G + 1) * sizeof *p->stk_key);
        p->tp_l = malloc((G + 1) * sizeof *p->tp_l);
        p->tp_r = malloc((G + 1) * sizeof *p->tp_r);
        p->rexact = malloc(G + 1);
        p->full_scan = s->full_scan;
        if (!p->stk_key || !p->tp_l || !p->tp_r || !p->rexact)
            return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    for (size_t j = 0, i = 0; j < s->n; j++) {
        p->grad_of[j] = comm_bytes(s, j) > 0 ? i : G;
        if (comm_bytes(s, j) > 0) {
            p->off[i] = s->offset[j];
            p->r[i] = s->ready_s[j];
            p->tail[i] = s->tail_s[j];
            p->gbytes[i] = comm_bytes(s, j);
            i++;
        }
    }
    p->off[G] = s->offset[s->n];
    /* 1/Q = 2^(53 - E), E = ilogb(o_G) + 1; only for pipelined PS (the
     * window query) and 0 < o_G < 2^53, so that 1/Q >= 1 and x / Q
     * (x <= o_G) neither overflows nor underflows */
    p->off_exact = ps && !serialized && p->off[G] > 0 && p->off[G] < 0x1p53;
    p->qscale = p->off_exact ? ldexp(1.0, 52 - ilogb(p->off[G])) : 1;
    for (size_t g = 0; g <= G && p->off_exact; g++)
        p->off_exact = on_grid(p, p->off[g]);
    /* rounding: 1e-9 of all bytes for block sizes and remainders; pending
     * bytes are dropped as leftovers only below half the smallest gradient
     * too, so that no gradient can pass for one (run_target(); keeping a
     * tiny gradient changes only plans that dropped it, whose replay
     * stalled). */
    p->eps_bytes = 1e-9 * p->off[G];
    p->eps_left = p->eps_bytes;
    for (size_t g = 0; g < G; g++)
        if (0.5 * p->gbytes[g] < p->eps_left)
            p->eps_left = 0.5 * p->gbytes[g];
    p->floor_s = s->backward_s + s->forward_s;
    if (serialized) {
        p->A1 = A;
        p->bocc = ps ? 2 * beta : beta;
        p->A2 = p->bext = 0;
    } else {
        p->A1 = 0;
        p->bocc = beta;
        p->A2 = A;
        p->bext = ps ? beta : 0;
        p->ps_pipelined = ps;
        /* a piece's store-and-forward lag is at most the larger of the
         * latency and 1/1024 of the whole transfer */
        p->piece_bytes = fmax(A / beta, p->off[G] / 1024.0);
    }
    p->pmin[0] = INFINITY;
    for (size_t k = 0; k < G; k++) {
        double v = -p->tail[k] - p->bocc * p->off[k + 1];
        p->pmin[k + 1] = v < p->pmin[k] ? v : p->pmin[k];
    }

    /* step 3: targets from T_LB up; the period is not monotone in the
     * target (a lower one forces smaller blocks), so scan, then refine.
     * Two shortcuts that leave the result as it was (a later target only
     * replaces the best plan when strictly lower):
     *  - no schedule at all beats schedule_bound(s, p, -1): once the best
     *    plan meets it, no target can do better (but for rounding), and
     *    consider_baselines() returns at once as well;
     *  - free_target: when run_target(x) reports that the target never
     *    shaped the plan (p->constrained = 0: every block was all pending
     *    bytes, for pipelined PS cut to a piece, as with no target, and no
     *    wait or ignored gradient was due to it), every target x' > x
     *    gives the very same plan: each cap run_target derives from the
     *    target (q_for(), the own-deadline cap, pending_cap(), whose PS
     *    branch takes per gradient the largest feasible block, which does
     *    not decrease with the deadline y) does not decrease with it, so
     *    on the same trajectory (same t, link and pull free times, runs)
     *    none binds at x' either; so targets >= x are skipped. */
    if ((rc = slo_comm_lower_bound(s->model, s->link, &lb, NULL, NULL, err)) ||
        (rc = run_target(p, INFINITY, &best_T, err)))
        return rc;
    best_target = INFINITY;
    bound = schedule_bound(s, p, -1);
    if (best_T > bound) {
        static const double grid[] = {0,     0.001, 0.002, 0.004, 0.006, 0.01, 0.015,
                                      0.02,  0.03,  0.05,  0.08,  0.12,  0.2,  0.35,
                                      0.6,   1.0};
        const size_t n_grid = sizeof grid / sizeof grid[0];
        size_t best_k = n_grid;
        for (size_t k = 0; k < n_grid && best_T > bound; k++) {
            if (lb * (1 + grid[k]) >= free_target)
                break; /* the same plan as at free_target */
            if ((rc = run_target(p, lb * (1 + grid[k]), &T, err)))
                return rc;
            if (!p->constrained)
                free_target = lb * (1 + grid[k]);
            if (T < best_T) {
                best_T = T;
                best_target = lb * (1 + grid[k]);
                best_k = k;
            }
        }
        if (best_k < n_grid) {
            lo = lb * (1 + (best_k > 0 ? grid[best_k - 1] : 0));
            hi = lb * (1 + (best_k + 1 < n_grid ? grid[best_k + 1] : 2 * grid[best_k]));
            for (int it = 1; it < 12 && best_T > bound; it++) {
                double x = lo + (hi - lo) * it / 12.0;
                if (x >= free_target)
                    break;
                if ((rc = run_target(p, x, &T, err)))
                    return rc;
                if (!p->constrained)
                    free_target = x;
                if (T < best_T) {
                    best_T = T;
                    best_target = x;
                }
            }
        }
    }
    p->record = 1;
    if ((rc = run_target(p, best_target, &T, err)))
        return rc;
    return consider_baselines(s, p, err);
}

/* ------------------------------------------------------------------ */
/* Step 4: the published schedules as static candidates                 */
/* ------------------------------------------------------------------ */

/* Period of a static plan replayed as the policy below does: block b is
 * posted at max(ready time of its lowest gradient, post time of block b-1)
 * and its ranges complete when the block does; T as in run_target. */
static int replay_period(const struct comm_sim *s, const struct planner *p, size_t n_blocks,
                         const size_t *block_end, const struct range *out,
                         const size_t *block_lowest, double *period, slo_error_t *err)
{
    struct comm_transport tr;
    double post = -INFINITY, T = p->floor_s;
    int rc = SLO_OK;

    comm_transport_init(&tr, s->link);
    for (size_t g = 0; g < p->G; g++)
        p->gdone[g] = p->r[g];
    for (size_t b = 0; b < n_blocks && rc == SLO_OK; b++) {
        size_t from = b ? block_end[b - 1] : 0;
        double bytes = 0, st, en, dn;
        if (p->r[block_lowest[b]] > post)
            post = p->r[block_lowest[b]];
        for (size_t k = from; k < block_end[b]; k++)
            bytes += out[k].hi - out[k].lo;
        if ((rc = comm_transport_post(&tr, post, bytes, &st, &en, &dn, err)))
            break;
        for (size_t k = from; k < block_end[b]; k++)
            for (size_t g = out[k].g; g < p->G && p->off[g] < out[k].hi; g++)
                if (dn > p->gdone[g])
                    p->gdone[g] = dn;
    }
    comm_transport_free(&tr);
    for (size_t g = 0; g < p->G; g++)
        if (p->gdone[g] + p->tail[g] > T)
            T = p->gdone[g] + p->tail[g];
    *period = T;
    return rc;
}

/*
 * Every published policy's schedule is also a static plan: its collectives
 * in the order it posted them. Replayed statically each collective is
 * posted no later than the policy posted it (at the ready time of its
 * bytes or when the previous one was posted, both of which the policy
 * waited for), the transport is monotone in the post times, and a
 * barrier's period is at least the per-layer one; so the replayed period
 * is at most the policy's own. Keeping the best of these candidates and
 * the deadline plans makes the planner never worse than any baseline on
 * the same model and link; it usually wins outright (bench/bench_comm).
 * A baseline that cannot run (too many messages for its chunk size) is
 * skipped. Replaces the recorded plan when a candidate's period is lower.
 */
/* Collectives of policy pol carrying bytes of gradient i, at least: FIFO
 * and PRIO post every gradient whole, on its own (comm_policies.c:
 * fifo_step, chunk_step with chunk = infinity); P3 and ByteScheduler post
 * pieces of at most their chunk of one gradient each (chunk_step), Prophet
 * with PS ceil(s_i / partition) equal pieces of one gradient each
 * (comm_prophet.c: push_gradient, release_flush; with ring allreduce it may
 * merge adjacent partitions into one collective (serialized, latency > 0),
 * so it counts as a fusion
 * policy here); so gradient i needs at least s_i / chunk of them, and a
 * count is an integer: ceil, shaved by 1e-12 so that a ratio rounded up
 * across an integer cannot claim one piece too many. The fusion policies
 * (Horovod, DDP) and the planner itself: 0 (the gradients 0..k as a whole
 * still need one). tests/test_comm.c (test_schedule_bounds_hold) checks
 * every policy's messages against this count. */
static double pieces_of(const struct comm_sim *s, int pol, double bytes);

/* Bytes of the first collective (in post order) of policy pol that
 * carries bytes of a gradient of `bytes` bytes, at least: the whole
 * gradient for FIFO and PRIO (on its own) and for Horovod and DDP (fused
 * with others); P3 and ByteScheduler cut from the gradient's first byte
 * up, min(chunk, bytes) first (chunk_step); Prophet's equal pieces
 * bytes / ceil(bytes / partition) (push_gradient; ring merges whole
 * pieces, which only makes a collective larger); shaved by 1e-12 for
 * rounding; 0 for the planner (any schedule). Checked by
 * test_schedule_bounds_hold. */
static double first_collective(const struct comm_sim *s, int pol, double bytes)
{
    double x = 0;
    if (pol == SLO_COMM_FIFO || pol == SLO_COMM_PRIO || pol == SLO_COMM_HOROVOD ||
        pol == SLO_COMM_DDP)
        return bytes;
    if (pol == SLO_COMM_P3)
        x = min2(s->params->p3_slice_bytes, bytes);
    else if (pol == SLO_COMM_BYTESCHEDULER)
        x = min2(s->params->bs_partition_bytes, bytes);
    else if (pol == SLO_COMM_PROPHET)
        x = bytes / ceil(bytes / s->params->prophet_partition_bytes); /* as push_gradient */
    return x * (1 - 1e-12);
}

static double pieces_of(const struct comm_sim *s, int pol, double bytes)
{
    double chunk = pol == SLO_COMM_P3              ? s->params->p3_slice_bytes
                   : pol == SLO_COMM_BYTESCHEDULER ? s->params->bs_partition_bytes
                   : pol == SLO_COMM_PROPHET       ? s->params->prophet_partition_bytes
                                                   : 0;
    if (pol == SLO_COMM_FIFO || pol == SLO_COMM_PRIO)
        return 1;
    if (chunk <= 0 || (pol == SLO_COMM_PROPHET && s->link->collective == SLO_COMM_RING))
        return 0;
    return ceil(bytes / chunk * (1 - 1e-12));
}

/*
 * A lower bound on the period of any schedule of policy pol (pol < 0: of
 * any schedule at all), and so on its replay below and on every plan of
 * run_target. For every gradient k: every collective carrying bytes of
 * gradients 0..k is posted no earlier than r_k (they are ready then at the
 * earliest; a replayed block waits for its lowest gradient), and together
 * they carry at least o_{k+1} bytes. Let N_k be the least number of them
 * (pieces_of summed over i <= k, at least 1).
 *  - Serialized (max in flight 1): a collective starts after the previous
 *    one is done, and is done at least A + bocc x after its start (ring:
 *    D = S + beta x + A; PS: the pull starts at max(E, pull free) >= E and
 *    takes beta x, D >= S + 2 beta x + A); so the last of them is done at
 *    D >= r_k + bocc o_{k+1} + N_k A.
 *  - Otherwise (several in flight; A1 = 0, A2 = A): the pushes share one
 *    FIFO link and start at or after r_k, so the last leaves it at
 *    E >= r_k + beta o_{k+1}, and is done at D >= E + A (ring D = E + A,
 *    PS D = pull end + A >= E + A).
 *    With PS (A2 = A, bext = beta; ring: bext = 0) the pulls, too, go one
 *    after the other in post order, each after its own push: the first
 *    of these collectives, of x_1 bytes, is pulled no earlier than
 *    r_k + beta x_1, and the last pull ends no earlier than
 *    r_k + beta x_1 + beta o_{k+1}; x_1 >= X_k, the least first
 *    collective of the gradients 0..k (first_collective()).
 * Either way D >= r_k + bocc o_{k+1} + N_k A1 + bext X_k + A2 for the last
 * of them (done last: serialized, or the FIFO pulls). That collective
 * carries bytes of some gradient j <= k, whose forward cannot start before
 * D and is followed by the forward of layers after it: T >= D + Fs_j >=
 * D + Fs_k (Fs does not increase with the index). And T >= Bw + F. O(G).
 */
static double schedule_bound(const struct comm_sim *s, const struct planner *p, int pol)
{
    double T = p->floor_s, N = 0, M = -INFINITY, X = INFINITY;
    int ready_order = pol == SLO_COMM_FIFO || pol == SLO_COMM_HOROVOD || pol == SLO_COMM_DDP;
    for (size_t k = 0; k < p->G; k++) {
        double v;
        if (pol >= 0) {
            N += pieces_of(s, pol, p->gbytes[k]);
            X = min2(X, first_collective(s, pol, p->gbytes[k]));
        } else {
            X = 0;
        }
        v = p->r[k] + p->bocc * p->off[k + 1] + (N > 1 ? N : 1) * p->A1 + p->bext * X +
            p->A2 + p->tail[k];
        if (v > T)
            T = v;
    }
    if (!ready_order)
        return T;
    /* Ready order (FIFO, Horovod, DDP post whole gradients, a collective
     * carrying gradient j no later than one carrying i < j: fifo_step,
     * hvd_step, ddp_step). Let c be the last collective carrying bytes of
     * gradient k. For any m >= k every collective carrying bytes of
     * gradients k..m is posted no later than c, and no earlier than r_m;
     * the link takes them in post order (FIFO), so c leaves it at
     * E >= r_m + beta (o_{m+1} - o_k), and with serialized collectives is
     * done at D >= r_m + bocc (o_{m+1} - o_k) + N A, N >= 1 the number of
     * them (FIFO: m - k + 1, one per gradient). As above D >= ... +
     * bext s_k + A2 (c carries gradient k whole) and T >= D + Fs_k. So,
     * with n_m = collectives of gradients 0..m (FIFO: m + 1; fusion: none
     * counted, one latency added),
     *   T >= max_{m>=k} [r_m + bocc o_{m+1} + A1 n_m] - bocc o_k
     *        - A1 n_{k-1} + A1 [fusion] + bext s_k + A2 + Fs_k.
     * In FIFO order gradient 0, needed first, goes last: with k = 0 this is
     * every byte after the first arrival, then A and the whole forward. */
    for (size_t k = p->G; k-- > 0;) {
        double n_m = pol == SLO_COMM_FIFO ? (double)(k + 1) : 0, v;
        double n_before = pol == SLO_COMM_FIFO ? (double)k : 0;
        v = p->r[k] + p->bocc * p->off[k + 1] + p->A1 * n_m;
        if (v > M)
            M = v;
        v = M - p->bocc * p->off[k] - p->A1 * n_before +
            (pol == SLO_COMM_FIFO ? 0 : p->A1) + p->bext * (p->off[k + 1] - p->off[k]) +
            p->A2 + p->tail[k];
        if (v > T)
            T = v;
    }
    return T;
}

/*
 * Every published policy's schedule is also a static plan: its collectives
 * in the order it posted them. Replayed statically each collective is
 * posted no later than the policy posted it (at the ready time of its
 * bytes or when the previous one was posted, both of which the policy
 * waited for), the transport is monotone in the post times, and a
 * barrier's period is at least the per-layer one; so the replayed period
 * is at most the policy's own. Keeping the best of these candidates and
 * the deadline plans makes the planner never worse than any baseline on
 * the same model and link; it usually wins outright (bench/bench_comm).
 * A baseline that cannot run (too many messages for its chunk size) is
 * skipped. Replaces the recorded plan when a candidate's period is lower.
 * A plan that meets schedule_bound(-1) is optimal: no replay can beat it;
 * a policy whose schedule_bound(pol) is not below the plan cannot win (its
 * replay is one of its schedules) and is not simulated: on
 * communication-bound serialized links that skips P3's thousands of
 * slices. The property test checks the outcome against every policy.
 */
static int consider_baselines(const struct comm_sim *s, struct planner *p, slo_error_t *err)
{
    double best;
    int rc;

    if ((rc = replay_period(s, p, p->n_blocks, p->block_end, p->out, p->block_lowest, &best,
                            err)))
        return rc;
    if (best <= schedule_bound(s, p, -1))
        return SLO_OK;
    for (int pol = 0; pol < SLO_COMM_N_POLICIES; pol++) {
        struct slo_comm_result r;
        struct range *out = NULL;
        size_t *end = NULL, *lowest = NULL, nb = 0;
        double T;
        slo_error_t e2;

        if (pol == SLO_COMM_OPTIMAL || schedule_bound(s, p, pol) >= best)
            continue;
        rc = slo_comm_simulate(s->model, s->link, s->params, pol, &r, &e2);
        if (rc == SLO_ERR_NOMEM)
            return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        if (rc)
            continue; /* e.g. more slices than SLO_COMM_MAX_MESSAGES */
        out = malloc((r.n_messages + 1) * sizeof *out);
        end = malloc((r.n_blocks + 1) * sizeof *end);
        lowest = malloc((r.n_blocks + 1) * sizeof *lowest);
        if (!out || !end || !lowest) {
            free(out);
            free(end);
            free(lowest);
            slo_comm_result_free(&r);
            return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        }
        for (size_t k = 0; k < r.n_messages; k++) {
            const struct slo_comm_message *m = &r.messages[k];
            size_t g = p->grad_of[m->first_layer];
            /* the gradient of the message's first layer holds its first
             * byte (zero-size layers hold none); else search */
            if (!(g < p->G && p->off[g] <= m->offset_bytes && m->offset_bytes < p->off[g + 1]))
                g = grad_at(p, m->offset_bytes);
            out[k].lo = m->offset_bytes;
            out[k].hi = m->offset_bytes + m->bytes;
            out[k].g = g;
            if (k == 0 || m->block != r.messages[k - 1].block) {
                lowest[nb] = g;
                nb++;
            } else if (g < lowest[nb - 1]) {
                lowest[nb - 1] = g;
            }
            end[nb - 1] = k + 1;
        }
        slo_comm_result_free(&r);
        rc = nb ? replay_period(s, p, nb, end, out, lowest, &T, err) : SLO_OK;
        if (nb == 0)
            T = INFINITY;
        if (rc == SLO_OK && T < best) {
            best = T;
            free(p->out);
            free(p->block_end);
            free(p->block_lowest);
            p->out = out;
            p->block_end = end;
            p->block_lowest = lowest;
            p->n_out = p->cap_out = end[nb - 1];
            p->n_blocks = p->cap_blocks = nb;
            continue;
        }
        free(out);
        free(end);
        free(lowest);
        if (rc)
            return rc;
    }
    return SLO_OK;
}

/* ------------------------------------------------------------------ */
/* The policy: replay the plan; block b is posted once its bytes are     */
/* ready and block b-1 has been posted.                                 */
/* ------------------------------------------------------------------ */

struct optimal_state {
    struct planner p;
    size_t next;
    double *lo, *len; /* scratch for one block's ranges */
};

static void optimal_fini(void *state)
{
    struct optimal_state *st = state;
    if (st) {
        planner_free(&st->p);
        free(st->lo);
        free(st->len);
    }
    free(st);
}

static int optimal_init(struct comm_sim *s, void **state, slo_error_t *err)
{
    struct optimal_state *st = calloc(1, sizeof *st);
    int rc;
    if (!st)
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    if ((rc = plan_blocks(s, &st->p, err))) {
        optimal_fini(st);
        return rc;
    }
    st->lo = malloc((st->p.n_out + 1) * sizeof *st->lo);
    st->len = malloc((st->p.n_out + 1) * sizeof *st->len);
    if (!st->lo || !st->len) {
        optimal_fini(st);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    *state = st;
    return SLO_OK;
}

static int optimal_step(struct comm_sim *s, void *state, slo_error_t *err)
{
    struct optimal_state *st = state;
    const struct planner *p = &st->p;
    int rc;
    while (st->next < p->n_blocks && p->r[p->block_lowest[st->next]] <= s->now) {
        size_t b = st->next++, from = b ? p->block_end[b - 1] : 0, n = 0;
        for (size_t k = from; k < p->block_end[b]; k++) {
            /* merge ranges that touch */
            if (n > 0 && fabs(st->lo[n - 1] + st->len[n - 1] - p->out[k].lo) <= 1e-9) {
                st->len[n - 1] += p->out[k].hi - p->out[k].lo;
                continue;
            }
            st->lo[n] = p->out[k].lo;
            st->len[n] = p->out[k].hi - p->out[k].lo;
            n++;
        }
        if ((rc = comm_post_block(s, n, st->lo, st->len, err)))
            return rc;
    }
    return SLO_OK;
}

static const struct comm_policy_ops optimal_ops = {
    "optimal", "ours: deadline-sized blocks, tail grouped by DP over the forward order", 0,
    optimal_init, optimal_step, NULL, optimal_fini};

const struct comm_policy_ops *comm_optimal_ops(void)
{
    return &optimal_ops;
}
