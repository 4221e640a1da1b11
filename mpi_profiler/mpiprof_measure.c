/*
 * mpiprof_measure.c - slo-mpiprof's measurements and the ranks' roles:
 * errors that end the job (every rank's, one rank's), quiet waits that
 * leave the cores to the pair measured, progress lines, and the phases in
 * the order main runs them: nodes, memcpy (the physical ceiling),
 * node documents, point-to-point bandwidth (OSU osu_bw: a window of
 * MPI_Isend closed by a small ack) and latency (osu_latency: ping-pong,
 * half the round trip) for every pair, MPI_Allreduce over sizes, memcpy
 * again. Method sources: shared/research/anchors.md A.4 and C.2 (window 64,
 * warm-up iterations skipped, 100 + 10 iterations up to 8 KiB and 20 + 2
 * above, 64-byte aligned buffers).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _XOPEN_SOURCE 700 /* posix_memalign, nanosleep */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpiprof.h"

#define TAG_BW 100
#define TAG_ACK 101
#define TAG_LAT 102
#define TAG_RESULT 103
#define TAG_NODE 104

int mpiprof_rank; /* only for the error paths and the test hooks: main's rank */

/* Test-only fault injection (tests/mpiprof.sh; doc/mpiprof.md "Errors"),
 * compiled only with --enable-test-hooks: 1 if SLO_MPIPROF_TEST_FAULT is
 * "KIND:R" and R is this rank. Kinds: nomem (every allocation of xalloc
 * fails on that rank), nodedoc (that rank, a node leader, fails to build its
 * node document, as on out of memory), flattime (rank 0 records every
 * allreduce size as fast as the first). Without the hooks the variable is
 * not read. */
int mpiprof_test_fault(const char *kind)
{
#ifdef SLO_TEST_HOOKS
    const char *v = getenv("SLO_MPIPROF_TEST_FAULT");
    size_t n = strlen(kind);
    char *end;
    long r;
    if (!v || strncmp(v, kind, n) != 0 || v[n] != ':' || !v[n + 1])
        return 0;
    r = strtol(v + n + 1, &end, 10);
    return !*end && r == mpiprof_rank;
#else
    (void)kind;
    return 0;
#endif
}

/* An error every rank has (options, the broadcast --output verdict): rank 0
 * prints the message and MPI_Abort ends every rank; the others wait in a
 * barrier rank 0 never enters, so none exits before the message is out.
 * Only for errors every rank is known to have: an error of one rank goes
 * to die_local. */
void mpiprof_die(int code, const char *fmt, ...)
{
    if (mpiprof_rank == 0) {
        va_list ap;
        char line[2048];
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        /* one write: stderr is unbuffered, and pieces of the line could be
         * interleaved with mpirun's own output */
        fprintf(stderr, "%s: %s\n", MPIPROF_NAME, line);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, code);
    }
    /* other ranks wait to be ended by rank 0's abort */
    for (;;)
        MPI_Barrier(MPI_COMM_WORLD);
}

/* An error of this rank only (out of memory, a bad message received): this
 * rank prints it with its rank number and aborts the job itself, with no
 * collective or barrier the other ranks may never reach. */
void mpiprof_die_local(int code, const char *fmt, ...)
{
    va_list ap;
    char line[2048];
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: rank %d: %s\n", MPIPROF_NAME, mpiprof_rank, line); /* one write */
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code); /* not reached */
}


void *mpiprof_xalloc(size_t n)
{
    void *p = NULL;
    if (mpiprof_test_fault("nomem") || posix_memalign(&p, 64, n ? n : 64))
        mpiprof_die_local(1, "out of memory (%zu bytes)", n);
    return p;
}

/* Wait for a request, sleeping 0.2 ms between tests, so a rank that is not
 * being measured leaves the cores to the pair that is (2 cores, 4 ranks). */
static void quiet_wait(MPI_Request *r)
{
    int done = 0;
    struct timespec ts = {0, 200000};
    for (;;) {
        MPI_Test(r, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        nanosleep(&ts, NULL);
    }
}

/* A barrier that sleeps while it waits. */
static void quiet_barrier(MPI_Comm comm)
{
    MPI_Request r;
    MPI_Ibarrier(comm, &r);
    quiet_wait(&r);
}

static void progress(struct mpiprof_progress *pr, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void progress(struct mpiprof_progress *pr, const char *fmt, ...)
{
    va_list ap;
    char line[512];
    int n;
    if (!pr->on)
        return;
    pr->step++;
    /* one write per line: stderr is unbuffered, and another rank's message
     * (forwarded by mpirun) must not land inside it (a CI run saw
     * "slo-mpiprof: [1/5] slo-mpiprof: rank 1: out of memory ...") */
    n = snprintf(line, sizeof line, "%s%s: [%d/%d] ", pr->tty ? "\r\033[K" : "", MPIPROF_NAME,
                 pr->step, pr->total);
    if (n < 0 || (size_t)n >= sizeof line)
        n = 0;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (!pr->tty && strlen(line) + 1 < sizeof line)
        strcat(line, "\n");
    fputs(line, stderr);
    fflush(stderr);
}

json_t *mpiprof_num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

double mpiprof_now_s(void)
{
    return MPI_Wtime();
}

/* memcpy bandwidth, bytes copied per second, best of reps (anchors C.3). */
static double measure_memcpy(const struct mpiprof_params *p)
{
    char *a = mpiprof_xalloc(p->memcpy_bytes), *b = mpiprof_xalloc(p->memcpy_bytes);
    double best = 0;
    volatile char sink;
    memset(a, 1, p->memcpy_bytes);
    memset(b, 2, p->memcpy_bytes);
    memcpy(b, a, p->memcpy_bytes); /* warm-up: pages mapped, caches filled */
    for (int r = 0; r < p->memcpy_reps; r++) {
        double t0 = mpiprof_now_s(), t;
        memcpy(r % 2 ? a : b, r % 2 ? b : a, p->memcpy_bytes);
        t = mpiprof_now_s() - t0;
        if (t > 0 && p->memcpy_bytes / t > best)
            best = p->memcpy_bytes / t;
    }
    sink = a[p->memcpy_bytes / 2] + b[p->memcpy_bytes / 3];
    (void)sink;
    free(a);
    free(b);
    return best;
}

static void counts(const struct mpiprof_params *p, size_t size, int bw, int *iters, int *skip)
{
    int large = size > p->large_threshold;
    if (bw) {
        *iters = large ? p->bw_iters_large : p->bw_iters_small;
        *skip = large ? p->bw_skip_large : p->bw_skip_small;
    } else {
        *iters = large ? p->lat_iters_large : p->lat_iters_small;
        *skip = large ? p->lat_skip_large : p->lat_skip_small;
    }
}

/* Bandwidth a -> b of one size (osu_bw): the sender posts `window`
 * MPI_Isend of size bytes, the receiver the matching MPI_Irecv, and a
 * 4-byte ack from the receiver closes each iteration. Sender's timing,
 * bytes/s; 0 on the receiver. */
static double measure_bw(const struct mpiprof_params *p, int me, int a, int b, size_t size,
                         char *sbuf, char *rbuf, MPI_Request *req)
{
    int iters, skip;
    char ack[4] = {0};
    double t0 = 0;
    counts(p, size, 1, &iters, &skip);
    for (int i = 0; i < iters + skip; i++) {
        if (me == a) {
            if (i == skip)
                t0 = mpiprof_now_s();
            for (int w = 0; w < p->window; w++)
                MPI_Isend(sbuf, (int)size, MPI_BYTE, b, TAG_BW, MPI_COMM_WORLD, &req[w]);
            MPI_Waitall(p->window, req, MPI_STATUSES_IGNORE);
            MPI_Recv(ack, 4, MPI_BYTE, b, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int w = 0; w < p->window; w++)
                MPI_Irecv(rbuf, (int)size, MPI_BYTE, a, TAG_BW, MPI_COMM_WORLD, &req[w]);
            MPI_Waitall(p->window, req, MPI_STATUSES_IGNORE);
            MPI_Send(ack, 4, MPI_BYTE, a, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    if (me != a)
        return 0;
    return (double)size * p->window * iters / (mpiprof_now_s() - t0);
}

/* Latency of one size (osu_latency): ping-pong, half the round trip, s. */
static double measure_lat(const struct mpiprof_params *p, int me, int a, int b, size_t size,
                          char *sbuf, char *rbuf)
{
    int iters, skip;
    double t0 = 0;
    counts(p, size, 0, &iters, &skip);
    for (int i = 0; i < iters + skip; i++) {
        if (me == a) {
            if (i == skip)
                t0 = mpiprof_now_s();
            MPI_Send(sbuf, (int)size, MPI_BYTE, b, TAG_LAT, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_BYTE, b, TAG_LAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)size, MPI_BYTE, a, TAG_LAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)size, MPI_BYTE, a, TAG_LAT, MPI_COMM_WORLD);
        }
    }
    if (me != a)
        return 0;
    return (mpiprof_now_s() - t0) / (2.0 * iters);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Allreduce of size bytes (MPI_DOUBLE, MPI_SUM): per repetition the
 * slowest rank's time (barrier, then the call), min and median over the
 * repetitions (on rank 0). The sum is checked: rank r contributes r + 1. */
static void measure_allreduce(const struct mpiprof_params *p, int me, int np, size_t bytes,
                              struct mpiprof_allreduce_point *out)
{
    size_t n = bytes / 8;
    int reps = bytes > p->large_threshold ? p->allreduce_reps_large : p->allreduce_reps_small;
    int total = reps + p->allreduce_warmup, ok = 1, all_ok = 0;
    double *in = mpiprof_xalloc(bytes), *res = mpiprof_xalloc(bytes),
           *t = mpiprof_xalloc(sizeof(double) * total),
           *tmax = mpiprof_xalloc(sizeof(double) * total);
    double want = (double)np * (np + 1) / 2;

    for (size_t i = 0; i < n; i++)
        in[i] = me + 1;
    for (int r = 0; r < total; r++) {
        double t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = mpiprof_now_s();
        MPI_Allreduce(in, res, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        t[r] = mpiprof_now_s() - t0;
        if (res[0] != want || res[n - 1] != want || res[n / 2] != want)
            ok = 0;
    }
    MPI_Reduce(t, tmax, total, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
    if (me == 0) {
        double *s = tmax + p->allreduce_warmup;
        qsort(s, (size_t)reps, sizeof *s, cmp_double);
        out->bytes = bytes;
        out->reps = reps;
        out->min_s = s[0];
        out->median_s = reps % 2 ? s[reps / 2] : (s[reps / 2 - 1] + s[reps / 2]) / 2;
        out->verified = all_ok;
    }
    free(in);
    free(res);
    free(t);
    free(tmax);
}

/* ------------------------------------------------------------------ phases */

void mpiprof_nodes_setup(struct mpiprof_run *r)
{
    char bind[MPIPROF_BIND_LEN];
    int hl = 0, leader = r->rank, split = 0;
    /* nodes: ranks that share memory */
#ifdef SLO_TEST_HOOKS
    /* (test only: SLO_MPIPROF_TEST_NODES=per-rank makes every rank a node of
     * its own, so one host exercises the node leaders' path of a multi-node
     * run: tests/mpiprof.sh) */
    const char *test_nodes = getenv("SLO_MPIPROF_TEST_NODES");
    split = test_nodes && strcmp(test_nodes, "per-rank") == 0;
#endif
    if (split)
        MPI_Comm_split(MPI_COMM_WORLD, r->rank, 0, &r->node_comm);
    else
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                            &r->node_comm);
    MPI_Comm_rank(r->node_comm, &r->node_rank);
    MPI_Bcast(&leader, 1, MPI_INT, 0, r->node_comm);

    memset(r->host, 0, sizeof r->host);
    MPI_Get_processor_name(r->host, &hl);
    mpiprof_binding(bind, sizeof bind);
    if (r->rank == 0) {
        r->hosts = mpiprof_xalloc((size_t)r->np * MPIPROF_HOST_LEN);
        r->binds = mpiprof_xalloc((size_t)r->np * MPIPROF_BIND_LEN);
        r->leaders = mpiprof_xalloc(sizeof(int) * (size_t)r->np);
    }
    MPI_Gather(r->host, MPIPROF_HOST_LEN, MPI_CHAR, r->hosts, MPIPROF_HOST_LEN, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    MPI_Gather(bind, MPIPROF_BIND_LEN, MPI_CHAR, r->binds, MPIPROF_BIND_LEN, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    MPI_Gather(&leader, 1, MPI_INT, r->leaders, 1, MPI_INT, 0, MPI_COMM_WORLD);

    r->n_pairs = (size_t)r->np * (size_t)(r->np - 1) / 2;
    if (r->rank == 0) {
        const struct mpiprof_params *p = r->p;
        r->pr.on = 1;
        r->pr.tty = isatty(2);
        r->pr.total = 2 + (int)r->n_pairs + (int)p->n_allreduce_sizes;
        fprintf(stderr, "%s: %d ranks, %s run: memcpy, topology, %zu pairs x %zu sizes, "
                        "allreduce x %zu sizes\n",
                MPIPROF_NAME, r->np, p->quick ? "quick" : "thorough", r->n_pairs, p->n_sizes,
                p->n_allreduce_sizes);
    }
}

void mpiprof_memcpy_phase(struct mpiprof_run *r)
{
    /* memcpy on every node leader, the others asleep */
    progress(&r->pr, "memcpy bandwidth (%zu MiB buffers)", r->p->memcpy_bytes >> 20);
    r->memcpy_bytes_per_s = 0;
    quiet_barrier(MPI_COMM_WORLD);
    if (r->node_rank == 0)
        r->memcpy_bytes_per_s = measure_memcpy(r->p);
    quiet_barrier(MPI_COMM_WORLD);
}

void mpiprof_node_documents(struct mpiprof_run *r)
{
    const struct mpiprof_params *p = r->p;
    char *text = NULL;
    int tl = 0, rank = r->rank, np = r->np;
    /* node documents: leaders send theirs to rank 0 */
    progress(&r->pr, "hwloc topology");
    r->nodes = rank == 0 ? json_array() : NULL;
    if (r->node_rank == 0) {
        json_t *nd = json_pack("{s:s,s:o,s:o,s:o}", "hostname", r->host, "ranks", json_array(),
                               "memcpy_bytes_per_s", mpiprof_num(r->memcpy_bytes_per_s),
                               "topology", mpiprof_topology());
        json_object_set_new(nd, "memcpy_buffer_bytes", json_integer((json_int_t)p->memcpy_bytes));
        json_object_set_new(nd, "cross_memory_attach", mpiprof_cma_json(r->cma_errno));
        text = json_dumps(nd, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        tl = text ? (int)strlen(text) + 1 : 0;
        json_decref(nd);
        if (!text || mpiprof_test_fault("nodedoc"))
            mpiprof_die_local(1, "out of memory building the node document");
    }
    if (rank == 0) {
        for (int q = 0; q < np; q++) {
            char *t = text;
            json_error_t je;
            json_t *nd;
            if (r->leaders[q] != q)
                continue;
            if (q != 0) {
                MPI_Recv(&tl, 1, MPI_INT, q, TAG_NODE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                t = mpiprof_xalloc((size_t)tl);
                MPI_Recv(t, tl, MPI_CHAR, q, TAG_NODE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            nd = json_loads(t, 0, &je);
            if (t != text)
                free(t);
            if (!nd) /* rank 0 only */
                mpiprof_die_local(1, "node document of rank %d: %s", q, je.text);
            for (int k = 0; k < np; k++)
                if (r->leaders[k] == q)
                    json_array_append_new(json_object_get(nd, "ranks"), json_integer(k));
            json_array_append_new(r->nodes, nd);
        }
    } else if (r->node_rank == 0) {
        MPI_Send(&tl, 1, MPI_INT, 0, TAG_NODE, MPI_COMM_WORLD);
        MPI_Send(text, tl, MPI_CHAR, 0, TAG_NODE, MPI_COMM_WORLD);
    }
    free(text);
}

/* Rank 0: the pair's entry of point_to_point.pairs (no flags yet) from its
 * results res[2 n_sizes]: bandwidths, then latencies. */
static json_t *pair_entry(const struct mpiprof_run *r, int a, int b, const double *res)
{
    const struct mpiprof_params *p = r->p;
    json_t *bwl = json_array(), *latl = json_array();
    for (size_t i = 0; i < p->n_sizes; i++) {
        int it, sk;
        counts(p, p->sizes[i], 1, &it, &sk);
        json_array_append_new(bwl, json_pack("{s:I,s:o,s:i,s:i}", "size_bytes",
                                             (json_int_t)p->sizes[i], "bandwidth_bytes_per_s",
                                             mpiprof_num(res[i]), "iterations", it, "window",
                                             p->window));
        counts(p, p->sizes[i], 0, &it, &sk);
        json_array_append_new(latl, json_pack("{s:I,s:o,s:i}", "size_bytes",
                                              (json_int_t)p->sizes[i], "latency_s",
                                              mpiprof_num(res[p->n_sizes + i]), "iterations",
                                              it));
    }
    return json_pack("{s:i,s:i,s:b,s:o,s:o}", "rank_a", a, "rank_b", b, "same_node",
                     r->leaders[a] == r->leaders[b], "bandwidth", bwl, "latency", latl);
}

void mpiprof_point_to_point(struct mpiprof_run *r)
{
    const struct mpiprof_params *p = r->p;
    int rank = r->rank, np = r->np;
    /* point-to-point, one pair at a time, the other ranks asleep */
    size_t maxsize = p->sizes[p->n_sizes - 1];
    char *sbuf = mpiprof_xalloc(maxsize), *rbuf = mpiprof_xalloc(maxsize);
    MPI_Request *req = mpiprof_xalloc(sizeof(MPI_Request) * (size_t)p->window);
    double *res = mpiprof_xalloc(sizeof(double) * 2 * p->n_sizes);
    r->pairs = rank == 0 ? json_array() : NULL;
    memset(sbuf, 'a', maxsize);
    memset(rbuf, 'b', maxsize);
    quiet_barrier(MPI_COMM_WORLD);
    for (int a = 0; a < np; a++)
        for (int b = a + 1; b < np; b++) {
            progress(&r->pr, "point-to-point %d -> %d", a, b);
            if (rank == a || rank == b)
                for (size_t i = 0; i < p->n_sizes; i++) {
                    res[i] = measure_bw(p, rank, a, b, p->sizes[i], sbuf, rbuf, req);
                    res[p->n_sizes + i] = measure_lat(p, rank, a, b, p->sizes[i], sbuf, rbuf);
                }
            if (rank == a && a != 0)
                MPI_Send(res, (int)(2 * p->n_sizes), MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
            if (rank == 0) {
                if (a != 0) { /* asleep while the pair measures */
                    MPI_Request q;
                    MPI_Irecv(res, (int)(2 * p->n_sizes), MPI_DOUBLE, a, TAG_RESULT,
                              MPI_COMM_WORLD, &q);
                    quiet_wait(&q);
                }
                json_array_append_new(r->pairs, pair_entry(r, a, b, res));
            }
            quiet_barrier(MPI_COMM_WORLD);
        }
    free(sbuf);
    free(rbuf);
    free(req);
    free(res);
}

void mpiprof_allreduce_phase(struct mpiprof_run *r)
{
    const struct mpiprof_params *p = r->p;
    /* allreduce over sizes */
    r->ap = mpiprof_xalloc(sizeof *r->ap * p->n_allreduce_sizes);
    for (size_t i = 0; i < p->n_allreduce_sizes; i++) {
        progress(&r->pr, "allreduce %zu bytes", p->allreduce_sizes[i]);
        measure_allreduce(p, r->rank, r->np, p->allreduce_sizes[i], &r->ap[i]);
    }
    if (r->pr.on && r->pr.tty)
        fputc('\n', stderr);
    /* test only (SLO_MPIPROF_TEST_FAULT=flattime:0): every allreduce size as
     * fast as the first, as on a link where the sizes are too small to show
     * the bandwidth term: the fit's beta is 0 (tests/mpiprof.sh, M4) */
    if (r->rank == 0 && mpiprof_test_fault("flattime"))
        for (size_t i = 1; i < p->n_allreduce_sizes; i++)
            r->ap[i].min_s = r->ap[0].min_s, r->ap[i].median_s = r->ap[0].median_s;
}

void mpiprof_memcpy_again(struct mpiprof_run *r)
{
    /* the ceiling again, after the measurements (every rank takes part):
     * on a loaded machine one pass of copies can run slow, and a ceiling
     * from a slow pass would flag honest figures; a node's memcpy is the
     * better of its two passes */
    double again = 0, *all = r->rank == 0 ? mpiprof_xalloc(sizeof(double) * (size_t)r->np)
                                          : NULL;
    quiet_barrier(MPI_COMM_WORLD);
    if (r->node_rank == 0)
        again = measure_memcpy(r->p);
    quiet_barrier(MPI_COMM_WORLD);
    MPI_Gather(&again, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (r->rank == 0) {
        size_t k2;
        json_t *nd;
        json_array_foreach(r->nodes, k2, nd) {
            /* ranks[] lists the node's ranks in order: the leader first */
            json_int_t first = json_integer_value(json_array_get(json_object_get(nd, "ranks"), 0));
            double m = json_number_value(json_object_get(nd, "memcpy_bytes_per_s"));
            if (first >= 0 && first < r->np && all[first] > m)
                json_object_set_new(nd, "memcpy_bytes_per_s", mpiprof_num(all[first]));
        }
        free(all);
    }
}
