/*
 * bench_train_plan.c - plan time of the sliding window (spotDNN Algorithm 1)
 * and the exact search, each as a ratio to exhaustive search measured in the
 * same run where that finishes:
 *  - the paper's 70-instance case (Sec. V-D): the 7 types of Table III
 *    (embedded catalog aws-table3), quota 10 each, ResNet-110;
 *  - a 500-instance catalog: 25 types x quota 20, seeded variations of the
 *    authors' five types (price and speed x U(0.7, 1.3)).
 *  - the 10 x 10 SLO grids of issue 20 (loss 0.6-1.2, deadline 600-6000 s)
 *    at 70 and 500 instances, 5, 20 and 100 types x quota 5, and 3000 pools
 *    (30 types x 100 zones, each zone its own price and quota 1-4, built
 *    through the API): per point the median of 3 calls of the exact search
 *    and of the window, median and worst over the grid, how many answers
 *    are proven, the ratio exact / window in the same run, and brute force
 *    at every point of the 5-type grid (SLO_BENCH_BRUTE=1: also the 70-
 *    instance grid's diagonal, about 15 s a point);
 *  - the cost-deadline frontier (slo_plan_frontier) of resnet110 on both
 *    shipped catalogs and on the 3000 pools, with its time.
 * SLO_BENCH_GRID=PREFIX runs only the grid whose title starts with PREFIX.
 * Table III's g4dn.12xlarge and g3.4xlarge have no profiled speed anywhere;
 * for timing only they get one derived by GPU count from the same GPU's
 * profiled type (g4dn.12xlarge = 4 x g4dn.4xlarge's T4, g3.4xlarge = half of
 * g3.8xlarge's two M60). These derived speeds are not shipped as data.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slo.h"

typedef int (*planner_fn)(const struct slo_train_setup *, const struct slo_train_request *,
                          struct slo_train_plan *, slo_error_t *);

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median wall time of one call over `reps` calls (at least 0.2 s in all). */
static double time_plan(planner_fn fn, const struct slo_train_setup *s,
                        const struct slo_train_request *req, struct slo_train_plan *out,
                        int *rv)
{
    double t[101];
    int n = 0;
    double start = now_s();
    do {
        struct slo_train_plan p;
        double t0 = now_s();
        *rv = fn(s, req, &p, NULL);
        t[n++] = now_s() - t0;
        if (n == 1)
            *out = p;
        else
            slo_train_plan_free(&p);
    } while (n < 101 && now_s() - start < 0.2);
    qsort(t, n, sizeof *t, cmp_double);
    return t[n / 2];
}

/* Exhaustive enumeration with the public model (slo_train_evaluate), as the
 * library's own test oracle does it: every count vector 0 <= n_k <= quota_k,
 * the first of equally cheap plans that meet the deadline. Returns SLO_OK
 * with a plan, SLO_ERR_INFEASIBLE without, SLO_ERR_NOMEM. */
static int brute_force(const struct slo_train_setup *s, const struct slo_train_request *req,
                       struct slo_train_plan *plan)
{
    int *x = calloc(s->n_types, sizeof *x);

    memset(plan, 0, sizeof *plan);
    plan->counts = calloc(s->n_types, sizeof *plan->counts);
    if (!x || !plan->counts) {
        free(x);
        slo_train_plan_free(plan);
        return SLO_ERR_NOMEM;
    }
    for (;;) {
        struct slo_train_eval ev;
        plan->evaluations++;
        if (slo_train_evaluate(s, x, req, &ev, NULL) == SLO_OK && ev.time_s > 0 &&
            ev.time_s <= req->deadline_s && (!plan->feasible || ev.cost_usd < plan->eval.cost_usd)) {
            plan->feasible = 1;
            plan->eval = ev;
            memcpy(plan->counts, x, s->n_types * sizeof *x);
        }
        size_t k = 0;
        while (k < s->n_types && x[k] == s->types[k].quota)
            x[k++] = 0;
        if (k == s->n_types)
            break;
        x[k]++;
    }
    free(x);
    plan->proven = 1;
    return plan->feasible ? SLO_OK : SLO_ERR_INFEASIBLE;
}

static void plan_text(const struct slo_train_setup *s, const struct slo_train_plan *p, char *buf,
                      size_t len)
{
    buf[0] = '\0';
    if (!p->feasible) {
        snprintf(buf, len, "none");
        return;
    }
    for (size_t k = 0; k < s->n_types; k++)
        if (p->counts[k]) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, "%s%s=%d", used ? "," : "", s->types[k].name,
                     p->counts[k]);
        }
}

static void run_case(const char *title, const struct slo_train_setup *s, double loss,
                     double deadline, int with_brute)
{
    struct slo_train_request req = {.target_loss = loss, .deadline_s = deadline};
    struct slo_train_plan w, e, b = {0};
    int rw, re, rb = -1;
    char pw[256], pe[256];
    double tw = time_plan(slo_plan_window, s, &req, &w, &rw);
    double te = time_plan(slo_plan_exact, s, &req, &e, &re);
    double tb = 0;
    if (with_brute) {
        double t0 = now_s();
        rb = brute_force(s, &req, &b);
        tb = now_s() - t0;
    }
    plan_text(s, &w, pw, sizeof pw);
    plan_text(s, &e, pe, sizeof pe);
    printf("%-28s SLO (%.1f, %5.0f s)\n", title, loss, deadline);
    printf("  window  %10.3f ms  %8ld evaluations  cost %10.6f  %s\n", tw * 1e3, w.evaluations,
           w.feasible ? w.eval.cost_usd : NAN, pw);
    printf("  exact   %10.3f ms  %8ld nodes        cost %10.6f  %s%s\n", te * 1e3, e.evaluations,
           e.feasible ? e.eval.cost_usd : NAN, pe,
           e.proven ? "" : "  (node limit reached: not proven)");
    if (with_brute) {
        printf("  brute   %10.3f ms  %8ld evaluations  cost %10.6f\n", tb * 1e3, b.evaluations,
               b.feasible ? b.eval.cost_usd : NAN);
        printf("  ratio to brute force: window %.0fx faster, exact %.0fx faster; exact %s brute "
               "force\n",
               tb / tw, tb / te,
               (rb == re && (!e.feasible || fabs(e.eval.cost_usd - b.eval.cost_usd) <= 1e-9))
                   ? "equals"
                   : "DIFFERS FROM");
    } else {
        printf("  brute force: not run (%s)\n", "the space is too large to enumerate");
    }
    if (w.feasible && e.feasible)
        printf("  window cost / exact cost = %.4f\n", w.eval.cost_usd / e.eval.cost_usd);
    slo_train_plan_free(&w);
    slo_train_plan_free(&e);
    slo_train_plan_free(&b);
}

static uint64_t rng = 0x5eedULL;
static double urand(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}



/* The cost-deadline frontier (slo_plan_frontier) of loss `loss` over
 * deadlines from..to s: its points, nodes and wall time (one call). */
static void run_frontier(const char *title, const struct slo_train_setup *s, double loss,
                         double from, double to)
{
    struct slo_train_request req = {.target_loss = loss, .deadline_s = to};
    struct slo_train_frontier f;
    double t0 = now_s();
    int rv = slo_plan_frontier(s, &req, from, &f, NULL);
    double t = now_s() - t0;
    if (rv != SLO_OK) {
        printf("%s: frontier failed (%d)\n", title, rv);
        return;
    }
    printf("%-44s frontier loss %.1f, %4.0f-%4.0f s: %3zu points, %8ld nodes, %9.3f ms%s\n",
           title, loss, from, to, f.n, f.nodes, t * 1e3, f.proven ? "" : " (NOT proven)");
    if (f.n)
        printf("    first %.2f s at %.6f USD, last %.2f s at %.6f USD\n", f.points[0].eval.time_s,
               f.points[0].eval.cost_usd, f.points[f.n - 1].eval.time_s,
               f.points[f.n - 1].eval.cost_usd);
    slo_train_frontier_free(&f);
}

static int brute_fn(const struct slo_train_setup *s, const struct slo_train_request *req,
                    struct slo_train_plan *plan, slo_error_t *err)
{
    (void)err;
    return brute_force(s, req, plan);
}
/* ---------------------------------------------------------------- SLO grids */

/* A synthetic catalog built through the API: n_types performance types
 * (seeded variations of the authors' five: speed and price x U(0.7, 1.3)),
 * each sold in `pools` pools (zones) with its own spot price (x U(0.8, 1.25)
 * of the type's) and quota. */
struct synth {
    struct slo_catalog cat;
    struct slo_workload wl;
};

static void synth_make(struct synth *sy, const struct slo_workload *wl,
                       const struct slo_catalog *base, int n_types, int pools, int quota,
                       const char *name)
{
    size_t n = (size_t)n_types * pools;
    sy->cat.types = calloc(n, sizeof *sy->cat.types);
    sy->wl = *wl;
    sy->wl.instances = calloc(n, sizeof *sy->wl.instances);
    sy->cat.n_types = sy->wl.n_instances = n;
    snprintf(sy->cat.name, sizeof sy->cat.name, "%s", name);
    for (int k = 0; k < n_types; k++) {
        struct slo_instance_type t = base->types[k % 5];
        struct slo_workload_instance wi = wl->instances[k % 5];
        t.spot_usd_per_h *= 0.7 + 0.6 * urand();
        t.on_demand_usd_per_h *= 0.7 + 0.6 * urand();
        wi.speed *= 0.7 + 0.6 * urand();
        for (int z = 0; z < pools; z++) {
            size_t i = (size_t)k * pools + z;
            sy->cat.types[i] = t;
            snprintf(sy->cat.types[i].name, sizeof t.name, "%.40s-v%d%s%.0d",
                     base->types[k % 5].name, k / 5, pools > 1 ? "@z" : "", pools > 1 ? z + 1 : 0);
            sy->cat.types[i].quota = quota > 0 ? quota : 1 + (int)(urand() * 4);
            if (pools > 1)
                sy->cat.types[i].spot_usd_per_h *= 0.8 + 0.45 * urand();
            sy->wl.instances[i] = wi;
            snprintf(sy->wl.instances[i].type, sizeof wi.type, "%s", sy->cat.types[i].name);
        }
    }
}

static void synth_free(struct synth *sy)
{
    free(sy->cat.types);
    free(sy->wl.instances);
}

/* Wall time of one call (the median of 3 when a call takes under 0.1 s: two
 * cores shared with other work make a single short call noisy). */
static double one_call(planner_fn fn, const struct slo_train_setup *s,
                       const struct slo_train_request *req, struct slo_train_plan *p, int *rv)
{
    double t[3];
    for (int i = 0; i < 3; i++) {
        struct slo_train_plan q;
        double t0 = now_s();
        int r = fn(s, req, i ? &q : p, NULL);
        t[i] = now_s() - t0;
        if (i)
            slo_train_plan_free(&q);
        else
            *rv = r;
        if (i == 0 && t[0] > 0.1)
            return t[0];
    }
    qsort(t, 3, sizeof *t, cmp_double);
    return t[1];
}

/* The 10 x 10 SLO grid (loss 0.6 .. 1.2, deadline 600 .. 6000 s): exact
 * search and window at every point, brute force at the points `brute`
 * selects (every, the diagonal, none); median and worst per method, the
 * count of proven answers, and the ratios measured in this run. */
static void run_grid(const char *title, const struct slo_train_setup *s, int brute)
{
    double te[100], tw[100], tb_sum = 0, te_b = 0, tw_b = 0;
    int proven = 0, feasible = 0, n_b = 0, differ = 0, npt = 0, worse = 0;
    long total = 0, worst_nodes = 0;
    double worst_t = -1, worst_l = 0, worst_d = 0;
    int worst_ok = 0;
    for (size_t k = 0; k < s->n_types; k++)
        total += s->types[k].quota;
    for (int a = 0; a < 10; a++)
        for (int b = 0; b < 10; b++) {
            struct slo_train_request req = {.target_loss = 0.6 + a * (0.6 / 9),
                                            .deadline_s = 600 + b * 600};
            struct slo_train_plan e, w;
            int re, rw;
            te[npt] = one_call(slo_plan_exact, s, &req, &e, &re);
            tw[npt] = one_call(slo_plan_window, s, &req, &w, &rw);
            proven += e.proven;
            if (te[npt] > worst_t) {
                worst_t = te[npt];
                worst_l = req.target_loss;
                worst_d = req.deadline_s;
                worst_nodes = e.evaluations;
                worst_ok = re == SLO_OK;
            }
            feasible += re == SLO_OK;
            if (rw == SLO_OK && re == SLO_OK && w.eval.cost_usd > e.eval.cost_usd * (1 + 1e-12))
                worse++;
            if (brute == 2 || (brute == 1 && a == b)) {
                struct slo_train_plan bf;
                int rb;
                double tb = one_call(brute_fn, s, &req, &bf, &rb);
                tb_sum += tb;
                te_b += te[npt];
                tw_b += tw[npt];
                n_b++;
                if (rb != re || (rb == SLO_OK && fabs(bf.eval.cost_usd - e.eval.cost_usd) >
                                                      1e-9 * (1 + bf.eval.cost_usd)))
                    differ++;
                slo_train_plan_free(&bf);
            }
            slo_train_plan_free(&e);
            slo_train_plan_free(&w);
            npt++;
        }
    double se[100], sw[100];
    memcpy(se, te, sizeof se);
    memcpy(sw, tw, sizeof sw);
    qsort(se, 100, sizeof *se, cmp_double);
    qsort(sw, 100, sizeof *sw, cmp_double);
    printf("%s: %zu catalog entries, %ld instances; 10 x 10 SLO grid (loss 0.6-1.2, 600-6000 s)\n",
           title, s->n_types, total);
    printf("  exact   median %9.3f ms  worst %9.3f ms   proven %d/100 (%d feasible, %d proven "
           "infeasible)\n",
           se[49] * 1e3, se[99] * 1e3, proven, feasible, proven - feasible);
    printf("  exact's worst point: SLO (%.3f, %.0f s), %s, %ld nodes\n", worst_l, worst_d,
           worst_ok ? "feasible" : "infeasible", worst_nodes);
    printf("  window  median %9.3f ms  worst %9.3f ms   (costlier than exact at %d points)\n",
           sw[49] * 1e3, sw[99] * 1e3, worse);
    printf("  exact / window: median %.2f, worst %.2f\n", se[49] / sw[49], se[99] / sw[99]);
    if (n_b)
        printf("  brute force at %d points: %.3f ms per point; exact %.0fx faster, window %.0fx "
               "faster; exact %s brute force\n",
               n_b, tb_sum / n_b * 1e3, tb_sum / te_b, tb_sum / tw_b,
               differ ? "DIFFERS FROM" : "equals");
    else
        printf("  brute force: not run (the space is too large to enumerate)\n");
}

int main(void)
{
    struct slo_catalog t3, base;
    struct slo_workload wl;
    struct slo_train_setup s;
    slo_error_t err = {0};

    if (slo_catalog_parse(slo_embedded_catalog("aws-table3"), "aws-table3", &t3, &err) ||
        slo_catalog_parse(slo_embedded_catalog("spotdnn-resnet110"), "repo", &base, &err) ||
        slo_workload_parse(slo_embedded_workload("resnet110"), "resnet110", &wl, &err)) {
        fprintf(stderr, "bench: %s: %s\n", err.source, err.text);
        return 1;
    }
    const char *only = getenv("SLO_BENCH_GRID"); /* one grid by title prefix (development) */
    printf("# slo train planner benchmark (median wall time per plan)\n\n");


    /* The authors' catalog: quota 25 (paper: spotDNN 0.2 s, Srifty+ 1.3 s). */
    if (slo_train_setup_init(&s, &base, &wl, SLO_PRICING_SPOT, &err))
        return 1;
    printf("\n# cost-deadline frontiers (resnet110; one call each)\n\n");
    run_frontier("resnet110, repo catalog (25 instances)", &s, 0.8, 600, 6000);
    {
        struct slo_train_setup s3;
        if (slo_train_setup_init(&s3, &t3, &wl, SLO_PRICING_SPOT, &err))
            return 1;
        run_frontier("resnet110, aws-table3 (5 profiled types)", &s3, 0.8, 600, 6000);
        slo_train_setup_free(&s3);
    }
    printf("\n");
    if (!only)
        run_case("repo catalog, 25 instances", &s, 0.8, 2400, 1);
    if (!only)
        run_case("repo catalog, 25 instances", &s, 0.7, 3700, 1);
    slo_train_setup_free(&s);

    /* The paper's 70 instances (paper: spotDNN 0.3 s, Srifty+ 1503.7 s). */
    struct slo_workload_instance inst[7];
    memcpy(inst, wl.instances, 5 * sizeof *inst);
    snprintf(inst[5].type, sizeof inst[5].type, "g4dn.12xlarge");
    inst[5].batch_per_gpu = 1024;
    inst[5].speed = 4 * 750;  /* 4 x g4dn.4xlarge's T4 (derived, timing only) */
    snprintf(inst[6].type, sizeof inst[6].type, "g3.4xlarge");
    inst[6].batch_per_gpu = 512;
    inst[6].speed = 1018 / 2.0; /* half of g3.8xlarge's two M60 (derived) */
    struct slo_workload wl7 = wl;
    wl7.instances = inst;
    wl7.n_instances = 7;
    if (slo_train_setup_init(&s, &t3, &wl7, SLO_PRICING_SPOT, &err))
        return 1;
    if (!only)
        run_case("Table III, 70 instances", &s, 0.8, 2400, 1);
    if (!only)
        run_case("Table III, 70 instances", &s, 0.7, 3700, 1);
    /* Tight deadlines: many more clusters are near the bounds. */
    if (!only)
        run_case("Table III, 70 instances", &s, 0.8, 1500, 1);
    if (!only)
        run_case("Table III, 70 instances", &s, 0.8, 1100, 1);
    slo_train_setup_free(&s);

    /* 500 instances: 25 types x quota 20. */
    struct slo_instance_type types[25];
    struct slo_workload_instance inst25[25];
    for (int k = 0; k < 25; k++) {
        types[k] = base.types[k % 5];
        snprintf(types[k].name, sizeof types[k].name, "%.50s-v%d", base.types[k % 5].name, k / 5);
        types[k].quota = 20;
        types[k].spot_usd_per_h *= 0.7 + 0.6 * urand();
        inst25[k] = wl.instances[k % 5];
        snprintf(inst25[k].type, sizeof inst25[k].type, "%.60s", types[k].name);
        inst25[k].speed *= 0.7 + 0.6 * urand();
    }
    struct slo_catalog c25 = {.n_types = 25, .types = types};
    snprintf(c25.name, sizeof c25.name, "synthetic-500");
    struct slo_workload wl25 = wl;
    wl25.instances = inst25;
    wl25.n_instances = 25;
    if (slo_train_setup_init(&s, &c25, &wl25, SLO_PRICING_SPOT, &err))
        return 1;
    if (!only)
        run_case("synthetic, 500 instances", &s, 0.8, 2400, 0);
    if (!only)
        run_case("synthetic, 500 instances", &s, 0.7, 3700, 0);
    if (!only)
        run_case("synthetic, 500 instances", &s, 0.8, 1000, 0);
    slo_train_setup_free(&s);


    /* The SLO grids of issue 20 (see doc/model.md). */
    printf("\n# 10 x 10 SLO grids: per-point wall time of one call\n\n");
    if (slo_train_setup_init(&s, &t3, &wl7, SLO_PRICING_SPOT, &err))
        return 1;
    if (!only || strncmp(only, "Table", 5) == 0)
        run_grid("Table III, 70 instances", &s, getenv("SLO_BENCH_BRUTE") ? 1 : 0);
    slo_train_setup_free(&s);
    {
        static const struct { const char *title; int types, pools, quota; } g[] = {
            {"synthetic, 500 instances", 25, 1, 20},
            {"synthetic, 5 types x 5", 5, 1, 5},
            {"synthetic, 20 types x 5", 20, 1, 5},
            {"synthetic, 100 types x 5", 100, 1, 5},
            {"synthetic, 3000 pools (30 types x 100 zones)", 30, 100, 0},
        };
        for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
            struct synth sy;
            if (only && strncmp(only, g[i].title, strlen(only)) != 0) {
                synth_make(&sy, &wl, &base, g[i].types, g[i].pools, g[i].quota, g[i].title);
                synth_free(&sy); /* the same random stream either way */
                continue;
            }
            synth_make(&sy, &wl, &base, g[i].types, g[i].pools, g[i].quota, g[i].title);
            if (slo_train_setup_init(&s, &sy.cat, &sy.wl, SLO_PRICING_SPOT, &err)) {
                fprintf(stderr, "bench: %s: %s\n", err.source, err.text);
                return 1;
            }
            run_grid(g[i].title, &s, g[i].types == 5 ? 2 : 0);
            if (g[i].pools > 1)
                run_frontier("resnet110 profiles, 3000 pools", &s, 0.8, 600, 6000);
            slo_train_setup_free(&s);
            synth_free(&sy);
        }
    }
    slo_catalog_free(&t3);
    slo_catalog_free(&base);
    slo_workload_free(&wl);
    return 0;
}
