/*
 * train_demo.c - slo-train-demo: a data-parallel training loop emulated on
 * MPI with the Prophet allreduce runtime (slo_prophet.h). Layers come from
 * a per-layer profile (libslo's built-in PipeDream ResNet-50 / VGG-16, or a
 * CSV); compute is timed busy work (layer time x --compute-scale); the
 * gradients are real buffers of the real sizes x --bytes-scale, filled with
 * rank-dependent values whose sums are exact in fp32 and verified after
 * every iteration. Every policy runs in one process, side by side, next to
 * the simulator's prediction (slo_comm_solve) for the measured link and
 * compute. doc/runtime.md.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <mpi.h>

#include "argv_agree.h"
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "slo_comm.h"
#include "slo_prophet.h"

#define PROG "slo-train-demo"
#define ELEM sizeof(float)
#define MAX_POLICIES 16

static const int runtime_policies[] = {SLO_COMM_FIFO, SLO_COMM_DDP, SLO_COMM_PROPHET,
                                       SLO_COMM_OPTIMAL};
#define N_RUNTIME_POLICIES 4

static int world_rank, world_size;

/* ------------------------------------------------------------------ */
/* Errors: rank 0 prints, then MPI_Abort; never a hang                 */
/* ------------------------------------------------------------------ */

/* An error every rank has detected (options, inputs, the runtime's
 * collective checks): rank 0 prints it and aborts the job with `code`; the
 * other ranks wait in a barrier that rank 0 never enters, so they cannot
 * exit before the message is out, and are killed by the abort. Only for
 * errors every rank is known to have (agreed); an error of one rank goes
 * to local_fail, which aborts from that rank. */
static void collective_fail(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
static void collective_fail(int code, const char *fmt, ...)
{
    if (world_rank == 0) {
        va_list ap;
        char line[2048];
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        /* one write: stderr is unbuffered, and pieces of the line could be
         * interleaved with mpirun's own output */
        fprintf(stderr, PROG ": %s\n", line);
        fflush(stderr);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, code);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    exit(code); /* not reached */
}

/* An error on this rank only (an MPI error, no memory): print with the rank
 * and abort. */
static void local_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void local_fail(const char *fmt, ...)
{
    va_list ap;
    char line[2048];
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, PROG ": rank %d: %s\n", world_rank, line); /* one write */
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}


static void check_rc(int rc, const slo_error_t *err)
{
    if (rc)
        local_fail("%s: %s", err->source, err->text);
}

/* An error of a collective call of the runtime (set_plan, check_sequence):
 * agreed by every rank (slo_prophet.h) unless it is an MPI error of the
 * agreement's own collectives (err->source names the MPI call), which only
 * this rank may have seen: then this rank aborts by itself. invalid_code:
 * the exit status for SLO_ERR_INVALID (2: input; 1 otherwise). */
static void collective_rc(int rc, const slo_error_t *err, const char *what, int invalid_code)
{
    if (!rc)
        return;
    if (strncmp(err->source, "MPI_", 4) == 0)
        local_fail("%s: %s: %s", what, err->source, err->text);
    collective_fail(rc == SLO_ERR_INVALID ? invalid_code : 1, "%s: %s: %s", what, err->source,
                    err->text);
}

/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

struct options {
    const char *model, *plan, *sequence_out, *layout, *profile;
    double compute_scale, bytes_scale, poll_s;
    int iterations, in_flight, average, sleep;
    int policy; /* -1 = all */
    const char *policy_name;
    int quick;
    int mismatch_kind; /* 0 none, 1 grads, 2 plan */
    int mismatch_rank;
    int given_cs, given_bs, given_it;
    FILE *seq;          /* --sequence-out PREFIX.RANK, opened early (open_sequence) */
    char seq_path[4096];
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: " PROG " [--model resnet50|vgg16|FILE] [--compute-scale X] [--bytes-scale X]\n"
            "                      [--iterations N] [--policy all|fifo|ddp|prophet|optimal]\n"
            "                      [--plan FILE] [--in-flight N] [--layout flat|separate]\n"
            "                      [--compute busy|sleep] [--poll-us US] [--average]\n"
            "                      [--sequence-out PREFIX] [--profile FILE] [--quick]\n"
            "\n"
            "Emulate data-parallel training under MPI with the Prophet allreduce runtime:\n"
            "compute is busy work (layer time x compute scale), gradients are real fp32\n"
            "buffers (sizes x bytes scale) allreduced per plan block and verified exactly.\n"
            "Prints the iteration time per policy beside the simulator's prediction for\n"
            "the measured link and compute (doc/runtime.md). Run under mpirun or srun,\n"
            "2 ranks or more.\n"
            "  --model M          resnet50 (default), vgg16, or a per-layer CSV\n"
            "                     (the format of slo comm --model)\n"
            "  --compute-scale X  layer times x X, 0 < X <= 100 (default 0.1; --quick 0.02)\n"
            "  --bytes-scale X    gradient sizes x X, 0 < X <= 10 (default 0.1; --quick 0.01)\n"
            "  --iterations N     timed iterations per policy, 1..100000, after one warm-up\n"
            "                     (default 10; --quick 3)\n"
            "  --policy P         all (default: fifo, ddp, prophet, optimal) or one of them\n"
            "  --plan FILE        replay the blocks of `slo comm --json` output made for the\n"
            "                     same model (all: its fifo/ddp/prophet/optimal plans)\n"
            "  --in-flight N      collectives in flight at once, 0 = unlimited (default 1)\n"
            "  --layout L         flat: one buffer in forward order (default); separate:\n"
            "                     one allocation per gradient (blocks are packed)\n"
            "  --compute C        busy: compute spins on the CPU (default); sleep: the rank\n"
            "                     sleeps between progress polls (GPU-like, frees the CPU)\n"
            "  --poll-us US       progress polling interval during compute (default 50)\n"
            "  --average          divide the sums by the number of ranks\n"
            "  --sequence-out P   write each rank's issued collectives to P.RANK\n"
            "  --profile FILE     take the link for the prediction from a slo-mpiprof\n"
            "                     profile (doc/mpiprof.md) instead of measuring it here\n"
            "  --quick            seconds-long run: resnet50, scales 0.02 / 0.01, 3 iterations\n"
            "Exit status: 0 every policy's results verified on every rank; 1 a wrong\n"
            "result or a runtime failure; 2 bad input (rank 0 prints, MPI_Abort).\n");
}

static double parse_number(const char *opt, const char *text, double lo, double hi,
                           int lo_open)
{
    char *end;
    double v;
    errno = 0;
    v = slo_strtod(text, &end); /* decimal only: not "0x1p-3" (trial finding M13) */
    if (!*text || *end || errno || !isfinite(v) || (lo_open ? v <= lo : v < lo) || v > hi)
        collective_fail(2, "%s: expected a number %s %g and <= %g, found \"%s\"", opt,
                        lo_open ? ">" : ">=", lo, hi, text);
    return v;
}

static int parse_int(const char *opt, const char *text, long lo, long hi)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(text, &end, 10);
    if (!*text || *end || errno || v < lo || v > hi)
        collective_fail(2, "%s: expected an integer %ld..%ld, found \"%s\"", opt, lo, hi, text);
    return (int)v;
}

static void parse_options(int argc, char **argv, struct options *o)
{
    enum { O_MODEL = 256, O_CS, O_BS, O_IT, O_POLICY, O_PLAN, O_INFLIGHT, O_LAYOUT, O_POLL,
           O_AVERAGE, O_SEQ, O_QUICK, O_MISMATCH, O_COMPUTE, O_PROFILE, O_HELP };
    static const struct option longopts[] = {
        {"model", required_argument, NULL, O_MODEL},
        {"compute-scale", required_argument, NULL, O_CS},
        {"bytes-scale", required_argument, NULL, O_BS},
        {"iterations", required_argument, NULL, O_IT},
        {"policy", required_argument, NULL, O_POLICY},
        {"plan", required_argument, NULL, O_PLAN},
        {"profile", required_argument, NULL, O_PROFILE},
        {"in-flight", required_argument, NULL, O_INFLIGHT},
        {"layout", required_argument, NULL, O_LAYOUT},
        {"poll-us", required_argument, NULL, O_POLL},
        {"average", no_argument, NULL, O_AVERAGE},
        {"compute", required_argument, NULL, O_COMPUTE},
        {"sequence-out", required_argument, NULL, O_SEQ},
        {"quick", no_argument, NULL, O_QUICK},
        /* test only (tests/runtime_mpi.sh): one rank registers a different
         * gradient list (grads:R) or installs a different plan (plan:R) */
        {"test-mismatch", required_argument, NULL, O_MISMATCH},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0}};
    int c, li = -1;
    const char *seen[O_HELP + 1] = {NULL};
    memset(o, 0, sizeof *o);
    o->model = "resnet50";
    o->layout = "flat";
    o->compute_scale = 0.1;
    o->bytes_scale = 0.1;
    o->iterations = 10;
    o->in_flight = 1;
    o->poll_s = 50e-6;
    o->policy = -1;
    o->mismatch_rank = -1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", longopts, &li)) != -1) {
        /* an option given twice with different values is an error, as in slo
         * (trial finding M15) */
        if (c >= O_MODEL && c <= O_HELP && optarg) {
            if (seen[c] && strcmp(seen[c], optarg) != 0)
                collective_fail(2, "--%s: expected one value, found two: \"%s\" and \"%s\"",
                                longopts[li].name, seen[c], optarg);
            seen[c] = optarg;
        }
        switch (c) {
        case O_MODEL: o->model = optarg; break;
        case O_CS:
            o->compute_scale = parse_number("--compute-scale", optarg, 0, 100, 1);
            o->given_cs = 1;
            break;
        case O_BS:
            o->bytes_scale = parse_number("--bytes-scale", optarg, 0, 10, 1);
            o->given_bs = 1;
            break;
        case O_IT:
            o->iterations = parse_int("--iterations", optarg, 1, 100000);
            o->given_it = 1;
            break;
        case O_POLICY:
            o->policy_name = optarg;
            if (strcmp(optarg, "all") == 0) {
                o->policy = -1;
                o->policy_name = NULL;
            } else {
                int p = slo_comm_policy_find(optarg), ok = 0;
                for (int i = 0; i < N_RUNTIME_POLICIES; i++)
                    ok |= p == runtime_policies[i];
                if (!ok)
                    collective_fail(2, "--policy: expected all, fifo, ddp, prophet or optimal, "
                                       "found \"%s\"", optarg);
                o->policy = p;
            }
            break;
        case O_PLAN: o->plan = optarg; break;
        case O_PROFILE: o->profile = optarg; break;
        case O_INFLIGHT: o->in_flight = parse_int("--in-flight", optarg, 0, 1000000); break;
        case O_LAYOUT:
            if (strcmp(optarg, "flat") && strcmp(optarg, "separate"))
                collective_fail(2, "--layout: expected flat or separate, found \"%s\"", optarg);
            o->layout = optarg;
            break;
        case O_POLL: o->poll_s = parse_number("--poll-us", optarg, 0, 1e6, 0) * 1e-6; break;
        case O_AVERAGE: o->average = 1; break;
        case O_COMPUTE:
            if (strcmp(optarg, "busy") && strcmp(optarg, "sleep"))
                collective_fail(2, "--compute: expected busy or sleep, found \"%s\"", optarg);
            o->sleep = strcmp(optarg, "sleep") == 0;
            break;
        case O_SEQ: o->sequence_out = optarg; break;
        case O_QUICK: o->quick = 1; break;
        case O_MISMATCH: {
            const char *colon = strchr(optarg, ':');
            if (colon && strncmp(optarg, "grads:", 6) == 0)
                o->mismatch_kind = 1;
            else if (colon && strncmp(optarg, "plan:", 5) == 0)
                o->mismatch_kind = 2;
            else
                collective_fail(2, "--test-mismatch: expected grads:RANK or plan:RANK, found "
                                   "\"%s\"", optarg);
            o->mismatch_rank = parse_int("--test-mismatch", colon + 1, 0, 1 << 30);
            break;
        }
        case O_HELP:
            if (world_rank == 0)
                usage(stdout);
            MPI_Finalize();
            exit(0);
        case ':': collective_fail(2, "%s: expected a value, found none", argv[optind - 1]);
        default:
        {
            /* in a short-option cluster ("-policy") getopt leaves optind on
             * the cluster: argv[optind - 1] would be the word before it */
            const char *w = argv[optind - 1], *cur = optind < argc ? argv[optind] : NULL;
            if (optopt > 0 && !(w[0] == '-' && w[1] == optopt && w[2] == '\0') && cur &&
                cur[0] == '-' && cur[1] != '-' && strchr(cur + 1, optopt))
                w = cur;
            collective_fail(2, "unknown option \"%s\" (" PROG " --help)", w);
        }
        }
    }
    if (optind < argc)
        collective_fail(2, "unexpected argument \"%s\" (" PROG " --help)", argv[optind]);
    if (o->quick) {
        if (!o->given_cs)
            o->compute_scale = 0.02;
        if (!o->given_bs)
            o->bytes_scale = 0.01;
        if (!o->given_it)
            o->iterations = 3;
    }
}

/* --sequence-out PREFIX (trial finding M7): every rank opens PREFIX.RANK
 * at once, before any measurement; the ranks agree (MPI_Allreduce MPI_MIN
 * of the failing ranks, then that rank's errno by MPI_Bcast) and rank 0
 * names the first rank that cannot write, exit 2. */
static void open_sequence(struct options *o)
{
    int first, e = 0;
    if (!o->sequence_out)
        return;
    snprintf(o->seq_path, sizeof o->seq_path, "%s.%d", o->sequence_out, world_rank);
    errno = 0;
    if (!(o->seq = fopen(o->seq_path, "w")))
        e = errno ? errno : EIO;
    first = e ? world_rank : world_size;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == world_size)
        return;
    MPI_Bcast(&e, 1, MPI_INT, first, MPI_COMM_WORLD);
    collective_fail(2, "--sequence-out: rank %d cannot write \"%s.%d\": %s", first,
                    o->sequence_out, first, strerror(e));
}

/* ------------------------------------------------------------------ */
/* Inputs read on rank 0 and broadcast, so every rank sees the same    */
/* ------------------------------------------------------------------ */

/* The whole text file at path (a plan or model file), NUL-terminated,
 * malloc'd; at most 64 MiB (the kernel's input limit) and no NUL byte. The
 * demo reads on rank 0 and broadcasts the text (read_shared), so every rank
 * parses the same bytes with the kernel's parsers. 0, or -1 with msg set. */
static int read_text(const char *path, char **out, char *msg, size_t len)
{
    enum { MAX_BYTES = 64 << 20 };
    FILE *f;
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    *out = NULL;
    errno = 0;
    if (!(f = fopen(path, "rb"))) {
        snprintf(msg, len, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    for (;;) {
        if (cap - n < 65536) {
            size_t nc = cap ? 2 * cap : 65536 + 1;
            void *q = realloc(buf, nc);
            if (!q) {
                free(buf);
                fclose(f);
                snprintf(msg, len, "%s: out of memory", path);
                return -1;
            }
            buf = q;
            cap = nc;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n > MAX_BYTES) {
            free(buf);
            fclose(f);
            snprintf(msg, len, "%s: expected an input of at most %d MiB, found more", path,
                     MAX_BYTES >> 20);
            return -1;
        }
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno;
        free(buf);
        fclose(f);
        snprintf(msg, len, "%s: cannot read: %s", path, e ? strerror(e) : "read error");
        return -1;
    }
    fclose(f);
    buf[n] = 0;
    if (memchr(buf, 0, n)) {
        free(buf);
        snprintf(msg, len, "%s: expected text, found a NUL byte", path);
        return -1;
    }
    *out = buf;
    return 0;
}

/* Read path on rank 0 and broadcast it; on failure every rank gets the
 * error and fails collectively with the option's name. */
static char *read_shared(const char *opt, const char *path)
{
    long long len = -1;
    char *text = NULL, msg[1400] = "";
    if (world_rank == 0) {
        char why[1200];
        if (read_text(path, &text, why, sizeof why))
            snprintf(msg, sizeof msg, "%s: %s", opt, why);
        else
            len = (long long)strlen(text);
    }
    MPI_Bcast(&len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (len < 0)
        collective_fail(2, "%s", msg);
    if (world_rank != 0 && !(text = malloc((size_t)len + 1)))
        local_fail("out of memory");
    MPI_Bcast(text, (int)len, MPI_CHAR, 0, MPI_COMM_WORLD);
    text[len] = 0;
    return text;
}

static void load_model(const char *arg, struct slo_comm_model *m)
{
    slo_error_t err = {0};
    const char *const *names = slo_comm_model_names();
    int builtin = 0;
    for (size_t i = 0; names[i]; i++)
        builtin |= strcmp(arg, names[i]) == 0;
    if (builtin) {
        if (slo_comm_model_builtin(arg, m, &err))
            collective_fail(2, "--model: %s", err.text);
    } else {
        char *text = read_shared("--model", arg), *base = strrchr(arg, '/');
        int rc = slo_comm_model_parse(text, arg, base ? base + 1 : arg, -1, m, &err);
        free(text);
        if (rc)
            collective_fail(2, "--model: %s: %s", err.source, err.text);
    }
}

/* ------------------------------------------------------------------ */
/* Gradient values: sums exact in fp32                                 */
/* ------------------------------------------------------------------ */

/* Rank r's value of element e of gradient g in iteration it:
 *   (r + 1) + 16 ((e + 3 it + 5 g) mod M).
 * Every partial sum over ranks is an integer below p (p + 16 M) <= 2^24,
 * so it is exact in fp32 whatever the reduction order or blocking; the
 * expected sum is p (p + 1) / 2 + 16 p ((e + 3 it + 5 g) mod M). */
struct values {
    unsigned M;
    int p;
};

/* pattern[k] = base + 16 (k mod M) for k < 2M: a gradient's values are
 * pattern[c ..] in chunks of at most M (memcpy; the backward pass's
 * "gradient computation" costs a copy, as writing real gradients would). */
static float *make_pattern(int rank, unsigned M)
{
    float *pat = malloc(2 * (size_t)M * sizeof *pat);
    if (!pat)
        return NULL;
    for (size_t k = 0; k < 2 * (size_t)M; k++)
        pat[k] = (float)(rank + 1) + 16.0f * (float)(k % M);
    return pat;
}

static void fill(float *x, size_t n, const float *pat, int it, size_t g, unsigned M)
{
    size_t c = (3u * (unsigned)it + 5u * (unsigned)g) % M;
    for (size_t e = 0; e < n;) {
        size_t len = n - e < M ? n - e : M;
        memcpy(x + e, pat + c, len * sizeof *x);
        e += len; /* c + M == c (mod M): the next chunk starts at c again */
    }
}

/* Number of elements of x that differ from the expected reduced value. */
static size_t verify(const float *x, size_t n, int p, int it, size_t g, unsigned M, int average)
{
    unsigned j = (unsigned)((3u * (unsigned)it + 5u * (unsigned)g) % M);
    float base = (float)(p * (p + 1) / 2);
    size_t bad = 0;
    for (size_t e = 0; e < n; e++) {
        float want = base + 16.0f * (float)p * (float)j;
        if (average)
            want /= (float)p;
        bad += x[e] != want;
        if (++j == M)
            j = 0;
    }
    return bad;
}

/* ------------------------------------------------------------------ */
/* Link measurement: MPI_Allreduce over sizes, alpha-beta by libslo    */
/* ------------------------------------------------------------------ */

/* Time MPI_Iallreduce + MPI_Wait of fp32 over a few sizes (the slowest rank
 * per size, the best of a few repetitions) and fit c(s) = a + b s with the
 * kernel's alpha-beta fit (slo_comm_fit_alpha_beta: least squares on
 * relative residuals, bounded to a, b >= 0), read as a ring link by
 * slo_comm_ring_link_from_fit (alpha = a / (2 (p-1)), B = 2 (p-1) / (p b),
 * doc/comm.md, Transport). Rank 0 fits; the fit is broadcast, so every
 * rank plans with the same link. */
static void measure_link(size_t max_bytes, int quick, struct slo_comm_link *link, double *a_s,
                         double *b_s_per_byte, int *n_sizes, double *lo_bytes, double *hi_bytes)
{
    enum { MAXS = 8 };
    double sizes[MAXS], times[MAXS], fit[2];
    int ns = 0, reps = quick ? 3 : 8;
    size_t hi = max_bytes < ((size_t)16 << 20) ? max_bytes : ((size_t)16 << 20);
    float *buf;
    if (hi < (64u << 10))
        hi = 64u << 10;
    for (size_t s = 4096; ns < MAXS && s <= hi; s *= 4)
        sizes[ns++] = (double)s;
    if (!(buf = calloc(hi / ELEM + 1, ELEM)))
        local_fail("out of memory");
    for (int i = 0; i < ns; i++) {
        double best = INFINITY;
        int count = (int)(sizes[i] / ELEM);
        MPI_Request req;
        MPI_Iallreduce(MPI_IN_PLACE, buf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int r = 0; r < reps; r++) {
            double t0, t, tmax;
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            /* the runtime's own path: the nonblocking collective (Open MPI
             * runs it in libnbc, not in the blocking one's tuned algorithms) */
            MPI_Iallreduce(MPI_IN_PLACE, buf, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            t = MPI_Wtime() - t0;
            MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (tmax < best)
                best = tmax;
        }
        times[i] = best;
    }
    free(buf);
    if (world_rank == 0) {
        struct slo_comm_alpha_beta ab;
        slo_error_t err = {0};
        if (slo_comm_fit_alpha_beta(sizes, times, (size_t)ns, &ab, &err) == SLO_OK) {
            fit[0] = ab.alpha_s;
            fit[1] = ab.beta_s_per_byte;
        } else { /* no fit (e.g. one size only): the largest size alone */
            fit[0] = 0;
            fit[1] = times[ns - 1] / sizes[ns - 1];
        }
    }
    MPI_Bcast(fit, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    *a_s = fit[0];
    *b_s_per_byte = fit[1];
    *n_sizes = ns;
    *lo_bytes = sizes[0];
    *hi_bytes = sizes[ns - 1];
    {
        slo_error_t err = {0};
        memset(link, 0, sizeof *link);
        if (slo_comm_ring_link_from_fit(fit[0], fit[1], world_size, link, &err))
            collective_fail(1, "link fit: %s: %s", err.source, err.text);
    }
}

/* ------------------------------------------------------------------ */
/* The training loop                                                   */
/* ------------------------------------------------------------------ */

struct run {
    char name[SLO_COMM_NAME_LENGTH];
    int kernel_policy; /* for the prediction; -1 unknown */
    size_t n_blocks, n_collectives, staging_bytes;
    double median_s, min_s, predicted_s, planned_s;
    double F_s, Bw_s; /* measured compute, mean over ranks and iterations */
    unsigned long long wrong;
    int verified;
};

/* Compute for `seconds` of wall time, driving the runtime's progress every
 * poll_s (the polling progress model, doc/runtime.md): busy work spins on
 * the CPU (as CPU compute would); with sleep, the rank sleeps between polls
 * and leaves the CPU to the other ranks (as GPU compute would: on an
 * oversubscribed node, spinning ranks are descheduled for whole time
 * slices, which stretches every layer). */
static void compute(struct slo_prophet *rt, double seconds, double poll_s, int sleep_mode)
{
    slo_error_t err = {0};
    double t = MPI_Wtime(), end = t + seconds, next = t;
    while ((t = MPI_Wtime()) < end) {
        if (t >= next) {
            check_rc(slo_prophet_progress(rt, &err), &err);
            next = t + poll_s;
        }
        if (sleep_mode) {
            /* sleep to the next poll; the last few us are spun (a sleep
             * overshoots by the timer slack, set to 1 ns in main) */
            double d = fmin(next, end) - MPI_Wtime() - 5e-6;
            if (d > 10e-6) {
                struct timespec ts = {(time_t)d, (long)((d - floor(d)) * 1e9)};
                nanosleep(&ts, NULL);
            }
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One training iteration under the installed plan: backward (last layer
 * first, each gradient marked ready after its compute), then the next
 * forward (layer k waits only for the blocks holding its gradient). Adds
 * the per-layer compute times to f_sum / b_sum when timed; returns this
 * rank's wall time from the backward start to the forward end. */
static double iteration(const struct options *o, const struct slo_comm_model *m,
                        struct slo_prophet *rt, float **grad, const size_t *S,
                        const float *pattern, unsigned M, int it, int timed, double *f_sum,
                        double *b_sum)
{
    const size_t n = m->n_layers;
    slo_error_t err = {0};
    double t0 = MPI_Wtime();
    check_rc(slo_prophet_begin(rt, &err), &err);
    for (size_t j = n; j-- > 0;) {
        double a = MPI_Wtime();
        compute(rt, m->layers[j].backward_s * o->compute_scale, o->poll_s, o->sleep);
        fill(grad[j], S[j] / ELEM, pattern, it, j, M);
        check_rc(slo_prophet_mark_ready(rt, j, &err), &err);
        if (timed)
            b_sum[j] += MPI_Wtime() - a;
    }
    for (size_t k = 0; k < n; k++) {
        double a;
        check_rc(slo_prophet_wait_layer(rt, k, &err), &err);
        a = MPI_Wtime();
        compute(rt, m->layers[k].forward_s * o->compute_scale, o->poll_s, o->sleep);
        if (timed)
            f_sum[k] += MPI_Wtime() - a;
    }
    return MPI_Wtime() - t0;
}

struct policy_state {
    struct slo_comm_plan plan;               /* the kernel's plan, as installed */
    const struct slo_comm_model *planned_for; /* its plan space (NULL: the registered sizes) */
    double *f_sum, *b_sum, *times; /* [n], [n], [iterations + 1] */
    unsigned long long wrong;
};

/* Run every policy: round r runs one iteration of each policy in turn
 * (round 0 is the warm-up), so that the machine's background load falls
 * on all of them alike. Every iteration's reduced values are verified
 * (untimed) and every rank's issued sequence is compared. */
static void run_all(const struct options *o, const struct slo_comm_model *m,
                    struct slo_prophet *rt, float **grad, const size_t *S,
                    struct policy_state *ps, struct run *runs, size_t n_runs,
                    const float *pattern, unsigned M, const struct slo_comm_link *link)
{
    const size_t n = m->n_layers;
    slo_error_t err = {0};
    FILE *const *seq = o->seq ? &o->seq : NULL;
    const char *path = o->seq_path;

    for (int it = 0; it <= o->iterations; it++)
        for (size_t i = 0; i < n_runs; i++) {
            struct policy_state *p = &ps[i];
            double dt, dtmax;
            char what[sizeof runs[i].name + 8];
            int rc = slo_prophet_set_plan(rt, &p->plan, p->planned_for, o->in_flight, &err);
            snprintf(what, sizeof what, "%.*s plan", (int)sizeof runs[i].name - 1, runs[i].name);
            collective_rc(rc, &err, what, 2);
            MPI_Barrier(MPI_COMM_WORLD);
            dt = iteration(o, m, rt, grad, S, pattern, M, it, it > 0, p->f_sum, p->b_sum);
            check_rc(slo_prophet_wait_all(rt, &err), &err);
            for (size_t g = 0; g < n; g++) /* untimed */
                p->wrong += verify(grad[g], S[g] / ELEM, world_size, it, g, M, o->average);
            MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            p->times[it] = dtmax;
            if ((rc = slo_prophet_check_sequence(rt, &err)))
                collective_rc(rc, &err, runs[i].name, 1);
            {
                const struct slo_prophet_issue *log;
                size_t nlog = slo_prophet_sequence(rt, &log);
                runs[i].n_collectives += nlog;
                runs[i].n_blocks = slo_prophet_n_blocks(rt);
                runs[i].staging_bytes = slo_prophet_staging_bytes(rt);
                for (size_t k = 0; seq && k < nlog; k++)
                    fprintf(*seq, "%s %d %zu %zu\n", runs[i].name, it, log[k].block,
                            log[k].bytes);
            }
        }
    if (seq) {
        if (ferror(*seq) | fclose(*seq))
            local_fail("--sequence-out: cannot write \"%s\": %s", path, strerror(errno));
    }
    for (size_t i = 0; i < n_runs; i++) {
        struct policy_state *p = &ps[i];
        struct run *out = &runs[i];
        unsigned long long wrong_all = 0;
        MPI_Allreduce(&p->wrong, &wrong_all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                      MPI_COMM_WORLD);
        out->wrong = wrong_all;
        out->verified = wrong_all == 0;
        qsort(p->times + 1, (size_t)o->iterations, sizeof *p->times, cmp_double);
        out->min_s = p->times[1];
        out->median_s = o->iterations % 2 ? p->times[1 + o->iterations / 2]
                                          : 0.5 * (p->times[o->iterations / 2] +
                                                   p->times[1 + o->iterations / 2]);
        /* the simulator on the measured profile: mean per-layer compute
         * over ranks and timed iterations, registered sizes, measured link */
        {
            struct slo_comm_model mm = {0};
            double F = 0, Bw = 0;
            MPI_Allreduce(MPI_IN_PLACE, p->f_sum, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            MPI_Allreduce(MPI_IN_PLACE, p->b_sum, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            check_rc(slo_comm_model_alloc(&mm, n, &err), &err);
            snprintf(mm.name, sizeof mm.name, "%.50s-measured", m->name);
            for (size_t j = 0; j < n; j++) {
                mm.layers[j].forward_s = p->f_sum[j] / (world_size * (double)o->iterations);
                mm.layers[j].backward_s = p->b_sum[j] / (world_size * (double)o->iterations);
                mm.layers[j].grad_bytes = (double)S[j];
                F += mm.layers[j].forward_s;
                Bw += mm.layers[j].backward_s;
            }
            out->F_s = F;
            out->Bw_s = Bw;
            out->predicted_s = NAN;
            if (out->kernel_policy >= 0) {
                struct slo_comm_problem prob = {&mm, link};
                struct slo_comm_options opt;
                struct slo_comm_result r = {0};
                slo_comm_options_init(&opt);
                opt.policy = out->kernel_policy;
                opt.elem_bytes = ELEM;
                if (slo_comm_solve(&prob, &opt, &r, &err) == SLO_OK)
                    out->predicted_s = r.iteration_s;
                slo_comm_result_free(&r);
            }
            slo_comm_model_free(&mm);
        }
    }
}

/* Kernel parameters scaled with the emulation: byte sizes x bytes scale,
 * times x compute scale, so each policy cuts the scaled model as it would
 * cut the real one (doc/runtime.md). */
static void scaled_params(const struct options *o, struct slo_comm_params *p)
{
    slo_comm_params_default(p);
    p->p3_slice_bytes *= o->bytes_scale;
    p->bs_partition_bytes *= o->bytes_scale;
    p->bs_credit_bytes *= o->bytes_scale;
    p->hvd_fusion_bytes *= o->bytes_scale;
    p->ddp_bucket_bytes *= o->bytes_scale;
    p->ddp_first_bucket_bytes *= o->bytes_scale;
    p->prophet_partition_bytes *= o->bytes_scale;
    p->prophet_credit_bytes *= o->bytes_scale;
    p->hvd_cycle_s *= o->compute_scale;
    p->prophet_slack_s *= o->compute_scale;
}

static const char *level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "unknown";
    }
}

/* One table cell of width `width`: x with `prec` decimals, or "-" right
 * aligned when x is not a number (not available: see the legend). Returns 1
 * for "-". */
static int cell(char *buf, size_t len, int width, int prec, double x)
{
    if (isfinite(x)) {
        snprintf(buf, len, "%*.*f", width, prec, x);
        return 0;
    }
    snprintf(buf, len, "%*s", width, "-");
    return 1;
}

/* Merge blocks 0 and 1 of the kernel's plan (--test-mismatch plan:R): still
 * a valid plan (slo_comm_plan_check): block 1's ranges follow block 0's. */
static void merge_first_blocks(struct slo_comm_plan *p)
{
    struct slo_comm_plan_block *b0 = &p->blocks[0];
    const struct slo_comm_plan_block *b1 = &p->blocks[1];
    if (p->n_blocks < 2)
        return;
    b0->size_bytes += b1->size_bytes;
    b0->n_ranges += b1->n_ranges;
    if (b1->first_layer < b0->first_layer)
        b0->first_layer = b1->first_layer;
    if (b1->last_layer > b0->last_layer)
        b0->last_layer = b1->last_layer;
    if (b1->hold_layer < b0->hold_layer)
        b0->hold_layer = b1->hold_layer;
    for (size_t r = b0->first_range; r < p->n_ranges; r++)
        p->ranges[r].block = r < b0->first_range + b0->n_ranges ? 0 : p->ranges[r].block - 1;
    memmove(&p->blocks[1], &p->blocks[2], (p->n_blocks - 2) * sizeof *p->blocks);
    p->n_blocks--;
}

int main(int argc, char **argv)
{
    struct options o;
    struct slo_comm_model model = {0}, planm = {0};
    struct slo_comm_link link;
    struct slo_comm_params params;
    struct slo_prophet *rt = NULL;
    struct run runs[MAX_POLICIES];
    struct policy_state *ps = NULL;
    char *plan_text = NULL;
    char names[MAX_POLICIES][SLO_COMM_NAME_LENGTH];
    size_t n_runs = 0, *S, total = 0, n_grads = 0;
    float **grad, *flat = NULL, *pattern = NULL;
    slo_error_t err = {0};
    int provided = 0, all_ok = 1, ns;
    double a_s, b_spb, lo_b, hi_b, lb_s = NAN, seq_s = NAN, comp_s = NAN;
    unsigned M;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    {
        int r = slo_argv_first_differing_rank(argc, argv, MPI_COMM_WORLD);
        if (r >= 0)
            collective_fail(2, "rank %d was started with other arguments than rank 0: expected "
                               "the same options on every rank (one command line for all "
                               "ranks)", r);
    }
    parse_options(argc, argv, &o);
#if defined(__linux__) && defined(PR_SET_TIMERSLACK)
    if (o.sleep) /* default slack 50 us: every short sleep would overshoot by it */
        prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
    if (world_size < 2)
        collective_fail(2, "expected at least 2 ranks (mpirun -np 2 or more), found %d",
                        world_size);
    open_sequence(&o);
    load_model(o.model, &model);
    if (o.plan)
        plan_text = read_shared("--plan", o.plan);
    if (plan_text && world_rank == 0) { /* made for another worker count? (M9) */
        json_t *doc = json_loads(plan_text, JSON_REJECT_DUPLICATES, NULL);
        json_t *w = json_object_get(json_object_get(doc, "link"), "workers");
        if (json_is_integer(w) && json_integer_value(w) != world_size)
            fprintf(stderr, PROG ": note: --plan %s was made for %lld workers (link.workers), "
                            "this run has %d ranks: its blocks were cut for that link and "
                            "are replayed as they are\n",
                    o.plan, (long long)json_integer_value(w), world_size);
        json_decref(doc);
    }

    /* registered sizes: the profile's bytes x scale, whole fp32 elements */
    S = calloc(model.n_layers, sizeof *S);
    grad = calloc(model.n_layers, sizeof *grad);
    if (!S || !grad)
        local_fail("out of memory");
    for (size_t j = 0; j < model.n_layers; j++) {
        S[j] = (size_t)llround(model.layers[j].grad_bytes * o.bytes_scale / ELEM) * ELEM;
        if (model.layers[j].grad_bytes > 0 && S[j] == 0)
            S[j] = ELEM; /* keep every gradient: one element at least */
    }
    if (o.mismatch_kind == 1 && world_rank == o.mismatch_rank)
        for (size_t j = 0; j < model.n_layers; j++)
            if (S[j]) {
                S[j] += ELEM; /* one element more in the first gradient */
                break;
            }
    for (size_t j = 0; j < model.n_layers; j++) {
        total += S[j];
        n_grads += S[j] > 0;
    }
    /* values: p (p + 16 M) <= 2^24 */
    M = 4096;
    while (M > 1 && (double)world_size * (world_size + 16.0 * M) > 16777216.0)
        M /= 2;
    if (!(pattern = make_pattern(world_rank, M)))
        local_fail("out of memory");

    /* buffers */
    if (strcmp(o.layout, "flat") == 0) {
        size_t at = 0;
        if (!(flat = malloc(total + ELEM)))
            local_fail("out of memory (%zu bytes of gradients)", total);
        for (size_t j = 0; j < model.n_layers; j++) {
            grad[j] = flat + at / ELEM;
            at += S[j];
        }
    } else {
        for (size_t j = 0; j < model.n_layers; j++)
            if (S[j] && !(grad[j] = malloc(S[j])))
                local_fail("out of memory");
    }
    if (slo_prophet_create(MPI_COMM_WORLD, MPI_FLOAT, o.average ? SLO_PROPHET_AVERAGE : 0, &rt,
                           &err))
        local_fail("%s: %s", err.source, err.text);
    for (size_t j = 0; j < model.n_layers; j++)
        check_rc(slo_prophet_register(rt, S[j] ? grad[j] : NULL, S[j], &err), &err);

    /* link: measured here, or from a slo-mpiprof profile (its allreduce
     * ring fit; every rank parses the same text, so a bad file is the same
     * error everywhere) */
    if (o.profile) {
        /* rank 0 reads it as slo comm --profile does (slo_comm_profile_load:
         * the same 64 MiB input limit and checks, trial finding M9) and
         * broadcasts the verdict and the figures */
        struct slo_comm_profile_info info;
        int rc = 0;
        char msg[1400] = "";
        memset(&info, 0, sizeof info);
        memset(&link, 0, sizeof link);
        if (world_rank == 0 && (rc = slo_comm_profile_load(o.profile, &link, &info, &err)))
            snprintf(msg, sizeof msg, "--profile: %s: %s", err.source, err.text);
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rc)
            collective_fail(2, "%s", msg);
        MPI_Bcast(&link, (int)sizeof link, MPI_BYTE, 0, MPI_COMM_WORLD);
        MPI_Bcast(&info, (int)sizeof info, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (info.bandwidth_suspect)
            collective_fail(2, "--profile: %s: the profiler flagged its bandwidth as suspect "
                            "(%s); measure again or run without --profile", o.profile,
                            info.suspect_reason);
        if (world_rank == 0 && link.workers != world_size)
            fprintf(stderr, PROG ": note: --profile %s was measured with %d ranks, this run has "
                            "%d: its link (alpha, B) is used for %d workers; the prediction "
                            "is only as good as that link at this size\n",
                    o.profile, link.workers, world_size, world_size);
        link.workers = world_size; /* the profile may have measured another count */
        a_s = info.fit_alpha_s;
        b_spb = info.fit_beta_s_per_byte;
        ns = 0;
        lo_b = hi_b = 0;
    } else {
        measure_link(total, o.quick, &link, &a_s, &b_spb, &ns, &lo_b, &hi_b);
    }
    link.max_in_flight = o.in_flight;

    /* the plan-space model: scaled compute, registered sizes */
    check_rc(slo_comm_model_alloc(&planm, model.n_layers, &err), &err);
    snprintf(planm.name, sizeof planm.name, "%s", model.name);
    for (size_t j = 0; j < model.n_layers; j++) {
        planm.layers[j] = model.layers[j];
        planm.layers[j].forward_s *= o.compute_scale;
        planm.layers[j].backward_s *= o.compute_scale;
        planm.layers[j].grad_bytes = (double)S[j];
    }
    scaled_params(&o, &params);
    if (slo_comm_lower_bound(&planm, &link, &lb_s, &seq_s, &comp_s, &err))
        collective_fail(1, "lower bound: %s: %s", err.source, err.text);

    /* which plans */
    if (plan_text) {
        size_t nn = 0;
        if (slo_comm_plan_policies(plan_text, o.plan, names, MAX_POLICIES, &nn, &err))
            collective_fail(2, "--plan: %s: %s", err.source, err.text);
        for (size_t i = 0; i < nn && n_runs < MAX_POLICIES; i++) {
            int p = slo_comm_policy_find(names[i]), keep = 0;
            for (int k = 0; k < N_RUNTIME_POLICIES; k++)
                keep |= p == runtime_policies[k];
            if (o.policy_name ? strcmp(names[i], o.policy_name) == 0 : keep) {
                memset(&runs[n_runs], 0, sizeof runs[n_runs]);
                snprintf(runs[n_runs].name, sizeof runs[n_runs].name, "%s", names[i]);
                runs[n_runs++].kernel_policy = p;
            }
        }
        if (n_runs == 0)
            collective_fail(2, "--plan: %s: policies: expected %s%s, found none of them",
                            o.plan, o.policy_name ? "the policy " : "fifo, ddp, prophet or optimal",
                            o.policy_name ? o.policy_name : "");
    } else {
        for (int k = 0; k < N_RUNTIME_POLICIES; k++)
            if (o.policy < 0 || o.policy == runtime_policies[k]) {
                memset(&runs[n_runs], 0, sizeof runs[n_runs]);
                snprintf(runs[n_runs].name, sizeof runs[n_runs].name, "%s",
                         slo_comm_policy_name(runtime_policies[k]));
                runs[n_runs++].kernel_policy = runtime_policies[k];
            }
    }

    ps = calloc(n_runs + 1, sizeof *ps);
    if (!ps)
        local_fail("out of memory");
    for (size_t i = 0; i < n_runs; i++) {
        struct run *r = &runs[i];
        struct slo_comm_plan *plan = &ps[i].plan;
        int rc;
        r->planned_s = NAN;
        if (plan_text) {
            /* the kernel's strict reader; plan space: the profile as the file
             * was made for it, mapped by the runtime onto the registered sizes */
            ps[i].planned_for = &model;
            if (slo_comm_plan_parse(plan_text, o.plan, r->name, ELEM, plan, &err))
                collective_fail(2, "--plan: %s: %s", err.source, err.text);
            if (slo_prophet_check_plan(rt, plan, &model, &err))
                collective_fail(2, "--plan: %s: %s", o.plan, err.text);
            if (r->kernel_policy == SLO_COMM_PROPHET) {
                /* a file of an slo comm without holds: Prophet's step hold
                 * from its post times (the kernel's rule, as slo_comm_solve) */
                int held = 0;
                for (size_t b = 0; b < plan->n_blocks; b++)
                    held |= plan->blocks[b].hold_layer < plan->n_layers;
                if (!held && slo_comm_plan_hold_at_post(plan, &model, &err))
                    collective_fail(2, "--plan: %s: policy %s: %s", o.plan, r->name, err.text);
            }
        } else {
            /* the kernel plans the scaled model: the optimal planner with the
             * default tunables (its baseline candidates are the published
             * defaults), the baselines with the scaled ones */
            struct slo_comm_problem prob = {&planm, &link};
            struct slo_comm_options opt;
            struct slo_comm_result res;
            slo_comm_options_init(&opt);
            opt.policy = r->kernel_policy;
            if (r->kernel_policy != SLO_COMM_OPTIMAL)
                opt.params = params;
            opt.elem_bytes = ELEM;
            if ((rc = slo_comm_solve(&prob, &opt, &res, &err)))
                collective_fail(1, "planning %s: %s: %s", r->name, err.source, err.text);
            *plan = res.plan; /* taken over: res keeps no plan */
            memset(&res.plan, 0, sizeof res.plan);
            r->planned_s = res.iteration_s;
            slo_comm_result_free(&res);
            ps[i].planned_for = NULL; /* planm's sizes are the registered ones */
        }
        if (o.mismatch_kind == 2 && world_rank == o.mismatch_rank)
            merge_first_blocks(plan);
        ps[i].f_sum = calloc(model.n_layers, sizeof(double));
        ps[i].b_sum = calloc(model.n_layers, sizeof(double));
        ps[i].times = calloc((size_t)o.iterations + 1, sizeof(double));
        if (!ps[i].f_sum || !ps[i].b_sum || !ps[i].times)
            local_fail("out of memory");
    }
    run_all(&o, &model, rt, grad, S, ps, runs, n_runs, pattern, M, &link);
    for (size_t i = 0; i < n_runs; i++)
        all_ok &= runs[i].verified;

    if (world_rank == 0) {
        double fifo_s = NAN, fifo_pred = NAN, fifo_plan = NAN;
        for (size_t i = 0; i < n_runs; i++)
            if (runs[i].kernel_policy == SLO_COMM_FIFO) {
                fifo_s = runs[i].median_s;
                fifo_pred = runs[i].predicted_s;
                fifo_plan = runs[i].planned_s;
            }
        double F0 = 0, B0 = 0;
        for (size_t j = 0; j < planm.n_layers; j++) {
            F0 += planm.layers[j].forward_s;
            B0 += planm.layers[j].backward_s;
        }
        printf("model %s: %zu layers, %zu gradients, %.3f MB registered (bytes x %g), compute "
               "x %g: F %.2f ms, Bw %.2f ms\n",
               model.name, model.n_layers, n_grads, total / 1e6, o.bytes_scale,
               o.compute_scale, F0 * 1e3, B0 * 1e3);
        printf("ranks %d, %d timed iterations per policy (interleaved) after 1 warm-up, %d in "
               "flight%s, "
               "layout %s, %s%s\n",
               world_size, o.iterations, o.in_flight, o.in_flight == 0 ? " (unlimited)" : "",
               o.layout, o.average ? "averaged" : "summed",
               plan_text ? ", plans from --plan" : "");
        printf("thread level %s (requested MPI_THREAD_FUNNELED); progress by polling every "
               "%g us; compute: %s\n", level_name(provided), o.poll_s * 1e6,
               o.sleep ? "sleep" : "busy");
        if (o.profile)
            printf("link from --profile %s (slo-mpiprof allreduce fit c(s) = %.1f us + s / "
                   "%.1f MB/s) -> ring alpha %.2f us, B %.1f MB/s\n",
                   o.profile, a_s * 1e6, 1e-6 / b_spb, link.latency_s * 1e6,
                   link.bandwidth_bytes_per_s / 1e6);
        else
            printf("link (MPI_Iallreduce+MPI_Wait fp32, %d sizes %.0f..%.0f bytes, least "
                   "squares on relative error): c(s) = "
                   "%.1f us + s / %.1f MB/s -> ring alpha %.2f us, B %.1f MB/s\n",
                   ns, lo_b, hi_b, a_s * 1e6, 1e-6 / b_spb, link.latency_s * 1e6,
                   link.bandwidth_bytes_per_s / 1e6);
        printf("nominal: compute F+Bw %.2f ms, communication %.2f ms (sum of w s / B on that "
               "link), T_LB %.2f ms: %s\n",
               comp_s * 1e3, (seq_s - comp_s) * 1e3, lb_s * 1e3,
               seq_s - comp_s >= comp_s ? "communication-bound" : "compute-bound");
        printf("\n%-9s %6s %8s %8s %9s %8s %8s %9s %8s %9s %9s %7s %s\n", "policy", "blocks",
               "plan ms", "plan/ff", "F+Bw ms", "iter ms", "iter/ff", "pred ms", "pred/ff",
               "iter/pred", "collect.", "stageMB", "verified");
        int dashes = 0;
        for (size_t i = 0; i < n_runs; i++) {
            const struct run *r = &runs[i];
            char c[8][32];
            dashes |= cell(c[0], sizeof c[0], 8, 2, r->planned_s * 1e3);
            dashes |= cell(c[1], sizeof c[1], 8, 3, r->planned_s / fifo_plan);
            dashes |= cell(c[2], sizeof c[2], 9, 2, (r->F_s + r->Bw_s) * 1e3);
            dashes |= cell(c[3], sizeof c[3], 8, 2, r->median_s * 1e3);
            dashes |= cell(c[4], sizeof c[4], 8, 3, r->median_s / fifo_s);
            dashes |= cell(c[5], sizeof c[5], 9, 2, r->predicted_s * 1e3);
            dashes |= cell(c[6], sizeof c[6], 8, 3, r->predicted_s / fifo_pred);
            dashes |= cell(c[7], sizeof c[7], 9, 3, r->median_s / r->predicted_s);
            printf("%-9s %6zu %s %s %s %s %s %s %s %s %9zu %7.2f %s\n", r->name, r->n_blocks,
                   c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], r->n_collectives,
                   r->staging_bytes / 1e6, r->verified ? "yes" : "NO");
        }
        printf("\nplan: the simulator's period for the nominal profile (layer times x compute "
               "scale) on the measured link, as planned; F+Bw: compute measured in the run "
               "(busy work, gradient writes, progress calls), mean over ranks; iter: median "
               "over iterations of the slowest rank's time (backward start to forward end); "
               "pred: slo_comm_simulate for the measured compute per layer and the measured "
               "link; ff: ratio to fifo; collect.: collectives issued (all iterations); "
               "stageMB: packing buffer\n");
        if (dashes)
            printf("-: not available: plan with --plan (the file's blocks are replayed, not "
                   "planned here, so there is no planned period); ff without fifo among the "
                   "policies run (--policy or --plan without fifo)\n");
        printf("sequence: every rank issued the same collectives (checked per policy)\n");
        for (size_t i = 0; i < n_runs; i++)
            if (!runs[i].verified)
                fprintf(stderr, PROG ": %s: %llu reduced values differ from the expected sums "
                                "(all ranks)\n", runs[i].name, runs[i].wrong);
        printf("%s\n", all_ok ? "verified: every reduced value of every policy on every rank"
                              : "NOT verified: see the errors above");
        fflush(stdout);
    }
    slo_prophet_free(rt);
    free(flat);
    if (strcmp(o.layout, "flat") != 0)
        for (size_t j = 0; j < model.n_layers; j++)
            free(grad[j]);
    free(grad);
    free(S);
    free(plan_text);
    free(pattern);
    for (size_t i = 0; ps && i < n_runs; i++) {
        slo_comm_plan_free(&ps[i].plan);
        free(ps[i].f_sum);
        free(ps[i].b_sum);
        free(ps[i].times);
    }
    free(ps);
    slo_comm_model_free(&model);
    slo_comm_model_free(&planm);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
