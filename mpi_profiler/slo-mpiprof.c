/*
 * slo-mpiprof.c - measure the network a job step got: point-to-point
 * bandwidth (OSU osu_bw style: a window of MPI_Isend closed by a small ack)
 * and latency (ping-pong, half round trip) for every rank pair, MPI_Allreduce
 * time over message sizes fitted to t = alpha + beta * bytes (LAPACKE), the
 * memcpy bandwidth of every node (the physical ceiling: figures above 1.05 x
 * it are flagged "suspect"), the hwloc view of every node and the transport
 * Open MPI says it uses. One JSON document (schema: doc/mpiprof.md) on
 * stdout or --output FILE; `--check FILE` validates one without MPI.
 *
 * Method sources: OSU Micro-Benchmarks osu_bw / osu_latency as described in
 * shared/research/anchors.md A.4 and C.2 (window 64, warm-up iterations
 * skipped, 100 + 10 iterations up to 8 KiB and 20 + 2 above, 64-byte aligned
 * buffers); alpha-beta (Hockney) model and its ring allreduce reading as in
 * kernel/comm/slo_comm.h.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _XOPEN_SOURCE 700 /* realpath, S_IFREG (--output, M1) */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>

#include "argv_agree.h"
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mpiprof.h"
#include "slo_comm.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif
#define HOST_LEN 256
#define BIND_LEN 128
#define TAG_BW 100
#define TAG_ACK 101
#define TAG_LAT 102
#define TAG_RESULT 103
#define TAG_NODE 104

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpirun -np N slo-mpiprof [--quick] [--output FILE] [--sizes LIST]\n"
            "       srun --mpi=pmix -n N slo-mpiprof [--quick] [--output FILE] [--sizes LIST]\n"
            "       slo-mpiprof --check FILE\n"
            "\n"
            "Measure the MPI link of this job step: point-to-point bandwidth (window of\n"
            "MPI_Isend closed by an ack, OSU style) and ping-pong latency for every rank\n"
            "pair, MPI_Allreduce time over message sizes fitted to t = alpha + beta*bytes,\n"
            "memcpy bandwidth per node (figures above 1.05 x it are flagged suspect), the\n"
            "hwloc view of each node and the transport Open MPI reports. Writes one JSON\n"
            "document (schema: doc/mpiprof.md) that `slo comm --profile FILE` reads.\n"
            "  --quick        a few sizes and repetitions: seconds (default: thorough,\n"
            "                 1 B..4 MiB by powers of 2, OSU iteration counts)\n"
            "  --output FILE  write the document to FILE (temp file + rename) instead of\n"
            "                 stdout; a regular file, a new name or a link to a regular\n"
            "                 file (devices, FIFOs, directories refused: redirect stdout)\n"
            "  --sizes LIST   message sizes in bytes, comma-separated, increasing, with an\n"
            "                 optional KiB or MiB suffix (8,4KiB,1MiB), 1 B..256 MiB, 2..64\n"
            "                 sizes; allreduce sizes are rounded up to whole doubles\n"
            "  --check FILE   validate a document against the schema (no MPI needed)\n"
            "  --help         this text\n"
            "Progress goes to stderr (rank 0). Exit status: 0 success; 2 bad option or\n"
            "input (MPI_Abort with code 2 under mpirun/srun), 1 internal error.\n");
}

/* ------------------------------------------------------------------ options */

struct options {
    struct mpiprof_params p;
    const char *output, *check;
    int help;
};

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static int parse_sizes(const char *text, struct mpiprof_params *p, char *msg, size_t len)
{
    const char *s = text;
    size_t n = 0;
    if (!*text) {
        snprintf(msg, len, "--sizes: expected a comma-separated list of byte counts, found "
                           "an empty value");
        return -1;
    }
    while (*s) {
        char *end;
        unsigned long long v;
        size_t mult = 1;
        if (*s < '0' || *s > '9')
            goto bad;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno)
            goto bad;
        if (strncmp(end, "KiB", 3) == 0)
            mult = 1024, end += 3;
        else if (strncmp(end, "MiB", 3) == 0)
            mult = 1024 * 1024, end += 3;
        if (*end != ',' && *end != '\0')
            goto bad;
        if (v == 0 || v > MPIPROF_MAX_MESSAGE_BYTES / mult) {
            snprintf(msg, len, "--sizes: expected sizes in 1..%u bytes (256MiB), found \"%.*s\"",
                     MPIPROF_MAX_MESSAGE_BYTES, (int)(end - s), s);
            return -1;
        }
        if (n == MPIPROF_MAX_SIZES) {
            snprintf(msg, len, "--sizes: expected at most %d sizes, found more in \"%s\"",
                     MPIPROF_MAX_SIZES, text);
            return -1;
        }
        if (n && v * mult <= p->sizes[n - 1]) {
            snprintf(msg, len, "--sizes: expected increasing sizes, found \"%.*s\" after %zu",
                     (int)(end - s), s, p->sizes[n - 1]);
            return -1;
        }
        p->sizes[n++] = (size_t)(v * mult);
        s = *end ? end + 1 : end;
        if (*end == ',' && !*s)
            goto bad;
        continue;
    bad:
        snprintf(msg, len, "--sizes: expected byte counts such as 8,4096,4KiB,1MiB separated by "
                           "commas, found \"%s\"", text);
        return -1;
    }
    p->n_sizes = n;
    /* allreduce: whole doubles, at least one */
    p->n_allreduce_sizes = 0;
    for (size_t i = 0; i < n; i++) {
        size_t b = (p->sizes[i] + 7) / 8 * 8;
        if (!p->n_allreduce_sizes || p->allreduce_sizes[p->n_allreduce_sizes - 1] != b)
            p->allreduce_sizes[p->n_allreduce_sizes++] = b;
    }
    if (p->n_allreduce_sizes < 2) {
        snprintf(msg, len, "--sizes: expected at least 2 sizes that differ in whole doubles "
                           "(the alpha-beta fit needs 2), found \"%s\"", text);
        return -1;
    }
    qsort(p->allreduce_sizes, p->n_allreduce_sizes, sizeof p->allreduce_sizes[0], cmp_size);
    return 0;
}

static void default_params(struct mpiprof_params *p, int quick)
{
    memset(p, 0, sizeof *p);
    p->quick = quick;
    p->large_threshold = 8192; /* OSU LARGE_MESSAGE_SIZE */
    if (quick) {
        static const size_t s[] = {8, 4096, 65536, 1 << 20, 4 << 20};
        static const size_t a[] = {8, 1024, 16384, 131072, 1 << 20, 4 << 20};
        p->n_sizes = sizeof s / sizeof s[0];
        memcpy(p->sizes, s, sizeof s);
        p->n_allreduce_sizes = sizeof a / sizeof a[0];
        memcpy(p->allreduce_sizes, a, sizeof a);
        p->window = 16;
        p->bw_iters_small = 20, p->bw_skip_small = 2;
        p->bw_iters_large = 5, p->bw_skip_large = 1;
        p->lat_iters_small = 200, p->lat_skip_small = 20;
        p->lat_iters_large = 10, p->lat_skip_large = 2;
        p->allreduce_reps_small = 20, p->allreduce_reps_large = 7, p->allreduce_warmup = 1;
        p->memcpy_bytes = 64u << 20, p->memcpy_reps = 10;
    } else {
        p->n_sizes = 23; /* 1 B .. 4 MiB, OSU MAX_MESSAGE_SIZE */
        for (size_t i = 0; i < p->n_sizes; i++)
            p->sizes[i] = (size_t)1 << i;
        p->n_allreduce_sizes = 0;
        for (size_t b = 8; b <= (4u << 20); b *= 4)
            p->allreduce_sizes[p->n_allreduce_sizes++] = b;
        p->allreduce_sizes[p->n_allreduce_sizes++] = 4u << 20;
        p->window = 64; /* OSU WINDOW_SIZE_LARGE */
        p->bw_iters_small = 100, p->bw_skip_small = 10;
        p->bw_iters_large = 20, p->bw_skip_large = 2;
        p->lat_iters_small = 10000, p->lat_skip_small = 100;
        p->lat_iters_large = 100, p->lat_skip_large = 10;
        p->allreduce_reps_small = 100, p->allreduce_reps_large = 20, p->allreduce_warmup = 2;
        p->memcpy_bytes = 256u << 20, p->memcpy_reps = 10;
    }
}

/* 0 ok, -1 error (msg set). Pure: every rank parses the same argv. */
static int parse_options(int argc, char **argv, struct options *o, char *msg, size_t len)
{
    enum { O_QUICK = 256, O_OUTPUT, O_SIZES, O_CHECK, O_HELP };
    static const struct option longopts[] = {{"quick", no_argument, NULL, O_QUICK},
                                             {"output", required_argument, NULL, O_OUTPUT},
                                             {"sizes", required_argument, NULL, O_SIZES},
                                             {"check", required_argument, NULL, O_CHECK},
                                             {"help", no_argument, NULL, O_HELP},
                                             {NULL, 0, NULL, 0}};
    const char *sizes = NULL, *seen[O_HELP + 1] = {NULL};
    int c, li = -1;

    memset(o, 0, sizeof *o);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":", longopts, &li)) != -1) {
        /* an option given twice with different values is an error, as in slo
         * (trial finding M15: --output a.json --output b.json wrote b.json) */
        if (c >= O_QUICK && c <= O_HELP && optarg) {
            if (seen[c] && strcmp(seen[c], optarg) != 0) {
                snprintf(msg, len, "--%s: expected one value, found two: \"%s\" and \"%s\"",
                         longopts[li].name, seen[c], optarg);
                return -1;
            }
            seen[c] = optarg;
        }
        switch (c) {
        case O_QUICK: o->p.quick = 1; break;
        case O_OUTPUT:
            if (!*optarg) {
                snprintf(msg, len, "--output: expected a file name, found an empty value");
                return -1;
            }
            o->output = optarg;
            break;
        case O_SIZES: sizes = optarg; break;
        case O_CHECK: o->check = optarg; break;
        case O_HELP: o->help = 1; break;
        case ':':
            snprintf(msg, len, "%s: expected a value, found none", argv[optind - 1]);
            return -1;
        default:
            snprintf(msg, len, "unknown option \"%s\" (expected --quick, --output FILE, "
                               "--sizes LIST, --check FILE or --help)", argv[optind - 1]);
            return -1;
        }
    }
    if (optind < argc) {
        snprintf(msg, len, "unexpected argument \"%s\" (slo-mpiprof --help)", argv[optind]);
        return -1;
    }
    if (o->check && (o->output || sizes || o->p.quick)) {
        snprintf(msg, len, "--check: expected alone (it validates a document, no MPI run), "
                           "found it with %s", o->output ? "--output" : sizes ? "--sizes"
                                                                              : "--quick");
        return -1;
    }
    default_params(&o->p, o->p.quick);
    if (sizes && parse_sizes(sizes, &o->p, msg, len))
        return -1;
    return 0;
}

/* ------------------------------------------------------------------ helpers */

static int g_rank; /* only for die(), die_local(), xalloc(): main's rank */

/* Test-only fault injection (tests/mpiprof.sh; doc/mpiprof.md "Errors"): 1
 * if SLO_MPIPROF_TEST_FAULT is "KIND:R" and R is this rank. Kinds: nomem
 * (every allocation of xalloc fails on that rank), nodedoc (that rank, a
 * node leader, fails to build its node document, as on out of memory). */
static int test_fault(const char *kind)
{
    const char *v = getenv("SLO_MPIPROF_TEST_FAULT");
    size_t n = strlen(kind);
    char *end;
    long r;
    if (!v || strncmp(v, kind, n) != 0 || v[n] != ':' || !v[n + 1])
        return 0;
    r = strtol(v + n + 1, &end, 10);
    return !*end && r == g_rank;
}

/* An error every rank has (options, the broadcast --output verdict): rank 0
 * prints the message and MPI_Abort ends every rank; the others wait in a
 * barrier rank 0 never enters, so none exits before the message is out.
 * Only for errors every rank is known to have: an error of one rank goes
 * to die_local. */
static void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
    if (g_rank == 0) {
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
static void die_local(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
static void die_local(int code, const char *fmt, ...)
{
    va_list ap;
    char line[2048];
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: rank %d: %s\n", MPIPROF_NAME, g_rank, line); /* one write */
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code); /* not reached */
}


static void *xalloc(size_t n)
{
    void *p = NULL;
    if (test_fault("nomem") || posix_memalign(&p, 64, n ? n : 64))
        die_local(1, "out of memory (%zu bytes)", n);
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

struct progress {
    int on, tty, step, total;
};

static void progress(struct progress *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(struct progress *pr, const char *fmt, ...)
{
    va_list ap;
    if (!pr->on)
        return;
    pr->step++;
    fprintf(stderr, "%s%s: [%d/%d] ", pr->tty ? "\r\033[K" : "", MPIPROF_NAME, pr->step,
            pr->total);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (!pr->tty)
        fputc('\n', stderr);
    fflush(stderr);
}

static json_t *num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static double now_s(void)
{
    return MPI_Wtime();
}

/* ------------------------------------------------------------------ measurements */

/* memcpy bandwidth, bytes copied per second, best of reps (anchors C.3). */
static double measure_memcpy(const struct mpiprof_params *p)
{
    char *a = xalloc(p->memcpy_bytes), *b = xalloc(p->memcpy_bytes);
    double best = 0;
    volatile char sink;
    memset(a, 1, p->memcpy_bytes);
    memset(b, 2, p->memcpy_bytes);
    memcpy(b, a, p->memcpy_bytes); /* warm-up: pages mapped, caches filled */
    for (int r = 0; r < p->memcpy_reps; r++) {
        double t0 = now_s(), t;
        memcpy(r % 2 ? a : b, r % 2 ? b : a, p->memcpy_bytes);
        t = now_s() - t0;
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
                t0 = now_s();
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
    return (double)size * p->window * iters / (now_s() - t0);
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
                t0 = now_s();
            MPI_Send(sbuf, (int)size, MPI_BYTE, b, TAG_LAT, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_BYTE, b, TAG_LAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)size, MPI_BYTE, a, TAG_LAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)size, MPI_BYTE, a, TAG_LAT, MPI_COMM_WORLD);
        }
    }
    if (me != a)
        return 0;
    return (now_s() - t0) / (2.0 * iters);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

struct allreduce_point {
    size_t bytes;
    int reps;
    double min_s, median_s;
    int verified;
};

/* Allreduce of size bytes (MPI_DOUBLE, MPI_SUM): per repetition the
 * slowest rank's time (barrier, then the call), min and median over the
 * repetitions (on rank 0). The sum is checked: rank r contributes r + 1. */
static void measure_allreduce(const struct mpiprof_params *p, int me, int np, size_t bytes,
                              struct allreduce_point *out)
{
    size_t n = bytes / 8;
    int reps = bytes > p->large_threshold ? p->allreduce_reps_large : p->allreduce_reps_small;
    int total = reps + p->allreduce_warmup, ok = 1, all_ok = 0;
    double *in = xalloc(bytes), *res = xalloc(bytes), *t = xalloc(sizeof(double) * total),
           *tmax = xalloc(sizeof(double) * total);
    double want = (double)np * (np + 1) / 2;

    for (size_t i = 0; i < n; i++)
        in[i] = me + 1;
    for (int r = 0; r < total; r++) {
        double t0;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = now_s();
        MPI_Allreduce(in, res, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        t[r] = now_s() - t0;
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

/* ------------------------------------------------------------------ transport */

/* Read MPI_T control variable `name` as text into buf; 0 on success. */
static int cvar_text(const char *name, char *buf, size_t len)
{
    int n = 0, rc = -1;
    if (MPI_T_cvar_get_num(&n) != MPI_SUCCESS)
        return -1;
    for (int i = 0; i < n && rc; i++) {
        char cname[256], desc[16];
        int nl = sizeof cname, dl = sizeof desc, verb, bind, scope, count;
        MPI_Datatype dt;
        MPI_T_enum en;
        MPI_T_cvar_handle h;
        if (MPI_T_cvar_get_info(i, cname, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope) !=
                MPI_SUCCESS ||
            strcmp(cname, name) != 0)
            continue;
        if (bind != MPI_T_BIND_NO_OBJECT ||
            MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS)
            return -1;
        if (dt == MPI_CHAR && count > 0) {
            char *v = calloc((size_t)count + 1, 1);
            if (v && MPI_T_cvar_read(h, v) == MPI_SUCCESS) {
                snprintf(buf, len, "%s", v);
                rc = 0;
            }
            free(v);
        } else if (dt == MPI_INT && count == 1) {
            int iv;
            if (MPI_T_cvar_read(h, &iv) == MPI_SUCCESS) {
                snprintf(buf, len, "%d", iv);
                rc = 0;
                if (en != MPI_T_ENUM_NULL) {
                    int ne = 0;
                    char ename[64];
                    int el = sizeof ename;
                    MPI_T_enum_get_info(en, &ne, ename, &el);
                    for (int k = 0; k < ne; k++) {
                        int v;
                        char s[64];
                        int sl = sizeof s;
                        if (MPI_T_enum_get_item(en, k, &v, s, &sl) == MPI_SUCCESS && v == iv)
                            snprintf(buf, len, "%s", s);
                    }
                }
            }
        }
        MPI_T_cvar_handle_free(&h);
    }
    return rc;
}

/* One framework's selection: a single component named by the MCA
 * parameter is the one used (Open MPI errors out otherwise); a list or an
 * exclusion (^ucx) leaves the choice to Open MPI: "unknown". */
static json_t *selection(const char *param, int have, const char *value)
{
    const char *env_name = NULL;
    char envvar[64];
    snprintf(envvar, sizeof envvar, "OMPI_MCA_%s", param);
    env_name = getenv(envvar);
    if (!have)
        return json_pack("{s:s,s:n,s:s}", "selected", "unknown", "mca_value", "source",
                         "MPI_T has no control variable of this name");
    if (*value && !strchr(value, ',') && !strchr(value, '^'))
        return json_pack("{s:s,s:s,s:s}", "selected", value, "mca_value", value, "source",
                         env_name ? "MPI_T control variable (set by the environment "
                                    "OMPI_MCA_ variable: a single component is forced)"
                                  : "MPI_T control variable (a single component is forced)");
    return json_pack("{s:s,s:s,s:s}", "selected", "unknown", "mca_value", value, "source",
                     "MPI_T control variable: a list or exclusion, Open MPI chooses among "
                     "the components at run time and does not report its choice");
}

static json_t *transport(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], v[512];
    int len = 0, major = 0, minor = 0, prov, t_ok;
    json_t *t;
    MPI_Get_library_version(lib, &len);
    while (len > 0 && (lib[len - 1] == '\n' || lib[len - 1] == ' '))
        lib[--len] = '\0';
    MPI_Get_version(&major, &minor);
    t_ok = MPI_T_init_thread(MPI_THREAD_SINGLE, &prov) == MPI_SUCCESS;
    t = json_object();
    json_object_set_new(t, "mpi_t_available", json_boolean(t_ok));
    {
        int h = t_ok && !cvar_text("pml", v, sizeof v);
        json_object_set_new(t, "pml", selection("pml", h, h ? v : ""));
        h = t_ok && !cvar_text("btl", v, sizeof v);
        /* the BTLs are a list by nature: report the allowed set */
        json_object_set_new(t, "btl",
                            h ? json_pack("{s:s,s:s}", "allowed", v, "source",
                                          "MPI_T control variable btl (the BTLs Open MPI may "
                                          "use; shared memory within a node, the others "
                                          "between nodes)")
                              : json_pack("{s:s,s:s}", "allowed", "unknown", "source",
                                          "no MPI_T control variable btl"));
        h = t_ok && !cvar_text("btl_vader_single_copy_mechanism", v, sizeof v);
        json_object_set_new(t, "shared_memory_single_copy", json_string(h ? v : "unknown"));
    }
    if (t_ok)
        MPI_T_finalize();
    return json_pack("{s:s,s:s,s:o}", "library_version", lib, "mpi_version",
                     major == 3 && minor == 1 ? "3.1" : major == 4 ? "4.x" : "other",
                     "transport", t);
}

/* ------------------------------------------------------------------ document */

static json_t *flag(json_t *obj, double value, double ceiling, const char *what,
                    const char *ceiling_what)
{
    int suspect = !isfinite(value) || (ceiling > 0 && value > MPIPROF_CEILING_FACTOR * ceiling);
    json_object_set_new(obj, "suspect", json_boolean(suspect));
    if (suspect) {
        char reason[512];
        if (!isfinite(value))
            snprintf(reason, sizeof reason, "%s is not finite: the measurement determines no "
                                            "bandwidth", what);
        else
            snprintf(reason, sizeof reason,
                     "%s %.4g B/s is above %.2f x %s %.4g B/s: physically impossible for a "
                     "copy through memory (a cache effect or a timing error), not a link "
                     "figure", what, value, MPIPROF_CEILING_FACTOR, ceiling_what, ceiling);
        json_object_set_new(obj, "suspect_reason", json_string(reason));
    }
    return obj;
}

static int write_document(json_t *doc, FILE *f)
{
    errno = 0;
    if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) ||
        fputc('\n', f) == EOF || fflush(f) || ferror(f))
        return -1;
    return 0;
}

/* A temp file next to `output` (".NAME.XXXXXX", the mode a plain fopen
 * would give), its name in tmp_path; NULL with errno on failure. */
static FILE *open_temp(const char *output, char *tmp_path, size_t len)
{
    const char *slash = strrchr(output, '/');
    FILE *f;
    int fd, e;
    if (slash)
        snprintf(tmp_path, len, "%.*s/.%s.XXXXXX", (int)(slash - output), output, slash + 1);
    else
        snprintf(tmp_path, len, ".%s.XXXXXX", output);
    if ((fd = mkstemp(tmp_path)) < 0)
        return NULL;
    {
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
    if (!(f = fdopen(fd, "w"))) {
        e = errno;
        close(fd);
        unlink(tmp_path);
        errno = e;
    }
    return f;
}

/* Where --output goes (trial finding M1): `output` itself when it is a
 * regular file or does not exist yet, the file a symbolic link resolves to
 * (realpath) when it is a link to a regular file; the document is written to
 * a temp file in that file's directory and renamed over it. Anything else is
 * refused, as rename(2) would replace the node itself (a device turned into a
 * regular file, a FIFO or a link replaced): a directory, a character or block
 * device, a FIFO, a socket, a link whose target is missing or not a regular
 * file. target: TARGET_LEN bytes. 0 ok; -1 with the message in msg (a usage
 * error: exit 2). Source: doc/mpiprof.md "Output". */
static int output_target(const char *output, char *target, size_t target_len, char *msg,
                         size_t len)
{
    struct stat st;
    char *real = NULL;
    const char *path = output, *kind;
    if (lstat(output, &st) != 0) {
        if (errno != ENOENT) {
            snprintf(msg, len, "--output: cannot write \"%s\": %s", output, strerror(errno));
            return -1;
        }
        st.st_mode = S_IFREG; /* a new file */
    } else if (S_ISLNK(st.st_mode)) {
        if (!(real = realpath(output, NULL)) || stat(real, &st) != 0) {
            snprintf(msg, len, "--output: expected a regular file, a new file name or a link to "
                               "a regular file, found \"%s\", a symbolic link whose target "
                               "cannot be resolved (%s)", output, strerror(errno));
            free(real);
            return -1;
        }
        path = real;
    }
    if (!S_ISREG(st.st_mode)) {
        kind = S_ISDIR(st.st_mode)    ? "a directory"
               : S_ISCHR(st.st_mode)  ? "a character device"
               : S_ISBLK(st.st_mode)  ? "a block device"
               : S_ISFIFO(st.st_mode) ? "a FIFO"
               : S_ISSOCK(st.st_mode) ? "a socket"
                                      : "not a regular file";
        snprintf(msg, len, "--output: expected a regular file or a new file name, found \"%s\"%s%s"
                           "%s, %s (the document is written to a temp file renamed over FILE; "
                           "for a device or a pipe leave out --output and redirect stdout)",
                 output, real ? " (a link to \"" : "", real ? real : "", real ? "\")" : "", kind);
        free(real);
        return -1;
    }
    if (strlen(path) >= target_len) {
        snprintf(msg, len, "--output: expected a path shorter than %zu bytes, found \"%.256s...\"",
                 target_len, path);
        free(real);
        return -1;
    }
    memcpy(target, path, strlen(path) + 1);
    free(real);
    return 0;
}

int main(int argc, char **argv)
{
    struct options o;
    char msg[512];
    int rank = 0, np = 1, node_rank, leader, bad = 0;
    const char *launched = getenv("OMPI_COMM_WORLD_SIZE") ? "mpirun"
                           : getenv("PMIX_RANK")          ? "pmix"
                                                          : NULL;
    const char *env_rank = getenv("OMPI_COMM_WORLD_RANK") ? getenv("OMPI_COMM_WORLD_RANK")
                                                           : getenv("PMIX_RANK");
    int quiet_rank = env_rank && strcmp(env_rank, "0") != 0;
    char tmp_path[4160] = "", target[4096] = "";
    FILE *out = NULL;
    MPI_Comm node_comm;
    struct progress pr = {0, 0, 0, 0};
    double t_start;

    if (launched) { /* every rank: the same arguments, before parsing can fail */
        int r;
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
        if ((r = slo_argv_first_differing_rank(argc, argv, MPI_COMM_WORLD)) >= 0)
            die(2, "rank %d was started with other arguments than rank 0: expected the same "
                   "options on every rank (one command line for all ranks)", r);
    }
    if (parse_options(argc, argv, &o, msg, sizeof msg)) {
        if (!launched) { /* a plain command: no MPI needed to say so */
            fprintf(stderr, "%s: %s\n", MPIPROF_NAME, msg);
            return 2;
        }
        die(2, "%s", msg);
    }
    if (o.help || o.check) {
        int rc = 0;
        if (o.help && !quiet_rank)
            usage(stdout);
        else if (o.check && !quiet_rank)
            rc = mpiprof_check_file(o.check);
        if (launched)
            MPI_Finalize();
        return rc;
    }

    if (!launched)
        MPI_Init(&argc, &argv);
    t_start = now_s();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    g_rank = rank;

    /* the output file first: a bad path fails before any measurement. The
     * probe is removed at once and the temp file made again at the end, so
     * a run that aborts on the way (one rank out of memory) leaves nothing. */
    if (rank == 0 && o.output) {
        if (output_target(o.output, target, sizeof target, msg, sizeof msg))
            bad = 1;
        else if (!(out = open_temp(target, tmp_path, sizeof tmp_path))) {
            snprintf(msg, sizeof msg, "--output: cannot write \"%s\": %s", o.output,
                     strerror(errno));
            bad = 1;
        } else {
            fclose(out);
            unlink(tmp_path);
            out = NULL;
        }
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (bad)
        die(2, "%s", msg);

    /* nodes: ranks that share memory */
    /* (test only: SLO_MPIPROF_TEST_NODES=per-rank makes every rank a node of
     * its own, so one host exercises the node leaders' path of a multi-node
     * run: tests/mpiprof.sh) */
    const char *test_nodes = getenv("SLO_MPIPROF_TEST_NODES");
    if (test_nodes && strcmp(test_nodes, "per-rank") == 0)
        MPI_Comm_split(MPI_COMM_WORLD, rank, 0, &node_comm);
    else
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node_comm);
    MPI_Comm_rank(node_comm, &node_rank);
    leader = rank;
    MPI_Bcast(&leader, 1, MPI_INT, 0, node_comm);

    char host[HOST_LEN] = "", bind[BIND_LEN];
    int hl = 0;
    MPI_Get_processor_name(host, &hl);
    mpiprof_binding(bind, sizeof bind);
    char *hosts = NULL, *binds = NULL;
    int *leaders = NULL;
    if (rank == 0) {
        hosts = xalloc((size_t)np * HOST_LEN);
        binds = xalloc((size_t)np * BIND_LEN);
        leaders = xalloc(sizeof(int) * (size_t)np);
    }
    MPI_Gather(host, HOST_LEN, MPI_CHAR, hosts, HOST_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Gather(bind, BIND_LEN, MPI_CHAR, binds, BIND_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Gather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, 0, MPI_COMM_WORLD);

    const struct mpiprof_params *p = &o.p;
    size_t n_pairs = (size_t)np * (size_t)(np - 1) / 2;
    if (rank == 0) {
        pr.on = 1;
        pr.tty = isatty(2);
        pr.total = 2 + (int)n_pairs + (int)p->n_allreduce_sizes;
        fprintf(stderr, "%s: %d ranks, %s run: memcpy, topology, %zu pairs x %zu sizes, "
                        "allreduce x %zu sizes\n",
                MPIPROF_NAME, np, p->quick ? "quick" : "thorough", n_pairs, p->n_sizes,
                p->n_allreduce_sizes);
    }

    /* memcpy on every node leader, the others asleep */
    progress(&pr, "memcpy bandwidth (%zu MiB buffers)", p->memcpy_bytes >> 20);
    double memcpy_bw = 0;
    quiet_barrier(MPI_COMM_WORLD);
    if (node_rank == 0)
        memcpy_bw = measure_memcpy(p);
    quiet_barrier(MPI_COMM_WORLD);

    /* node documents: leaders send theirs to rank 0 */
    progress(&pr, "hwloc topology");
    json_t *nodes = rank == 0 ? json_array() : NULL;
    {
        char *text = NULL;
        int tl = 0;
        if (node_rank == 0) {
            json_t *nd = json_pack("{s:s,s:o,s:o,s:o}", "hostname", host, "ranks", json_array(),
                                   "memcpy_bytes_per_s", num(memcpy_bw), "topology",
                                   mpiprof_topology());
            json_object_set_new(nd, "memcpy_buffer_bytes", json_integer((json_int_t)p->memcpy_bytes));
            text = json_dumps(nd, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
            tl = text ? (int)strlen(text) + 1 : 0;
            json_decref(nd);
            if (!text || test_fault("nodedoc"))
                die_local(1, "out of memory building the node document");
        }
        if (rank == 0) {
            for (int r = 0; r < np; r++) {
                char *t = text;
                json_error_t je;
                json_t *nd;
                if (leaders[r] != r)
                    continue;
                if (r != 0) {
                    MPI_Recv(&tl, 1, MPI_INT, r, TAG_NODE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    t = xalloc((size_t)tl);
                    MPI_Recv(t, tl, MPI_CHAR, r, TAG_NODE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
                nd = json_loads(t, 0, &je);
                if (t != text)
                    free(t);
                if (!nd) /* rank 0 only */
                    die_local(1, "node document of rank %d: %s", r, je.text);
                for (int q = 0; q < np; q++)
                    if (leaders[q] == r)
                        json_array_append_new(json_object_get(nd, "ranks"), json_integer(q));
                json_array_append_new(nodes, nd);
            }
        } else if (node_rank == 0) {
            MPI_Send(&tl, 1, MPI_INT, 0, TAG_NODE, MPI_COMM_WORLD);
            MPI_Send(text, tl, MPI_CHAR, 0, TAG_NODE, MPI_COMM_WORLD);
        }
        free(text);
    }

    /* point-to-point, one pair at a time, the other ranks asleep */
    size_t maxsize = p->sizes[p->n_sizes - 1];
    char *sbuf = xalloc(maxsize), *rbuf = xalloc(maxsize);
    MPI_Request *req = xalloc(sizeof(MPI_Request) * (size_t)p->window);
    double *res = xalloc(sizeof(double) * 2 * p->n_sizes);
    json_t *pairs = rank == 0 ? json_array() : NULL;
    memset(sbuf, 'a', maxsize);
    memset(rbuf, 'b', maxsize);
    quiet_barrier(MPI_COMM_WORLD);
    for (int a = 0; a < np; a++)
        for (int b = a + 1; b < np; b++) {
            progress(&pr, "point-to-point %d -> %d", a, b);
            if (rank == a || rank == b)
                for (size_t i = 0; i < p->n_sizes; i++) {
                    res[i] = measure_bw(p, rank, a, b, p->sizes[i], sbuf, rbuf, req);
                    res[p->n_sizes + i] = measure_lat(p, rank, a, b, p->sizes[i], sbuf, rbuf);
                }
            if (rank == a && a != 0)
                MPI_Send(res, (int)(2 * p->n_sizes), MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
            if (rank == 0) {
                json_t *pair, *bwl = json_array(), *latl = json_array();
                if (a != 0) { /* asleep while the pair measures */
                    MPI_Request r;
                    MPI_Irecv(res, (int)(2 * p->n_sizes), MPI_DOUBLE, a, TAG_RESULT,
                              MPI_COMM_WORLD, &r);
                    quiet_wait(&r);
                }
                for (size_t i = 0; i < p->n_sizes; i++) {
                    int it, sk;
                    counts(p, p->sizes[i], 1, &it, &sk);
                    json_array_append_new(bwl, json_pack("{s:I,s:o,s:i,s:i}", "size_bytes",
                                                         (json_int_t)p->sizes[i],
                                                         "bandwidth_bytes_per_s", num(res[i]),
                                                         "iterations", it, "window", p->window));
                    counts(p, p->sizes[i], 0, &it, &sk);
                    json_array_append_new(latl, json_pack("{s:I,s:o,s:i}", "size_bytes",
                                                          (json_int_t)p->sizes[i], "latency_s",
                                                          num(res[p->n_sizes + i]),
                                                          "iterations", it));
                }
                pair = json_pack("{s:i,s:i,s:b,s:o,s:o}", "rank_a", a, "rank_b", b, "same_node",
                                 leaders[a] == leaders[b], "bandwidth", bwl, "latency", latl);
                json_array_append_new(pairs, pair);
            }
            quiet_barrier(MPI_COMM_WORLD);
        }
    free(sbuf);
    free(rbuf);
    free(req);
    free(res);

    /* allreduce over sizes */
    struct allreduce_point *ap = xalloc(sizeof *ap * p->n_allreduce_sizes);
    for (size_t i = 0; i < p->n_allreduce_sizes; i++) {
        progress(&pr, "allreduce %zu bytes", p->allreduce_sizes[i]);
        measure_allreduce(p, rank, np, p->allreduce_sizes[i], &ap[i]);
    }
    if (pr.on && pr.tty)
        fputc('\n', stderr);
    /* test only (SLO_MPIPROF_TEST_FAULT=flattime:0): every allreduce size as
     * fast as the first, as on a link where the sizes are too small to show
     * the bandwidth term: the fit's beta is 0 (tests/mpiprof.sh, M4) */
    if (rank == 0 && test_fault("flattime"))
        for (size_t i = 1; i < p->n_allreduce_sizes; i++)
            ap[i].min_s = ap[0].min_s, ap[i].median_s = ap[0].median_s;

    /* the ceiling again, after the measurements (every rank takes part):
     * on a loaded machine one pass of copies can run slow, and a ceiling
     * from a slow pass would flag honest figures; a node's memcpy is the
     * better of its two passes */
    {
        double again = 0, *all = rank == 0 ? xalloc(sizeof(double) * (size_t)np) : NULL;
        quiet_barrier(MPI_COMM_WORLD);
        if (node_rank == 0)
            again = measure_memcpy(p);
        quiet_barrier(MPI_COMM_WORLD);
        MPI_Gather(&again, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            size_t k2;
            json_t *nd;
            json_array_foreach(nodes, k2, nd) {
                /* ranks[] lists the node's ranks in order: the leader first */
                json_int_t first = json_integer_value(
                    json_array_get(json_object_get(nd, "ranks"), 0));
                double m = json_number_value(json_object_get(nd, "memcpy_bytes_per_s"));
                if (first >= 0 && first < np && all[first] > m)
                    json_object_set_new(nd, "memcpy_bytes_per_s", num(all[first]));
            }
            free(all);
        }
    }

    if (rank != 0) {
        free(ap);
        MPI_Comm_free(&node_comm);
        MPI_Finalize();
        return 0;
    }

    /* ---------------- rank 0: the document ---------------- */
    json_t *doc = json_object(), *mpi = transport(), *ranks = json_array(), *v;
    char when[32];
    time_t tt = time(NULL);
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_object_set_new(doc, "schema_version", json_integer(MPIPROF_SCHEMA_VERSION));
    json_object_set_new(doc, "generator", json_string(MPIPROF_NAME " " PACKAGE_VERSION));
    json_object_set_new(doc, "created_utc", json_string(when));
    json_object_set_new(doc, "mode", json_string(p->quick ? "quick" : "default"));
    json_object_set_new(mpi, "world_size", json_integer(np));
    json_object_set_new(mpi, "launcher", json_string(launched ? launched : "singleton"));
    json_object_set_new(mpi, "slurm_job_id", getenv("SLURM_JOB_ID")
                                                 ? json_string(getenv("SLURM_JOB_ID"))
                                                 : json_null());
    json_object_set_new(doc, "mpi", mpi);
    for (int r = 0; r < np; r++) {
        size_t node = 0;
        for (size_t k = 0; k < json_array_size(nodes); k++) {
            json_t *rs = json_object_get(json_array_get(nodes, k), "ranks");
            for (size_t q = 0; q < json_array_size(rs); q++)
                if (json_integer_value(json_array_get(rs, q)) == r)
                    node = k;
        }
        json_array_append_new(ranks, json_pack("{s:i,s:s,s:I,s:s}", "rank", r, "hostname",
                                               hosts + (size_t)r * HOST_LEN, "node",
                                               (json_int_t)node, "cpu_binding",
                                               binds + (size_t)r * BIND_LEN));
    }
    json_object_set_new(doc, "ranks", ranks);
    json_object_set_new(doc, "nodes", nodes);

    /* ceilings */
    double ceil_all = INFINITY;
    size_t k;
    json_array_foreach(nodes, k, v) {
        double m = json_number_value(json_object_get(v, "memcpy_bytes_per_s"));
        if (m > 0 && m < ceil_all)
            ceil_all = m;
    }
    if (!isfinite(ceil_all))
        ceil_all = 0;
    /* largest NIC speed per node, when every node tells it */
    double nic_all = INFINITY;
    json_array_foreach(nodes, k, v) {
        json_t *nics = json_object_get(json_object_get(v, "topology"), "nics"), *n;
        size_t q;
        double best = 0;
        json_array_foreach(nics, q, n) {
            double sp = json_number_value(json_object_get(n, "speed_bytes_per_s"));
            if (sp > best)
                best = sp;
        }
        if (best <= 0)
            nic_all = NAN;
        else if (best < nic_all)
            nic_all = best;
    }
    if (json_array_size(nodes) < 2 || !isfinite(nic_all))
        nic_all = 0;
    json_object_set_new(doc, "ceiling",
                        json_pack("{s:o,s:o,s:f,s:s}", "memcpy_bytes_per_s", num(ceil_all),
                                  "nic_bytes_per_s", nic_all > 0 ? json_real(nic_all) : json_null(),
                                  "factor", MPIPROF_CEILING_FACTOR, "source",
                                  "memcpy: the slowest node's single-core memcpy (bytes copied "
                                  "per second, best of the repetitions); nic: the slowest "
                                  "node's fastest NIC link speed (sysfs), only for runs "
                                  "across nodes"));

    /* point-to-point: flags and summary */
    double min_bw = INFINITY, max_bw = 0, min_lat = INFINITY, max_lat = 0;
    int n_suspect = 0;
    json_t *pair;
    json_array_foreach(pairs, k, pair) {
        int a = (int)json_integer_value(json_object_get(pair, "rank_a"));
        int b = (int)json_integer_value(json_object_get(pair, "rank_b"));
        json_t *na = NULL, *nb = NULL, *e;
        size_t q;
        double ceil = 0, large, small;
        char what[160];
        json_array_foreach(nodes, q, e) {
            json_t *rs = json_object_get(e, "ranks"), *x;
            size_t z;
            json_array_foreach(rs, z, x) {
                if (json_integer_value(x) == a)
                    na = e;
                if (json_integer_value(x) == b)
                    nb = e;
            }
        }
        ceil = fmin(json_number_value(json_object_get(na, "memcpy_bytes_per_s")),
                    json_number_value(json_object_get(nb, "memcpy_bytes_per_s")));
        snprintf(what, sizeof what, "the memcpy bandwidth of %s%s%s",
                 json_string_value(json_object_get(na, "hostname")), na == nb ? "" : " / ",
                 na == nb ? "" : json_string_value(json_object_get(nb, "hostname")));
        if (na != nb && nic_all > 0 && nic_all < ceil) {
            ceil = nic_all;
            snprintf(what, sizeof what, "the NIC link speed");
        }
        json_array_foreach(json_object_get(pair, "bandwidth"), q, e) {
            flag(e, json_number_value(json_object_get(e, "bandwidth_bytes_per_s")), ceil,
                 "bandwidth", what);
            n_suspect += json_is_true(json_object_get(e, "suspect"));
        }
        large = json_number_value(json_object_get(
            json_array_get(json_object_get(pair, "bandwidth"), p->n_sizes - 1),
            "bandwidth_bytes_per_s"));
        small = json_number_value(
            json_object_get(json_array_get(json_object_get(pair, "latency"), 0), "latency_s"));
        json_object_set_new(pair, "large_message_bandwidth_bytes_per_s", num(large));
        json_object_set_new(pair, "small_message_latency_s", num(small));
        min_bw = fmin(min_bw, large), max_bw = fmax(max_bw, large);
        min_lat = fmin(min_lat, small), max_lat = fmax(max_lat, small);
    }
    {
        json_t *sizes = json_array(), *pp;
        for (size_t i = 0; i < p->n_sizes; i++)
            json_array_append_new(sizes, json_integer((json_int_t)p->sizes[i]));
        pp = json_pack("{s:o,s:i,s:s,s:s,s:o,s:o}", "sizes_bytes", sizes, "window", p->window,
                       "method",
                       "bandwidth: rank_a posts `window` MPI_Isend of size_bytes, rank_b the "
                       "matching MPI_Irecv, a 4-byte ack closes each iteration; bytes moved / "
                       "time on rank_a (osu_bw). latency: ping-pong, half the round trip "
                       "(osu_latency). One pair at a time, the other ranks asleep in a "
                       "barrier.",
                       "direction", "rank_a -> rank_b (rank_a < rank_b)", "pairs", pairs,
                       "summary",
                       json_pack("{s:o,s:o,s:o,s:o,s:i}", "min_large_message_bandwidth_bytes_per_s",
                                 num(n_pairs ? min_bw : NAN),
                                 "max_large_message_bandwidth_bytes_per_s",
                                 num(n_pairs ? max_bw : NAN), "min_small_message_latency_s",
                                 num(n_pairs ? min_lat : NAN), "max_small_message_latency_s",
                                 num(n_pairs ? max_lat : NAN), "suspect_figures", n_suspect));
        json_object_set_new(doc, "point_to_point", pp);
    }

    /* allreduce: points, fit, ring model */
    {
        json_t *pts = json_array(), *ar, *fitj = json_null(), *ring = json_null();
        double *s = xalloc(sizeof(double) * p->n_allreduce_sizes),
               *t = xalloc(sizeof(double) * p->n_allreduce_sizes);
        struct mpiprof_fit fit;
        int fit_ok, verified = 1;
        for (size_t i = 0; i < p->n_allreduce_sizes; i++) {
            s[i] = (double)ap[i].bytes;
            t[i] = ap[i].min_s; /* the fit's statistic: robust to a loaded machine */
            verified &= ap[i].verified;
        }
        fit_ok = np >= 2 && mpiprof_fit_alpha_beta(s, t, p->n_allreduce_sizes, &fit) == 0;
        for (size_t i = 0; i < p->n_allreduce_sizes; i++) {
            double algbw = s[i] / ap[i].median_s; /* nccl-tests algbw: the median */
            double busbw = np >= 2 ? algbw * 2.0 * (np - 1) / np : NAN;
            json_t *pt = json_pack("{s:I,s:i,s:o,s:o,s:o,s:o,s:b}", "size_bytes",
                                   (json_int_t)ap[i].bytes, "repetitions", ap[i].reps,
                                   "min_time_s", num(ap[i].min_s), "median_time_s",
                                   num(ap[i].median_s), "algorithm_bandwidth_bytes_per_s",
                                   num(algbw), "bus_bandwidth_bytes_per_s", num(busbw),
                                   "verified", ap[i].verified);
            if (fit_ok) {
                double f = fit.alpha_s + fit.beta_s_per_byte * s[i];
                json_object_set_new(pt, "fit_time_s", num(f));
                json_object_set_new(pt, "relative_residual", num((f - t[i]) / t[i]));
            }
            if (np >= 2)
                flag(pt, busbw, ceil_all, "bus bandwidth", "the slowest node's memcpy bandwidth");
            json_array_append_new(pts, pt);
        }
        if (fit_ok) {
            double ra = fit.alpha_s / (2.0 * (np - 1));
            double rb = fit.beta_s_per_byte > 0 ? 2.0 * (np - 1) / (np * fit.beta_s_per_byte)
                                                : INFINITY;
            fitj = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:I}", "model",
                             "t = alpha + beta * bytes", "method",
                             "LAPACKE_dgels, rows scaled by 1/t (relative residuals); a "
                             "negative coefficient is set to 0 and the other refitted",
                             "statistic", "min_time_s", "datatype", "MPI_DOUBLE, MPI_SUM",
                             "alpha_s", num(fit.alpha_s), "beta_s_per_byte",
                             num(fit.beta_s_per_byte), "unconstrained_alpha_s",
                             num(fit.raw_alpha_s), "unconstrained_beta_s_per_byte",
                             num(fit.raw_beta_s_per_byte), "constrained", fit.constrained,
                             "rms_residual_s", num(fit.rms_residual_s),
                             "max_relative_residual", num(fit.max_relative_residual), "points",
                             (json_int_t)p->n_allreduce_sizes);
            ring = json_pack("{s:s,s:i,s:o,s:o}", "model",
                             "t = 2(p-1) alpha_step + 2(p-1)/p * bytes / B (kernel/comm/slo_comm.h)",
                             "workers", np, "alpha_s", num(ra), "link_bandwidth_bytes_per_s",
                             num(rb));
            flag(ring, rb, ceil_all, "ring link bandwidth",
                 "the slowest node's memcpy bandwidth");
        }
        ar = json_pack("{s:s,s:s,s:b,s:o,s:o,s:o}", "method",
                       "per repetition: MPI_Barrier, then MPI_Allreduce timed on every rank; "
                       "the slowest rank's time; min and median over the repetitions after "
                       "warm-up", "datatype", "MPI_DOUBLE", "verified", verified, "points",
                       pts, "fit", fitj, "ring_model", ring);
        json_object_set_new(doc, "allreduce", ar);
        free(s);
        free(t);
        if (!verified)
            fprintf(stderr, "%s: warning: an allreduce returned a wrong sum "
                            "(allreduce.points[].verified)\n", MPIPROF_NAME);
    }
    json_object_set_new(doc, "elapsed_s", json_real(now_s() - t_start));

    /* self-check before writing: the document must pass --check */
    if (mpiprof_check_doc(doc, msg, sizeof msg)) {
        fprintf(stderr, "%s: internal error: the document fails its own schema: %s\n",
                MPIPROF_NAME, msg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* again: the path may have changed while measuring */
    /* and the link reader (slo comm --profile, --check) must accept it: a
     * fit with no bandwidth term (beta 0, as when every size is small, e.g.
     * --sizes 1,16) gives a document it rejects (trial finding M4) */
    if (np >= 2) {
        char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
        struct slo_comm_link lk;
        struct slo_comm_profile_info inf;
        slo_error_t e = {0};
        if (!text)
            die_local(1, "out of memory writing the document");
        if (slo_comm_profile_parse(text, "the measured profile", &lk, &inf, &e)) {
            fprintf(stderr, "%s: the measured profile is not usable by slo comm --profile, "
                            "nothing written: %s (larger --sizes, up to 1MiB or more, let the "
                            "allreduce times show the bandwidth)\n", MPIPROF_NAME, e.text);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        free(text);
    }
    if (o.output && output_target(o.output, target, sizeof target, msg, sizeof msg)) {
        fprintf(stderr, "%s: %s\n", MPIPROF_NAME, msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (o.output && !(out = open_temp(target, tmp_path, sizeof tmp_path))) {
        fprintf(stderr, "%s: --output: cannot write \"%s\": %s\n", MPIPROF_NAME, o.output,
                strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (out) {
        int failed = write_document(doc, out);
        int e = errno;
        if (fclose(out) && !failed)
            failed = 1, e = errno;
        if (!failed && rename(tmp_path, target))
            failed = 1, e = errno;
        if (failed) {
            unlink(tmp_path);
            fprintf(stderr, "%s: --output: cannot write \"%s\": %s\n", MPIPROF_NAME, o.output,
                    e ? strerror(e) : "write error");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else if (write_document(doc, stdout)) {
        fprintf(stderr, "%s: cannot write stdout: %s\n", MPIPROF_NAME, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fprintf(stderr, "%s: done in %.1f s%s%s\n", MPIPROF_NAME, now_s() - t_start,
            o.output ? ", wrote " : "", o.output ? o.output : "");
    json_decref(doc);
    free(ap);
    free(hosts);
    free(binds);
    free(leaders);
    MPI_Comm_free(&node_comm);
    MPI_Finalize();
    return 0;
}
