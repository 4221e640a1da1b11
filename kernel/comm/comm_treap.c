/*
 * comm_treap.c - the optimal planner's treap over the pending-gradient
 * stack (pipelined PS, pending_cap() in comm_optimal.c): the window query
 * finds the few pending gradients that can lower a block's cap in
 * O(log G) each. Moved out of comm_optimal.c unchanged.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "comm_optimal_private.h"

/* ------------------------------------------------------------------ */
/* Treap over the pending-gradient stack (pipelined PS, pending_cap())  */
/* ------------------------------------------------------------------ */

/* Heap priority of stack position i: a fixed bijective mix of i (SplitMix64's
 * finalizer), so priorities are distinct and the treap is the same on every
 * run; expected depth O(log n). */
static uint64_t tp_prio(size_t i)
{
    uint64_t z = (uint64_t)i + 0x9E3779B97F4A7C15u;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* order of the treap: by key, ties by position */
static int tp_less(const struct planner *p, size_t i, size_t j)
{
    return p->stk_key[i] < p->stk_key[j] || (p->stk_key[i] == p->stk_key[j] && i < j);
}

/* split subtree t into the nodes before i (*l) and after it (*r) */
static void tp_split(struct planner *p, size_t t, size_t i, size_t *l, size_t *r)
{
    if (t == TP_NIL) {
        *l = *r = TP_NIL;
    } else if (tp_less(p, t, i)) {
        tp_split(p, p->tp_r[t], i, &p->tp_r[t], r);
        *l = t;
    } else {
        tp_split(p, p->tp_l[t], i, l, &p->tp_l[t]);
        *r = t;
    }
}

/* join subtrees l and r, every node of l before every node of r */
static size_t tp_merge(struct planner *p, size_t l, size_t r)
{
    if (l == TP_NIL)
        return r;
    if (r == TP_NIL)
        return l;
    if (tp_prio(l) > tp_prio(r)) {
        p->tp_r[l] = tp_merge(p, p->tp_r[l], r);
        return l;
    }
    p->tp_l[r] = tp_merge(p, l, p->tp_l[r]);
    return r;
}

size_t comm_tp_insert(struct planner *p, size_t t, size_t i)
{
    if (t == TP_NIL || tp_prio(i) > tp_prio(t)) {
        tp_split(p, t, i, &p->tp_l[i], &p->tp_r[i]);
        return i;
    }
    if (tp_less(p, i, t))
        p->tp_l[t] = comm_tp_insert(p, p->tp_l[t], i);
    else
        p->tp_r[t] = comm_tp_insert(p, p->tp_r[t], i);
    return t;
}

static size_t tp_erase(struct planner *p, size_t t, size_t i)
{
    if (t == i)
        return tp_merge(p, p->tp_l[i], p->tp_r[i]);
    if (tp_less(p, i, t))
        p->tp_l[t] = tp_erase(p, p->tp_l[t], i);
    else
        p->tp_r[t] = tp_erase(p, p->tp_r[t], i);
    return t;
}

void comm_tp_truncate(struct planner *p)
{
    if (p->n_stk == 0) {
        p->tp_root = TP_NIL;
        p->tp_built = 0;
    }
    while (p->tp_built > p->n_stk) {
        p->tp_built--;
        p->tp_root = tp_erase(p, p->tp_root, p->tp_built);
    }
}

