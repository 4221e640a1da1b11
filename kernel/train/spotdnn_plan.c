/*
 * spotdnn_plan.c - provisioning: spotDNN's bounds and sliding window
 * (paper Sec. IV, Eqs. 15-16, Algorithm 1), an exact branch and bound under
 * the same model, exhaustive search (test oracle), the fastest plan, and the
 * cheapest homogeneous plan.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_private.h"
#include "train_oracle.h"

/* ------------------------------------------------------------------ */
/* Shared pieces                                                       */
/* ------------------------------------------------------------------ */

static int plan_init(const struct slo_train_setup *s, struct slo_train_plan *plan,
                     slo_error_t *err)
{
    memset(plan, 0, sizeof *plan);
    plan->counts = calloc(s->n_types, sizeof *plan->counts);
    if (!plan->counts)
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    return SLO_OK;
}

void slo_train_plan_free(struct slo_train_plan *p)
{
    if (!p)
        return;
    free(p->counts);
    memset(p, 0, sizeof *p);
}

static int existing_of(const struct slo_train_request *req, size_t k)
{
    return req->existing ? req->existing[k] : 0;
}

/* The request's sanity, independent of any cluster. */
static int check_request(const struct slo_train_setup *s, const struct slo_train_request *req,
                         slo_error_t *err)
{
    const struct slo_loss_model *m = &s->wl.loss;

    if (!isfinite(req->target_loss))
        return slo__fail(err, SLO_ERR_INVALID, "--slo-loss", "expected a finite target loss, found %g",
                        req->target_loss);
    if (!(req->deadline_s > 0) || !isfinite(req->deadline_s))
        return slo__fail(err, SLO_ERR_INVALID, "--slo-time",
                        "expected a deadline > 0 s, found %g s", req->deadline_s);
    if (!(req->overhead_s >= 0))
        return slo__fail(err, SLO_ERR_INVALID, "--restart-overhead",
                        "expected an overhead >= 0 s, found %g s", req->overhead_s);
    if (!(req->target_loss > m->gamma5))
        return slo__fail(err, SLO_ERR_UNREACHABLE, "--slo-loss",
                        "target loss %g is at or below the workload's asymptotic loss %g "
                        "(loss_model.gamma5); expected a target above it",
                        req->target_loss, m->gamma5);
    if (req->loss_now > 0 && !(req->loss_now > req->target_loss))
        return slo__fail(err, SLO_ERR_INVALID, "--loss-now",
                        "the loss reached so far (%g) already meets the target %g; nothing to "
                        "plan",
                        req->loss_now, req->target_loss);
    if (req->existing)
        for (size_t k = 0; k < s->n_types; k++)
            if (req->existing[k] < 0 || req->existing[k] > s->types[k].quota)
                return slo__fail(err, SLO_ERR_INVALID, "--existing",
                                "%s: expected a count from 0 to the catalog's quota %d, found %d",
                                s->types[k].name, s->types[k].quota, req->existing[k]);
    if (req->max_workers > 0) {
        long kept = 0;
        for (size_t k = 0; k < s->n_types; k++)
            kept += existing_of(req, k);
        if (kept > req->max_workers)
            return slo__fail(err, SLO_ERR_INVALID, "--existing",
                            "expected at most max_workers = %d survivors in total, found %ld",
                            req->max_workers, kept);
    }
    /* Last: callers that look for the closest point go on after this one. */
    if (req->overhead_s >= req->deadline_s)
        return slo__fail(err, SLO_ERR_INFEASIBLE, "--slo-time",
                        "no plan meets the SLO: the restart overhead %g s leaves no time of the "
                        "%g s remaining",
                        req->overhead_s, req->deadline_s);
    return SLO_OK;
}

/* Largest count of type k a plan may hold: its quota (check_request keeps
 * the survivors within it). */
static int max_of(const struct slo_train_setup *s, const struct slo_train_request *req, size_t k)
{
    (void)req;
    return s->types[k].quota;
}

static int within_budget(const struct slo_train_request *req, const struct slo_train_eval *ev)
{
    return req->budget_usd <= 0 || ev->cost_usd <= req->budget_usd;
}

/* 1 when counts holds at most req->max_workers workers (or there is no limit). */
static int within_workers(const struct slo_train_setup *s, const struct slo_train_request *req,
                          const int *counts)
{
    long n = 0;
    if (req->max_workers <= 0)
        return 1;
    for (size_t k = 0; k < s->n_types; k++)
        n += counts[k];
    return n <= req->max_workers;
}

/* Evaluate counts (one more evaluation) and keep them in plan when they meet
 * the deadline and budget more cheaply than plan's (strict '<': the first of
 * equally cheap plans stays). A cluster the loss model cannot bring to the
 * target is not a candidate. */
static void keep_if_cheaper(const struct slo_train_setup *s, const int *counts,
                            const struct slo_train_request *req, struct slo_train_plan *plan)
{
    struct slo_train_eval ev;

    plan->evaluations++;
    if (!within_workers(s, req, counts) || slo_train_evaluate(s, counts, req, &ev, NULL) != SLO_OK)
        return;
    if (!(ev.time_s > 0 && ev.time_s <= req->deadline_s && within_budget(req, &ev)))
        return;
    if (plan->feasible && !(ev.cost_usd < plan->eval.cost_usd))
        return;
    plan->feasible = 1;
    plan->eval = ev;
    memcpy(plan->counts, counts, s->n_types * sizeof *counts);
}

/* As keep_if_cheaper for the fastest plan: deadline and budget ignored,
 * strict '<' on time. */
static void keep_if_faster(const struct slo_train_setup *s, const int *counts,
                           const struct slo_train_request *req, struct slo_train_plan *plan)
{
    struct slo_train_eval ev;

    plan->evaluations++;
    if (!within_workers(s, req, counts) ||
        slo_train_evaluate(s, counts, req, &ev, NULL) != SLO_OK || !(ev.time_s > 0))
        return;
    if (plan->eval.n_workers && !(ev.time_s < plan->eval.time_s))
        return;
    plan->feasible = ev.time_s <= req->deadline_s && within_budget(req, &ev);
    plan->eval = ev;
    memcpy(plan->counts, counts, s->n_types * sizeof *counts);
}

typedef void (*keep_fn)(const struct slo_train_setup *, const int *,
                        const struct slo_train_request *, struct slo_train_plan *);

static int infeasible(const struct slo_train_request *req, slo_error_t *err)
{
    if (req->budget_usd > 0)
        return slo__fail(err, SLO_ERR_INFEASIBLE, NULL,
                        "no plan meets the SLO: loss %.10g within %.6g s at a cost of at most "
                        "%.10g USD",
                        req->target_loss, req->deadline_s, req->budget_usd);
    return slo__fail(err, SLO_ERR_INFEASIBLE, NULL, "no plan meets the SLO: loss %.10g within %.6g s",
                    req->target_loss, req->deadline_s);
}

/* ------------------------------------------------------------------ */
/* Algorithm 1: bounds and sliding window                              */
/* ------------------------------------------------------------------ */

struct slot {
    int type;
    double t_s; /* no-contention iteration time */
};

static int slot_cmp(const void *a, const void *b)
{
    const struct slot *x = a, *y = b;
    if (x->t_s != y->t_s)
        return x->t_s < y->t_s ? 1 : -1;       /* descending T^i (paper IV-B) */
    return x->type - y->type;                  /* stable: catalog order */
}

/* The sliding window evaluates at most this many clusters per pass; as the
 * exact search's seed, at most SLO_SEED_WINDOW_EVALS (a seed only has to be
 * a plan: the search proves the rest). */
#define SLO_WINDOW_MAX_EVALS 2000000.0
#define SLO_SEED_WINDOW_EVALS 500.0

/* Eq. 15: largest n with P < 1 (clipped by the no-contention size). */
static int n_upper_bound(const struct slo_workload *wl, int total)
{
    double a = wl->alpha1, b = wl->beta1 + wl->contention_margin;
    double x = (1 - b) / a;
    double nu = x > 0 ? floor(x * x) : 1;
    double free_n = floor(wl->b_ps_mbps / wl->b_req_mbps); /* n B_req <= B_ps */
    if (free_n > nu)
        nu = free_n;
    return nu > total ? total : nu < 1 ? 1 : (int)nu;
}

/* Eq. 16: n_lower = ceil(b_min j_min / (v_max T_obj)), j_min from Eq. 3 with
 * n = 1 and R = 0 (a heuristic, research notes 2.2). */
static int n_lower_bound(const struct slo_train_setup *s, const struct slo_train_request *req,
                         const int *avail, int total)
{
    double b_min = DBL_MAX, v_max = 0, j, j_now = 0;
    for (size_t k = 0; k < s->n_types; k++) {
        if (!avail[k])
            continue;
        double T = slo_train_iteration_time(s, k, 1);
        if (s->types[k].batch < b_min)
            b_min = s->types[k].batch;
        if (s->types[k].batch / T > v_max)
            v_max = s->types[k].batch / T;
    }
    if (v_max <= 0 ||
        slo_iterations_for_loss(&s->wl.loss, b_min, 0, 1, req->target_loss, &j, NULL) != SLO_OK)
        return 1;
    if (req->loss_now > 0 &&
        slo_iterations_for_loss(&s->wl.loss, b_min, 0, 1, req->loss_now, &j_now, NULL) == SLO_OK)
        j -= j_now;
    double nl = ceil(b_min * j / (v_max * (req->deadline_s - req->overhead_s)));
    return nl < 1 ? 1 : nl > total ? total : (int)nl;
}

/*
 * Steps 3-6 of Algorithm 1 for one prefix: prefix[k] instances of each type
 * in every candidate, avail[k] more in the window list; keep() decides
 * which candidate plan holds (keep_if_cheaper: the cheapest feasible one).
 */
static int window_pass(const struct slo_train_setup *s, const struct slo_train_request *req,
                       const int *prefix, const int *avail, keep_fn keep, double max_evals,
                       struct slo_train_plan *plan, slo_error_t *err)
{
    struct slot *list;
    int *counts, len = 0, n_prefix = 0, *all = calloc(s->n_types, sizeof *all);

    for (size_t k = 0; all && k < s->n_types; k++) {
        len += avail[k];
        n_prefix += prefix[k];
        all[k] = prefix[k] + avail[k];
    }
    list = malloc((len ? len : 1) * sizeof *list);
    counts = calloc(s->n_types, sizeof *counts);
    if (!list || !counts || !all) {
        free(list);
        free(counts);
        free(all);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    /* Step 3: one entry per purchasable instance, duplicates kept. */
    len = 0;
    for (size_t k = 0; k < s->n_types; k++)
        for (int c = 0; c < avail[k]; c++)
            list[len++] = (struct slot){(int)k, slo_train_iteration_time(s, k, 1)};
    /* Step 5: sort by iteration time without contention, descending. */
    qsort(list, len, sizeof *list, slot_cmp);

    /* Step 4: bounds on the cluster size, as window sizes after the prefix. */
    int total = n_prefix + len;
    int nl = n_lower_bound(s, req, all, total), nu = n_upper_bound(&s->wl, total);
    free(all);
    int w_min = n_prefix ? 0 : 1;
    int w_lo = nl - n_prefix > w_min ? nl - n_prefix : w_min;
    int w_hi = nu - n_prefix < len ? nu - n_prefix : len;
    if (w_hi < w_lo) {
        /* The bounds cross (Eq. 16 asks for more workers than Eq. 15 allows
         * without contention): search the sizes between them. */
        int a = nu - n_prefix, b = nl - n_prefix;
        w_lo = a > w_min ? a : w_min;
        w_hi = b < len ? b : len;
    }
    /* No window beyond the request's worker limit. */
    if (req->max_workers > 0 && w_hi > req->max_workers - n_prefix) {
        w_hi = req->max_workers - n_prefix;
        if (w_lo > w_hi) /* Eq. 16 wants more: the largest size allowed */
            w_lo = w_hi > w_min ? w_hi : w_min;
    }
    /* A heuristic must stay fast: at most SLO_WINDOW_MAX_EVALS windows, the
     * smallest sizes first. */
    if (w_hi >= w_lo && (double)(w_hi - w_lo + 1) * (len + 1) > max_evals)
        w_hi = w_lo + (int)(max_evals / (len + 1));
    if (!plan->n_upper || n_prefix + w_lo < plan->n_lower)
        plan->n_lower = n_prefix + w_lo;
    if (n_prefix + w_hi > plan->n_upper)
        plan->n_upper = n_prefix + w_hi;

    /* Step 6: every window of every size, slid one instance at a time. */
    for (int w = w_lo; w <= w_hi && w <= len; w++) {
        memcpy(counts, prefix, s->n_types * sizeof *counts);
        for (int i = 0; i < w; i++)
            counts[list[i].type]++;
        for (int idx = 0;; idx++) {
            keep(s, counts, req, plan);
            if (w == 0 || idx + w >= len)
                break;
            counts[list[idx].type]--;
            counts[list[idx + w].type]++;
        }
    }
    free(list);
    free(counts);
    return SLO_OK;
}

/* Algorithm 1's candidates (with the on-prem-first pass), judged by keep. */
static int windows(const struct slo_train_setup *s, const struct slo_train_request *req,
                   keep_fn keep, double max_evals, struct slo_train_plan *plan, slo_error_t *err)
{
    int *prefix = calloc(s->n_types + 1, sizeof *prefix);
    int *avail = calloc(s->n_types + 1, sizeof *avail);
    int rv, any_onprem = 0;

    if (!prefix || !avail) {
        free(prefix);
        free(avail);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    /* The paper's search: survivors E prefixed, every other instance listed. */
    for (size_t k = 0; k < s->n_types; k++) {
        prefix[k] = existing_of(req, k);
        avail[k] = max_of(s, req, k) - prefix[k];
        any_onprem |= s->types[k].site == SLO_SITE_ONPREM && avail[k] > 0;
    }
    rv = window_pass(s, req, prefix, avail, keep, max_evals, plan, err);
    /* On-prem first: also every window with all on-prem nodes prefixed like
     * survivors, so they are used before any cloud instance is bought. */
    if (!rv && any_onprem) {
        for (size_t k = 0; k < s->n_types; k++)
            if (s->types[k].site == SLO_SITE_ONPREM) {
                prefix[k] += avail[k];
                avail[k] = 0;
            }
        rv = window_pass(s, req, prefix, avail, keep, max_evals, plan, err);
    }
    free(prefix);
    free(avail);
    return rv;
}

int slo_plan_window(const struct slo_train_setup *s, const struct slo_train_request *req,
                    struct slo_train_plan *plan, slo_error_t *err)
{
    int rv;

    if ((rv = check_request(s, req, err)) || (rv = plan_init(s, plan, err)) ||
        (rv = windows(s, req, keep_if_cheaper, SLO_WINDOW_MAX_EVALS, plan, err)))
        return rv;
    return plan->feasible ? SLO_OK : infeasible(req, err);
}

/* ------------------------------------------------------------------ */
/* Pools of one performance                                            */
/* ------------------------------------------------------------------ */

/*
 * Pools of one performance (dominance between catalog entries). Two entries
 * with the same batch b^i, compute time and PCIe term have the same
 * iteration time at every cluster size n (Eqs. 6-8: contention depends on n
 * only), hence the same iteration rate and speed in every cluster, so Eqs.
 * 2-5 (T_exp, b_w, R) and the iterations j cannot tell their workers apart:
 * a plan's time depends only on how many workers of each performance it
 * holds. Its cost is its time times the sum of its prices, so among plans
 * with the same count per performance the cheapest fills that
 * performance's pools cheapest first. A pool is therefore dominated by every
 * cheaper (or equally priced and earlier) pool of its performance: it is used
 * only once they are full. This is exact, under every contention level, for
 * either loss form and both conventions (cost rounding is monotone), so the
 * search runs over performance classes with the class's price a convex
 * piecewise-linear function of its count; a catalog of thousands of
 * (type, zone) pools costs no more than its distinct types. Survivors stay
 * in their own pools whatever they cost.
 */
struct pools {
    struct slo_train_setup rs; /* one type per class (rs.types owned, wl shared) */
    size_t C;
    int *class_of;             /* [M] class of each entry */
    size_t *order;             /* [M] entries by class, then price, then index */
    size_t *start;             /* [C + 1] each class's entries in order[] */
    int *lo, *cap;             /* [C] survivors, extra units available */
    double **price;            /* [C][cap + 1] USD/h of the class's workers when
                                  it holds lo + c (cheapest pools first) */
    int *existing;             /* [C] = lo (the reduced request's survivors) */
};

static void pools_free(struct pools *p)
{
    if (p->price)
        for (size_t c = 0; c < p->C; c++)
            free(p->price[c]);
    free(p->price);
    free(p->rs.types);
    free(p->class_of);
    free(p->order);
    free(p->start);
    free(p->lo);
    free(p->cap);
    free(p->existing);
    memset(p, 0, sizeof *p);
}

static void sort_by_key(size_t *idx, size_t n, const double *key);

static int same_performance(const struct slo_train_type *a, const struct slo_train_type *b)
{
    return a->batch == b->batch && a->t_comp_s == b->t_comp_s && a->t_pcie_s == b->t_pcie_s &&
           a->b_req_mbps == b->b_req_mbps;
}

/* Fill pool counts x[M] from class counts xc[C] (each >= lo): survivors in
 * their pools, the rest cheapest pool first. */
static void pools_expand(const struct pools *p, const struct slo_train_setup *s,
                         const struct slo_train_request *req, const int *xc, int *x)
{
    for (size_t k = 0; k < s->n_types; k++)
        x[k] = existing_of(req, k);
    for (size_t c = 0; c < p->C; c++) {
        int left = xc[c] - p->lo[c];
        for (size_t i = p->start[c]; i < p->start[c + 1] && left > 0; i++) {
            size_t k = p->order[i];
            int room = s->types[k].quota - x[k];
            int take = room < left ? room : left;
            x[k] += take;
            left -= take;
        }
    }
}

static int pools_init(const struct slo_train_setup *s, const struct slo_train_request *req,
                      struct pools *p, slo_error_t *err)
{
    size_t M = s->n_types;

    memset(p, 0, sizeof *p);
    p->class_of = calloc(M, sizeof *p->class_of);
    p->order = calloc(M, sizeof *p->order);
    p->start = calloc(M + 1, sizeof *p->start);
    p->rs.types = calloc(M, sizeof *p->rs.types);
    p->lo = calloc(M, sizeof *p->lo);
    p->cap = calloc(M, sizeof *p->cap);
    p->existing = calloc(M, sizeof *p->existing);
    p->price = calloc(M, sizeof *p->price);
    if (!p->class_of || !p->order || !p->start || !p->rs.types || !p->lo || !p->cap ||
        !p->existing || !p->price)
        goto nomem;
    p->rs.wl = s->wl;
    p->rs.pricing = s->pricing;
    /* Classes in order of their first entry, so a catalog of distinct types
     * is its own reduction (same order, same prices). A hash would make
     * this O(M); a scan over the classes so far is O(M C), fine for the
     * catalogs planned here (C <= 512). */
    for (size_t k = 0; k < M; k++) {
        size_t c;
        for (c = 0; c < p->C; c++)
            if (same_performance(&s->types[k], &p->rs.types[c]))
                break;
        if (c == p->C) {
            p->rs.types[c] = s->types[k];
            p->rs.types[c].quota = 0;
            p->C++;
        }
        p->class_of[k] = (int)c;
        p->rs.types[c].quota += s->types[k].quota;
        p->lo[c] += existing_of(req, k);
        p->cap[c] += s->types[k].quota - existing_of(req, k);
    }
    p->rs.n_types = p->C;
    /* Entries by class (counting sort), then by price within the class
     * (ties in catalog order): reentrant, no qsort context. */
    double *price_key = malloc(M * sizeof *price_key);
    size_t *fill = calloc(p->C + 1, sizeof *fill);
    if (!price_key || !fill) {
        free(price_key);
        free(fill);
        goto nomem;
    }
    for (size_t k = 0; k < M; k++) {
        price_key[k] = s->types[k].usd_per_h;
        p->start[p->class_of[k] + 1]++;
    }
    for (size_t c = 0; c < p->C; c++)
        p->start[c + 1] += p->start[c];
    for (size_t k = 0; k < M; k++) {
        size_t c = (size_t)p->class_of[k];
        p->order[p->start[c] + fill[c]++] = k;
    }
    for (size_t c = 0; c < p->C; c++)
        sort_by_key(p->order + p->start[c], p->start[c + 1] - p->start[c], price_key);
    free(price_key);
    free(fill);
    for (size_t c = 0; c < p->C; c++) {
        p->existing[c] = p->lo[c];
        if (!(p->price[c] = calloc((size_t)p->cap[c] + 1, sizeof **p->price)))
            goto nomem;
        /* price[c][u]: sum over the class's pools of (survivors + filled) x
         * price; for a class of one pool exactly the product
         * slo_train_evaluate forms, so a catalog of distinct types plans
         * bit for bit as before. */
        size_t k0 = p->order[p->start[c]];
        if (p->start[c + 1] - p->start[c] == 1) {
            for (int u = 0; u <= p->cap[c]; u++)
                p->price[c][u] = (existing_of(req, k0) + u) * s->types[k0].usd_per_h;
        } else {
            double sum = 0;
            int u = 0;
            for (size_t i = p->start[c]; i < p->start[c + 1]; i++)
                sum += existing_of(req, p->order[i]) * s->types[p->order[i]].usd_per_h;
            p->price[c][0] = sum;
            for (size_t i = p->start[c]; i < p->start[c + 1]; i++) {
                size_t k = p->order[i];
                for (int r = existing_of(req, k); r < s->types[k].quota; r++) {
                    sum += s->types[k].usd_per_h;
                    p->price[c][++u] = sum;
                }
            }
        }
        /* The class's per-unit price in the reduced setup: its cheapest
         * extra unit (a lower bound on every unit's, units cost more and
         * more). */
        if (p->start[c + 1] - p->start[c] > 1)
            p->rs.types[c].usd_per_h = s->types[p->order[p->start[c]]].usd_per_h;
        for (size_t i = p->start[c]; i < p->start[c + 1]; i++)
            if (existing_of(req, p->order[i]) < s->types[p->order[i]].quota) {
                p->rs.types[c].usd_per_h = s->types[p->order[i]].usd_per_h;
                break;
            }
    }
    return SLO_OK;
nomem:
    pools_free(p);
    return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
}

/* ------------------------------------------------------------------ */
/* Exact search: branch and bound per cluster size n                   */
/* ------------------------------------------------------------------ */

/* MIN_COST: the cheapest plan; MIN_TIME: the fastest; FRONTIER: every plan
 * no other plan beats on both time and cost (the cost-deadline frontier). */
enum objective { MIN_COST, MIN_TIME, FRONTIER };

/* One point of the frontier being built: a plan (class counts) and its
 * evaluation. */
struct front_pt {
    double t, c;
    int *x;
    struct slo_train_eval ev;
};

struct bb {
    const struct slo_train_setup *s;
    const struct slo_train_request *req;
    enum objective obj;
    int check_slo;         /* prune on deadline and budget */
    size_t M;
    int n;                 /* cluster size being searched */
    /* The iterations to go are a function of q = (g2 b_w + g3) x the sqrt
     * factor of Eq. 3: j = q k_fresh - g1 for a fresh start, and
     * j = min(q k_replan, q k_fresh - g1) when re-planning (j(L) - j(Lnow),
     * with j(Lnow) clamped at 0); see iterations_lo. */
    double k_fresh;        /* 1 / (L - g5) */
    double k_replan;       /* 1 / (L - g5) - 1 / (Lnow - g5), or 0 for a fresh start */
    double *sp, *rt, *pr;  /* [M] per-worker speed, iteration rate, price at size n
                              (pr: the class's cheapest extra unit, a lower bound on
                              every unit's) */
    double *const *price;  /* [M][cap + 1] the class's USD/h at lo + c workers */
    int *lo, *cap;         /* [M] mandatory (existing) count and extra capacity */
    size_t *order;         /* [M] DFS order of the types */
    size_t *pos;           /* [M] each type's place in order[] */
    size_t *ord_sp, *ord_rt, *ord_pr; /* [M] types by sp, rt, pr ascending (per n) */
    int *x;                /* [M] current counts */
    double *key;           /* [M] scratch for the ratio bound */
    size_t *idx;           /* [M] scratch */
    int have_best;
    double best;           /* objective value of the incumbent */
    int *best_x;
    struct slo_train_eval best_ev;
    struct front_pt *fp;   /* FRONTIER: [nfp] by time ascending, cost strictly
                              descending */
    size_t nfp, fp_cap;
    int nomem;             /* an allocation for the frontier failed */
    long nodes;
    long node_limit;
    int stopped;           /* node_limit reached: the best plan is not proven */
};

/* Sort idx[n] by key[idx[i]] ascending (ties: smaller index first):
 * heapsort, allocation-free and reentrant. */
static int before(const double *key, size_t a, size_t c)
{
    return key[a] < key[c] || (key[a] == key[c] && a < c);
}
static void sort_by_key(size_t *idx, size_t n, const double *key)
{
    for (size_t end = n; end > 1;) {
        if (end == n) { /* build the heap once (largest on top) */
            for (size_t i = n / 2; i-- > 0;) {
                size_t r = i;
                for (;;) {
                    size_t c = 2 * r + 1;
                    if (c >= n)
                        break;
                    if (c + 1 < n && before(key, idx[c], idx[c + 1]))
                        c++;
                    if (!before(key, idx[r], idx[c]))
                        break;
                    size_t t = idx[r];
                    idx[r] = idx[c];
                    idx[c] = t;
                    r = c;
                }
            }
        }
        end--;
        size_t t = idx[0];
        idx[0] = idx[end];
        idx[end] = t;
        for (size_t r = 0;;) {
            size_t c = 2 * r + 1;
            if (c >= end)
                break;
            if (c + 1 < end && before(key, idx[c], idx[c + 1]))
                c++;
            if (!before(key, idx[r], idx[c]))
                break;
            t = idx[r];
            idx[r] = idx[c];
            idx[c] = t;
            r = c;
        }
    }
}

/* Min-heap of idx[n] by key (ties: smaller index first), popped in order:
 * the classes of the smallest keys without sorting them all. */
static void heap_down(size_t *idx, size_t n, const double *key, size_t r)
{
    for (;;) {
        size_t c = 2 * r + 1;
        if (c >= n)
            return;
        if (c + 1 < n && before(key, idx[c + 1], idx[c]))
            c++;
        if (!before(key, idx[c], idx[r]))
            return;
        size_t t = idx[r];
        idx[r] = idx[c];
        idx[c] = t;
        r = c;
    }
}
static void heap_make(size_t *idx, size_t n, const double *key)
{
    for (size_t i = n / 2; i-- > 0;)
        heap_down(idx, n, key, i);
}
static size_t heap_pop(size_t *idx, size_t *n, const double *key)
{
    size_t top = idx[0];
    idx[0] = idx[--*n];
    heap_down(idx, *n, key, 0);
    return top;
}

/* min or max of sum x_k a_k over the undecided types (order[d..]) with
 * exactly m units, 0 <= x_k <= cap_k: greedy by a, walking asc[] (the
 * classes sorted by a, ascending, once per cluster size) from the cheap end
 * (min) or the dear end (max). */
static double greedy_sum(const struct bb *b, size_t d, int m, const size_t *asc, const double *a,
                         int want_max)
{
    double sum = 0;
    int left = m;
    for (size_t i = 0; i < b->M && left > 0; i++) {
        size_t k = asc[want_max ? b->M - 1 - i : i];
        if (b->pos[k] < d || b->cap[k] == 0)
            continue;
        int take = b->cap[k] < left ? b->cap[k] : left;
        sum += take * a[k];
        left -= take;
    }
    return sum;
}

/* Exact minimum of (P0 + sum x p) / (R0 + sum x r) over completions with m
 * units (Dinkelbach's method; the inner problem is solved exactly by
 * taking the m smallest p - lambda r). */
static double min_price_per_rate(struct bb *b, size_t d, int m, double P0, double R0)
{
    size_t nrem = b->M - d;
    double lambda;

    if (m == 0)
        return P0 / R0;
    lambda = (P0 + greedy_sum(b, d, m, b->ord_pr, b->pr, 0)) / (R0 + greedy_sum(b, d, m, b->ord_rt, b->rt, 1));
    for (int it = 0;; it++) {
        for (size_t i = 0; i < nrem; i++) {
            size_t k = b->order[d + i];
            b->idx[i] = k;
            b->key[k] = b->pr[k] - lambda * b->rt[k];
        }
        size_t nh = nrem; /* key ascending, ties by index */
        heap_make(b->idx, nh, b->key);
        double P = P0, R = R0;
        int left = m;
        while (nh > 0 && left > 0) {
            size_t k = heap_pop(b->idx, &nh, b->key);
            int take = b->cap[k] < left ? b->cap[k] : left;
            P += take * b->pr[k];
            R += take * b->rt[k];
            left -= take;
        }
        double g = P - lambda * R;
        if (g >= -1e-12 * (P > 1 ? P : 1))
            break;
        if (it == 11) {
            /* Not converged: every completion has P - lambda R >= g (< 0),
             * so P / R >= lambda + g / R >= lambda + g / R_lo. */
            return lambda + g / (R0 + greedy_sum(b, d, m, b->ord_rt, b->rt, 0));
        }
        lambda = P / R;
    }
    return lambda;
}

/*
 * The run cost times 3600 is j P / Rt = (sum w_k a_k)(sum w_k u_k): two
 * averages with the same weights w_k = x_k r_k / Rt of a_k = p_k / r_k (price
 * per unit of iteration rate) and u_k = F K (g3 + g2 b_k) - g1 (Eq. 3's
 * iterations at batch b_k; when re-planning, j is the smaller of two such
 * linear pieces and the bound the smaller of the two). When every a, u > 0
 * the product of two positive
 * linear functions is, on any segment, concave or monotone, so its minimum
 * over a polytope of weights is at a vertex. The weights of completions lie
 * in: the fixed part's weight W in [W_lo, W_hi], the rest on the undecided
 * types; its vertices are W_lo or W_hi with the rest on a single type.
 * Returns that minimum, or 0 when some u <= 0 (no bound).
 */
static double mixture_piece(const struct bb *b, size_t d, int m, double P, double Rt, double V,
                            double r_rem_hi, double FK, double shift)
{
    const struct slo_loss_model *lm = &b->s->wl.loss;
    double best = INFINITY;

    if (b->s->wl.compat == SLO_COMPAT_SPOTDNN_CODE)
        shift += 0.5 + fabs(lm->gamma2) * 0.05 * FK;
    double a_f = 0, u_f = 0, w_lo = 0, w_hi = 0;
    if (Rt > 0) {
        a_f = P / Rt;
        u_f = FK * (lm->gamma3 + lm->gamma2 * V / Rt) - shift;
        if (!(u_f > 0))
            return 0;
        w_lo = Rt / (Rt + r_rem_hi);
        w_hi = m > 0 ? Rt / (Rt + greedy_sum(b, d, m, b->ord_rt, b->rt, 0)) : 1;
    }
    if (m == 0)
        return a_f * u_f;
    for (size_t i = d; i < b->M; i++) {
        size_t k = b->order[i];
        if (!b->cap[k])
            continue;
        double a_k = b->pr[k] / b->rt[k];
        double u_k = FK * (lm->gamma3 + lm->gamma2 * b->s->types[k].batch) - shift;
        if (!(u_k > 0))
            return 0;
        for (int e = 0; e < 2; e++) {
            double W = e ? w_hi : w_lo;
            double v = (W * a_f + (1 - W) * a_k) * (W * u_f + (1 - W) * u_k);
            if (v < best)
                best = v;
        }
    }
    return isfinite(best) ? best : 0;
}

static double mixture_bound(const struct bb *b, size_t d, int m, double P, double Rt, double V,
                            double r_rem_hi, double F_lo)
{
    double c = mixture_piece(b, d, m, P, Rt, V, r_rem_hi, F_lo * b->k_fresh,
                             b->s->wl.loss.gamma1);
    if (b->k_replan > 0) {
        double c2 = mixture_piece(b, d, m, P, Rt, V, r_rem_hi, F_lo * b->k_replan, 0);
        if (c2 < c)
            c = c2;
    }
    return c;
}

/* Lower bound on the iterations to go for every cluster whose product
 * (g2 b_w + g3) x sqrt factor is at least q (j is nondecreasing in q), less
 * the authors' code's rounding of b_w and j. Every plan takes at least one
 * iteration (slo_train_evaluate). */
static double iterations_lo(const struct bb *b, double q, double F_lo)
{
    const struct slo_loss_model *lm = &b->s->wl.loss;
    double j = q * b->k_fresh - lm->gamma1;
    if (b->k_replan > 0 && q * b->k_replan < j)
        j = q * b->k_replan;
    if (b->s->wl.compat == SLO_COMPAT_SPOTDNN_CODE) /* k_fresh >= k_replan */
        j -= 0.5 + fabs(lm->gamma2) * 0.05 * F_lo * b->k_fresh;
    return j > 1 ? j : 1;
}

/*
 * A lower bound on the run time j T_exp of every completion of a node that
 * couples the iterations and the iteration rate (the bounds above take the
 * fewest iterations and the highest rate from different workers).
 *
 * Argument. Let Y = sum x_k r_k (iteration rate, 1 / T_exp, Eq. 2) and
 * V = sum x_k s_k (speed); b_w = V / Y (Eq. 4). For a cluster that reaches
 * the target, j >= u0 + u1 b_w for each linear piece (u0, u1) of the
 * iterations (Eq. 3 with the sqrt factor at its lower bound F_lo and the
 * code's rounding taken off; re-planning has two pieces and j is at least
 * the smaller). So the run time is at least g(Y, V) = (u0 Y + u1 V) / Y^2.
 * With W = -sign(u1) V, g = (u0 Y - |u1| W) / Y^2 falls as W grows, so over
 * the relaxation (counts real, 0 <= x <= cap, sum x = m) the minimum lies on
 * the upper boundary of the set of (Y, W) it reaches: a convex polygon (the
 * image of a polytope) whose vertices are greedy solutions (the m units of
 * largest w_k + lambda r_k, for a direction lambda). That boundary is found
 * by recursive bisection between two of its vertices P, Q: the vertex Z of
 * direction lambda = -(W_Q - W_P) / (Y_Q - Y_P) bounds the whole polygon by
 * the line W <= W_Z + lambda (Y_Z - Y) (Z maximizes W + lambda Y), which on
 * [Y_P, Y_Q] is a valid upper bound of W whether or not the recursion goes
 * deeper (it is the edge PQ itself when Z is on it). On each such piece
 * W <= a + c Y, g >= ((u0 - |u1| c) Y - |u1| a) / Y^2, whose minimum over
 * the interval is at an end or at the stationary point Y = 2 |u1| a / (u0 -
 * |u1| c). The least of the pieces' minima is the bound. (Every integer
 * completion is in the relaxation, so this bounds them all; tested against
 * brute force with the rest of the search.)
 */
struct hv {
    double Y, W;
};

/* The greedy vertex of direction lambda (dir = -1: least Y, +1: most Y,
 * each with the most W; 0: largest w + lambda r), plus the fixed part. */
static struct hv hull_vertex(struct bb *b, size_t d, int m, double Y0, double W0, double sigma,
                             double lambda, int dir)
{
    const size_t *asc;
    size_t n = 0;
    struct hv h = {Y0, W0};
    int left = m, down;

    if (dir) {            /* by rate: the per-n order */
        asc = b->ord_rt;
        n = b->M;
        down = dir > 0;
    } else if (lambda == 0) { /* by w = sigma x speed */
        asc = b->ord_sp;
        n = b->M;
        down = sigma > 0;
    } else {              /* by w + lambda r: sort the undecided */
        for (size_t i = d; i < b->M; i++) {
            size_t k = b->order[i];
            if (!b->cap[k])
                continue;
            b->idx[n++] = k;
            b->key[k] = -(sigma * b->sp[k] + lambda * b->rt[k]);
        }
        /* largest w + lambda r first: pop a min-heap of its negation */
        heap_make(b->idx, n, b->key);
        while (n > 0 && left > 0) {
            size_t k = heap_pop(b->idx, &n, b->key);
            int take = b->cap[k] < left ? b->cap[k] : left;
            h.Y += take * b->rt[k];
            h.W += take * sigma * b->sp[k];
            left -= take;
        }
        return h;
    }
    for (size_t i = 0; i < n && left > 0; i++) {
        size_t k = asc[down ? n - 1 - i : i];
        if (b->pos[k] < d || !b->cap[k])
            continue;
        int take = b->cap[k] < left ? b->cap[k] : left;
        h.Y += take * b->rt[k];
        h.W += take * sigma * b->sp[k];
        left -= take;
    }
    return h;
}

/* Minimum over Y in [y1, y2] (y1 > 0) of ((u0 - |u1| c) Y - |u1| a) / Y^2
 * for each piece (u0[i], u1 = au1[i]), the least over the pieces. */
static double piece_min(const double *u0, const double *au1, int np, double a, double c,
                        double y1, double y2)
{
    double best = INFINITY;
    for (int i = 0; i < np; i++) {
        double p = u0[i] - au1[i] * c, q = au1[i] * a;
        double ys[3] = {y1, y2, p != 0 ? 2 * q / p : -1};
        for (int e = 0; e < 3; e++) {
            double y = ys[e];
            if (!(y >= y1 && y <= y2))
                continue;
            double g = (p * y - q) / (y * y);
            if (g < best)
                best = g;
        }
    }
    return best;
}

/* Bisection depth of the boundary: at most 2^depth pieces, 2^(depth+1) + 2
 * greedy vertices (2 measured best on the benchmark's grids: deeper is
 * tighter but costs more per node than it saves in nodes). */
#define SLO_HULL_DEPTH 2

struct hull_ctx {
    struct bb *b;
    size_t d;
    int m;
    double Y0, W0, sigma, W_top;
    const double *u0, *au1;
    int np;
};

static double hull_rec(const struct hull_ctx *h, struct hv P, struct hv Q, int depth)
{
    double dy = Q.Y - P.Y;
    if (!(dy > 1e-12 * Q.Y)) /* no width: W is at most the polygon's top */
        return piece_min(h->u0, h->au1, h->np, h->W_top, 0, P.Y, Q.Y > P.Y ? Q.Y : P.Y);
    double lambda = -(Q.W - P.W) / dy;
    struct hv Z = hull_vertex(h->b, h->d, h->m, h->Y0, h->W0, h->sigma, lambda, 0);
    double cz = Z.W + lambda * Z.Y, cp = P.W + lambda * P.Y;
    if (depth == 0 || cz <= cp + 1e-12 * (fabs(cp) + 1) || !(Z.Y > P.Y && Z.Y < Q.Y))
        return piece_min(h->u0, h->au1, h->np, cz, -lambda, P.Y, Q.Y);
    double l = hull_rec(h, P, Z, depth - 1), r = hull_rec(h, Z, Q, depth - 1);
    return l < r ? l : r;
}

/* The bound above for the node at depth d with m units to place: the fixed
 * part's rate Y0 and speed V0, the sqrt factor's lower bound F_lo. Returns
 * a lower bound on j T_exp (s) before the code's rounding of the time. */
static double coupled_time_lo(struct bb *b, size_t d, int m, double Y0, double V0, double F_lo)
{
    const struct slo_loss_model *lm = &b->s->wl.loss;
    double u0[2], au1[2], shift = 0;
    int np = 0;

    if (b->s->wl.compat == SLO_COMPAT_SPOTDNN_CODE) /* as iterations_lo */
        shift = 0.5 + fabs(lm->gamma2) * 0.05 * F_lo * b->k_fresh;
    u0[np] = F_lo * b->k_fresh * lm->gamma3 - lm->gamma1 - shift;
    au1[np++] = fabs(F_lo * b->k_fresh * lm->gamma2);
    if (b->k_replan > 0) {
        u0[np] = F_lo * b->k_replan * lm->gamma3 - shift;
        au1[np++] = fabs(F_lo * b->k_replan * lm->gamma2);
    }
    double sigma = lm->gamma2 > 0 ? -1 : 1;
    struct hull_ctx h = {b, d, m, Y0, sigma * V0, sigma, 0, u0, au1, np};
    struct hv L = hull_vertex(b, d, m, Y0, sigma * V0, sigma, 0, -1);
    struct hv R = hull_vertex(b, d, m, Y0, sigma * V0, sigma, 0, 1);
    h.W_top = hull_vertex(b, d, m, Y0, sigma * V0, sigma, 0, 0).W;
    if (!(L.Y > 0))
        return 0;
    return hull_rec(&h, L, R, SLO_HULL_DEPTH);
}

/* Lower bounds on time and cost of every completion of the node at depth d. */
static void node_bounds(struct bb *b, size_t d, int m, double *t_lo, double *c_lo)
{
    const struct slo_train_setup *s = b->s;
    const struct slo_loss_model *lm = &s->wl.loss;
    double V = 0, Rt = 0, P = 0, smax = 0, bmin = DBL_MAX, bmax = 0;

    /* Aggregates of the decided part; the largest speed and the batch range
     * over every worker a completion may hold (decided, or undecided with
     * capacity left). */
    for (size_t i = 0; i < b->M; i++) {
        size_t k = b->order[i];
        int c = b->lo[k] + (i < d ? b->x[k] : 0);
        V += c * b->sp[k];
        Rt += c * b->rt[k];
        P += b->price[k][c - b->lo[k]];
        if (!c && !(m > 0 && i >= d && b->cap[k]))
            continue;
        if (b->sp[k] > smax)
            smax = b->sp[k];
        if (s->types[k].batch < bmin)
            bmin = s->types[k].batch;
        if (s->types[k].batch > bmax)
            bmax = s->types[k].batch;
    }
    double V_lo = V + greedy_sum(b, d, m, b->ord_sp, b->sp, 0);
    double R_hi = Rt + greedy_sum(b, d, m, b->ord_rt, b->rt, 1);
    double P_lo = P + greedy_sum(b, d, m, b->ord_pr, b->pr, 0);

    /* Numerator of Eq. 3 is linear in b_w, so its minimum is at an end. */
    double num1 = lm->gamma2 * bmin + lm->gamma3, num2 = lm->gamma2 * bmax + lm->gamma3;
    double num_lo = num1 < num2 ? num1 : num2;
    double F_lo;
    if (lm->form == SLO_LOSS_SPOTDNN_2022) {
        F_lo = sqrt((double)b->n);
    } else {
        /* R^2 = sum w^2 - 2 w1 + 1 >= (1 - w1)^2 n/(n-1), with w1 <= smax / V. */
        double R_lo = 0;
        if (b->n > 1) {
            double w1 = V_lo > 0 ? smax / V_lo : 1;
            if (w1 > 1)
                w1 = 1;
            R_lo = (1 - w1) * sqrt((double)b->n / (b->n - 1));
        }
        F_lo = sqrt((R_lo + lm->gamma4) * b->n);
    }
    double j_lo = num_lo > 0 ? iterations_lo(b, num_lo * F_lo, F_lo) : 1;
    double slack = s->wl.compat == SLO_COMPAT_SPOTDNN_CODE ? 1 - 0.05 / bmin - 1e-9 : 1 - 1e-12;
    double t_run = j_lo / R_hi * slack;
    if (!b->check_slo || !(t_run + b->req->overhead_s - 0.01 > b->req->deadline_s)) {
        double t_c = coupled_time_lo(b, d, m, Rt, V, F_lo) * slack;
        if (t_c > t_run)
            t_run = t_c;
    }
    *t_lo = t_run + b->req->overhead_s - (s->wl.compat == SLO_COMPAT_SPOTDNN_CODE ? 0.01 : 0);
    if (b->check_slo && *t_lo > b->req->deadline_s) {
        *c_lo = INFINITY; /* pruned on time: the cost bounds are not needed */
        return;
    }
    double c1 = j_lo * slack * min_price_per_rate(b, d, m, P, Rt) / 3600;
    double c2 = t_run * P_lo / 3600;
    double c3 = mixture_bound(b, d, m, P, Rt, V, R_hi - Rt, F_lo) * slack / 3600;
    if (c2 > c1)
        c1 = c2;
    if (c3 > c1)
        c1 = c3;
    *c_lo = c1 + b->req->overhead_s * P_lo / 3600 -
            (s->wl.compat == SLO_COMPAT_SPOTDNN_CODE ? 1e-6 + 0.01 * P_lo / 3600 : 0);
}

/* Number of frontier points with time <= t. */
static size_t front_upto(const struct bb *b, double t)
{
    size_t lo = 0, hi = b->nfp;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (b->fp[mid].t <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* 1 when some point is at least as fast as t and at least as cheap as c:
 * then every plan of time >= t and cost >= c changes no deadline's cheapest
 * cost (the point's costs fall as its times grow, so the last point no
 * slower than t is the cheapest of those). */
static int front_dominated(const struct bb *b, double t, double c)
{
    size_t i = front_upto(b, t);
    return i > 0 && b->fp[i - 1].c <= c;
}

/* Add (ev, counts) unless dominated; drop the points it dominates. */
static void front_insert(struct bb *b, const struct slo_train_eval *ev, const int *counts)
{
    double t = ev->time_s, c = ev->cost_usd;
    if (front_dominated(b, t, c))
        return;
    size_t at = 0;
    while (at < b->nfp && b->fp[at].t < t)
        at++;
    size_t end = at;
    while (end < b->nfp && b->fp[end].c >= c)
        free(b->fp[end++].x);
    if (end > at) {
        memmove(&b->fp[at], &b->fp[end], (b->nfp - end) * sizeof *b->fp);
        b->nfp -= end - at;
    }
    if (b->nfp == b->fp_cap) {
        size_t cap = b->fp_cap ? 2 * b->fp_cap : 16;
        struct front_pt *n = realloc(b->fp, cap * sizeof *n);
        if (!n) {
            b->nomem = 1;
            return;
        }
        b->fp = n;
        b->fp_cap = cap;
    }
    int *x = malloc(b->M * sizeof *x);
    if (!x) {
        b->nomem = 1;
        return;
    }
    memcpy(x, counts, b->M * sizeof *x);
    memmove(&b->fp[at + 1], &b->fp[at], (b->nfp - at) * sizeof *b->fp);
    b->fp[at] = (struct front_pt){t, c, x, *ev};
    b->nfp++;
}

static void consider_leaf(struct bb *b)
{
    struct slo_train_eval ev;
    int counts[512]; /* run_bb guarantees M <= 512 */
    double price = 0;
    for (size_t k = 0; k < b->M; k++) {
        counts[k] = b->lo[k] + b->x[k];
        if (counts[k])
            price += b->price[k][b->x[k]];
    }
    b->nodes++;
    if (slo_train_evaluate(b->s, counts, b->req, &ev, NULL) != SLO_OK || !(ev.time_s > 0))
        return;
    /* The class's pools, cheapest first (struct pools): as slo_train_evaluate
     * prices them. */
    ev.usd_per_h = price;
    ev.cost_usd = b->s->wl.compat == SLO_COMPAT_SPOTDNN_CODE
                      ? slo__round_even(price * ev.time_s / 3600, 6)
                      : price * ev.time_s / 3600;
    if (b->check_slo && (ev.time_s > b->req->deadline_s || !within_budget(b->req, &ev)))
        return;
    if (b->obj == FRONTIER) {
        front_insert(b, &ev, counts);
        return;
    }
    double v = b->obj == MIN_COST ? ev.cost_usd : ev.time_s;
    if (!b->have_best || v < b->best) {
        b->have_best = 1;
        b->best = v;
        b->best_ev = ev;
        memcpy(b->best_x, counts, b->M * sizeof *counts);
    }
}

static void dfs(struct bb *b, size_t d, int m)
{
    double t_lo, c_lo;

    if (m == 0 || d == b->M) {
        if (m == 0) {
            for (size_t i = d; i < b->M; i++)
                b->x[b->order[i]] = 0;
            consider_leaf(b);
        }
        return;
    }
    if (b->nodes >= b->node_limit) {
        b->stopped = 1;
        return;
    }
    /* Nothing is cheaper than free (zero-rate on-prem nodes). */
    if (b->have_best && b->obj == MIN_COST && b->best <= 0)
        return;
    b->nodes++;
    node_bounds(b, d, m, &t_lo, &c_lo);
    if (b->check_slo) {
        if (t_lo > b->req->deadline_s)
            return;
        if (b->req->budget_usd > 0 && c_lo > b->req->budget_usd)
            return;
    }
    if (b->have_best) {
        double bound = b->obj == MIN_COST ? c_lo : t_lo;
        if (bound >= b->best)
            return;
    }
    if (b->obj == FRONTIER && front_dominated(b, t_lo, c_lo))
        return;
    size_t k = b->order[d];
    int rest = 0;
    for (size_t i = d + 1; i < b->M; i++)
        rest += b->cap[b->order[i]];
    int hi = b->cap[k] < m ? b->cap[k] : m;
    int lo = m - rest > 0 ? m - rest : 0;
    for (int c = hi; c >= lo; c--) {
        b->x[k] = c;
        dfs(b, d + 1, m - c);
    }
    b->x[k] = 0;
}

/* Order the DFS: best price per iteration first (cost), fastest first (time). */
static void bb_order(struct bb *b)
{
    /* key ascending, ties in type order (heapsort: M may be hundreds) */
    for (size_t i = 0; i < b->M; i++) {
        b->order[i] = i;
        b->key[i] = b->obj != MIN_TIME ? b->pr[i] / b->rt[i] : -b->rt[i];
    }
    sort_by_key(b->order, b->M, b->key);
}

/*
 * Once the PS is saturated (P = 1: B_wk = B_ps / n), every worker's iteration
 * time exceeds 2 S n / B_ps, so the cluster's iteration rate is below
 * B_ps / (2 S) whatever n, while the iterations needed grow with sqrt(n)
 * (Eq. 3). The time bound below is therefore nondecreasing in n: once it
 * passes the deadline (or the incumbent, when minimizing time), no larger
 * cluster can do better and the search over n stops.
 */
static int beyond_saturation(const struct bb *b, int n)
{
    const struct slo_workload *wl = &b->s->wl;
    const struct slo_loss_model *lm = &wl->loss;
    double bmin = DBL_MAX, bmax = 0;

    if (n * wl->b_req_mbps <= wl->b_ps_mbps ||
        slo_contention_probability(wl->alpha1, wl->beta1, wl->contention_margin, n) < 1)
        return 0;
    for (size_t k = 0; k < b->M; k++) {
        if (b->s->types[k].batch < bmin)
            bmin = b->s->types[k].batch;
        if (b->s->types[k].batch > bmax)
            bmax = b->s->types[k].batch;
    }
    double num1 = lm->gamma2 * bmin + lm->gamma3, num2 = lm->gamma2 * bmax + lm->gamma3;
    double num_lo = num1 < num2 ? num1 : num2;
    double F_lo = lm->form == SLO_LOSS_SPOTDNN_2022 ? sqrt((double)n) : sqrt(lm->gamma4 * n);
    if (!(num_lo > 0))
        return 0;
    double j_lo = iterations_lo(b, num_lo * F_lo, F_lo);
    double t_lo = j_lo * 2 * wl->s_parm_mb / wl->b_ps_mbps * (1 - 0.05 / bmin) - 0.01 +
                  b->req->overhead_s;
    if (b->check_slo && t_lo > b->req->deadline_s)
        return 1;
    return b->obj == MIN_TIME && b->have_best && t_lo >= b->best;
}

/*
 * A cut over the cluster sizes for the cheapest plan of a fresh start
 * without survivors: every cluster of n or more workers costs at least
 * c(n) = j_lo(n) x min_k (p_k / r_k(n)) / 3600, the iterations' lower bound
 * (Eq. 3 at the batch that needs the fewest, the sqrt factor sqrt(n) or
 * sqrt(g4 n) as R >= 0) times the least price per unit of iteration rate
 * (cost = j P / Y and P / Y is a rate-weighted mean of p_k / r_k). Both
 * factors grow with n: the sqrt factor does, and r_k(n) falls as B_wk falls
 * (Eq. 8: P grows, B_ps / n shrinks). The code's rounding takes at most
 * 0.05 / b_min of the time (b_w to 0.1), 0.005 s of it (time to 0.01 s, at
 * most p_max USD/h) and 5e-7 USD, subtracted as constants so c stays
 * monotone. So once c(n) reaches the incumbent no size from n on can beat
 * it.
 */
static int cost_beyond(const struct bb *b, int n, double p_max)
{
    const struct slo_train_setup *s = b->s;
    const struct slo_loss_model *lm = &s->wl.loss;
    const int code = s->wl.compat == SLO_COMPAT_SPOTDNN_CODE;
    double bmin = DBL_MAX, bmax = 0, ppr = INFINITY;

    if (b->k_replan > 0)
        return 0;
    for (size_t k = 0; k < b->M; k++) {
        if (b->lo[k])
            return 0; /* survivors keep their own pools' prices */
        if (!b->cap[k])
            continue;
        if (s->types[k].batch < bmin)
            bmin = s->types[k].batch;
        if (s->types[k].batch > bmax)
            bmax = s->types[k].batch;
        if (b->pr[k] / b->rt[k] < ppr)
            ppr = b->pr[k] / b->rt[k];
    }
    double num1 = lm->gamma2 * bmin + lm->gamma3, num2 = lm->gamma2 * bmax + lm->gamma3;
    double num_lo = num1 < num2 ? num1 : num2;
    /* j_lo must grow with the sqrt factor F: F K (num_lo - 0.05 |g2|) (code) */
    if (!(num_lo - (code ? 0.05 * fabs(lm->gamma2) : 0) > 0) || !isfinite(ppr))
        return 0;
    double F = lm->form == SLO_LOSS_SPOTDNN_2022 ? sqrt((double)n) : sqrt(lm->gamma4 * n);
    double j = iterations_lo(b, num_lo * F, F);
    double c = j * ppr / 3600;
    if (code)
        c = c * (1 - 0.05 / bmin - 1e-9) - 0.005 * p_max / 3600 - 1e-6;
    else
        c *= 1 - 1e-12;
    return c >= b->best;
}

static int run_bb(const struct slo_train_setup *s, const struct slo_train_request *req,
                  enum objective obj, int check_slo, const struct slo_train_plan *seed,
                  struct slo_train_plan *plan, struct slo_train_frontier *fr, slo_error_t *err)
{
    struct pools pl;
    struct slo_train_request rq;
    struct bb b = {.obj = obj, .check_slo = check_slo,
                   .node_limit = req->node_limit > 0 ? req->node_limit : 2000000};
    const struct slo_train_setup *fs = s;     /* the catalog's entries */
    const struct slo_train_request *freq = req;
    int rv = SLO_OK, n_min = 0, n_max = 0;

    /* The search runs over performance classes (struct pools). */
    if ((rv = pools_init(s, req, &pl, err)))
        return rv;
    rq = *req;
    rq.existing = pl.existing;
    b.s = &pl.rs;
    b.req = &rq;
    b.M = pl.C;
    b.price = pl.price;
    s = &pl.rs;
    req = &rq;
    const struct slo_loss_model *lm = &s->wl.loss;
    if (b.M > 512) {
        rv = slo__fail(err, SLO_ERR_INVALID, NULL,
                       "expected at most 512 instance performances (types of distinct batch "
                       "and iteration time) for the exact search, found %zu",
                       b.M);
        goto out;
    }
    b.sp = calloc(b.M, sizeof *b.sp);
    b.rt = calloc(b.M, sizeof *b.rt);
    b.pr = calloc(b.M, sizeof *b.pr);
    b.key = calloc(b.M, sizeof *b.key);
    b.x = calloc(b.M, sizeof *b.x);
    b.best_x = calloc(b.M, sizeof *b.best_x);
    b.order = calloc(b.M, sizeof *b.order);
    b.idx = calloc(b.M, sizeof *b.idx);
    b.pos = calloc(b.M, sizeof *b.pos);
    b.ord_sp = calloc(b.M, sizeof *b.ord_sp);
    b.ord_rt = calloc(b.M, sizeof *b.ord_rt);
    b.ord_pr = calloc(b.M, sizeof *b.ord_pr);
    if (!b.sp || !b.rt || !b.pr || !b.key || !b.x || !b.best_x || !b.order || !b.idx || !b.pos ||
        !b.ord_sp || !b.ord_rt || !b.ord_pr) {
        rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    b.lo = pl.lo;
    b.cap = pl.cap;
    b.k_fresh = 1 / (req->target_loss - lm->gamma5);
    if (req->loss_now > 0)
        b.k_replan = b.k_fresh - 1 / (req->loss_now - lm->gamma5);
    for (size_t k = 0; k < b.M; k++) {
        b.pr[k] = s->types[k].usd_per_h;
        n_min += b.lo[k];
        n_max += b.lo[k] + b.cap[k];
    }
    /* Clusters of n_min..n_max workers, n_max within the request's limit
     * (check_request keeps the survivors n_min within it). */
    if (req->max_workers > 0 && n_max > req->max_workers)
        n_max = req->max_workers;
    double p_max = 0; /* USD/h of every worker of the catalog */
    for (size_t k = 0; k < b.M; k++)
        p_max += b.price[k][b.cap[k]];
    if (seed && (obj == MIN_COST ? seed->feasible : seed->eval.n_workers > 0)) {
        /* The seed's counts per class: filled cheapest first they cost no
         * more than the seed. */
        b.have_best = 1;
        b.best = obj == MIN_COST ? seed->eval.cost_usd : seed->eval.time_s;
        b.best_ev = seed->eval;
        for (size_t k = 0; k < fs->n_types; k++)
            b.best_x[pl.class_of[k]] += seed->counts[k];
    }
    for (int n = n_min > 0 ? n_min : 1; n <= n_max; n++) {
        b.n = n;
        if (b.stopped || beyond_saturation(&b, n))
            break;
        for (size_t k = 0; k < b.M; k++) {
            double T = slo_train_iteration_time(s, k, n);
            b.rt[k] = 1 / T;
            b.sp[k] = s->types[k].batch / T;
        }
        if (obj == MIN_COST && b.have_best && cost_beyond(&b, n, p_max))
            break;
        bb_order(&b);
        for (size_t i = 0; i < b.M; i++) {
            b.pos[b.order[i]] = i;
            b.ord_sp[i] = b.ord_rt[i] = b.ord_pr[i] = i;
        }
        sort_by_key(b.ord_sp, b.M, b.sp);
        sort_by_key(b.ord_rt, b.M, b.rt);
        sort_by_key(b.ord_pr, b.M, b.pr);
        memset(b.x, 0, b.M * sizeof *b.x);
        dfs(&b, 0, n - n_min);
    }
    if (fr) {
        /* The frontier's points, back on the catalog's entries. */
        fr->nodes = b.nodes;
        fr->proven = !b.stopped;
        if (b.nomem || (b.nfp && !(fr->points = calloc(b.nfp, sizeof *fr->points)))) {
            rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
            goto out;
        }
        for (size_t i = 0; i < b.nfp; i++) {
            struct slo_train_plan *pt = &fr->points[i];
            if ((rv = plan_init(fs, pt, err)))
                goto out;
            fr->n++;
            pools_expand(&pl, fs, freq, b.fp[i].x, pt->counts);
            if (slo_train_evaluate(fs, pt->counts, freq, &pt->eval, NULL) != SLO_OK)
                pt->eval = b.fp[i].ev; /* not reached: the class plan evaluated */
            pt->feasible = 1;
            pt->proven = fr->proven;
        }
        goto out;
    }
    plan->evaluations = b.nodes;
    plan->proven = !b.stopped;
    if (b.have_best) {
        /* Back to the catalog's entries, evaluated there. */
        pools_expand(&pl, fs, freq, b.best_x, plan->counts);
        if (slo_train_evaluate(fs, plan->counts, freq, &plan->eval, NULL) != SLO_OK)
            plan->eval = b.best_ev; /* not reached: the class plan evaluated */
        plan->feasible = plan->eval.time_s <= freq->deadline_s &&
                         within_budget(freq, &plan->eval);
    }
out:
    free(b.sp);
    free(b.rt);
    free(b.pr);
    free(b.key);
    free(b.x);
    free(b.best_x);
    free(b.order);
    free(b.idx);
    free(b.pos);
    free(b.ord_sp);
    free(b.ord_rt);
    free(b.ord_pr);
    for (size_t i = 0; i < b.nfp; i++)
        free(b.fp[i].x);
    free(b.fp);
    pools_free(&pl);
    return rv;
}

/*
 * The first incumbent of an exact search: the cheapest (MIN_COST) or
 * fastest (MIN_TIME) of the single-type clusters and the sliding window's
 * clusters (its smallest sizes, at most SLO_SEED_WINDOW_EVALS windows per
 * pass). When several catalog entries share one performance (pools of
 * a type, struct pools) they are found on the classes and filled cheapest
 * pool first, then evaluated on the entries: any real plan is a valid
 * incumbent, and the window over thousands of pools would cost more than the
 * proof. Returns SLO_OK (seed->feasible / seed->eval.n_workers say whether
 * there is one) or SLO_ERR_NOMEM.
 */
static int first_incumbent(const struct slo_train_setup *s, const struct slo_train_request *req,
                           enum objective obj, struct slo_train_plan *seed, slo_error_t *err)
{
    struct pools pl;
    struct slo_train_request rq = *req;
    const struct slo_train_setup *rs = s;
    int rv, *x = NULL;

    if ((rv = pools_init(s, req, &pl, err)))
        return rv;
    if (pl.C < s->n_types) {
        rs = &pl.rs;
        rq.existing = pl.existing;
    }
    struct slo_train_plan cand = {0};
    if (!(rv = plan_init(rs, &cand, err))) {
        if (!(x = calloc(rs->n_types, sizeof *x)))
            rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        for (size_t k = 0; x && k < rs->n_types; k++)
            for (int c = existing_of(&rq, k) ? 0 : 1;
                 c <= max_of(rs, &rq, k) - existing_of(&rq, k); c++) {
                for (size_t i = 0; i < rs->n_types; i++)
                    x[i] = existing_of(&rq, i);
                x[k] += c;
                (obj == MIN_COST ? keep_if_cheaper : keep_if_faster)(rs, x, &rq, &cand);
            }
        free(x);
        if (!rv)
            rv = windows(rs, &rq, obj == MIN_COST ? keep_if_cheaper : keep_if_faster,
                         SLO_SEED_WINDOW_EVALS, &cand, err);
    }
    if (!rv && (rv = plan_init(s, seed, err)) == SLO_OK) {
        seed->evaluations = cand.evaluations;
        if (cand.counts && cand.eval.n_workers > 0 && (obj == MIN_TIME || cand.feasible)) {
            if (rs == s)
                memcpy(seed->counts, cand.counts, s->n_types * sizeof *seed->counts);
            else
                pools_expand(&pl, s, req, cand.counts, seed->counts);
            if (slo_train_evaluate(s, seed->counts, req, &seed->eval, NULL) == SLO_OK) {
                seed->feasible = seed->eval.time_s <= req->deadline_s &&
                                 within_budget(req, &seed->eval);
            } else {
                memset(&seed->eval, 0, sizeof seed->eval);
            }
        }
    }
    slo_train_plan_free(&cand);
    pools_free(&pl);
    return rv;
}

int slo__plan_exact_seeded(const struct slo_train_setup *s, const struct slo_train_request *req,
                           const int *hint, struct slo_train_plan *plan, slo_error_t *err)
{
    struct slo_train_plan seed;
    int rv;

    memset(plan, 0, sizeof *plan);
    if ((rv = check_request(s, req, err))) {
        /* the request itself leaves no time: proven, with no plan */
        plan->proven = rv == SLO_ERR_INFEASIBLE;
        return rv;
    }
    /* The single-type and window clusters' cheapest plan is the first
     * incumbent, or the hint when that is a cheaper plan here. */
    if ((rv = first_incumbent(s, req, MIN_COST, &seed, err)))
        return rv;
    if (hint) {
        struct slo_train_eval ev;
        int ok = 1;
        for (size_t k = 0; k < s->n_types; k++)
            ok &= hint[k] >= existing_of(req, k) && hint[k] <= s->types[k].quota;
        if (ok && within_workers(s, req, hint) &&
            slo_train_evaluate(s, hint, req, &ev, NULL) == SLO_OK && ev.time_s > 0 &&
            ev.time_s <= req->deadline_s && within_budget(req, &ev) &&
            (!seed.feasible || ev.cost_usd < seed.eval.cost_usd)) {
            seed.feasible = 1;
            seed.eval = ev;
            memcpy(seed.counts, hint, s->n_types * sizeof *hint);
        }
    }
    if ((rv = plan_init(s, plan, err))) {
        slo_train_plan_free(&seed);
        return rv;
    }
    rv = run_bb(s, req, MIN_COST, 1, &seed, plan, NULL, err);
    long seed_evals = seed.evaluations;
    slo_train_plan_free(&seed);
    plan->evaluations += seed_evals;
    if (rv)
        return rv;
    if (!plan->feasible && !plan->proven) {
        /* Not found is not proven absent: say which. */
        char budget[64] = "";
        if (req->budget_usd > 0)
            snprintf(budget, sizeof budget, " at a cost of at most %.10g USD", req->budget_usd);
        return slo__fail(err, SLO_ERR_INFEASIBLE, NULL,
                        "no plan found that meets the SLO: loss %.10g within %.6g s%s (the "
                        "exact search stopped after %ld nodes without proving that none "
                        "exists)",
                        req->target_loss, req->deadline_s, budget, plan->evaluations);
    }
    return plan->feasible ? SLO_OK : infeasible(req, err);
}

int slo_plan_exact(const struct slo_train_setup *s, const struct slo_train_request *req,
                   struct slo_train_plan *plan, slo_error_t *err)
{
    return slo__plan_exact_seeded(s, req, NULL, plan, err);
}

int slo_plan_fastest(const struct slo_train_setup *s, const struct slo_train_request *req,
                     struct slo_train_plan *plan, slo_error_t *err)
{
    struct slo_train_plan seed;
    int rv;

    if ((rv = check_request(s, req, err)) && rv != SLO_ERR_INFEASIBLE)
        return rv;
    /* Seed: the fastest single-type clusters and sliding windows. */
    if ((rv = first_incumbent(s, req, MIN_TIME, &seed, err)))
        return rv;
    if ((rv = plan_init(s, plan, err)) || (rv = run_bb(s, req, MIN_TIME, 0, &seed, plan, NULL, err))) {
        slo_train_plan_free(&seed);
        return rv;
    }
    plan->evaluations += seed.evaluations;
    slo_train_plan_free(&seed);
    if (plan->eval.n_workers == 0) {
        /* Say why with the simplest cluster: one worker of the first type. */
        struct slo_train_eval ev;
        int *one = calloc(s->n_types, sizeof *one);
        slo_error_t why = {0};
        if (!one)
            return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        one[0] = 1;
        slo_train_evaluate(s, one, req, &ev, &why);
        free(one);
        return slo__fail(err, SLO_ERR_UNREACHABLE, why.source[0] ? why.source : NULL,
                        "no cluster of this catalog reaches loss %.10g under the workload's loss "
                        "model (%s)",
                        req->target_loss, why.text[0] ? why.text : "no reason given");
    }
    return SLO_OK;
}

void slo_train_frontier_free(struct slo_train_frontier *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++)
        slo_train_plan_free(&f->points[i]);
    free(f->points);
    memset(f, 0, sizeof *f);
}

int slo_plan_frontier(const struct slo_train_setup *s, const struct slo_train_request *req,
                      double from_s, struct slo_train_frontier *f, slo_error_t *err)
{
    struct slo_train_plan unused = {0};
    int rv;

    memset(f, 0, sizeof *f);
    if (!(from_s >= 0) || !isfinite(from_s))
        return slo__fail(err, SLO_ERR_INVALID, "--from",
                         "expected a deadline >= 0 s, found %g s", from_s);
    if (isfinite(req->deadline_s) && !(from_s < req->deadline_s))
        return slo__fail(err, SLO_ERR_INVALID, "--from",
                         "expected a range T1 < T2, found --from %g s >= --to %g s", from_s,
                         req->deadline_s);
    if ((rv = check_request(s, req, err)))
        return rv;
    rv = run_bb(s, req, FRONTIER, 1, NULL, &unused, f, err);
    if (rv) {
        slo_train_frontier_free(f);
        return rv;
    }
    /* Before from_s only the cheapest plan that meets from_s matters: the
     * last point no slower than it. */
    size_t first = 0;
    while (first + 1 < f->n && f->points[first + 1].eval.time_s <= from_s)
        first++;
    for (size_t i = 0; i < first; i++)
        slo_train_plan_free(&f->points[i]);
    if (first) { /* points is NULL for an empty frontier (UBSan: memmove of NULL) */
        memmove(f->points, f->points + first, (f->n - first) * sizeof *f->points);
        f->n -= first;
    }
    f->from_s = from_s;
    f->to_s = req->deadline_s;
    return SLO_OK;
}

/* ------------------------------------------------------------------ */
/* Oracle and baselines                                                */
/* ------------------------------------------------------------------ */

int slo__plan_brute_force(const struct slo_train_setup *s,
                          const struct slo_train_request *req,
                          struct slo_train_plan *plan, slo_error_t *err)
{
    double space = 1;
    int *x = NULL, rv;

    if ((rv = check_request(s, req, err)))
        return rv;
    for (size_t k = 0; k < s->n_types; k++)
        space *= max_of(s, req, k) - existing_of(req, k) + 1;
    if (space > 5e7)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                        "exhaustive search would evaluate %.3g plans; expected at most 5e7",
                        space);
    if ((rv = plan_init(s, plan, err)))
        return rv;
    x = calloc(s->n_types, sizeof *x);
    if (!x)
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    for (size_t k = 0; k < s->n_types; k++)
        x[k] = existing_of(req, k);
    for (;;) {
        keep_if_cheaper(s, x, req, plan);
        /* odometer increment */
        size_t k = 0;
        while (k < s->n_types && x[k] == max_of(s, req, k)) {
            x[k] = existing_of(req, k);
            k++;
        }
        if (k == s->n_types)
            break;
        x[k]++;
    }
    free(x);
    plan->proven = 1;
    return plan->feasible ? SLO_OK : infeasible(req, err);
}

int slo_plan_homogeneous(const struct slo_train_setup *s,
                         const struct slo_train_request *req,
                         struct slo_train_plan *plan, slo_error_t *err)
{
    int *x, rv;

    if ((rv = check_request(s, req, err)) || (rv = plan_init(s, plan, err)))
        return rv;
    x = calloc(s->n_types, sizeof *x);
    if (!x)
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    for (size_t k = 0; k < s->n_types; k++) {
        for (int c = existing_of(req, k) ? 0 : 1; c <= max_of(s, req, k) - existing_of(req, k);
             c++) {
            for (size_t i = 0; i < s->n_types; i++)
                x[i] = existing_of(req, i);
            x[k] += c;
            keep_if_cheaper(s, x, req, plan);
        }
    }
    free(x);
    return plan->feasible ? SLO_OK : infeasible(req, err);
}
