/*
 * mpiprof_options.c - slo-mpiprof's command line: --help text, options,
 * --sizes lists and the run parameters of --quick and the thorough default
 * (OSU Micro-Benchmarks counts, shared/research/anchors.md A.4 and C.2).
 * Pure (no MPI): every rank parses the same argv.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiprof.h"

void mpiprof_usage(FILE *f)
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
            "hwloc view of each node and the transport Open MPI reports; a pair whose\n"
            "transport fails (cross-memory attach blocked while Open MPI uses it) is\n"
            "flagged suspect. Writes one JSON document (schema: doc/mpiprof.md) that\n"
            "`slo comm --profile FILE` reads (and refuses when a pair is suspect).\n"
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
            "input (MPI_Abort with code 2 under mpirun/srun), 1 internal error or a\n"
            "failed transport (the document is written with its suspect pairs).\n");
}

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

/* The word getopt_long refused: argv[optind - 1], except inside a cluster of
 * short options ("-quick"), where optind stays on the cluster (and
 * argv[optind - 1] is the word before it, or the program's own path). */
static const char *refused_word(int argc, char **argv)
{
    const char *prev = optind > 0 ? argv[optind - 1] : "";
    const char *cur = optind < argc ? argv[optind] : NULL;
    if (optopt > 0 && !(prev[0] == '-' && prev[1] == optopt && prev[2] == '\0') && cur &&
        cur[0] == '-' && cur[1] != '-' && strchr(cur + 1, optopt))
        return cur;
    return prev;
}

/* Pure: every rank parses the same argv. */
int mpiprof_parse_options(int argc, char **argv, struct mpiprof_options *o, char *msg,
                          size_t len)
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
                               "--sizes LIST, --check FILE or --help)", refused_word(argc, argv));
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
