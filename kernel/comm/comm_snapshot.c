/*
 * comm_snapshot.c - the optimal planner's snapshots: run_target's state
 * saved before the first decision a target shaped, so a later (larger)
 * target resumes there instead of from the start (pipelined PS; the
 * argument that this is exact is at run_target in comm_optimal.c). Moved
 * out of comm_optimal.c unchanged.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <string.h>

#include "comm_optimal_private.h"
#include "slo_private.h"

/* memcpy that allows n == 0 with NULL pointers (arrays not grown yet) */
static void copy_n(void *dst, const void *src, size_t n)
{
    if (n > 0)
        memcpy(dst, src, n);
}

int comm_snap_save(struct planner *p, double target, double t, size_t a, slo_error_t *err)
{
    size_t G = p->G;
    if (!p->snap.runs) {
        p->snap.runs = malloc((G + 1) * sizeof *p->snap.runs);
        p->snap.rsum = malloc((G + 1) * sizeof *p->snap.rsum);
        p->snap.rexact = malloc(G + 1);
        p->snap.gdone = malloc((G + 1) * sizeof *p->snap.gdone);
        p->snap.stk_g = malloc((G + 1) * sizeof *p->snap.stk_g);
        p->snap.stk_above = malloc((G + 1) * sizeof *p->snap.stk_above);
        p->snap.stk_max = malloc((G + 1) * sizeof *p->snap.stk_max);
        p->snap.stk_key = malloc((G + 1) * sizeof *p->snap.stk_key);
        if (!p->snap.runs || !p->snap.rsum || !p->snap.rexact || !p->snap.gdone || !p->snap.stk_g ||
            !p->snap.stk_above || !p->snap.stk_max || !p->snap.stk_key)
            return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    if (comm_opt_grow((void **)&p->snap.done_s, &p->snap.cap_done, p->tr.n + 1, sizeof(double)) ||
        comm_opt_grow((void **)&p->snap.out, &p->snap.cap_out, p->n_out + 1, sizeof *p->out) ||
        comm_opt_grow((void **)&p->snap.block_end, &p->snap.cap_blocks, p->n_blocks + 1,
             sizeof(size_t)) ||
        comm_opt_resize((void **)&p->snap.block_lowest, p->snap.cap_blocks, sizeof(size_t)))
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    p->snap.target = target;
    p->snap.t = t;
    p->snap.a = a;
    p->snap.link_free_s = p->tr.link_free_s;
    p->snap.pull_free_s = p->tr.pull_free_s;
    p->snap.tr_n = p->tr.n;
    copy_n(p->snap.done_s, p->tr.done_s, p->tr.n * sizeof(double));
    p->snap.n_runs = p->n_runs;
    copy_n(p->snap.runs, p->runs, p->n_runs * sizeof *p->runs);
    copy_n(p->snap.rsum, p->rsum, p->n_runs * sizeof *p->rsum);
    copy_n(p->snap.rexact, p->rexact, p->n_runs);
    p->snap.n_stk = p->n_stk;
    copy_n(p->snap.stk_g, p->stk_g, p->n_stk * sizeof *p->stk_g);
    copy_n(p->snap.stk_above, p->stk_above, p->n_stk * sizeof *p->stk_above);
    copy_n(p->snap.stk_max, p->stk_max, p->n_stk * sizeof *p->stk_max);
    copy_n(p->snap.stk_key, p->stk_key, p->n_stk * sizeof *p->stk_key);
    copy_n(p->snap.gdone, p->gdone, G * sizeof *p->gdone);
    p->snap.n_out = p->n_out;
    copy_n(p->snap.out, p->out, p->n_out * sizeof *p->out);
    p->snap.n_blocks = p->n_blocks;
    copy_n(p->snap.block_end, p->block_end, p->n_blocks * sizeof(size_t));
    copy_n(p->snap.block_lowest, p->block_lowest, p->n_blocks * sizeof(size_t));
    p->snap.valid = 1;
    return SLO_OK;
}

int comm_snap_restore(struct planner *p, double *t, size_t *a, slo_error_t *err)
{
    *t = p->snap.t;
    *a = p->snap.a;
    while (p->tr.cap < p->snap.tr_n)
        if (comm_transport_grow(&p->tr, err))
            return SLO_ERR_NOMEM;
    p->tr.link_free_s = p->snap.link_free_s;
    p->tr.pull_free_s = p->snap.pull_free_s;
    p->tr.n = p->snap.tr_n;
    copy_n(p->tr.done_s, p->snap.done_s, p->snap.tr_n * sizeof(double));
    p->n_runs = p->snap.n_runs;
    copy_n(p->runs, p->snap.runs, p->n_runs * sizeof *p->runs);
    copy_n(p->rsum, p->snap.rsum, p->n_runs * sizeof *p->rsum);
    copy_n(p->rexact, p->snap.rexact, p->n_runs);
    p->n_stk = p->snap.n_stk;
    copy_n(p->stk_g, p->snap.stk_g, p->n_stk * sizeof *p->stk_g);
    copy_n(p->stk_above, p->snap.stk_above, p->n_stk * sizeof *p->stk_above);
    copy_n(p->stk_max, p->snap.stk_max, p->n_stk * sizeof *p->stk_max);
    copy_n(p->stk_key, p->snap.stk_key, p->n_stk * sizeof *p->stk_key);
    p->tp_root = TP_NIL; /* the treap is rebuilt from the stack as needed */
    p->tp_built = 0;
    copy_n(p->gdone, p->snap.gdone, p->G * sizeof *p->gdone);
    p->n_out = p->n_blocks = 0;
    if (p->recording) {
        if (comm_opt_grow((void **)&p->out, &p->cap_out, p->snap.n_out + 1, sizeof *p->out) ||
            comm_opt_grow((void **)&p->block_end, &p->cap_blocks, p->snap.n_blocks + 1,
                 sizeof(size_t)) ||
            comm_opt_resize((void **)&p->block_lowest, p->cap_blocks, sizeof(size_t)))
            return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        p->n_out = p->snap.n_out;
        copy_n(p->out, p->snap.out, p->n_out * sizeof *p->out);
        p->n_blocks = p->snap.n_blocks;
        copy_n(p->block_end, p->snap.block_end, p->n_blocks * sizeof(size_t));
        copy_n(p->block_lowest, p->snap.block_lowest, p->n_blocks * sizeof(size_t));
    }
    return SLO_OK;
}

