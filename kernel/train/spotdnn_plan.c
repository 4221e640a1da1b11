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

/* The sliding window evaluates at most this many clusters per pass. */
#define SLO_WINDOW_MAX_EVALS 2000000.0

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
                       const int *prefix, const int *avail, keep_fn keep,
                       struct slo_train_plan *plan, slo_error_t *err)
{
    struct slot *list;
    int *counts, len = 0, n_prefix = 0, all[512];

    for (size_t k = 0; k < s->n_types; k++) {
        len += avail[k];
        n_prefix += prefix[k];
        all[k] = prefix[k] + avail[k];
    }
    list = malloc((len ? len : 1) * sizeof *list);
    counts = calloc(s->n_types, sizeof *counts);
    if (!list || !counts) {
        free(list);
        free(counts);
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
    if (w_hi >= w_lo && (double)(w_hi - w_lo + 1) * (len + 1) > SLO_WINDOW_MAX_EVALS)
        w_hi = w_lo + (int)(SLO_WINDOW_MAX_EVALS / (len + 1));
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
                   keep_fn keep, struct slo_train_plan *plan, slo_error_t *err)
{
    int prefix[512] = {0}, avail[512] = {0}, rv, any_onprem = 0;

    if (s->n_types > 512)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                        "expected at most 512 instance types, found %zu", s->n_types);
    /* The paper's search: survivors E prefixed, every other instance listed. */
    for (size_t k = 0; k < s->n_types; k++) {
        prefix[k] = existing_of(req, k);
        avail[k] = max_of(s, req, k) - prefix[k];
        any_onprem |= s->types[k].site == SLO_SITE_ONPREM && avail[k] > 0;
    }
    if ((rv = window_pass(s, req, prefix, avail, keep, plan, err)))
        return rv;
    /* On-prem first: also every window with all on-prem nodes prefixed like
     * survivors, so they are used before any cloud instance is bought. */
    if (any_onprem) {
        for (size_t k = 0; k < s->n_types; k++)
            if (s->types[k].site == SLO_SITE_ONPREM) {
                prefix[k] += avail[k];
                avail[k] = 0;
            }
        if ((rv = window_pass(s, req, prefix, avail, keep, plan, err)))
            return rv;
    }
    return SLO_OK;
}

int slo_plan_window(const struct slo_train_setup *s, const struct slo_train_request *req,
                    struct slo_train_plan *plan, slo_error_t *err)
{
    int rv;

    if ((rv = check_request(s, req, err)) || (rv = plan_init(s, plan, err)) ||
        (rv = windows(s, req, keep_if_cheaper, plan, err)))
        return rv;
    return plan->feasible ? SLO_OK : infeasible(req, err);
}

/* ------------------------------------------------------------------ */
/* Exact search: branch and bound per cluster size n                   */
/* ------------------------------------------------------------------ */

enum objective { MIN_COST, MIN_TIME };

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
    double *sp, *rt, *pr;  /* [M] per-worker speed, iteration rate, price at size n */
    int *lo, *cap;         /* [M] mandatory (existing) count and extra capacity */
    size_t *order;         /* [M] DFS order of the types */
    int *x;                /* [M] current counts */
    double *key;           /* [M] scratch for the ratio bound */
    size_t *idx;           /* [M] scratch */
    int have_best;
    double best;           /* objective value of the incumbent */
    int *best_x;
    struct slo_train_eval best_ev;
    long nodes;
    long node_limit;
    int stopped;           /* node_limit reached: the best plan is not proven */
};

/* min or max of sum x_k a_k over the undecided types (order[d..]) with
 * exactly m units, 0 <= x_k <= cap_k: greedy by a. */
static double greedy_sum(const struct bb *b, size_t d, int m, const double *a, int want_max)
{
    double sum = 0;
    /* Selection by repeated scans: M is small (tens) and this stays allocation-free. */
    char used[512];
    int left = m;
    size_t nrem = b->M - d;
    if (nrem > sizeof used)
        nrem = sizeof used; /* guarded by the caller: M <= 512 */
    memset(used, 0, nrem);
    while (left > 0) {
        size_t best_i = (size_t)-1;
        for (size_t i = 0; i < nrem; i++) {
            size_t k = b->order[d + i];
            if (used[i] || b->cap[k] == 0)
                continue;
            if (best_i == (size_t)-1 ||
                (want_max ? a[k] > a[b->order[d + best_i]] : a[k] < a[b->order[d + best_i]]))
                best_i = i;
        }
        if (best_i == (size_t)-1)
            break;
        used[best_i] = 1;
        size_t k = b->order[d + best_i];
        int take = b->cap[k] < left ? b->cap[k] : left;
        sum += take * a[k];
        left -= take;
    }
    return sum;
}

static int cmp_key(const void *pa, const void *pb, const double *key)
{
    size_t a = *(const size_t *)pa, c = *(const size_t *)pb;
    return key[a] < key[c] ? -1 : key[a] > key[c] ? 1 : (a > c) - (a < c);
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
    lambda = (P0 + greedy_sum(b, d, m, b->pr, 0)) / (R0 + greedy_sum(b, d, m, b->rt, 1));
    for (int it = 0; it < 64; it++) {
        for (size_t i = 0; i < nrem; i++) {
            size_t k = b->order[d + i];
            b->idx[i] = k;
            b->key[k] = b->pr[k] - lambda * b->rt[k];
        }
        /* insertion sort by key: nrem is small */
        for (size_t i = 1; i < nrem; i++) {
            size_t v = b->idx[i], j = i;
            while (j > 0 && cmp_key(&b->idx[j - 1], &v, b->key) > 0) {
                b->idx[j] = b->idx[j - 1];
                j--;
            }
            b->idx[j] = v;
        }
        double P = P0, R = R0;
        int left = m;
        for (size_t i = 0; i < nrem && left > 0; i++) {
            size_t k = b->idx[i];
            int take = b->cap[k] < left ? b->cap[k] : left;
            P += take * b->pr[k];
            R += take * b->rt[k];
            left -= take;
        }
        double g = P - lambda * R;
        if (g >= -1e-12 * (P > 1 ? P : 1))
            break;
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
        w_hi = m > 0 ? Rt / (Rt + greedy_sum(b, d, m, b->rt, 0)) : 1;
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
        P += c * b->pr[k];
        if (!c && !(m > 0 && i >= d && b->cap[k]))
            continue;
        if (b->sp[k] > smax)
            smax = b->sp[k];
        if (s->types[k].batch < bmin)
            bmin = s->types[k].batch;
        if (s->types[k].batch > bmax)
            bmax = s->types[k].batch;
    }
    double V_lo = V + greedy_sum(b, d, m, b->sp, 0);
    double R_hi = Rt + greedy_sum(b, d, m, b->rt, 1);
    double P_lo = P + greedy_sum(b, d, m, b->pr, 0);

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
    *t_lo = t_run + b->req->overhead_s - (s->wl.compat == SLO_COMPAT_SPOTDNN_CODE ? 0.01 : 0);
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

static void consider_leaf(struct bb *b)
{
    struct slo_train_eval ev;
    int counts[512]; /* run_bb guarantees M <= 512 */
    for (size_t k = 0; k < b->M; k++)
        counts[k] = b->lo[k] + b->x[k];
    b->nodes++;
    if (slo_train_evaluate(b->s, counts, b->req, &ev, NULL) != SLO_OK || !(ev.time_s > 0))
        return;
    if (b->check_slo && (ev.time_s > b->req->deadline_s || !within_budget(b->req, &ev)))
        return;
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
    for (size_t i = 0; i < b->M; i++)
        b->order[i] = i;
    for (size_t i = 1; i < b->M; i++) {
        size_t v = b->order[i], j = i;
        for (; j > 0; j--) {
            size_t u = b->order[j - 1];
            double ku = b->obj == MIN_COST ? b->pr[u] / b->rt[u] : -b->rt[u];
            double kv = b->obj == MIN_COST ? b->pr[v] / b->rt[v] : -b->rt[v];
            if (ku <= kv)
                break;
            b->order[j] = u;
        }
        b->order[j] = v;
    }
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

static int run_bb(const struct slo_train_setup *s, const struct slo_train_request *req,
                  enum objective obj, int check_slo, const struct slo_train_plan *seed,
                  struct slo_train_plan *plan, slo_error_t *err)
{
    struct bb b = {.s = s, .req = req, .obj = obj, .check_slo = check_slo, .M = s->n_types,
                   .node_limit = req->node_limit > 0 ? req->node_limit : 2000000};
    const struct slo_loss_model *lm = &s->wl.loss;
    int rv = SLO_OK, n_min = 0, n_max = 0;

    if (b.M > 512)
        return slo__fail(err, SLO_ERR_INVALID, NULL,
                        "expected at most 512 instance types for the exact search, found %zu",
                        b.M);
    b.sp = calloc(b.M, sizeof *b.sp);
    b.rt = calloc(b.M, sizeof *b.rt);
    b.pr = calloc(b.M, sizeof *b.pr);
    b.key = calloc(b.M, sizeof *b.key);
    b.lo = calloc(b.M, sizeof *b.lo);
    b.cap = calloc(b.M, sizeof *b.cap);
    b.x = calloc(b.M, sizeof *b.x);
    b.best_x = calloc(b.M, sizeof *b.best_x);
    b.order = calloc(b.M, sizeof *b.order);
    b.idx = calloc(b.M, sizeof *b.idx);
    if (!b.sp || !b.rt || !b.pr || !b.key || !b.lo || !b.cap || !b.x || !b.best_x || !b.order ||
        !b.idx) {
        rv = slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
        goto out;
    }
    b.k_fresh = 1 / (req->target_loss - lm->gamma5);
    if (req->loss_now > 0)
        b.k_replan = b.k_fresh - 1 / (req->loss_now - lm->gamma5);
    for (size_t k = 0; k < b.M; k++) {
        b.lo[k] = existing_of(req, k);
        b.cap[k] = max_of(s, req, k) - b.lo[k];
        b.pr[k] = s->types[k].usd_per_h;
        n_min += b.lo[k];
        n_max += b.lo[k] + b.cap[k];
    }
    /* Clusters of n_min..n_max workers, n_max within the request's limit
     * (check_request keeps the survivors n_min within it). */
    if (req->max_workers > 0 && n_max > req->max_workers)
        n_max = req->max_workers;
    if (seed && (obj == MIN_COST ? seed->feasible : seed->eval.n_workers > 0)) {
        b.have_best = 1;
        b.best = obj == MIN_COST ? seed->eval.cost_usd : seed->eval.time_s;
        b.best_ev = seed->eval;
        memcpy(b.best_x, seed->counts, b.M * sizeof *b.best_x);
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
        bb_order(&b);
        memset(b.x, 0, b.M * sizeof *b.x);
        dfs(&b, 0, n - n_min);
    }
    plan->evaluations = b.nodes;
    plan->proven = !b.stopped;
    if (b.have_best) {
        memcpy(plan->counts, b.best_x, b.M * sizeof *b.best_x);
        plan->eval = b.best_ev;
        plan->feasible = b.best_ev.time_s <= req->deadline_s && within_budget(req, &b.best_ev);
    }
out:
    free(b.sp);
    free(b.rt);
    free(b.pr);
    free(b.key);
    free(b.lo);
    free(b.cap);
    free(b.x);
    free(b.best_x);
    free(b.order);
    free(b.idx);
    return rv;
}

int slo_plan_exact(const struct slo_train_setup *s, const struct slo_train_request *req,
                   struct slo_train_plan *plan, slo_error_t *err)
{
    struct slo_train_plan seed;
    int rv;

    if ((rv = check_request(s, req, err)))
        return rv;
    /* The sliding window's plan, when there is one, is the first incumbent. */
    if (slo_plan_window(s, req, &seed, NULL) == SLO_ERR_NOMEM) {
        /* the window may have allocated its plan before running out
         * (leak found by tests/test_alloc_fail.c); plan_init zeroes it first */
        slo_train_plan_free(&seed);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    if ((rv = plan_init(s, plan, err))) {
        slo_train_plan_free(&seed);
        return rv;
    }
    rv = run_bb(s, req, MIN_COST, 1, &seed, plan, err);
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

int slo_plan_fastest(const struct slo_train_setup *s, const struct slo_train_request *req,
                     struct slo_train_plan *plan, slo_error_t *err)
{
    struct slo_train_plan seed;
    int *x, rv;

    if ((rv = check_request(s, req, err)) && rv != SLO_ERR_INFEASIBLE)
        return rv;
    /* Seed: the fastest single-type clusters and sliding windows. */
    if ((rv = plan_init(s, &seed, err)))
        return rv;
    if (!(x = calloc(s->n_types, sizeof *x))) {
        slo_train_plan_free(&seed);
        return slo__fail(err, SLO_ERR_NOMEM, NULL, "out of memory");
    }
    for (size_t k = 0; k < s->n_types; k++)
        for (int c = existing_of(req, k) ? 0 : 1; c <= max_of(s, req, k) - existing_of(req, k);
             c++) {
            for (size_t i = 0; i < s->n_types; i++)
                x[i] = existing_of(req, i);
            x[k] += c;
            keep_if_faster(s, x, req, &seed);
        }
    free(x);
    if ((rv = windows(s, req, keep_if_faster, &seed, err)) || (rv = plan_init(s, plan, err)) ||
        (rv = run_bb(s, req, MIN_TIME, 0, &seed, plan, err))) {
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
