/*
 * igniter_plan.c - iGniter's interference-aware greedy placement (notes 2.2;
 * HEAD algorithm() + alloc_gpus()) with the upstream defects of notes 5.2
 * fixed, GPU types with prices, the FFD / GSLICE-like / gpu-lets-like
 * baselines (notes 2.5) and an independent plan verifier.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"
#include "slo_infer.h"
#include "infer_private.h"

#define SHARE_EPS 1e-9 /* shares are multiples of u; sums of 2.5 are exact */

/* A unit to place on one GPU type: a workload, or the residual of a split one. */
struct item {
    size_t w;          /* workload index */
    int model;         /* model index in the type's profile */
    double rate_rps;
    double slo_half_ms;
    int batch;
    double bound_ms;   /* latency bound at this batch: min(T', t_load + 1000 b / rate),
                          so a latency within it also serves the rate */
    double r_low_pct;  /* sort key and share it is added with (notes 2.2 step 3) */
    double r_new_pct;  /* share when it opens a GPU: r_low raised until its solo
                          latency holds (upstream used r_low unchecked) */
    double transfer_ms; /* (d_in + d_out) b / B */
    unsigned long alt_mask; /* bit b-1: batch b < batch needs the same r_low; tried,
                               largest first, when the batch does not fit on a GPU
                               (interference-aware greedy): a smaller batch
                               interferes less with its co-runners */
};

struct slot {
    size_t item;
    double share_pct;
    double t_act0_ms, power_w, l2_pct; /* solo terms at share_pct (notes 1.2.2-1.2.6) */
};

struct gpu {
    int dedicated;
    double total_pct;
    size_t n;
    struct slot *s; /* [cap] */
    /* Co-runner refusal (c->mono; cleared by tree_set on any change): a
     * tried item whose solo power and L2 are at least ref_power_w, ref_l2_pct
     * makes at least ref_ex co-runners violate their bounds in the first
     * raise round (their latencies only grow with its power and L2), so it
     * fails here when its r_low + ref_ex u overflows 100 %. */
    int ref_ok;
    size_t ref_ex;
    double ref_power_w, ref_l2_pct;
};

/*
 * Per-GPU answers of one (model, batch, r_low) to "may this GPU take it?"
 * (issue 19, item 5): a min tree over the GPUs of the first-round class of
 * the last try there (try_gpu's cls): +inf refused whatever the item's
 * latency bound, a latency tau (taken unraised when the bound is >= tau,
 * refused otherwise), -inf unknown (tried). A GPU's leaf returns to -inf
 * (or +inf when it has no room for r_low) whenever the GPU changes
 * (c->chg), so a GPU is skipped only when the full scan's try there is
 * known to fail.
 */
struct ktree {
    double *t;          /* [2 * leaves]; leaves at leaves + j */
    size_t leaves;      /* c->tree_leaves when filled */
    size_t cursor;      /* entries of c->chg applied */
    unsigned long used; /* c->stamp of the last item that used it */
    long key;           /* (model * SLO_IG_MAX_BATCH + batch - 1) * n_rs + r_low / u; -1 free */
    double r;           /* r_low, % */
};

#ifndef KT_POOL
#define KT_POOL 48 /* trees kept (reused round robin) */
#endif
#ifndef KT_REFILL
#define KT_REFILL 4 /* a tree more than leaves / KT_REFILL changes behind starts afresh */
#endif

struct ctx {
    const struct slo_ig_profile *p;
    size_t type;
    struct item *items;
    size_t n_items, cap_items;
    struct gpu *gpus;
    size_t n_gpus, cap_gpus;
    /* Dedicated GPUs of split workloads: (workload, model, batch, rate). */
    struct slot *ded;       /* item field = workload; share 100 */
    int *ded_batch;
    int *ded_model;
    double *ded_rate;
    size_t n_ded, cap_ded;
    size_t slot_cap;        /* max tenants per GPU: floor(100/u) + 1 */
    struct slot *work;      /* [slot_cap + 1] scratch */
    /* Index of the GPUs by share in use (issue 19, item 5): a min tree over
     * gpus[j].total_pct (+inf for an empty GPU or one at slot_cap), so the
     * greedy and consolidate visit, in index order, only the GPUs with room
     * for a share instead of all of them; the GPUs it skips are those
     * try_gpu would refuse first, so plans are those of the full scan. */
    double *tree;           /* [2 * tree_leaves]; leaves at tree_leaves + j */
    size_t tree_leaves;     /* power of two >= cap_gpus */
    int scan;               /* 1: visit every GPU (the test oracle, SLO__IG_SCAN) */
    int exact;              /* u is a dyadic rational (2.5 = 5/2): every share and sum
                               of shares is exact in double, so a GPU that takes an
                               item at its r_low unraised cannot be beaten (later
                               GPUs need strictly less) and the visit stops there */
    /* The answer trees (struct ktree), used when exact && !scan: */
    int kcache;             /* 1: in use (0 after an allocation failure: full visits) */
    struct ktree kt[KT_POOL];
    int *kt_of;             /* [n_models * SLO_IG_MAX_BATCH * n_rs]: pool index or -1 */
    size_t n_rs;            /* r_low values: floor(100 / u) + 2 */
    size_t *chg;            /* GPUs changed, in order [n_chg] */
    size_t n_chg, cap_chg;
    unsigned long stamp;    /* items planned so far: trees with used == stamp are in use */
    int kt_hand;            /* the pool's next tree to reuse (round robin) */
    struct slot xs[SLO_IG_MAX_BATCH + 1]; /* try_gpu's last solo terms per batch, */
    int xs_model[SLO_IG_MAX_BATCH + 1];   /* of model xs_model - 1 (0: none) */
    size_t r0_ex;           /* try_gpu with cls: co-runners the first round raised when
                               that alone fails the try (0: not so) */
    int mono;               /* 1: latencies only grow with the co-runners' shares
                               (monotone_model): a try that fails at a bound fails
                               at every smaller one */
};

static void kcache_off(struct ctx *c);

static double dmin(double a, double b) /* fmin for numbers that are never NaN, inline */
{
    return b < a ? b : a;
}

/* The GPU index: leaf key of GPU j, update after a change to GPU j. */
static double tree_key(const struct ctx *c, size_t j)
{
    const struct gpu *g = &c->gpus[j];
    return (g->n == 0 || g->n >= c->slot_cap) ? INFINITY : g->total_pct;
}

static void tree_set(struct ctx *c, size_t j)
{
    size_t v;
    if (j < c->n_gpus)
        c->gpus[j].ref_ok = 0;
    if (c->kcache) { /* the answer trees forget GPU j */
        if (c->n_chg == c->cap_chg) {
            size_t ncap = c->cap_chg ? 2 * c->cap_chg : 256;
            size_t *nc = realloc(c->chg, ncap * sizeof *nc);
            if (!nc)
                kcache_off(c);
            else {
                c->chg = nc;
                c->cap_chg = ncap;
            }
        }
        if (c->kcache)
            c->chg[c->n_chg++] = j;
    }
    if (!c->tree || j >= c->tree_leaves)
        return;
    v = c->tree_leaves + j;
    c->tree[v] = tree_key(c, j);
    for (v >>= 1; v >= 1; v >>= 1)
        c->tree[v] = dmin(c->tree[2 * v], c->tree[2 * v + 1]);
}

/* (Re)build the index for cap_gpus GPUs. */
static int tree_build(struct ctx *c)
{
    size_t leaves = 1;
    double *t;
    while (leaves < c->cap_gpus)
        leaves *= 2;
    t = malloc(2 * leaves * sizeof *t);
    if (!t)
        return SLO_ERR_NOMEM;
    for (size_t v = 0; v < 2 * leaves; v++)
        t[v] = INFINITY;
    for (size_t j = 0; j < c->n_gpus; j++)
        t[leaves + j] = tree_key(c, j);
    for (size_t v = leaves - 1; v >= 1; v--)
        t[v] = dmin(t[2 * v], t[2 * v + 1]);
    free(c->tree);
    c->tree = t;
    c->tree_leaves = leaves;
    return SLO_OK;
}

/* First leaf i >= j, i < n, of the min-tree t whose value is <= thr, or n
 * when none. t: P leaves (a power of two >= n), leaf i at t[P + i], node v
 * the least of t[2v] and t[2v + 1], the root t[1]. Both indexes search
 * with it: the GPUs' share tree and the answer trees. */
static inline size_t tree_first(const double *t, size_t P, size_t n, size_t j, double thr)
{
    size_t v;
    if (j >= n)
        return n;
    v = P + j;
    if (t[v] <= thr)
        return j;
    for (;;) { /* up to the first right sibling holding a leaf <= thr */
        if (v == 1)
            return n;
        if (!(v & 1) && t[v + 1] <= thr) {
            v++;
            break;
        }
        v >>= 1;
    }
    while (v < P) /* down to its leftmost such leaf */
        v = t[2 * v] <= thr ? 2 * v : 2 * v + 1;
    return v - P < n ? v - P : n;
}

/* First GPU index >= j that may take share r (total + r <= 100, tenant
 * count below the cap, not empty), or c->n_gpus when none: a superset of
 * the GPUs try_gpu accepts (its own test still decides). Full scan: j. */
static size_t next_gpu(const struct ctx *c, size_t j, double r)
{
    double thr = 100.0 + SHARE_EPS - r + 1e-7; /* looser than try_gpu's test */
    if (c->scan || !c->tree)
        return j;
    return tree_first(c->tree, c->tree_leaves, c->n_gpus, j, thr);
}

static void kt_put(struct ktree *kt, size_t j, double v)
{
    size_t x = kt->leaves + j;
    kt->t[x] = v;
    for (x >>= 1; x >= 1; x >>= 1) {
        double m = dmin(kt->t[2 * x], kt->t[2 * x + 1]);
        if (kt->t[x] == m)
            break; /* the rest of the path holds already */
        kt->t[x] = m;
    }
}

/* Nothing known: every leaf -inf (the share index says which GPUs have room). */
static void kt_fill(const struct ctx *c, struct ktree *kt)
{
    size_t total = 2 * kt->leaves, done = 1;
    kt->t[0] = -INFINITY;
    while (done < total) { /* doubling copies: memcpy's speed, not a store loop's */
        size_t k = done < total - done ? done : total - done;
        memcpy(kt->t + done, kt->t, k * sizeof *kt->t);
        done += k;
    }
    kt->cursor = c->n_chg;
}

static void kcache_off(struct ctx *c)
{
    for (size_t i = 0; i < KT_POOL; i++) {
        free(c->kt[i].t);
        c->kt[i].t = NULL;
        c->kt[i].key = -1;
        c->kt[i].leaves = 0;
    }
    free(c->kt_of);
    c->kt_of = NULL;
    free(c->chg);
    c->chg = NULL;
    c->n_chg = c->cap_chg = 0;
    c->kcache = 0;
}

/* kt's leaves made as many as the GPU index's (c->tree_leaves; contents
 * left to kt_fill): 0, or -1 out of memory with the cache turned off
 * (kcache_off). */
static int kt_resize(struct ctx *c, struct ktree *kt)
{
    double *t = realloc(kt->t, 2 * c->tree_leaves * sizeof *t);
    if (!t) {
        kcache_off(c);
        return -1;
    }
    kt->t = t;
    kt->leaves = c->tree_leaves;
    return 0;
}

/* The answer tree of (model, batch, r), up to date with c->chg, or NULL
 * (no cache: visit as the share index says). Never returns a tree used by
 * the current item to another key. */
static struct ktree *kt_get(struct ctx *c, int model, int batch, double r)
{
    size_t ri, nkeys;
    long key;
    int idx;
    struct ktree *kt;

    if (!c->kcache || !c->tree || batch < 1 || batch > SLO_IG_MAX_BATCH || !(r >= 0.0))
        return NULL;
    ri = (size_t)floor(r / c->p->unit_pct + 0.5);
    if (ri >= c->n_rs || (double)ri * c->p->unit_pct != r)
        return NULL;
    nkeys = c->p->n_models * SLO_IG_MAX_BATCH * c->n_rs;
    if (!c->kt_of) {
        c->kt_of = malloc(nkeys * sizeof *c->kt_of);
        if (!c->kt_of) {
            kcache_off(c);
            return NULL;
        }
        for (size_t k = 0; k < nkeys; k++)
            c->kt_of[k] = -1;
    }
    key = (long)(((size_t)model * SLO_IG_MAX_BATCH + (size_t)(batch - 1)) * c->n_rs + ri);
    idx = c->kt_of[key];
    if (idx < 0) { /* the next tree round the pool that this item does not use */
        for (int k = 0; k < KT_POOL && idx < 0; k++) {
            int i = c->kt_hand;
            c->kt_hand = (c->kt_hand + 1) % KT_POOL;
            if (c->kt[i].key < 0 || c->kt[i].used < c->stamp)
                idx = i;
        }
        if (idx < 0)
            return NULL;
        kt = &c->kt[idx];
        if (kt->key >= 0)
            c->kt_of[kt->key] = -1;
        kt->key = -1;
        if (kt->leaves != c->tree_leaves && kt_resize(c, kt))
            return NULL;
        kt->key = key;
        kt->r = r;
        c->kt_of[key] = idx;
        kt_fill(c, kt);
    } else {
        kt = &c->kt[idx];
        if (kt->leaves != c->tree_leaves) { /* the GPU index grew */
            if (kt_resize(c, kt))
                return NULL;
            kt_fill(c, kt);
        } else if (c->n_chg - kt->cursor > kt->leaves / KT_REFILL) {
            kt_fill(c, kt);
        } else {
            for (size_t e = kt->cursor; e < c->n_chg; e++) {
                const struct gpu *g = &c->gpus[c->chg[e]];
                /* try_gpu's own first test: refused at once, else unknown */
                kt_put(kt, c->chg[e],
                       g->n == 0 || g->n >= c->slot_cap || g->total_pct + r > 100.0 + SHARE_EPS
                           ? INFINITY
                           : -INFINITY);
            }
            kt->cursor = c->n_chg;
        }
    }
    kt->used = c->stamp;
    return kt;
}

/* First GPU index >= j whose leaf in kt is <= thr (a try there may
 * succeed for an item with latency bound thr), or c->n_gpus. */
static size_t kt_next(const struct ctx *c, const struct ktree *kt, size_t j, double thr)
{
    return tree_first(kt->t, kt->leaves, c->n_gpus, j, thr);
}

static void solo_terms(const struct slo_ig_profile *p, const struct slo_ig_model *m, int batch,
                       struct slot *s)
{
    double t = slo_ig_active_solo_ms(m, batch, s->share_pct);
    double h0 = 1000.0 * batch / t;
    s->t_act0_ms = t;
    s->power_w = m->kp_w_per_rps * h0 + m->bp_w;
    s->l2_pct = m->kc_pct_per_rps * h0 + m->bc_pct;
    (void)p;
}

/*
 * One round of notes 1.2 on slots[n] (cached solo terms); raise every
 * violator by u (HEAD alloc_gpus() inner loop). Returns the number raised,
 * or -1 when a modelled term is not positive (outside the fitted range).
 * tight: the shares already sum to more than 100 % - u (exactly), so any
 * raise overflows and the try fails: the round stops at the first violator
 * and returns -2 (*ex_raised 1 when it is one of s[0..n-2], else 0 with
 * *last_lat the latency of s[n-1]); s is then left half-updated.
 */
static int raise_round(const struct ctx *c, struct slot *s, size_t n, size_t *ex_raised,
                       double *last_lat, int tight)
{
    const struct slo_ig_profile *p = c->p;
    double power = p->idle_power_w, l2 = 0.0, clock = p->max_clock_mhz, delta;
    int raised = 0, last_raised = 0;

    for (size_t i = 0; i < n; i++) {
        if (!(s[i].t_act0_ms > 0.0))
            return -1;
        power += s[i].power_w;
        l2 += s[i].l2_pct;
    }
    if (power > p->power_cap_w)
        clock = p->clock_slope_mhz_per_w * (power - p->power_cap_w) + p->max_clock_mhz;
    if (!(clock > 0.0))
        return -1;
    delta = slo_ig_delta_sch_ms(p, n);
    const double speed = clock / p->max_clock_mhz, unit = p->unit_pct; /* loads kept out of */
    const int paper = p->model_variant == SLO_IG_VARIANT_IGNITER_2023; /* the loop (s[] aliases) */
    for (size_t i = 0; i < n; i++) {
        const struct item *it = &c->items[s[i].item];
        const struct slo_ig_model *m = &p->models[it->model];
        double t_sch = m->n_kernels * delta + m->t_sch_solo_ms;
        double t_act = s[i].t_act0_ms * (1.0 + m->alpha_cache_per_pct * (l2 - s[i].l2_pct));
        if (!paper) /* issue 18: igniter_variant.c */
            t_act = slo__ig_variant_active_ms(m, it->batch, s[i].share_pct, s[i].t_act0_ms,
                                              s[i].l2_pct, l2 - s[i].l2_pct, n);
        double lat = (t_sch + t_act) / speed + it->transfer_ms;
        if (lat > it->bound_ms && tight) {
            if (ex_raised)
                *ex_raised = i + 1 < n;
            if (i + 1 == n && last_lat)
                *last_lat = lat;
            return -2;
        }
        if (lat > it->bound_ms) {
            s[i].share_pct += unit;
            if (s[i].share_pct <= 100.0 + SHARE_EPS)
                solo_terms(p, m, it->batch, &s[i]);
            raised++;
            last_raised = i + 1 == n;
        }
        if (i + 1 == n && last_lat)
            *last_lat = lat;
    }
    if (ex_raised) /* raised among s[0..n-2] (s[n-1] is the item tried) */
        *ex_raised = (size_t)(raised - last_raised);
    return raised;
}

/*
 * What the first raise round of item x at share r on GPU g says about any
 * bound of x (the exact arithmetic of c->exact: sums of shares are exact):
 * +inf when the try fails whatever x's bound (a modelled term not positive,
 * or a co-runner raised and its u already takes the total over 100 %); the
 * latency of x when no co-runner is raised and one raise of x would take the
 * total over 100 % (so the try succeeds, unraised, exactly when x's bound is
 * >= it); -inf otherwise (the outcome needs the whole raising loop).
 */
static double first_round_class(const struct ctx *c, const struct gpu *g, double r, int k,
                                size_t ex, double lat)
{
    double u = c->p->unit_pct;
    if (k == -1)
        return INFINITY; /* -2: stopped at the first violator (ex then 0 or 1), as if run out */
    if (ex > 0)
        return g->total_pct + r + (double)ex * u > 100.0 + SHARE_EPS ? INFINITY : -INFINITY;
    if (isnan(lat))
        return -INFINITY;
    return g->total_pct + r + u > 100.0 + SHARE_EPS ? lat : -INFINITY;
}

/*
 * Try item x on GPU g (g may be an empty GPU): add at share r, raise
 * violators until all hold or the total exceeds 100 (notes 2.2 step 7).
 * On success c->work[0..g->n] holds the adjusted slots and *after the total.
 */
static int try_gpu(struct ctx *c, const struct gpu *g, size_t x, double r, int raise,
                   double *after, double *cls)
{
    struct slot *w = c->work;
    size_t n = g->n + 1;
    double total;

    if (cls)
        *cls = INFINITY;
    if (g->n >= c->slot_cap || g->total_pct + r > 100.0 + SHARE_EPS)
        return 0;
    if (g->n)
        memcpy(w, g->s, g->n * sizeof *w);
    w[g->n].item = x;
    w[g->n].share_pct = r;
    {
        /* solo terms depend on (model, batch, share) only: the last ones per
         * batch are kept, as an item tries GPU after GPU at the same point */
        int b = c->items[x].batch, mi = c->items[x].model;
        struct slot *memo = !c->scan && b >= 1 && b <= SLO_IG_MAX_BATCH ? &c->xs[b] : NULL;
        if (memo && c->xs_model[b] == mi + 1 && memo->share_pct == r) {
            w[g->n] = *memo;
            w[g->n].item = x;
        } else {
            solo_terms(c->p, &c->p->models[mi], b, &w[g->n]);
            if (memo) {
                *memo = w[g->n];
                c->xs_model[b] = mi + 1;
            }
        }
    }
    total = g->total_pct + r;
    if (raise) {
        for (int round = 0;; round++) {
            size_t ex = 0;
            double lat = NAN;
            /* exact sums (c->exact): the oracle (c->scan) runs every round out */
            int tight = c->exact && !c->scan && total + c->p->unit_pct > 100.0 + SHARE_EPS;
            int k = raise_round(c, w, n, cls && !round ? &ex : NULL, cls && !round ? &lat : NULL,
                                tight);
            if (cls && !round) {
                *cls = first_round_class(c, g, r, k, ex, lat);
                /* co-runners raised and their u overflow: refused whatever x's
                 * bound, and for any x at least as loud (struct gpu ref_*) */
                c->r0_ex = k != -1 && ex > 0 && g->total_pct + r + (double)ex * c->p->unit_pct >
                                                     100.0 + SHARE_EPS
                               ? ex
                               : 0;
            }
            if (k < 0)
                return 0;
            total = 0.0;
            for (size_t i = 0; i < n; i++)
                total += w[i].share_pct;
            if (k == 0)
                break;
            if (total > 100.0 + SHARE_EPS)
                return 0;
        }
    }
    *after = total;
    return 1;
}

static int push_item(struct ctx *c, const struct item *it)
{
    if (c->n_items == c->cap_items) {
        size_t ncap = c->cap_items ? 2 * c->cap_items : 16;
        struct item *ni = realloc(c->items, ncap * sizeof *ni);
        if (!ni)
            return SLO_ERR_NOMEM;
        c->items = ni;
        c->cap_items = ncap;
    }
    c->items[c->n_items++] = *it;
    return SLO_OK;
}

static int push_dedicated(struct ctx *c, size_t w, int model, int batch, double rate)
{
    if (c->n_ded == c->cap_ded) {
        size_t ncap = c->cap_ded ? 2 * c->cap_ded : 8;
        int *nb = realloc(c->ded_batch, ncap * sizeof *nb);
        if (nb)
            c->ded_batch = nb;
        int *nm = realloc(c->ded_model, ncap * sizeof *nm);
        if (nm)
            c->ded_model = nm;
        double *nr = realloc(c->ded_rate, ncap * sizeof *nr);
        if (nr)
            c->ded_rate = nr;
        struct slot *ns = realloc(c->ded, ncap * sizeof *ns);
        if (ns)
            c->ded = ns;
        if (!nb || !nm || !nr || !ns)
            return SLO_ERR_NOMEM;
        c->cap_ded = ncap;
    }
    c->ded[c->n_ded].item = w;
    c->ded[c->n_ded].share_pct = 100.0;
    c->ded_batch[c->n_ded] = batch;
    c->ded_model[c->n_ded] = model;
    c->ded_rate[c->n_ded] = rate;
    c->n_ded++;
    return SLO_OK;
}

static struct gpu *new_gpu(struct ctx *c)
{
    if (c->n_gpus == c->cap_gpus) {
        size_t ncap = c->cap_gpus ? 2 * c->cap_gpus : 16;
        struct gpu *ng = realloc(c->gpus, ncap * sizeof *ng);
        if (!ng)
            return NULL;
        c->gpus = ng;
        c->cap_gpus = ncap;
        if (tree_build(c))
            return NULL;
    }
    struct gpu *g = &c->gpus[c->n_gpus];
    memset(g, 0, sizeof *g);
    g->s = malloc(c->slot_cap * sizeof *g->s);
    if (!g->s)
        return NULL;
    c->n_gpus++;
    return g;
}

static void ctx_free(struct ctx *c)
{
    for (size_t i = 0; i < c->n_gpus; i++)
        free(c->gpus[i].s);
    free(c->gpus);
    free(c->items);
    free(c->ded);
    free(c->ded_batch);
    free(c->ded_model);
    free(c->ded_rate);
    free(c->work);
    free(c->tree);
    kcache_off(c);
    memset(c, 0, sizeof *c);
}

static int ctx_init(struct ctx *c, const struct slo_ig_profile *p, size_t type)
{
    memset(c, 0, sizeof *c);
    c->p = p;
    c->type = type;
    c->slot_cap = (size_t)floor(100.0 / p->unit_pct + 1e-9) + 1;
    c->exact = p->unit_pct * 1024.0 == floor(p->unit_pct * 1024.0) && p->unit_pct <= 100.0;
    c->n_rs = (size_t)floor(100.0 / p->unit_pct + 1e-9) + 2;
    for (size_t i = 0; i < KT_POOL; i++)
        c->kt[i].key = -1;
    c->work = malloc((c->slot_cap + 1) * sizeof *c->work);
    return c->work ? SLO_OK : SLO_ERR_NOMEM;
}

/* Solo prediction at batch b, share r on an otherwise empty GPU. */
static int solo_predict(const struct slo_ig_profile *p, int model, int batch, double r,
                        struct slo_ig_prediction *o)
{
    struct slo_ig_tenant t = {model, batch, r};
    return slo_ig_predict(p, &t, 1, o, NULL, NULL);
}

/* Smallest share (multiple of u, from r) at which the workload alone meets T'. */
static double solo_share(struct ctx *c, size_t x, double r)
{
    struct gpu empty = {0, 0.0, 0, NULL, 0, 0, 0.0, 0.0};
    double after;
    if (r > 100.0 + SHARE_EPS)
        return INFINITY;
    if (!try_gpu(c, &empty, x, r, 1, &after, NULL))
        return INFINITY;
    return after;
}

/*
 * notes 2.2 steps 2-5 for workload w on this type: batch and r_low from the
 * rate; oversized workloads (r_low > 100, delta <= 0 or a solo latency that
 * needs more than 100 %) get dedicated GPUs at 100 % with the largest batch
 * b* whose solo latency < T' (stopping at the first failure, as upstream),
 * capacity ceil(0.9 h(b*)); the residual is an item again unless it also
 * needs more than 100 %, then it gets one more dedicated GPU with b*
 * (upstream placed it at its r_low > 100: the 127.5 % GPU). Returns
 * SLO_ERR_INFEASIBLE when no batch fits at 100 %.
 */
static int prepare_workload(struct ctx *c, const struct slo_ig_workload *wl, size_t w,
                            int model, int gslice)
{
    const struct slo_ig_profile *p = c->p;
    const struct slo_ig_model *m = &p->models[model];
    struct item it;
    struct slo_ig_bounds bd;
    double rate = wl->rate_rps;
    int rv;

    memset(&it, 0, sizeof it);
    it.w = w;
    it.model = model;
    it.slo_half_ms = wl->slo_ms / 2.0; /* notes 5.1.2: half the SLO */
    for (int pass = 0; pass < 2; pass++) {
        it.rate_rps = rate;
        slo_ig_choose_batch(p, m, rate, it.slo_half_ms, &bd);
        it.batch = bd.batch;
        it.bound_ms = bd.bound_ms;
        it.r_low_pct = bd.r_low_pct;
        it.transfer_ms = (m->input_bytes + m->output_bytes) * it.batch / p->bandwidth_bytes_per_ms;
        it.alt_mask = 0;
        for (int b = 1; b < it.batch && isfinite(bd.r_low_pct); b++) {
            struct slo_ig_bounds alt;
            slo_ig_bounds_for(p, m, b, slo_ig_latency_bound_ms(p, m, b, rate, it.slo_half_ms),
                              &alt);
            if (alt.r_low_pct <= bd.r_low_pct)
                it.alt_mask |= 1UL << (b - 1);
        }
        if (gslice && it.r_low_pct <= 100.0) {
            /* GSLICE-like (notes 2.5): reactive tuning of (b, r) from b = 1,
             * r = 30 % with its SLAB and resource rules, the model standing in
             * for measurements of the workload alone. */
            double b = 1, r = 30;
            for (int round = 0; round < 25; round++) {
                struct slo_ig_prediction o;
                double lat, thr, ls, ts;
                if (solo_predict(p, model, (int)b, r, &o))
                    break;
                lat = o.latency_ms;
                thr = o.throughput_rps;
                ls = (it.slo_half_ms - lat) / lat;
                ts = (thr - rate) / thr;
                if (round % 2 == 0) {
                    if (!(ls > 0.0 && ls < 0.1))
                        b = ceil(b * (1.0 + ls));
                    b = b < 1 ? 1 : b > SLO_IG_MAX_BATCH ? SLO_IG_MAX_BATCH : b;
                } else {
                    double g = fabs(ls) > fabs(ts) ? fabs(ls) : fabs(ts);
                    if (ls < 0.0 || ts < 0.0)
                        r = r * (1.0 + g);
                    else if (!(ls < 0.1 && ts < 0.1))
                        r = r * (1.0 - g);
                    r = r < 1 ? 1 : r > 100 ? 100 : r;
                }
            }
            it.batch = (int)b;
            it.alt_mask = 0;
            it.bound_ms = slo_ig_latency_bound_ms(p, m, it.batch, rate, it.slo_half_ms);
            it.r_low_pct = ceil(r / p->unit_pct - 1e-9) * p->unit_pct;
            if (it.r_low_pct > 100.0)
                it.r_low_pct = 100.0;
            it.transfer_ms =
                (m->input_bytes + m->output_bytes) * it.batch / p->bandwidth_bytes_per_ms;
            /* GSLICE never sees co-location; its tuned point may still miss the
             * SLO or the rate alone: fall back to the iGniter bound then. */
            {
                struct slo_ig_prediction o;
                if (solo_predict(p, model, it.batch, it.r_low_pct, &o) ||
                    o.latency_ms > it.slo_half_ms || o.throughput_rps < rate) {
                    it.batch = bd.batch;
                    it.bound_ms = bd.bound_ms;
                    it.r_low_pct = bd.r_low_pct;
                    it.transfer_ms = (m->input_bytes + m->output_bytes) * it.batch /
                                     p->bandwidth_bytes_per_ms;
                }
            }
        }
        if ((rv = push_item(c, &it)))
            return rv;
        it.r_new_pct = solo_share(c, c->n_items - 1, it.r_low_pct);
        c->items[c->n_items - 1].r_new_pct = it.r_new_pct;
        if (it.r_new_pct <= 100.0 + SHARE_EPS)
            return SLO_OK;
        c->n_items--; /* oversized: split */
        {
            int b_star = -1;
            double h = 0.0, hcap;
            for (int b = 1; b <= SLO_IG_MAX_BATCH; b++) {
                struct slo_ig_prediction o;
                if (solo_predict(p, model, b, 100.0, &o) || !(o.latency_ms < it.slo_half_ms))
                    break;
                b_star = b;
                h = o.throughput_rps;
            }
            if (b_star < 0) {
                double base = m->t_sch_solo_ms + (m->input_bytes + m->output_bytes) /
                                                     p->bandwidth_bytes_per_ms;
                return slo__fail(NULL, SLO_ERR_INFEASIBLE, NULL, "%g", base);
            }
            if (pass == 1) {
                /* the residual still needs more than one GPU's worth of share */
                return push_dedicated(c, w, model, b_star, rate);
            }
            hcap = ceil(0.9 * h);
            if (hcap > h)
                hcap = floor(h);
            if (hcap < 1.0)
                hcap = h;
            if (rate / hcap > 1e6)
                return slo__fail(NULL, SLO_ERR_INFEASIBLE, NULL, "too many GPUs");
            while (rate > hcap) {
                if ((rv = push_dedicated(c, w, model, b_star, hcap)))
                    return rv;
                rate -= hcap;
            }
        }
    }
    return SLO_OK;
}

/* idx[n] sorted stably so that before(ctx, x, y) (x strictly ahead of y)
 * holds: a bottom-up merge sort, or the stable insertion sort (O(n^2); the
 * oracle's, SLO__IG_SCAN) when plain or out of memory. Both orders are the
 * same: a stable sort's result is unique. */
static void stable_sort(size_t *idx, size_t n, int plain,
                        int (*before)(const void *ctx, size_t x, size_t y), const void *ctx)
{
    size_t *tmp = plain ? NULL : malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp) {
        for (size_t i = 1; i < n; i++) {
            size_t v = idx[i], j = i;
            while (j > 0 && before(ctx, v, idx[j - 1])) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = v;
        }
        return;
    }
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t a = lo, b = mid, k = lo;
            while (a < mid && b < hi)
                tmp[k++] = before(ctx, idx[b], idx[a]) ? idx[b++] : idx[a++];
            while (a < mid)
                tmp[k++] = idx[a++];
            while (b < hi)
                tmp[k++] = idx[b++];
        }
        memcpy(idx, tmp, n * sizeof *idx);
    }
    free(tmp);
}

static int r_low_higher(const void *ctx, size_t x, size_t y)
{
    const struct item *items = ctx;
    return items[x].r_low_pct > items[y].r_low_pct;
}

/* Stable sort of item indices by r_low descending (Python's sort is stable). */
static void sort_items(const struct item *items, size_t *idx, size_t n)
{
    stable_sort(idx, n, 0, r_low_higher, items);
}

/* Run item x at batch b (its latency bound and transfer time follow). */
static void set_batch(struct ctx *c, size_t x, int b)
{
    struct item *it = &c->items[x];
    const struct slo_ig_model *m = &c->p->models[it->model];
    it->batch = b;
    it->bound_ms = slo_ig_latency_bound_ms(c->p, m, b, it->rate_rps, it->slo_half_ms);
    it->transfer_ms = (m->input_bytes + m->output_bytes) * b / c->p->bandwidth_bytes_per_ms;
}

/*
 * 1 when, on profile p, every tenant's modelled latency (notes 1.2, the
 * paper's variant, raise_round's arithmetic) is non-decreasing in the other
 * tenants' shares at a fixed tenant count, in floating point too: a larger
 * share gives a shorter solo active time (gamma(b) > 0 and r + k4 > 0 for
 * r >= u), hence more solo capability, more power (kp >= 0) and L2 (kc >= 0),
 * a clock that only drops (slope <= 0) and a cache term that only grows
 * (alpha >= 0); scheduling and active time stay >= 0 (t_sch(n) >= 0 up to
 * the tenant cap, and 1 + alpha x the co-runners' L2 > 0 with each L2 term at
 * least bc, cap - 1 co-runners), so the clock drop only adds. Then the
 * raising loop with a looser bound for the item tried never holds more share
 * than with a tighter one, so a try that fails at a bound fails at every
 * tighter one.
 */
static int monotone_model(const struct slo_ig_profile *p, size_t cap)
{
    double bc_low = 0.0;
    if (p->model_variant != SLO_IG_VARIANT_IGNITER_2023 || !(p->clock_slope_mhz_per_w <= 0.0) ||
        !(p->max_clock_mhz > 0.0))
        return 0;
    for (size_t i = 0; i < p->n_models; i++)
        bc_low = fmin(bc_low, p->models[i].bc_pct);
    for (size_t i = 0; i < p->n_models; i++) {
        const struct slo_ig_model *m = &p->models[i];
        if (!(m->alpha_cache_per_pct >= 0.0 && m->kp_w_per_rps >= 0.0 &&
              m->kc_pct_per_rps >= 0.0 && m->k[3] + p->unit_pct > 0.0 && m->n_kernels >= 0.0 &&
              1.0 + m->alpha_cache_per_pct * (double)cap * bc_low * 1.01 > 0.0))
            return 0;
        for (int b = 1; b <= SLO_IG_MAX_BATCH; b++)
            if (!(m->k[0] * b * b + m->k[1] * b + m->k[2] > 0.0))
                return 0;
        for (size_t n = 1; n <= cap + 1; n++)
            if (!(m->n_kernels * slo_ig_delta_sch_ms(p, n) + m->t_sch_solo_ms >= 0.0))
                return 0;
    }
    return 1;
}

/* Record in kt at GPU g the class of item x's try there (first_round_class),
 * narrowed by its outcome: with a monotone model a failed try at bound beta
 * leaves only bounds > beta (kept as >= beta). (Probing the try with no bound at all, to
 * refuse every bound at once, costs more than it saves: on the seeded
 * 10,000 workloads nine in ten such probes succeed.) */
static void record_try(struct ctx *c, struct ktree *kt, const struct gpu *g, size_t x, double cls,
                       int ok)
{
    if (!kt)
        return;
    if (!ok && c->mono && cls < INFINITY) {
        struct item *it = &c->items[x];
        double v = it->bound_ms; /* bounds >= it stay candidates: a superset */
        if (v > cls)
            cls = v;
    }
    kt_put(kt, (size_t)(g - c->gpus), cls);
}

/* The solo terms of item x at batch b and share r (try_gpu's memo). */
static void item_solo(struct ctx *c, size_t x, int b, double r, struct slot *o)
{
    int mi = c->items[x].model;
    if (b >= 1 && b <= SLO_IG_MAX_BATCH && c->xs_model[b] == mi + 1 && c->xs[b].share_pct == r) {
        *o = c->xs[b];
        return;
    }
    o->share_pct = r;
    solo_terms(c->p, &c->p->models[mi], b, o);
}

/* 1 when GPU g's co-runner refusal covers item x at batch b (struct gpu). */
static int co_refused(struct ctx *c, const struct gpu *g, size_t x, int b)
{
    struct slot o;
    double r = c->items[x].r_low_pct;
    if (!c->mono || !g->ref_ok ||
        !(g->total_pct + r + (double)g->ref_ex * c->p->unit_pct > 100.0 + SHARE_EPS))
        return 0;
    item_solo(c, x, b, r, &o);
    return o.power_w >= g->ref_power_w && o.l2_pct >= g->ref_l2_pct;
}

/* After a try of x at batch b on g that its first round refused through the
 * co-runners (c->r0_ex): keep it as g's co-runner refusal. */
static void co_record(struct ctx *c, const struct gpu *g, size_t x, int b)
{
    struct slot o;
    struct gpu *w = &c->gpus[g - c->gpus];
    if (!c->mono || !c->r0_ex)
        return;
    item_solo(c, x, b, c->items[x].r_low_pct, &o);
    w->ref_ok = 1;
    w->ref_ex = c->r0_ex;
    w->ref_power_w = o.power_w;
    w->ref_l2_pct = o.l2_pct;
}

/* try_gpu at r_low with raising, at the item's batch and, if that fails, at
 * its alternatives, largest first; *batch: the batch that fitted. kts
 * (NULL: none) holds the answer tree of each batch the item may try
 * (kts[b], see struct ktree) and beta[b] its latency bound at that batch: a
 * try the tree refuses at GPU g is skipped (it would fail), and each try's
 * first-round class is recorded there. */
static int try_item(struct ctx *c, const struct gpu *g, size_t x, double *after, int *batch,
                    struct ktree *const *kts, const double *beta)
{
    struct item *it = &c->items[x];
    int base = it->batch, ok = 0;
    size_t j = (size_t)(g - c->gpus);
    double cls;

    *batch = base;
    if (!kts || kts[base]->t[kts[base]->leaves + j] <= beta[base]) { /* else known to fail */
        int fit;
        if (kts && co_refused(c, g, x, base)) {
            fit = 0;
            record_try(c, kts[base], g, x, INFINITY, 0);
        } else {
            c->r0_ex = 0;
            fit = try_gpu(c, g, x, it->r_low_pct, 1, after, kts ? &cls : NULL);
            if (kts) {
                record_try(c, kts[base], g, x, cls, fit);
                if (!fit)
                    co_record(c, g, x, base);
            }
        }
        if (fit)
            return 1;
    }
    /* the share alone does not fit: no batch will (they all need r_low) */
    if (!it->alt_mask || g->n >= c->slot_cap || g->total_pct + it->r_low_pct > 100.0 + SHARE_EPS)
        return 0;
    for (int b = base - 1; b >= 1 && !ok; b--) {
        if (!(it->alt_mask & (1UL << (b - 1))))
            continue;
        if (kts && !(kts[b]->t[kts[b]->leaves + j] <= beta[b]))
            continue; /* known to fail */
        if (kts && co_refused(c, g, x, b)) {
            record_try(c, kts[b], g, x, INFINITY, 0);
            continue;
        }
        set_batch(c, x, b);
        c->r0_ex = 0;
        if (try_gpu(c, g, x, it->r_low_pct, 1, after, kts ? &cls : NULL)) {
            *batch = b;
            ok = 1;
        }
        if (kts) {
            record_try(c, kts[b], g, x, cls, ok);
            if (!ok)
                co_record(c, g, x, b);
        }
    }
    set_batch(c, x, base);
    return ok;
}

/* The answer trees and latency bounds of the tries of item x (its batch,
 * then its alternatives, largest first: try_item's order) into kts[b],
 * beta[b] for b in bl[*nb] (nxt[b]: item_next's memo, reset); 0 when the
 * item goes without (no cache, or a bound that is not a finite number):
 * visit as the share index says. */
static int item_trees(struct ctx *c, size_t x, struct ktree **kts, double *beta, int *bl, int *nb,
                      size_t *nxt)
{
    const struct item *it = &c->items[x];
    const struct slo_ig_model *m = &c->p->models[it->model];

    *nb = 0;
    if (!c->kcache || it->batch < 1 || it->batch > SLO_IG_MAX_BATCH)
        return 0;
    c->stamp++;
    bl[(*nb)++] = it->batch;
    beta[it->batch] = it->bound_ms;
    if (slo_ig_latency_bound_ms(c->p, m, it->batch, it->rate_rps, it->slo_half_ms) !=
        it->bound_ms)
        return 0; /* try_item's set_batch would change it between GPUs */
    for (int b = it->batch - 1; b >= 1; b--)
        if (it->alt_mask & (1UL << (b - 1))) {
            bl[(*nb)++] = b;
            beta[b] = slo_ig_latency_bound_ms(c->p, m, b, it->rate_rps, it->slo_half_ms);
        }
    for (int i = 0; i < *nb; i++) {
        nxt[bl[i]] = SIZE_MAX;
        if (!isfinite(beta[bl[i]]))
            return 0;
        kts[bl[i]] = kt_get(c, it->model, bl[i], it->r_low_pct);
        if (!kts[bl[i]])
            return 0;
    }
    return 1;
}

/* First GPU index >= j with room for share r (the share index) where one of
 * the item's tries may succeed (its answer trees); a GPU the trees offer
 * without room is recorded as refused (+inf) in them, until it changes.
 * nxt[b] keeps tree b's last answer (SIZE_MAX: none yet): the item changes
 * its trees only at GPUs it has passed, so an answer >= j still holds. */
static size_t item_next(struct ctx *c, struct ktree *const *kts, const double *beta,
                        const int *bl, int nb, size_t *nxt, size_t j, double r)
{
    for (j = next_gpu(c, j, r); j < c->n_gpus;) {
        size_t m = c->n_gpus, room;
        for (int i = 0; i < nb; i++) {
            int b = bl[i];
            if (nxt[b] == SIZE_MAX || nxt[b] < j)
                nxt[b] = kt_next(c, kts[b], j, beta[b]);
            if (nxt[b] < m)
                m = nxt[b];
        }
        if (m >= c->n_gpus)
            break;
        room = next_gpu(c, m, r);
        if (room == m)
            return m;
        for (int i = 0; i < nb; i++)
            if (kts[bl[i]]->t[kts[bl[i]]->leaves + m] <= beta[bl[i]])
                kt_put(kts[bl[i]], m, INFINITY);
        j = room;
    }
    return c->n_gpus;
}

/* Add item x to GPU g at the batch try_item found to fit (for good). */
static void commit_item(struct ctx *c, struct gpu *g, size_t x, int batch)
{
    double after;
    if (batch != c->items[x].batch)
        set_batch(c, x, batch);
    try_gpu(c, g, x, c->items[x].r_low_pct, 1, &after, NULL); /* recompute into work */
    memcpy(g->s, c->work, (g->n + 1) * sizeof *g->s);
    g->n++;
    g->total_pct = after;
    tree_set(c, (size_t)(g - c->gpus));
}

static int place_on_new(struct ctx *c, size_t x, double share)
{
    struct gpu *g = new_gpu(c);
    if (!g)
        return SLO_ERR_NOMEM;
    g->s[0].item = x;
    g->s[0].share_pct = share;
    solo_terms(c->p, &c->p->models[c->items[x].model], c->items[x].batch, &g->s[0]);
    g->n = 1;
    g->total_pct = share;
    tree_set(c, c->n_gpus - 1);
    return SLO_OK;
}

/* notes 2.2 steps 6-7 (interference-aware) or FFD (notes 2.5, no raising). */
static int greedy(struct ctx *c, int interference_aware)
{
    size_t *idx = malloc((c->n_items ? c->n_items : 1) * sizeof *idx);
    int rv = SLO_OK;

    if (!idx)
        return SLO_ERR_NOMEM;
    c->kcache = interference_aware && c->exact && !c->scan;
    c->mono = c->kcache && monotone_model(c->p, c->slot_cap);
    for (size_t i = 0; i < c->n_items; i++)
        idx[i] = i;
    sort_items(c->items, idx, c->n_items);
    for (size_t k = 0; k < c->n_items; k++) {
        size_t x = idx[k];
        const struct item *it = &c->items[x];
        long best = -1;
        int best_batch = it->batch, batch = it->batch, bl[SLO_IG_MAX_BATCH], nbl = 0;
        double best_inter = 101.0, after, beta[SLO_IG_MAX_BATCH + 1];
        struct ktree *kts[SLO_IG_MAX_BATCH + 1] = {0};
        size_t nxt[SLO_IG_MAX_BATCH + 1];
        int cached = interference_aware && item_trees(c, x, kts, beta, bl, &nbl, nxt);
        double r = it->r_low_pct;
        for (size_t j = cached ? item_next(c, kts, beta, bl, nbl, nxt, 0, r) : next_gpu(c, 0, r);
             j < c->n_gpus;
             j = cached ? item_next(c, kts, beta, bl, nbl, nxt, j + 1, r) : next_gpu(c, j + 1, r)) {
            struct gpu *g = &c->gpus[j];
            if (interference_aware ? !try_item(c, g, x, &after, &batch, cached ? kts : NULL, beta)
                                   : !try_gpu(c, g, x, it->r_low_pct, 0, &after, NULL))
                continue;
            if (!interference_aware) { /* first fit */
                best = (long)j;
                break;
            }
            if (after - g->total_pct < best_inter) { /* strict: lowest index wins ties */
                best_inter = after - g->total_pct;
                best = (long)j;
                best_batch = batch;
                if (c->exact && !c->scan && best_inter <= it->r_low_pct)
                    break; /* the least increase any GPU can have (raising only adds) */
            }
        }
        if (best < 0) {
            if ((rv = place_on_new(c, x, interference_aware ? it->r_new_pct : it->r_low_pct)))
                break;
        } else if (interference_aware) {
            commit_item(c, &c->gpus[best], x, best_batch);
        } else {
            struct gpu *g = &c->gpus[best];
            try_gpu(c, g, x, it->r_low_pct, 0, &after, NULL); /* recompute into work */
            memcpy(g->s, c->work, (g->n + 1) * sizeof *g->s);
            g->n++;
            g->total_pct = after;
            tree_set(c, (size_t)best);
        }
    }
    free(idx);
    return rv;
}

static int total_lower(const void *ctx, size_t x, size_t y)
{
    const struct ctx *c = ctx;
    return c->gpus[x].total_pct < c->gpus[y].total_pct;
}

/* order[n] = 0..n-1 by the GPUs' share in use ascending, stable (a merge
 * sort; the insertion sort it replaces was O(n^2) at 10,000 workloads;
 * plain: that insertion sort, the oracle's). */
static void sort_gpus(const struct ctx *c, size_t *order, size_t n, int plain)
{
    for (size_t j = 0; j < n; j++)
        order[j] = j;
    stable_sort(order, n, plain, total_lower, c);
}

/*
 * Consolidation's room test (issue 19, item 5): a tenant moved onto GPU g
 * adds at least its r_low to g's total (added at r_low, raising only adds)
 * and is refused once the total would pass 100 % or g holds slot_cap
 * tenants, so g takes at most min(floor(room / (ri u)), slot_cap - n) of
 * tenants with r_low >= ri u, room = 100 % - total (in units of u, exact
 * under c->exact), and those tenants' r_low sum to at most its room if it
 * has room for one. slots[ri] sums the count over the used GPUs (an empty
 * GPU takes none: consolidate skips it), slots[n_rs + ri] the rooms of
 * those with room for ri u.
 */
static size_t room_units(const struct ctx *c, const struct gpu *g)
{
    double q;
    if (g->n == 0 || g->n >= c->slot_cap)
        return 0;
    q = floor((100.0 + SHARE_EPS - g->total_pct) / c->p->unit_pct + 1e-9); /* never tighter */
    return q > 0.0 ? (size_t)q : 0;
}

/* slots[ri] += sign * (the tenants of r_low >= ri u GPU g can take) and
 * slots[n_rs + ri] += sign * its room in units when that is >= ri, ri in 1..n_rs-1. */
static void slots_add(const struct ctx *c, size_t *slots, const struct gpu *g, int sign)
{
    size_t q = room_units(c, g), lim = g->n < c->slot_cap ? c->slot_cap - g->n : 0;
    size_t *room = slots + c->n_rs;
    for (size_t ri = 1; ri <= q && ri < c->n_rs; ri++) {
        size_t k = q / ri < lim ? q / ri : lim;
        slots[ri] = sign > 0 ? slots[ri] + k : slots[ri] - k;
        if (lim)
            room[ri] = sign > 0 ? room[ri] + q : room[ri] - q;
    }
}

/* 1 when the tenants src->s[tidx[t0..m-1]] (r_low descending) cannot all
 * move to the other used GPUs: the t-th of them (0-based from t0) and the
 * t before it, all of r_low >= its r_low = ri u, find fewer than t + 1 slots
 * of ri, or less room in all than their r_low sum on the GPUs with room for
 * ri u (slots[] less src's own). 0: no conclusion (the moves decide). */
static int cannot_empty(const struct ctx *c, const size_t *slots, const struct gpu *src,
                        const size_t *tidx, size_t t0, size_t m)
{
    size_t q = room_units(c, src), lim = src->n < c->slot_cap ? c->slot_cap - src->n : 0;
    size_t sum = 0; /* r_low of t0..t in units */
    for (size_t t = t0; t < m; t++) {
        double r = c->items[src->s[tidx[t]].item].r_low_pct;
        size_t ri = (size_t)floor(r / c->p->unit_pct + 0.5), own;
        if (ri < 1 || ri >= c->n_rs || (double)ri * c->p->unit_pct != r)
            return 0; /* off the grid of u */
        own = q / ri < lim ? q / ri : lim;
        if (slots[ri] - own < t - t0 + 1)
            return 1;
        sum += ri;
        if (slots[c->n_rs + ri] - (lim && q >= ri ? q : 0) < sum)
            return 1;
    }
    return 0;
}

/*
 * After the interference-aware greedy: empty a shared GPU when every tenant
 * fits on the other GPUs by the greedy's own rule (added at r_low, tenants
 * raised by u until every latency holds, the GPU with the smallest increase,
 * lowest index on ties). GPUs are tried least loaded first, one pass. This
 * removes most of the bin-packing anomalies of a greedy, where smaller shares
 * (a looser SLO) change the order and leave one GPU more.
 */
static int consolidate(struct ctx *c)
{
    size_t n = c->n_gpus, cap = c->slot_cap, kept = 0;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    size_t *bidx = malloc(cap * sizeof *bidx), *tidx = malloc(cap * sizeof *tidx);
    struct gpu *bgpu = malloc(cap * sizeof *bgpu);
    struct slot *bslots = malloc(cap * cap * sizeof *bslots);
    int *swapped = malloc(cap * sizeof *swapped);
    /* exact: the room test's slots (cannot_empty), up to date with every
     * move; a GPU it proves cannot be emptied is not tried, or no longer
     * (the moves would fail and be undone: the plan is the full scan's) */
    size_t *slots = c->exact && !c->scan ? calloc(4 * c->n_rs, sizeof *slots) : NULL;
    int rv = SLO_OK;
    double free_all = 0.0; /* exact: the free share of every used GPU, kept up to date */

    if (!order || !bidx || !tidx || !bgpu || !bslots || !swapped) {
        rv = SLO_ERR_NOMEM;
        goto out;
    }
    c->kcache = c->exact && !c->scan;
    sort_gpus(c, order, n, c->scan);
    for (size_t k = 0; k < n; k++)
        if (c->gpus[k].n) {
            free_all += 100.0 - c->gpus[k].total_pct;
            if (slots)
                slots_add(c, slots, &c->gpus[k], 1);
        }
    for (size_t o = 0; o < n; o++) {
        struct gpu *src = &c->gpus[order[o]];
        size_t nb = 0, m = src->n;
        double free_pct = 0.0, need = 0.0, src_total = src->total_pct;
        int moved = 1;
        if (m == 0)
            continue;
        memset(swapped, 0, cap * sizeof *swapped);
        if (c->exact && !c->scan) /* sums of multiples of 2^-10 below 2^43: exact in any order */
            free_pct = free_all - (100.0 - src_total);
        else
            for (size_t k = 0; k < n; k++)
                if (k != order[o] && c->gpus[k].n)
                    free_pct += 100.0 - c->gpus[k].total_pct;
        for (size_t t = 0; t < m; t++) {
            size_t v = t, i = t;
            need += c->items[src->s[t].item].r_low_pct;
            /* tenants by r_low descending, stable (the greedy's order) */
            while (i > 0 && c->items[src->s[tidx[i - 1]].item].r_low_pct <
                                c->items[src->s[v].item].r_low_pct) {
                tidx[i] = tidx[i - 1];
                i--;
            }
            tidx[i] = v;
        }
        if (need > free_pct + SHARE_EPS)
            continue;
        if (slots) {
            if (cannot_empty(c, slots, src, tidx, 0, m))
                continue;
            memcpy(slots + 2 * c->n_rs, slots, 2 * c->n_rs * sizeof *slots); /* to undo */
        }
        for (size_t t = 0; t < m && moved; t++) {
            size_t x = src->s[tidx[t]].item;
            long best = -1;
            int batch = 0, best_batch = 0, bl[SLO_IG_MAX_BATCH], nbl = 0;
            double best_inter = 101.0, after, beta[SLO_IG_MAX_BATCH + 1];
            struct ktree *kts[SLO_IG_MAX_BATCH + 1] = {0};
            size_t nxt[SLO_IG_MAX_BATCH + 1];
            int cached = item_trees(c, x, kts, beta, bl, &nbl, nxt);
            double r = c->items[x].r_low_pct;
            for (size_t k = cached ? item_next(c, kts, beta, bl, nbl, nxt, 0, r)
                                   : next_gpu(c, 0, r);
                 k < n; k = cached ? item_next(c, kts, beta, bl, nbl, nxt, k + 1, r)
                                   : next_gpu(c, k + 1, r)) {
                struct gpu *g = &c->gpus[k];
                if (k == order[o] || g->n == 0 ||
                    !try_item(c, g, x, &after, &batch, cached ? kts : NULL, beta))
                    continue;
                if (after - g->total_pct < best_inter) {
                    best_inter = after - g->total_pct;
                    best = (long)k;
                    best_batch = batch;
                    if (c->exact && !c->scan && best_inter <= c->items[x].r_low_pct)
                        break; /* as in greedy: no GPU can increase less */
                }
            }
            if (best < 0) {
                moved = 0;
                break;
            }
            {
                struct gpu *g = &c->gpus[best];
                size_t b;
                for (b = 0; b < nb && bidx[b] != (size_t)best; b++)
                    ;
                if (b == nb) { /* first change to this GPU: keep it to undo */
                    bidx[nb] = (size_t)best;
                    bgpu[nb] = *g;
                    memcpy(&bslots[nb * cap], g->s, g->n * sizeof *g->s);
                    nb++;
                }
                swapped[t] = c->items[x].batch; /* to undo a batch switch */
                if (slots)
                    slots_add(c, slots, g, -1);
                commit_item(c, g, x, best_batch);
                if (slots) {
                    slots_add(c, slots, g, 1);
                    if (cannot_empty(c, slots, src, tidx, t + 1, m)) {
                        moved = 0; /* the rest cannot follow: undo now */
                        break;
                    }
                }
            }
        }
        if (moved) {
            if (slots)
                slots_add(c, slots, src, -1);
            src->n = 0;
            src->total_pct = 0.0;
            tree_set(c, order[o]);
            free_all -= 100.0 - src_total;
            for (size_t b = 0; b < nb; b++)
                free_all -= c->gpus[bidx[b]].total_pct - bgpu[b].total_pct;
        } else {
            if (slots)
                memcpy(slots, slots + 2 * c->n_rs, 2 * c->n_rs * sizeof *slots);
            for (size_t t = 0; t < m; t++)
                if (swapped[t]) /* undo the batch switches too */
                    set_batch(c, src->s[tidx[t]].item, swapped[t]);
            for (size_t b = 0; b < nb; b++) {
                struct gpu *g = &c->gpus[bidx[b]];
                memcpy(g->s, &bslots[b * cap], bgpu[b].n * sizeof *g->s);
                g->n = bgpu[b].n;
                g->total_pct = bgpu[b].total_pct;
                tree_set(c, bidx[b]);
            }
        }
    }
    for (size_t j = 0; j < n; j++) { /* drop the emptied GPUs, keep the order */
        if (c->gpus[j].n == 0) {
            free(c->gpus[j].s);
            continue;
        }
        c->gpus[kept++] = c->gpus[j];
    }
    c->n_gpus = kept;
out:
    free(order);
    free(bidx);
    free(tidx);
    free(bgpu);
    free(bslots);
    free(swapped);
    free(slots);
    return rv;
}

/* gpu-lets-like (notes 2.5): a GPU splits into at most two gpu-lets of sizes
 * {20, 40, 50, 60, 80, 100} %; each workload takes the smallest size at which
 * it meets T' and its rate alone (largest batch with latency < T'); workloads
 * in descending rate order; best fit into the smaller free remainder of a
 * half-used GPU, checked with the interference model (in place of gpu-lets'
 * own linear regression); otherwise a new GPU. */
static int gpulets(struct ctx *c)
{
    static const double sizes[] = {20, 40, 50, 60, 80, 100};
    size_t *idx = malloc((c->n_items ? c->n_items : 1) * sizeof *idx);
    int rv = SLO_OK;

    if (!idx)
        return SLO_ERR_NOMEM;
    for (size_t i = 0; i < c->n_items; i++) {
        struct item *it = &c->items[i];
        const struct slo_ig_model *m = &c->p->models[it->model];
        int found = 0;
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0] && !found; s++) {
            int best_b = -1;
            for (int b = 1; b <= SLO_IG_MAX_BATCH; b++) {
                struct slo_ig_prediction o;
                if (solo_predict(c->p, it->model, b, sizes[s], &o) ||
                    !(o.latency_ms < it->slo_half_ms))
                    break;
                if (o.throughput_rps >= it->rate_rps)
                    best_b = b;
            }
            if (best_b > 0) {
                it->batch = best_b;
                it->bound_ms =
                    slo_ig_latency_bound_ms(c->p, m, best_b, it->rate_rps, it->slo_half_ms);
                it->r_low_pct = sizes[s];
                it->r_new_pct = sizes[s];
                it->transfer_ms =
                    (m->input_bytes + m->output_bytes) * best_b / c->p->bandwidth_bytes_per_ms;
                found = 1;
            }
        }
        if (!found) { /* keep iGniter's point (needs <= 100 % alone) rounded up to a size */
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                if (sizes[s] >= it->r_new_pct - SHARE_EPS) {
                    it->r_low_pct = it->r_new_pct = sizes[s];
                    break;
                }
        }
        idx[i] = i;
    }
    /* descending rate, stable */
    for (size_t i = 1; i < c->n_items; i++) {
        size_t v = idx[i], j = i;
        while (j > 0 && c->items[idx[j - 1]].rate_rps < c->items[v].rate_rps) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
    for (size_t k = 0; k < c->n_items; k++) {
        size_t x = idx[k];
        long best = -1;
        double best_free = 1e9, after;
        for (size_t j = 0; j < c->n_gpus; j++) {
            struct gpu *g = &c->gpus[j];
            double free_pct = 100.0 - g->total_pct;
            if (g->n != 1 || free_pct + SHARE_EPS < c->items[x].r_low_pct)
                continue;
            /* the workload gets the whole remainder as its gpu-let */
            if (!try_gpu(c, g, x, free_pct, 0, &after, NULL))
                continue;
            if (raise_round(c, c->work, 2, NULL, NULL, 0) != 0)
                continue;
            if (free_pct < best_free) {
                best_free = free_pct;
                best = (long)j;
            }
        }
        if (best < 0) {
            if ((rv = place_on_new(c, x, c->items[x].r_low_pct)))
                break;
        } else {
            struct gpu *g = &c->gpus[best];
            try_gpu(c, g, x, 100.0 - g->total_pct, 0, &after, NULL);
            memcpy(g->s, c->work, 2 * sizeof *g->s);
            g->n = 2;
            g->total_pct = after;
        }
    }
    free(idx);
    return rv;
}

/* Plan the workloads sel[n_sel] on one type; on infeasibility *bad = workload. */
static int plan_type(struct ctx *c, const struct slo_ig_workload *wl, const size_t *sel,
                     size_t n_sel, int policy, size_t *bad)
{
    int rv;
    for (size_t i = 0; i < n_sel; i++) {
        int model = slo_ig_find_model(c->p, wl[sel[i]].model);
        if (model < 0) {
            *bad = sel[i];
            return SLO_ERR_NOT_FOUND;
        }
        rv = prepare_workload(c, &wl[sel[i]], sel[i], model, policy == SLO_IG_POLICY_GSLICE);
        if (rv) {
            *bad = sel[i];
            return rv;
        }
    }
    switch (policy) {
    case SLO_IG_POLICY_IGNITER: return (rv = greedy(c, 1)) ? rv : consolidate(c);
    case SLO_IG_POLICY_GPULETS: return gpulets(c);
    default: return greedy(c, 0); /* FFD, and GSLICE-like packs its tuned shares by FFD */
    }
}

/* Append the GPUs of c to plan (shared GPUs first, then dedicated ones). */
static int append_plan(struct slo_ig_plan *plan, const struct ctx *c, double usd_per_gpu_h)
{
    size_t add_g = c->n_gpus + c->n_ded, add_p = c->n_ded;
    struct slo_ig_plan_gpu *ng;
    struct slo_ig_placement *np;

    for (size_t j = 0; j < c->n_gpus; j++)
        add_p += c->gpus[j].n;
    ng = realloc(plan->gpus, (plan->n_gpus + add_g + 1) * sizeof *ng);
    if (!ng)
        return SLO_ERR_NOMEM;
    plan->gpus = ng;
    np = realloc(plan->placements, (plan->n_placements + add_p + 1) * sizeof *np);
    if (!np)
        return SLO_ERR_NOMEM;
    plan->placements = np;
    for (size_t j = 0; j < c->n_gpus + c->n_ded; j++) {
        struct slo_ig_plan_gpu *g = &plan->gpus[plan->n_gpus++];
        memset(g, 0, sizeof *g);
        g->type = c->type;
        g->usd_per_gpu_h = usd_per_gpu_h;
        g->first = plan->n_placements;
        if (j < c->n_gpus) {
            const struct gpu *cg = &c->gpus[j];
            for (size_t i = 0; i < cg->n; i++) {
                const struct item *it = &c->items[cg->s[i].item];
                struct slo_ig_placement *pl = &plan->placements[plan->n_placements++];
                memset(pl, 0, sizeof *pl);
                pl->workload = it->w;
                pl->rate_rps = it->rate_rps;
                pl->batch = it->batch;
                pl->share_pct = cg->s[i].share_pct;
            }
            g->count = cg->n;
            g->share_pct = cg->total_pct;
        } else {
            size_t d = j - c->n_gpus;
            struct slo_ig_placement *pl = &plan->placements[plan->n_placements++];
            memset(pl, 0, sizeof *pl);
            pl->workload = c->ded[d].item;
            pl->rate_rps = c->ded_rate[d];
            pl->batch = c->ded_batch[d];
            pl->share_pct = 100.0;
            g->count = 1;
            g->share_pct = 100.0;
            g->dedicated = 1;
        }
        plan->cost_usd_per_h += usd_per_gpu_h;
    }
    return SLO_OK;
}

/* Predict every GPU of the plan with the public model; count violations. */
static int evaluate_plan(const struct slo_ig_profile *profiles,
                         const struct slo_ig_workload *wl, struct slo_ig_plan *plan,
                         slo_error_t *err)
{
    struct slo_ig_tenant *t = NULL;
    struct slo_ig_prediction *o = NULL;
    size_t cap = 0;
    int rv = SLO_OK;

    plan->n_violations = 0;
    for (size_t j = 0; j < plan->n_gpus; j++) {
        struct slo_ig_plan_gpu *g = &plan->gpus[j];
        const struct slo_ig_profile *p = &profiles[g->type];
        struct slo_ig_gpu_state st;
        if (g->count > cap) {
            cap = g->count * 2;
            free(t);
            free(o);
            t = malloc(cap * sizeof *t);
            o = malloc(cap * sizeof *o);
            if (!t || !o) {
                rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
                goto out;
            }
        }
        for (size_t i = 0; i < g->count; i++) {
            const struct slo_ig_placement *pl = &plan->placements[g->first + i];
            t[i].model = slo_ig_find_model(p, wl[pl->workload].model);
            t[i].batch = pl->batch;
            t[i].share_pct = pl->share_pct;
        }
        if ((rv = slo_ig_predict(p, t, g->count, o, &st, err)))
            goto out;
        g->power_w = st.total_power_w;
        g->clock_mhz = st.clock_mhz;
        for (size_t i = 0; i < g->count; i++) {
            struct slo_ig_placement *pl = &plan->placements[g->first + i];
            pl->latency_ms = o[i].latency_ms;
            pl->throughput_rps = o[i].throughput_rps;
            if (!slo_ig_meets_slo(pl->latency_ms, pl->throughput_rps, wl[pl->workload].slo_ms,
                                  pl->rate_rps) ||
                g->share_pct > 100.0 + SHARE_EPS)
                plan->n_violations++;
        }
    }
out:
    free(t);
    free(o);
    return rv;
}

int slo_ig_policy_from_name(const char *name)
{
    if (!strcmp(name, "igniter"))
        return SLO_IG_POLICY_IGNITER;
    if (!strcmp(name, "ffd"))
        return SLO_IG_POLICY_FFD;
    if (!strcmp(name, "gslice"))
        return SLO_IG_POLICY_GSLICE;
    if (!strcmp(name, "gpulets") || !strcmp(name, "gpu-lets"))
        return SLO_IG_POLICY_GPULETS;
    return -1;
}

const char *slo_ig_policy_name(int policy)
{
    switch (policy) {
    case SLO_IG_POLICY_IGNITER: return "igniter";
    case SLO_IG_POLICY_FFD: return "ffd";
    case SLO_IG_POLICY_GSLICE: return "gslice";
    case SLO_IG_POLICY_GPULETS: return "gpulets";
    default: return "unknown";
    }
}

void slo_ig_plan_free(struct slo_ig_plan *plan)
{
    if (!plan)
        return;
    free(plan->gpus);
    free(plan->placements);
    memset(plan, 0, sizeof *plan);
}

static int infeasible_error(const struct slo_ig_profile *profiles, size_t n_types,
                            const struct slo_ig_workload *w, size_t wi, slo_error_t *err)
{
    /* Explain with the first type that knows the model: T/2 against the time
     * a batch of 1 needs at 100 % alone. */
    for (size_t t = 0; t < n_types; t++) {
        const struct slo_ig_profile *p = &profiles[t];
        int mi = slo_ig_find_model(p, w->model);
        struct slo_ig_prediction o;
        if (mi < 0)
            continue;
        const struct slo_ig_model *m = &p->models[mi];
        double transfer = (m->input_bytes + m->output_bytes) / p->bandwidth_bytes_per_ms;
        if (solo_predict(p, mi, 1, 100.0, &o) == SLO_OK && o.latency_ms < w->slo_ms / 2.0)
            return slo__fail(err, SLO_ERR_INFEASIBLE, NULL,
                            "workload %zu (%s, %g req/s, SLO %g ms): expected a rate that at "
                            "most a million dedicated GPUs can serve, found %g req/s",
                            wi + 1, w->model, w->rate_rps, w->slo_ms, w->rate_rps);
        if (w->slo_ms / 2.0 <= transfer)
            return slo__fail(err, SLO_ERR_INFEASIBLE, NULL,
                            "workload %zu (%s, %g req/s, SLO %g ms): no GPU type can serve it: "
                            "iGniter checks SLO/2 = %g ms, shorter than moving one request "
                            "over PCIe on a %s (%g ms in + out, delta <= 0)",
                            wi + 1, w->model, w->rate_rps, w->slo_ms, w->slo_ms / 2.0,
                            p->gpu_model[0] ? p->gpu_model : "GPU", transfer);
        if (solo_predict(p, mi, 1, 100.0, &o) == SLO_OK)
            return slo__fail(err, SLO_ERR_INFEASIBLE, NULL,
                            "workload %zu (%s, %g req/s, SLO %g ms): no GPU type can serve it: "
                            "iGniter checks SLO/2 = %g ms, but batch 1 alone on a whole %s "
                            "takes %g ms (transfer %g ms + scheduling %g ms + kernels %g ms)",
                            wi + 1, w->model, w->rate_rps, w->slo_ms, w->slo_ms / 2.0,
                            p->gpu_model[0] ? p->gpu_model : "GPU", o.latency_ms, transfer,
                            o.t_sch_ms, o.t_act_ms);
    }
    return slo__fail(err, SLO_ERR_INFEASIBLE, NULL,
                    "workload %zu (%s, SLO %g ms): no GPU type can serve it", wi + 1, w->model,
                    w->slo_ms);
}

static int check_request(const struct slo_ig_profile *profiles, size_t n_types,
                         const struct slo_ig_workload *wl, size_t n, slo_error_t *err)
{
    if (n_types == 0)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected at least one GPU profile, found none");
    if (n == 0)
        return slo__fail(err, SLO_ERR_INVALID, NULL, "expected at least one workload, found none");
    for (size_t t = 0; t < n_types; t++)
        if (!(profiles[t].usd_per_gpu_h >= 0.0))
            return slo__fail(err, SLO_ERR_INVALID, profiles[t].source,
                            "expected a price (usd_per_gpu_h >= 0) for GPU type %zu, found none "
                            "(give gpu.usd_per_h or price it from a catalog)",
                            t);
    for (size_t i = 0; i < n; i++) {
        int known = 0;
        if (!(wl[i].rate_rps > 0.0) || !isfinite(wl[i].rate_rps))
            return slo__fail(err, SLO_ERR_INVALID, NULL,
                            "workload %zu (%s): expected a rate > 0 req/s, found %g", i + 1,
                            wl[i].model, wl[i].rate_rps);
        if (!(wl[i].slo_ms > 0.0) || !isfinite(wl[i].slo_ms))
            return slo__fail(err, SLO_ERR_INVALID, NULL,
                            "workload %zu (%s): expected an SLO > 0 ms, found %g", i + 1,
                            wl[i].model, wl[i].slo_ms);
        for (size_t t = 0; t < n_types; t++)
            known |= slo_ig_find_model(&profiles[t], wl[i].model) >= 0;
        if (!known) {
            char names[256] = "";
            for (size_t m = 0; m < profiles[0].n_models; m++) {
                size_t used = strlen(names);
                snprintf(names + used, sizeof names - used, "%s%s", m ? ", " : "",
                         profiles[0].models[m].name);
            }
            return slo__fail(err, SLO_ERR_NOT_FOUND, NULL,
                            "workload %zu: expected a profiled model (%s), found \"%s\"", i + 1,
                            names, wl[i].model);
        }
    }
    return SLO_OK;
}

/* Plan the subset sel of workloads, each on its assigned type; into *out. */
static int plan_assignment(const struct slo_ig_profile *profiles, size_t n_types,
                           const struct slo_ig_workload *wl, size_t n, const size_t *type_of,
                           int policy, struct slo_ig_plan *out, size_t *bad)
{
    size_t *sel = malloc(n * sizeof *sel);
    int rv = SLO_OK;

    int scan = (policy & SLO__IG_SCAN) != 0;

    policy &= ~SLO__IG_SCAN;
    memset(out, 0, sizeof *out);
    out->policy = policy;
    if (!sel)
        return SLO_ERR_NOMEM;
    for (size_t t = 0; t < n_types && rv == SLO_OK; t++) {
        struct ctx c;
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (type_of[i] == t)
                sel[k++] = i;
        if (k == 0)
            continue;
        if ((rv = ctx_init(&c, &profiles[t], t)) == SLO_OK && (c.scan = scan, 1) &&
            (rv = plan_type(&c, wl, sel, k, policy, bad)) == SLO_OK)
            rv = append_plan(out, &c, profiles[t].usd_per_gpu_h);
        ctx_free(&c);
    }
    free(sel);
    if (rv)
        slo_ig_plan_free(out);
    return rv;
}

int slo_ig_meets_slo(double latency_ms, double throughput_rps, double slo_ms, double rate_rps)
{
    return (!(slo_ms > 0.0) || latency_ms <= slo_ms / 2.0 * (1 + 1e-12)) &&
           (!(rate_rps > 0.0) || throughput_rps >= rate_rps * (1 - 1e-12));
}

int slo_ig_plan(const struct slo_ig_profile *profiles, size_t n_types,
                const struct slo_ig_workload *wl, size_t n, int policy,
                struct slo_ig_plan *plan, slo_error_t *err)
{
    size_t failed;
    return slo__ig_plan_detail(profiles, n_types, wl, n, policy, plan, &failed, err);
}

int slo__ig_plan_detail(const struct slo_ig_profile *profiles, size_t n_types,
                        const struct slo_ig_workload *wl, size_t n, int policy,
                        struct slo_ig_plan *plan, size_t *failed, slo_error_t *err)
{
    size_t *type_of = NULL, bad = 0;
    double *best_cost = NULL;
    int rv, have = 0, scan = policy & SLO__IG_SCAN;

    policy &= ~SLO__IG_SCAN;
    memset(plan, 0, sizeof *plan);
    *failed = SIZE_MAX;
    if (policy < SLO_IG_POLICY_IGNITER || policy > SLO_IG_POLICY_GPULETS)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                        "policy: expected igniter, ffd, gslice or gpulets, found %d", policy);
    if ((rv = check_request(profiles, n_types, wl, n, err)))
        return rv;
    type_of = malloc(n * sizeof *type_of);
    best_cost = malloc(n * sizeof *best_cost);
    if (!type_of || !best_cost) {
        rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    /* Mixed assignment: each workload to the type where serving it alone
     * costs least (price x share / 100, or x dedicated GPUs + residual).
     * One type: every workload is on it (plan_type meets the workloads it
     * cannot serve in the same order, with the same error). One context per
     * type, emptied for each workload, not one allocation per workload. */
    for (size_t i = 0; i < n; i++) {
        best_cost[i] = INFINITY;
        type_of[i] = n_types == 1 ? 0 : n_types;
    }
    for (size_t t = 0; n_types > 1 && t < n_types; t++) {
        struct ctx c;
        if ((rv = ctx_init(&c, &profiles[t], t))) {
            ctx_free(&c);
            rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < n; i++) {
            int model = slo_ig_find_model(&profiles[t], wl[i].model);
            double cost = 0.0;
            if (model < 0)
                continue;
            c.n_items = c.n_ded = 0;
            rv = prepare_workload(&c, &wl[i], i, model, 0);
            if (rv == SLO_ERR_NOMEM) {
                ctx_free(&c);
                rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
                goto out;
            }
            if (rv == SLO_OK) {
                cost = profiles[t].usd_per_gpu_h * (double)c.n_ded;
                for (size_t k = 0; k < c.n_items; k++)
                    cost += profiles[t].usd_per_gpu_h * c.items[k].r_new_pct / 100.0;
                if (cost < best_cost[i]) {
                    best_cost[i] = cost;
                    type_of[i] = t;
                }
            }
        }
        ctx_free(&c);
    }
    rv = SLO_OK;
    for (size_t i = 0; i < n; i++)
        if (type_of[i] == n_types) { /* the first workload no type serves */
            *failed = i;
            rv = infeasible_error(profiles, n_types, &wl[i], i, err);
            goto out;
        }
    rv = plan_assignment(profiles, n_types, wl, n, type_of, policy | scan, plan, &bad);
    if (rv == SLO_ERR_NOMEM) {
        rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    if (rv) {
        *failed = bad;
        rv = infeasible_error(profiles, n_types, &wl[bad], bad, err);
        goto out;
    }
    have = 1;
    /* Compare with every single-type plan (only meaningful with several types). */
    for (size_t t = 0; n_types > 1 && t < n_types; t++) {
        struct slo_ig_plan alt;
        for (size_t i = 0; i < n; i++)
            type_of[i] = t;
        rv = plan_assignment(profiles, n_types, wl, n, type_of, policy | scan, &alt, &bad);
        if (rv == SLO_ERR_NOMEM) {
            rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
            goto out;
        }
        if (rv)
            continue; /* some workload cannot run on this type */
        if (alt.cost_usd_per_h < plan->cost_usd_per_h - 1e-9 ||
            (fabs(alt.cost_usd_per_h - plan->cost_usd_per_h) <= 1e-9 &&
             alt.n_gpus < plan->n_gpus)) {
            slo_ig_plan_free(plan);
            *plan = alt;
        } else {
            slo_ig_plan_free(&alt);
        }
    }
    rv = evaluate_plan(profiles, wl, plan, err);
    if (rv == SLO_OK && policy == SLO_IG_POLICY_IGNITER && plan->n_violations) {
        /* Not expected (every latency is held to its bound while planning), but
         * an iGniter plan that the model says misses an SLO is never returned. */
        rv = slo_ig_plan_verify(profiles, n_types, wl, n, plan, err);
        if (rv == SLO_OK)
            rv = slo__fail(err, SLO_ERR_INFEASIBLE, NULL,
                          "the plan misses SLO/2 or a rate in %zu placements",
                          plan->n_violations);
    }
out:
    free(type_of);
    free(best_cost);
    if (rv && have)
        slo_ig_plan_free(plan);
    return rv;
}

int slo_ig_plan_verify(const struct slo_ig_profile *profiles, size_t n_types,
                       const struct slo_ig_workload *wl, size_t n,
                       const struct slo_ig_plan *plan, slo_error_t *err)
{
    double *served = calloc(n ? n : 1, sizeof *served);
    size_t cap = plan->n_placements ? plan->n_placements : 1;
    struct slo_ig_tenant *t = malloc(cap * sizeof *t);
    struct slo_ig_prediction *o = malloc(cap * sizeof *o);
    int rv = SLO_OK;

    if (!served || !t || !o) {
        free(served);
        free(t);
        free(o);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    for (size_t j = 0; j < plan->n_gpus && rv == SLO_OK; j++) {
        const struct slo_ig_plan_gpu *g = &plan->gpus[j];
        double total = 0.0;
        if (g->type >= n_types || g->count == 0 || g->first > plan->n_placements ||
            g->count > plan->n_placements - g->first) {
            rv = slo__fail(err, SLO_ERR_INFEASIBLE, NULL, "GPU %zu: malformed entry", j + 1);
            break;
        }
        for (size_t i = 0; i < g->count; i++) {
            const struct slo_ig_placement *pl = &plan->placements[g->first + i];
            if (pl->workload >= n) {
                rv = slo__fail(err, SLO_ERR_INFEASIBLE, NULL, "GPU %zu: unknown workload", j + 1);
                break;
            }
            t[i].model = slo_ig_find_model(&profiles[g->type], wl[pl->workload].model);
            t[i].batch = pl->batch;
            t[i].share_pct = pl->share_pct;
            total += pl->share_pct;
            served[pl->workload] += pl->rate_rps;
        }
        if (rv)
            break;
        if (total > 100.0 + 1e-9) {
            rv = slo__fail(err, SLO_ERR_INFEASIBLE, NULL,
                          "GPU %zu: shares sum to %g %%, expected at most 100", j + 1, total);
            break;
        }
        if ((rv = slo_ig_predict(&profiles[g->type], t, g->count, o, NULL, err)))
            break;
        for (size_t i = 0; i < g->count; i++) {
            const struct slo_ig_placement *pl = &plan->placements[g->first + i];
            const struct slo_ig_workload *w = &wl[pl->workload];
            if (!slo_ig_meets_slo(o[i].latency_ms, 0.0, w->slo_ms, 0.0)) {
                rv = slo__fail(err, SLO_ERR_INFEASIBLE, NULL,
                              "GPU %zu: workload %zu (%s): predicted latency %g ms, expected "
                              "at most SLO/2 = %g ms",
                              j + 1, pl->workload + 1, w->model, o[i].latency_ms,
                              w->slo_ms / 2.0);
                break;
            }
            if (!slo_ig_meets_slo(o[i].latency_ms, o[i].throughput_rps, 0.0, pl->rate_rps)) {
                rv = slo__fail(err, SLO_ERR_INFEASIBLE, NULL,
                              "GPU %zu: workload %zu (%s): predicted throughput %g req/s, "
                              "expected at least its rate %g",
                              j + 1, pl->workload + 1, w->model, o[i].throughput_rps,
                              pl->rate_rps);
                break;
            }
        }
    }
    for (size_t i = 0; i < n && rv == SLO_OK; i++)
        if (fabs(served[i] - wl[i].rate_rps) > 1e-6 * wl[i].rate_rps)
            rv = slo__fail(err, SLO_ERR_INFEASIBLE, NULL,
                          "workload %zu (%s): placements serve %g req/s, expected its rate %g",
                          i + 1, wl[i].model, served[i], wl[i].rate_rps);
    free(served);
    free(t);
    free(o);
    return rv;
}
