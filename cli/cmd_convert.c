/*
 * cmd_convert.c - `slo convert perf-analyzer|nvidia-smi|ncu`: turn the
 * standard tools' CSV outputs into keys of the inference GPU profile
 * (upstream JSON-lines form, doc/infer.md "Profiling your GPU"), one JSON
 * line on stdout; the lines of the recipe, concatenated, are a profile that
 * `slo fit infer` fits and `slo infer --profile` reads.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CMD "convert"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slo convert perf-analyzer --model MODEL B:R:FILE...   (the 9 grid points)\n"
            "       slo convert nvidia-smi --model MODEL B:R:FILE... [--pair FILE]\n"
            "       slo convert nvidia-smi --hardware C:FILE... [--idle FILE]\n"
            "       slo convert ncu --model MODEL [--inferences N] B:R:FILE...\n"
            "\n"
            "Convert profiling runs of one model on your GPU into the keys of an inference\n"
            "profile (doc/infer.md \"Profiling your GPU\"); prints one JSON line. B:R is the\n"
            "run's batch and MPS share (%%): the grid is B in {1, 16, 32} x R in {10, 50, 100}.\n"
            "  perf-analyzer  perf_analyzer -f CSV: \"Server Compute Infer\" (us) of the\n"
            "                 lowest concurrency row -> gpulatency[3][3] (ms)\n"
            "  nvidia-smi     nvidia-smi --query-gpu=power.draw,clocks.sm --format=csv\n"
            "                 samples: means -> power[3][3] W, frequency[3][3] MHz; --pair\n"
            "                 FILE (two instances, b=1, 20 %%) -> power_2, frequency_2;\n"
            "                 --hardware C:FILE (C = 1..n co-running VGG-19) -> hardware\n"
            "                 power[n], frequency[n]; --idle FILE -> idlepower\n"
            "  ncu            Nsight Compute --csv with lts__t_sectors.avg.pct_of_peak_\n"
            "                 sustained_elapsed and gpu__time_duration.sum per kernel: the\n"
            "                 duration-weighted L2 %% at 1:20 -> l2cache, kernel (kernels per\n"
            "                 inference), activetime_1 (ms); at 1:10, 16:50, 32:100 -> l2caches\n"
            "Exit status: 0 success, 2 bad input (the file and field named), 1 internal.\n");
}

/* ---------------------------------------------------------------- points */

static const int grid_batch[3] = {1, 16, 32};
static const int grid_share[3] = {10, 50, 100};

struct point {
    int batch, share; /* grid point */
    const char *file;
};

/* B:R:FILE or C:FILE (share < 0 then). */
static int parse_point(const char *arg, int with_share, struct point *pt)
{
    char *end;
    long b = strtol(arg, &end, 10), r = -1;
    if (end == arg || *end != ':' || b < 1)
        goto bad;
    if (with_share) {
        const char *s = end + 1;
        r = strtol(s, &end, 10);
        if (end == s || *end != ':' || r < 1 || r > 100)
            goto bad;
    }
    if (!end[1])
        goto bad;
    pt->batch = (int)b;
    pt->share = (int)r;
    pt->file = end + 1;
    return 0;
bad:
    return cli_usage_error(CMD, "expected %s, found \"%s\"",
                           with_share ? "B:R:FILE (batch, MPS share %, file)"
                                      : "C:FILE (co-running instances, file)",
                           arg);
}

/* Index of the grid point (b, r) in 0..8, or -1. */
static int grid_index(int b, int r)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (grid_batch[i] == b && grid_share[j] == r)
                return 3 * i + j;
    return -1;
}

/* The nine grid points, each exactly once. */
static int grid_points(char **args, int n, struct point pts[9])
{
    int have[9] = {0};
    for (int k = 0; k < n; k++) {
        struct point pt;
        int g;
        if (parse_point(args[k], 1, &pt))
            return SLO_EXIT_USAGE;
        g = grid_index(pt.batch, pt.share);
        if (g < 0)
            return cli_usage_error(CMD, "%s: expected a grid point B in {1, 16, 32} and R in "
                                        "{10, 50, 100}, found %d:%d",
                                   pt.file, pt.batch, pt.share);
        if (have[g])
            return cli_usage_error(CMD, "point %d:%d: expected once, found twice", pt.batch,
                                   pt.share);
        have[g] = 1;
        pts[g] = pt;
    }
    for (int g = 0; g < 9; g++)
        if (!have[g])
            return cli_usage_error(CMD, "expected the 9 grid points B:R:FILE (B in {1, 16, 32}, "
                                        "R in {10, 50, 100}), found no %d:%d",
                                   grid_batch[g / 3], grid_share[g % 3]);
    return SLO_EXIT_OK;
}

static int print_line(json_t *o)
{
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12))
                   : NULL;
    json_decref(o);
    if (!text) {
        fprintf(stderr, "slo %s: out of memory\n", CMD);
        return SLO_EXIT_INTERNAL;
    }
    printf("%s\n", text);
    free(text);
    return SLO_EXIT_OK;
}

static json_t *grid_json(const double v[9])
{
    json_t *a = json_array();
    for (int i = 0; a && i < 3; i++) {
        json_t *row = json_array();
        for (int j = 0; row && j < 3; j++)
            json_array_append_new(row, json_real(v[3 * i + j]));
        json_array_append_new(a, row);
    }
    return a;
}

/* ---------------------------------------------------------------- the files */

/* The tools' files, read by the kernel (slo_ig_convert_*_load, slo_infer.h):
 * an error is one message naming the file, line and column, exit 2. */
static int perf_analyzer_ms(const char *path, double *ms)
{
    slo_error_t err = {0};
    return slo_ig_convert_perf_analyzer_load(path, ms, &err) ? cli_report(CMD, &err)
                                                             : SLO_EXIT_OK;
}

static int smi_means(const char *path, double *power_w, double *clock_mhz)
{
    slo_error_t err = {0};
    return slo_ig_convert_nvidia_smi_load(path, power_w, clock_mhz, &err) ? cli_report(CMD, &err)
                                                                          : SLO_EXIT_OK;
}

static int ncu_l2(const char *path, double *l2_pct, size_t *kernels, double *busy_ms)
{
    struct slo_ig_ncu_summary s;
    slo_error_t err = {0};
    if (slo_ig_convert_ncu_load(path, &s, &err))
        return cli_report(CMD, &err);
    *l2_pct = s.l2_pct;
    *kernels = s.kernels;
    *busy_ms = s.busy_ms;
    return SLO_EXIT_OK;
}

/* ---------------------------------------------------------------- main */

static int check_model(const char *model)
{
    if (!model || !*model || strlen(model) >= 64)
        return cli_usage_error(CMD, "--model: expected the model's name (the profile section), "
                                    "found %s",
                               model ? "an empty or over-long name" : "none");
    return SLO_EXIT_OK;
}

int slo_cmd_convert(int argc, char **argv)
{
    enum { O_MODEL = 256, O_PAIR, O_HARDWARE, O_IDLE, O_INFERENCES, O_HELP };
    static const struct option longopts[] = {{"model", required_argument, NULL, O_MODEL},
                                             {"pair", required_argument, NULL, O_PAIR},
                                             {"hardware", no_argument, NULL, O_HARDWARE},
                                             {"idle", required_argument, NULL, O_IDLE},
                                             {"inferences", required_argument, NULL, O_INFERENCES},
                                             {"help", no_argument, NULL, O_HELP},
                                             {NULL, 0, NULL, 0}};
    const char *tool, *model = NULL, *pair = NULL, *idle = NULL;
    double inferences = 1;
    int hardware = 0, c, st;
    struct cli_seen seen;

    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        return SLO_EXIT_OK;
    }
    if (argc < 2 || (strcmp(argv[1], "perf-analyzer") && strcmp(argv[1], "nvidia-smi") &&
                     strcmp(argv[1], "ncu")))
        return cli_usage_error(CMD, "expected a tool perf-analyzer, nvidia-smi or ncu, found "
                                    "%s%s%s (slo convert --help)",
                               argc < 2 ? "none" : "\"", argc < 2 ? "" : argv[1],
                               argc < 2 ? "" : "\"");
    tool = argv[1];
    memset(&seen, 0, sizeof seen);
    opterr = 0;
    optind = 1;
    argc--;
    argv++;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (cli_repeated_option(CMD, longopts, O_MODEL, c, optarg, &seen))
            return SLO_EXIT_USAGE;
        switch (c) {
        case O_MODEL: model = optarg; break;
        case O_PAIR: pair = optarg; break;
        case O_HARDWARE: hardware = 1; break;
        case O_IDLE: idle = optarg; break;
        case O_INFERENCES:
            if (cli_parse_double(CMD, "inferences", optarg, 1, 1e9, "a count >= 1",
                                 &inferences))
                return SLO_EXIT_USAGE;
            break;
        case O_HELP: usage(stdout); return SLO_EXIT_OK;
        case ':':
            return cli_usage_error(CMD, "%s: expected a value, found none", argv[optind - 1]);
        default:
            return cli_usage_error(CMD, "unknown or ambiguous option \"%s\" (slo convert --help)",
                                   cli_refused_option(argc, argv));
        }
    }
    if ((pair || hardware || idle) && strcmp(tool, "nvidia-smi"))
        return cli_usage_error(CMD, "--%s: only for nvidia-smi, not %s",
                               pair ? "pair" : hardware ? "hardware" : "idle", tool);
    if (seen.value[O_INFERENCES - O_MODEL] && strcmp(tool, "ncu"))
        return cli_usage_error(CMD, "--inferences: only for ncu, not %s", tool);

    if (!strcmp(tool, "nvidia-smi") && hardware) {
        double pw[8], fq[8], ip = 0, dummy;
        int n = argc - optind, have[8] = {0};
        json_t *hw = json_object(), *pa = json_array(), *fa = json_array(), *root = json_object();
        if (model) {
            json_decref(hw), json_decref(pa), json_decref(fa), json_decref(root);
            return cli_usage_error(CMD, "--model: not with --hardware (the hardware section)");
        }
        if (pair) {
            json_decref(hw), json_decref(pa), json_decref(fa), json_decref(root);
            return cli_usage_error(CMD, "--pair: not with --hardware (a model's pair run)");
        }
        st = SLO_EXIT_OK;
        if (n < 3 || n > 8)
            st = cli_usage_error(CMD, "--hardware: expected 3 to 8 runs C:FILE (C = 1..n "
                                      "co-running instances), found %d",
                                 n);
        for (int k = 0; !st && k < n; k++) {
            struct point pt;
            if ((st = parse_point(argv[optind + k], 0, &pt)))
                break;
            if (pt.batch > n || have[pt.batch - 1]) {
                st = cli_usage_error(CMD, "%s: expected each C in 1..%d once, found C = %d%s",
                                     pt.file, n, pt.batch,
                                     pt.batch > n ? "" : " again");
                break;
            }
            have[pt.batch - 1] = 1;
            st = smi_means(pt.file, &pw[pt.batch - 1], &fq[pt.batch - 1]);
        }
        if (!st && idle)
            st = smi_means(idle, &ip, &dummy);
        if (st) {
            json_decref(hw), json_decref(pa), json_decref(fa), json_decref(root);
            return st;
        }
        for (int k = 0; k < n; k++) {
            json_array_append_new(pa, json_real(pw[k]));
            json_array_append_new(fa, json_real(fq[k]));
        }
        if (idle)
            json_object_set_new(hw, "idlepower", json_real(ip));
        json_object_set_new(hw, "power", pa);
        json_object_set_new(hw, "frequency", fa);
        json_object_set_new(root, "hardware", hw);
        return print_line(root);
    }
    if ((st = check_model(model)))
        return st;
    if (idle)
        return cli_usage_error(CMD, "--idle: only with --hardware");
    {
        json_t *sec = json_object(), *root = json_object();
        if (!strcmp(tool, "ncu")) {
            /* 1:20 -> l2cache, kernel, activetime_1; the diagonal -> l2caches */
            static const int db[3] = {1, 16, 32}, dr[3] = {10, 50, 100};
            int have[4] = {0};
            double l2[4] = {0}, busy = 0;
            size_t kernels = 0;
            st = SLO_EXIT_OK;
            for (int k = optind; !st && k < argc; k++) {
                struct point pt;
                int slot = -1;
                double b_ms = 0;
                size_t kn = 0;
                if ((st = parse_point(argv[k], 1, &pt)))
                    break;
                if (pt.batch == 1 && pt.share == 20)
                    slot = 0;
                for (int d = 0; d < 3; d++)
                    if (pt.batch == db[d] && pt.share == dr[d])
                        slot = d + 1;
                if (slot < 0 || have[slot]) {
                    st = cli_usage_error(CMD, "%s: expected each of the points 1:20, 1:10, 16:50 "
                                              "and 32:100 once, found %d:%d%s",
                                         pt.file, pt.batch, pt.share, slot < 0 ? "" : " again");
                    break;
                }
                have[slot] = 1;
                if ((st = ncu_l2(pt.file, &l2[slot], &kn, &b_ms)))
                    break;
                if (slot == 0) {
                    kernels = kn;
                    busy = b_ms;
                }
            }
            for (int s = 0; !st && s < 4; s++)
                if (!have[s])
                    st = cli_usage_error(CMD, "expected the runs 1:20:FILE (l2cache), 1:10, "
                                              "16:50 and 32:100 (l2caches), found no %s",
                                         s == 0 ? "1:20" : s == 1 ? "1:10" : s == 2 ? "16:50"
                                                                                    : "32:100");
            if (!st && fmod((double)kernels, inferences) != 0)
                st = cli_usage_error(CMD, "--inferences: expected a divisor of the %zu kernels "
                                          "profiled at 1:20, found %g",
                                     kernels, inferences);
            if (st) {
                json_decref(sec), json_decref(root);
                return st;
            }
            {
                json_t *d = json_array();
                for (int s = 1; s < 4; s++)
                    json_array_append_new(d, json_real(l2[s]));
                json_object_set_new(sec, "l2cache", json_real(l2[0]));
                json_object_set_new(sec, "l2caches", d);
                json_object_set_new(sec, "kernel",
                                    json_integer((json_int_t)((double)kernels / inferences)));
                json_object_set_new(sec, "activetime_1", json_real(busy / inferences));
            }
        } else {
            struct point pts[9];
            double a[9], b[9];
            if ((st = grid_points(argv + optind, argc - optind, pts))) {
                json_decref(sec), json_decref(root);
                return st;
            }
            for (int g = 0; g < 9; g++) {
                st = !strcmp(tool, "perf-analyzer") ? perf_analyzer_ms(pts[g].file, &a[g])
                                                    : smi_means(pts[g].file, &a[g], &b[g]);
                if (st) {
                    json_decref(sec), json_decref(root);
                    return st;
                }
            }
            if (!strcmp(tool, "perf-analyzer")) {
                json_object_set_new(sec, "gpulatency", grid_json(a));
            } else {
                json_object_set_new(sec, "power", grid_json(a));
                json_object_set_new(sec, "frequency", grid_json(b));
                if (pair) {
                    double p2, f2;
                    if ((st = smi_means(pair, &p2, &f2))) {
                        json_decref(sec), json_decref(root);
                        return st;
                    }
                    json_object_set_new(sec, "power_2", json_real(p2));
                    json_object_set_new(sec, "frequency_2", json_real(f2));
                }
            }
        }
        json_object_set_new(root, model, sec);
        return print_line(root);
    }
}
