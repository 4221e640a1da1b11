/*
 * test_infer_replace.c - slo_infer_replace (issue 19, item 4): re-placement
 * of inference workloads as their rates change, with shadow-instance moves.
 * Data: the embedded V100 profile (the iGniter authors' measurements,
 * i-Gniter/Algorithm/config at b1ff2ab) priced at 3.06 USD/h (p3.2xlarge on
 * demand, aws-table3). Cases:
 *  - the seeded sets: 10, 20, 50 and 100 workloads, 8 of each
 *    (models alexnet/resnet50/vgg19/ssd, rates 20-249 req/s, SLOs 30-99 ms;
 *    xorshift seeds below), planned by slo_infer_solve as the deployed
 *    placement, then every rate changed by a seeded factor in [0.7, 1.3]
 *    (+-30 %): all 32 are re-placed, each on at most the fresh plan's GPUs
 *    plus one, with fewer moves than the fresh plan (whose moves are
 *    counted here, by this test, as every workload whose GPU/share/batch
 *    differs under the best one-to-one GPU matching, found by the Hungarian
 *    method for every plan and by brute force over the matchings for small
 *    plans, the two agreeing, and equal to the kernel's count), and every
 *    intermediate state is re-predicted here from scratch with
 *    slo_ig_predict: the moves are replayed one by one (new instance added
 *    beside the old one, then the old one removed), every GPU's shares sum
 *    to at most 100 % and every workload that met its SLO before (and every
 *    new instance) meets SLO/2 and its rate; the figures (GPUs and moves
 *    against the fresh plans, GPUs busy at once during the moves, second
 *    moves of parked workloads) are printed;
 *  - wider changes: 18 sets of 10, 30 and 60 workloads, rates times
 *    0.5-1.5 and every 7th workload new (not deployed): the same checks;
 *    the sets where a workload's new rate needs more than one GPU (the
 *    fresh plan splits it) are refused with that reason;
 *  - unchanged rates: no move, the same placement;
 *  - bad current files: a workload number not in the workloads file, a
 *    model differing from the workloads file's, malformed JSON, a missing
 *    batch: SLO_ERR_INVALID naming the source and the field.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "slo.h"
#include "slo_infer.h"

static struct slo_ig_profile v100;

static int setup(void **state)
{
    slo_error_t err = {0};
    (void)state;
    if (slo_ig_profile_open("v100", NULL, &v100, &err)) {
        fprintf(stderr, "%s: %s\n", err.source, err.text);
        return -1;
    }
    v100.usd_per_gpu_h = 3.06; /* p3.2xlarge on demand (aws-table3): rule 1 */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    slo_ig_profile_free(&v100);
    return 0;
}

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The test's own state: instances (workload, gpu, batch, share). */
struct tinst {
    size_t workload, gpu;
    int batch;
    double share;
    int old; /* the instance a move has not yet replaced */
};

/* Predict GPU g of st[n] afresh; 1 when the shares fit in 100 % and every
 * instance not exempt meets SLO/2 and its rate. */
static int check_gpu(const struct slo_ig_workload *w, const struct tinst *st, size_t n, size_t g,
                     const int *exempt)
{
    struct slo_ig_tenant t[256];
    struct slo_ig_prediction o[256];
    size_t id[256], m = 0;
    double sum = 0;
    slo_error_t err = {0};
    for (size_t i = 0; i < n; i++)
        if (st[i].gpu == g) {
            assert_true(m < 256);
            t[m].model = slo_ig_find_model(&v100, w[st[i].workload].model);
            t[m].batch = st[i].batch;
            t[m].share_pct = st[i].share;
            sum += st[i].share;
            id[m++] = i;
        }
    if (!m)
        return 1;
    if (sum > 100 + 1e-9)
        return 0;
    assert_int_equal(slo_ig_predict(&v100, t, m, o, NULL, &err), SLO_OK);
    for (size_t k = 0; k < m; k++) {
        const struct tinst *x = &st[id[k]];
        if (x->old && exempt && exempt[x->workload])
            continue;
        if (!(o[k].latency_ms <= w[x->workload].slo_ms / 2 * (1 + 1e-12) &&
              o[k].throughput_rps >= w[x->workload].rate_rps * (1 - 1e-12)))
            return 0;
    }
    return 1;
}

/* Moves of the fresh plan counted by this test: best matching of fresh to
 * current GPUs by workloads kept, brute force over injections for up to 8
 * fresh GPUs (a second reference for kept_augmenting below). */
static size_t kept_of(const size_t *ov, size_t nc, size_t nf, size_t j, unsigned char *used)
{
    size_t best = 0;
    if (j == nf)
        return 0;
    best = kept_of(ov, nc, nf, j + 1, used); /* fresh GPU j matched to none */
    for (size_t i = 0; i < nc; i++)
        if (!used[i] && ov[i * nf + j]) {
            size_t v;
            used[i] = 1;
            v = ov[i * nf + j] + kept_of(ov, nc, nf, j + 1, used);
            used[i] = 0;
            if (v > best)
                best = v;
        }
    return best;
}

/* The same best matching for plans of any size, by a method other than the
 * kernel's (infer_replace.c solves it with the Hungarian method's
 * shortest augmenting paths and potentials): successive longest-gain
 * augmenting paths found by Bellman-Ford on the alternating graph, no
 * potentials. Augmenting a maximum-weight matching of k edges along its
 * best path gives one of k + 1 edges, and the gains fall with k, so it
 * stops at the optimum once no path gains (O(N^4), N = max(nc, nf); the
 * test's plans have at most ~40 GPUs). */
static size_t kept_augmenting(const size_t *ov, size_t nc, size_t nf)
{
    long *mr = malloc((nc + 1) * sizeof *mr), *mc = malloc((nf + 1) * sizeof *mc);
    long *par = malloc((nc + 1) * sizeof *par);
    long long *dist = malloc((nc + 1) * sizeof *dist);
    size_t kept = 0;
    assert_true(mr && mc && par && dist);
    for (size_t i = 0; i < nc; i++)
        mr[i] = -1;
    for (size_t j = 0; j < nf; j++)
        mc[j] = -1;
    for (;;) {
        long long best = 0;
        long bi = -1, bj = -1;
        for (size_t i = 0; i < nc; i++) {
            dist[i] = mr[i] < 0 ? 0 : LLONG_MIN; /* paths start at an unmatched row */
            par[i] = -1;
        }
        for (size_t round = 0, changed = 1; changed && round <= nc; round++) {
            changed = 0;
            for (size_t i = 0; i < nc; i++) {
                if (dist[i] == LLONG_MIN)
                    continue;
                for (size_t j = 0; j < nf; j++) {
                    long r = mc[j];
                    if (!ov[i * nf + j] || mr[i] == (long)j)
                        continue;
                    long long g = dist[i] + (long long)ov[i * nf + j];
                    if (r < 0)
                        continue; /* an end: scored after convergence */
                    g -= (long long)ov[(size_t)r * nf + j];
                    if (g > dist[r]) {
                        dist[r] = g;
                        par[r] = (long)i;
                        changed = 1;
                    }
                }
            }
        }
        for (size_t i = 0; i < nc; i++)
            for (size_t j = 0; dist[i] != LLONG_MIN && j < nf; j++)
                if (mc[j] < 0 && ov[i * nf + j] &&
                    dist[i] + (long long)ov[i * nf + j] > best) {
                    best = dist[i] + (long long)ov[i * nf + j];
                    bi = (long)i;
                    bj = (long)j;
                }
        if (bi < 0)
            break;
        for (long i = bi, j = bj; i >= 0;) { /* flip the path back to its start */
            long old = mr[i];
            mr[i] = j;
            mc[j] = i;
            if (old < 0)
                break;
            j = old;
            i = par[i];
        }
    }
    for (size_t i = 0; i < nc; i++)
        if (mr[i] >= 0)
            kept += ov[i * nf + (size_t)mr[i]];
    free(mr);
    free(mc);
    free(par);
    free(dist);
    return kept;
}

static size_t count_fresh_moves(const struct slo_infer_current *cur,
                                const struct slo_infer_result *f, size_t n, int brute)
{
    size_t nc = cur->n_gpus, nf = f->n_gpus, kept = 0;
    size_t *ov = calloc(nc * nf + 1, sizeof *ov), *parts = calloc(n, sizeof *parts);
    unsigned char *uc = calloc(nc + 1, 1), *uf = calloc(nf + 1, 1);
    assert_non_null(ov);
    assert_non_null(parts);
    assert_non_null(uc);
    assert_non_null(uf);
    for (size_t k = 0; k < f->n_placements; k++)
        parts[f->placements[k].workload]++;
    for (size_t k = 0; k < f->n_placements; k++)
        for (size_t i = 0; i < cur->n_placements; i++) {
            const struct slo_infer_placement *fp = &f->placements[k];
            const struct slo_infer_current_placement *cp = &cur->placements[i];
            if (parts[fp->workload] == 1 && cp->workload == fp->workload &&
                cp->batch == fp->batch && fabs(cp->share_pct - fp->share_pct) < 1e-9)
                ov[cp->gpu * nf + fp->gpu]++;
        }
    kept = kept_augmenting(ov, nc, nf);
    if (brute) /* the two references agree where brute force is affordable */
        assert_int_equal(kept_of(ov, nc, nf, 0, uc), kept);
    free(ov);
    free(parts);
    free(uc);
    free(uf);
    return n - kept;
}

/* The deployed placement from a plan (no split workloads: checked), without
 * every new_every-th workload (0: none left out) - those are new. */
static int current_of(const struct slo_infer_result *res, size_t n, struct slo_infer_current *cur,
                      size_t new_every)
{
    size_t m = 0;
    size_t *parts = calloc(n, sizeof *parts);
    assert_non_null(parts);
    for (size_t k = 0; k < res->n_placements; k++)
        if (++parts[res->placements[k].workload] > 1) {
            free(parts);
            return -1;
        }
    free(parts);
    cur->n_gpus = res->n_gpus;
    cur->gpu_type = calloc(res->n_gpus, sizeof *cur->gpu_type);
    cur->placements = calloc(res->n_placements, sizeof *cur->placements);
    assert_non_null(cur->gpu_type);
    assert_non_null(cur->placements);
    for (size_t k = 0; k < res->n_placements; k++) {
        if (new_every && res->placements[k].workload % new_every == new_every - 1)
            continue;
        cur->placements[m].workload = res->placements[k].workload;
        cur->placements[m].gpu = res->placements[k].gpu;
        cur->placements[m].batch = res->placements[k].batch;
        cur->placements[m].share_pct = res->placements[k].share_pct;
        m++;
    }
    cur->n_placements = m;
    return 0;
}

/* GPUs with an instance in st[m] (of n_gpus). */
static size_t busy_gpus(const struct tinst *st, size_t m, size_t n_gpus)
{
    size_t busy = 0;
    for (size_t g = 0; g < n_gpus; g++)
        for (size_t i = 0; i < m; i++)
            if (st[i].gpu == g) {
                busy++;
                break;
            }
    return busy;
}

/* Replay r's moves from cur and re-predict every intermediate state; returns
 * the number of states checked (2 per move); *peak (may be NULL) receives
 * the most GPUs holding an instance at once during the moves. */
static size_t replay(const struct slo_ig_workload *w, size_t n, const struct slo_infer_current *cur,
                     const struct slo_infer_replace_result *r, size_t *peak)
{
    size_t cap = cur->n_placements + n + 1, m = 0, states = 0, n_gpus = r->n_gpus;
    struct tinst *st = calloc(cap, sizeof *st);
    int *exempt = calloc(n, sizeof *exempt), *moved = calloc(n, sizeof *moved);
    assert_non_null(st);
    assert_non_null(exempt);
    assert_non_null(moved);
    for (size_t i = 0; i < cur->n_placements; i++)
        st[m++] = (struct tinst){cur->placements[i].workload, cur->placements[i].gpu,
                                 cur->placements[i].batch, cur->placements[i].share_pct, 1};
    /* exempt: misses its SLO where it is at the new rate (test's own check:
     * a GPU that fails is re-checked tenant by tenant) */
    for (size_t g = 0; g < cur->n_gpus; g++)
        for (size_t i = 0; i < m; i++) {
            struct tinst only[256];
            size_t k = 0, me = 0;
            int ok;
            if (st[i].gpu != g)
                continue;
            for (size_t j = 0; j < m; j++)
                if (st[j].gpu == g) {
                    if (j == i)
                        me = k;
                    only[k] = st[j];
                    only[k].old = j == i ? 0 : 1;
                    k++;
                }
            {
                /* all others exempt, this one held to its SLO */
                int *all = calloc(n, sizeof *all);
                assert_non_null(all);
                for (size_t j = 0; j < k; j++)
                    if (j != me)
                        all[only[j].workload] = 1;
                ok = check_gpu(w, only, k, g, all);
                free(all);
            }
            exempt[st[i].workload] = !ok;
        }
    assert_true(n_gpus >= cur->n_gpus);
    for (size_t k = 0; k < r->n_moves; k++) {
        const struct slo_infer_move *mv = &r->moves[k];
        size_t old = SIZE_MAX;
        assert_true(mv->workload < n);
        /* a workload may move twice: placed, then its GPU emptied */
        moved[mv->workload] = 1;
        for (size_t i = 0; i < m; i++)
            if (st[i].workload == mv->workload)
                old = i;
        if (mv->from_gpu == SIZE_MAX) {
            assert_true(old == SIZE_MAX);
        } else {
            assert_true(old != SIZE_MAX);
            assert_int_equal(st[old].gpu, mv->from_gpu);
            assert_int_equal(st[old].batch, mv->from_batch);
            assert_true(fabs(st[old].share - mv->from_share_pct) < 1e-12);
        }
        assert_true(mv->to_gpu < n_gpus);
        st[m++] = (struct tinst){mv->workload, mv->to_gpu, mv->to_batch, mv->to_share_pct, 0};
        for (size_t g = 0; g < n_gpus; g++)
            assert_true(check_gpu(w, st, m, g, exempt)); /* shadow state */
        states++;
        if (peak && busy_gpus(st, m, n_gpus) > *peak)
            *peak = busy_gpus(st, m, n_gpus);
        if (old != SIZE_MAX) {
            memmove(&st[old], &st[old + 1], (m - old - 1) * sizeof *st);
            m--;
        }
        for (size_t g = 0; g < n_gpus; g++)
            assert_true(check_gpu(w, st, m, g, exempt)); /* after the move */
        states++;
    }
    /* the end state: every workload once, every SLO met, = r's placement */
    assert_int_equal(m, n);
    assert_int_equal(r->n_placements, n);
    for (size_t g = 0; g < n_gpus; g++)
        assert_true(check_gpu(w, st, m, g, NULL));
    for (size_t i = 0; i < m; i++) {
        int found = 0;
        for (size_t k = 0; k < r->n_placements; k++)
            if (r->placements[k].workload == st[i].workload) {
                assert_int_equal(r->placements[k].gpu, st[i].gpu);
                assert_int_equal(r->placements[k].batch, st[i].batch);
                assert_true(fabs(r->placements[k].share_pct - st[i].share) < 1e-12);
                found++;
            }
        assert_int_equal(found, 1);
    }
    /* a workload not moved is exactly where it was */
    for (size_t i = 0; i < cur->n_placements; i++)
        if (!moved[cur->placements[i].workload])
            for (size_t k = 0; k < m; k++)
                if (st[k].workload == cur->placements[i].workload) {
                    assert_int_equal(st[k].gpu, cur->placements[i].gpu);
                    assert_int_equal(st[k].batch, cur->placements[i].batch);
                }
    free(st);
    free(exempt);
    free(moved);
    return states;
}

/* Seeded sets: for each size, reps sets planned and deployed, then every
 * rate times a seeded factor in [lo, lo + 0.01 (steps - 1)]; with new_every
 * > 0 every new_every-th workload is left out of the deployed placement (a
 * new workload). Every set is re-placed within the bound, or refused because
 * a workload needs more than one GPU at its new rate (the fresh plan splits
 * it: no placement holds it on one GPU), or skipped (a split deployed: the
 * current file cannot hold it). Returns the sets re-placed. */
static size_t run_seeded(const char *label, uint64_t seed, const size_t *sizes, size_t n_sizes,
                       int reps, double lo, unsigned steps, size_t new_every)
{
    static const char *const models[4] = {"alexnet", "resnet50", "vgg19", "ssd"};
    size_t cases = 0, skipped = 0, moves = 0, fresh = 0, states = 0, extra_gpu = 0,
           split_new = 0, gpus = 0, fresh_gpus = 0, spares = 0, twice = 0,
           peak_extra = 0, round_trips = 0;
    for (size_t si = 0; si < n_sizes; si++)
        for (int rep = 0; rep < reps; rep++) {
            size_t n = sizes[si];
            struct slo_ig_workload *w = calloc(n, sizeof *w), *w2 = calloc(n, sizeof *w2);
            struct slo_infer_problem pb = {0};
            struct slo_infer_result res = {0}, fr = {0};
            struct slo_infer_current cur = {0};
            struct slo_infer_replace_result r = {0};
            slo_error_t err = {0};
            size_t states_here, fm, peak;
            assert_non_null(w);
            assert_non_null(w2);
            for (size_t i = 0; i < n; i++) {
                snprintf(w[i].model, sizeof w[i].model, "%s", models[next(&seed) % 4]);
                w[i].rate_rps = 20.0 + (double)(next(&seed) % 230);
                w[i].slo_ms = 30.0 + (double)(next(&seed) % 70);
                w2[i] = w[i];
                w2[i].rate_rps = w[i].rate_rps * (lo + 0.01 * (double)(next(&seed) % steps));
            }
            pb.profiles = &v100;
            pb.n_types = 1;
            pb.workloads = w;
            pb.n_workloads = n;
            assert_int_equal(slo_infer_solve(&pb, NULL, &res, &err), SLO_OK);
            assert_true(res.n_gpus > 0);
            if (current_of(&res, n, &cur, new_every)) {
                skipped++; /* a split workload: not re-placed (documented) */
                slo_infer_result_free(&res);
                free(w);
                free(w2);
                continue;
            }
            pb.workloads = w2;
            assert_int_equal(slo_infer_replace(&pb, NULL, &cur, &r, &err), SLO_OK);
            /* the fresh plan, solved here again, and its moves counted here */
            assert_int_equal(slo_infer_solve(&pb, NULL, &fr, &err), SLO_OK);
            if (fr.n_placements > n) {
                /* a workload the new rate splits over dedicated GPUs: refused
                 * with a reason, not re-placed (documented) */
                assert_int_equal(r.status, SLO_STATUS_INFEASIBLE_UNPROVEN);
                assert_non_null(strstr(r.reason, "would be split over dedicated GPUs"));
                split_new++;
                slo_infer_replace_result_free(&r);
                slo_infer_current_free(&cur);
                slo_infer_result_free(&res);
                slo_infer_result_free(&fr);
                free(w);
                free(w2);
                continue;
            }
            if (r.status != SLO_STATUS_FEASIBLE_UNPROVEN)
                fail_msg("n=%zu rep %d: %s", n, rep, r.reason);
            assert_int_equal(r.fresh_n_gpus, fr.n_gpus);
            fm = count_fresh_moves(&cur, &fr, n, fr.n_gpus <= 8 && cur.n_gpus <= 8);
            assert_int_equal(r.fresh_moves, fm); /* the kernel's matching is exact too */
            /* issue 19: never more GPUs than a fresh plan plus one ... */
            assert_true(r.n_gpus_used <= fr.n_gpus + 1);
            /* ... fewer moves than a fresh plan ... */
            if (!(r.n_moves < fm))
                fail_msg("n=%zu rep %d: %zu moves, fresh plan %zu", n, rep, r.n_moves, fm);
            /* ... every intermediate state verified, here from scratch */
            peak = cur.n_gpus;
            states_here = replay(w2, n, &cur, &r, &peak);
            peak_extra += peak - (cur.n_gpus > r.n_gpus_used ? cur.n_gpus : r.n_gpus_used);
            assert_int_equal(states_here, 2 * r.n_moves);
            {
                /* the honest counts, recounted here: distinct workloads, and
                 * moves back to a GPU the workload left earlier */
                size_t moved = 0, trips = 0;
                for (size_t k = 0; k < r.n_moves; k++) {
                    int first = 1, back = 0;
                    for (size_t q = 0; q < k; q++)
                        if (r.moves[q].workload == r.moves[k].workload) {
                            first = 0;
                            back |= r.moves[q].from_gpu == r.moves[k].to_gpu;
                        }
                    moved += first;
                    trips += back;
                }
                assert_int_equal(r.n_workloads_moved, moved);
                assert_int_equal(r.n_round_trips, trips);
                round_trips += trips;
            }
            assert_int_equal(r.n_states_verified, states_here);
            assert_true(fabs(r.cost_usd_per_h - 3.06 * (double)r.n_gpus_used) < 1e-9);
            extra_gpu += r.n_gpus_used > fr.n_gpus;
            gpus += r.n_gpus_used;
            fresh_gpus += fr.n_gpus;
            /* GPUs opened beyond the deployed ones and the final ones
             * (transient spares), workloads moved twice (parked) */
            spares += r.n_gpus > cur.n_gpus ? r.n_gpus - cur.n_gpus : 0;
            for (size_t k = 0; k < r.n_moves; k++)
                for (size_t j = 0; j < k; j++)
                    twice += r.moves[j].workload == r.moves[k].workload;
            printf("%s n=%3zu rep %d: re-placement %2zu GPUs, %3zu moves; fresh plan %2zu GPUs, "
                   "%3zu moves (deployed %zu GPUs; %zu busy at most during the moves, %zu "
                   "indexed)\n",
                   label, n, rep, r.n_gpus_used, r.n_moves, fr.n_gpus, fm, cur.n_gpus, peak,
                   r.n_gpus);
            cases++;
            moves += r.n_moves;
            fresh += fm;
            states += states_here;
            slo_infer_replace_result_free(&r);
            slo_infer_current_free(&cur);
            slo_infer_result_free(&res);
            slo_infer_result_free(&fr);
            free(w);
            free(w2);
        }
    printf("%s: %zu re-placed (%zu skipped: a split deployed; %zu refused: a "
           "split at the new rates), %zu GPUs against %zu for the fresh plans (%zu with one "
           "GPU more), %zu moves against %zu, %zu states re-predicted, %zu GPUs opened "
           "beyond the deployed ones, %zu busy at once beyond the larger of the deployed and the "
           "final GPUs, %zu second moves (%zu round trips kept: the move in place fails)\n",
           label, cases, skipped, split_new, gpus, fresh_gpus, extra_gpu, moves, fresh, states,
           spares, peak_extra, twice, round_trips);
    assert_int_equal(cases + split_new + skipped, n_sizes * (size_t)reps);
    return cases;
}

static void test_seeded_rate_changes(void **state)
{
    static const size_t sizes[4] = {10, 20, 50, 100};
    (void)state;
    /* the sets: +-30 %, factor 0.70 .. 1.30 in steps of 0.01 */
    /* issue 19: every one of the 32 is re-placed (none skipped or refused) */
    assert_int_equal(run_seeded("+-30 %", 0x19a4, sizes, 4, 8, 0.70, 61, 0), 32);
}

static void test_seeded_wider_changes(void **state)
{
    static const size_t sizes[3] = {10, 30, 60};
    (void)state;
    /* +-50 % (0.50 .. 1.50) and every 7th workload new */
    /* (2 of the 18 refused: a workload beyond one GPU at +50 %) */
    assert_int_equal(run_seeded("+-50 %, new", 0x5eed19, sizes, 3, 6, 0.50, 101, 7), 16);
}

/* README example (alexnet:15:500, resnet50:40:400, vgg19:60:200: one GPU)
 * with the same rates: nothing moves. */
static const struct slo_ig_workload readme[3] = {
    {"alexnet", 500, 15}, {"resnet50", 400, 40}, {"vgg19", 200, 60}};

static void test_unchanged_rates(void **state)
{
    struct slo_infer_problem pb = {0};
    struct slo_infer_result res = {0};
    struct slo_infer_current cur = {0};
    struct slo_infer_replace_result r = {0};
    slo_error_t err = {0};
    (void)state;
    pb.profiles = &v100;
    pb.n_types = 1;
    pb.workloads = readme;
    pb.n_workloads = 3;
    assert_int_equal(slo_infer_solve(&pb, NULL, &res, &err), SLO_OK);
    assert_int_equal(current_of(&res, 3, &cur, 0), 0);
    assert_int_equal(slo_infer_replace(&pb, NULL, &cur, &r, &err), SLO_OK);
    assert_int_equal(r.status, SLO_STATUS_FEASIBLE_UNPROVEN);
    assert_int_equal(r.n_moves, 0);
    assert_int_equal(r.n_missing_now, 0);
    assert_int_equal(r.n_gpus_used, 1);
    assert_int_equal(r.fresh_moves, 0);
    assert_int_equal(replay(readme, 3, &cur, &r, NULL), 0);
    slo_infer_replace_result_free(&r);
    slo_infer_current_free(&cur);
    slo_infer_result_free(&res);
}

static void expect_bad(const char *text, const char *want)
{
    struct slo_infer_problem pb = {0};
    struct slo_infer_current cur = {0};
    slo_error_t err = {0};
    pb.profiles = &v100;
    pb.n_types = 1;
    pb.workloads = readme;
    pb.n_workloads = 3;
    assert_int_equal(slo_infer_current_parse(text, "deployed.json", &pb, &cur, &err),
                     SLO_ERR_INVALID);
    assert_string_equal(err.source, "deployed.json");
    if (!strstr(err.text, want))
        fail_msg("expected \"%s\" in \"%s\"", want, err.text);
    assert_null(cur.placements);
}

static void test_bad_current(void **state)
{
    (void)state;
    expect_bad("{\"gpus\": [{\"gpu_type\": \"V100\", \"workloads\": [{\"workload\": 7, "
               "\"model\": \"vgg19\", \"batch\": 6, \"share_pct\": 37.5}]}]}",
               "gpus[0].workloads[0].workload: expected a workload number 1..3 of the "
               "workloads file, found 7");
    expect_bad("{\"gpus\": [{\"gpu_type\": \"V100\", \"workloads\": [{\"workload\": 3, "
               "\"model\": \"ssd\", \"batch\": 6, \"share_pct\": 37.5}]}]}",
               "gpus[0].workloads[0].model: expected \"vgg19\" (workload 3 of the workloads "
               "file), found \"ssd\"");
    expect_bad("{\"gpus\": [{\"gpu_type\": \"V100\", \"workloads\": [{\"workload\": 3, "
               "\"model\": \"vgg19\", \"share_pct\": 37.5}]}]}",
               "gpus[0].workloads[0].batch: expected an integer 1..32, found it missing");
    expect_bad("{\"gpus\": [", "malformed JSON");
    expect_bad("{\"status\": \"optimal\"}", "gpus: expected a non-empty array of GPUs");
    expect_bad("{\"gpus\": [{\"gpu_type\": \"T4\", \"workloads\": []}]}",
               "gpus[0].gpu_type: expected a GPU type of the profiles (V100), found \"T4\"");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seeded_rate_changes),
        cmocka_unit_test(test_seeded_wider_changes),
        cmocka_unit_test(test_unchanged_rates),
        cmocka_unit_test(test_bad_current),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
