/*
 * cmd_comm.c - `slo comm`: compare gradient communication schedulers (FIFO,
 * priority, P3, ByteScheduler, Horovod, DDP, Prophet, our optimal block
 * planner) on a model and a link, against the perfect-overlap lower bound
 * (libslo's slo_comm.h; doc/comm.md).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "slo_comm.h"

#define CMD "comm"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slo comm --model resnet50|vgg16|FILE --bandwidth BW [--latency L]\n"
            "                [--workers N] [--collective ring|ps] [--in-flight N]\n"
            "                [--profile FILE]\n"
            "                [--forward-ms MS]\n"
            "                [--policy all|NAME] [--json] [--trace FILE]\n"
            "                [--recommend ddp|horovod|deepspeed]\n"
            "\n"
            "Simulate one steady-state training iteration (backward, gradient\n"
            "communication, next forward) under each gradient scheduling policy and\n"
            "compare its period T with the perfect-overlap lower bound T_LB\n"
            "(rho = T / T_LB). Model and formulas: doc/comm.md.\n"
            "  --model M        built-in model (resnet50, vgg16: PipeDream profiles, batch\n"
            "                   128) or a per-layer CSV (columns forward_ms, backward_ms\n"
            "                   or ready_ms, param_bytes; format of\n"
            "                   shared/data/prophet/pipedream_*_layers.csv), or a gradient\n"
            "                   ready-time file (columns grad_index, bytes_fp32, and ready_ms\n"
            "                   or prophet_step + step_interval_ms_bs64, as\n"
            "                   shared/data/prophet/resnet50_v2_mxnet_prophet_gradients.csv)\n"
            "  --forward-ms MS  total forward time for a gradient ready-time file, ms\n"
            "                   (default: 182.5/260.9 x backward, PipeDream ResNet-50's ratio)\n"
            "  --bandwidth BW   per-worker link bandwidth: 10Gbit, 10Gb/s, 10Gbps, 1.25GB/s,\n"
            "                   1250MB/s (bytes need /s), 8bit/s..800Tbit/s\n"
            "  --latency L      per-step latency alpha: 20us (default), 0.05ms, 0s; <= 1s\n"
            "  --workers N      data-parallel workers, >= 2 (default 8)\n"
            "  --collective C   ring (allreduce, default) or ps (push + pull)\n"
            "  --profile FILE   take bandwidth, latency and workers from a slo-mpiprof\n"
            "                   profile (its allreduce fit under the ring model;\n"
            "                   doc/mpiprof.md) or from nccl-tests all_reduce_perf output\n"
            "                   (its out-of-place times, the same fit); --bandwidth,\n"
            "                   --latency and --workers given as well override the profile's\n"
            "  --in-flight N    collectives in flight at once: 1 (default, serialized)\n"
            "                   or more; 0 = unlimited\n"
            "  --policy P       all (default) or one of: fifo, prio, p3, bytescheduler,\n"
            "                   horovod, ddp, prophet, optimal\n"
            "  --json           one JSON object on stdout (schema: doc/comm.md)\n"
            "  --trace FILE     write a Chrome trace-event JSON (Perfetto, chrome://tracing):\n"
            "                   one process per policy, compute and link on separate tracks\n"
            "  --recommend FW   instead of the policy table: the knobs of ddp (bucket_cap_mb,\n"
            "                   first bucket), horovod (HOROVOD_FUSION_THRESHOLD,\n"
            "                   HOROVOD_CYCLE_TIME) or deepspeed (reduce_bucket_size) that\n"
            "                   come closest to the optimal plan under the same simulator,\n"
            "                   with T of the default, the knobs and the optimal plan\n"
            "Values contain no spaces; an option given twice must have the same value.\n"
            "Limits (doc/comm.md): 1e11 gradient bytes, 100000 layers, 1e8 ms of times.\n"
            "Exit status: 0 success, 2 bad input, 1 internal error or a failed write.\n");
}

struct options {
    const char *model, *trace;
    const char *profile;  /* --profile FILE (slo-mpiprof document) or NULL */
    int have_latency, have_workers;
    double forward_s; /* --forward-ms, seconds; < 0 = not given */
    struct slo_comm_link link;
    int have_bandwidth;
    int policy; /* -1 = all */
    int json;
    int recommend; /* --recommend: enum slo_comm_framework, or -1 */
    struct cli_seen seen; /* options given so far (cli_repeated_option) */
};

static int parse_int(const char *opt, const char *text, long min, long max, const char *what,
                     int *out)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(text, &end, 10);
    /* no spaces, as for every number: strtol would skip leading ones */
    if (!*text || isspace((unsigned char)*text) || *end || errno || v < min || v > max) {
        cli_usage_error(CMD, "%s: expected %s, found \"%s\" (the range is %ld..%ld)", opt,
                        what, text, min, max);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* 0 ok, 1 help printed, -1 error printed */
static int parse_options(int argc, char **argv, struct options *o)
{
    enum { O_MODEL = 256, O_BANDWIDTH, O_LATENCY, O_WORKERS, O_COLLECTIVE, O_INFLIGHT,
           O_POLICY, O_JSON, O_TRACE, O_FORWARD, O_HELP, O_PROFILE, O_RECOMMEND };
    static const struct option longopts[] = {
        {"model", required_argument, NULL, O_MODEL},
        {"bandwidth", required_argument, NULL, O_BANDWIDTH},
        {"latency", required_argument, NULL, O_LATENCY},
        {"workers", required_argument, NULL, O_WORKERS},
        {"collective", required_argument, NULL, O_COLLECTIVE},
        {"in-flight", required_argument, NULL, O_INFLIGHT},
        {"policy", required_argument, NULL, O_POLICY},
        {"json", no_argument, NULL, O_JSON},
        {"trace", required_argument, NULL, O_TRACE},
        {"forward-ms", required_argument, NULL, O_FORWARD},
        {"help", no_argument, NULL, O_HELP},
        {"profile", required_argument, NULL, O_PROFILE},
        {"recommend", required_argument, NULL, O_RECOMMEND},
        {NULL, 0, NULL, 0}};
    slo_error_t err = {0};
    int c;

    memset(o, 0, sizeof *o);
    o->link.latency_s = 20e-6;
    o->link.workers = 8;
    o->link.collective = SLO_COMM_RING;
    o->link.max_in_flight = 1;
    o->policy = -1;
    o->forward_s = -1;
    o->recommend = -1;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        /* an option given twice must have the same value (doc/cli.md);
         * that includes --policy: "--policy all --policy fifo" is an error */
        if (cli_repeated_option(CMD, longopts, O_MODEL, c, optarg, &o->seen))
            return -1;
        switch (c) {
        case O_MODEL: o->model = optarg; break;
        case O_BANDWIDTH:
            if (slo_comm_parse_bandwidth(optarg, &o->link.bandwidth_bytes_per_s, &err)) {
                cli_usage_error(CMD, "--bandwidth: %s", err.text);
                return -1;
            }
            o->have_bandwidth = 1;
            break;
        case O_LATENCY:
            if (slo_comm_parse_latency(optarg, &o->link.latency_s, &err)) {
                cli_usage_error(CMD, "--latency: %s", err.text);
                return -1;
            }
            o->have_latency = 1;
            break;
        case O_WORKERS:
            if (parse_int("--workers", optarg, 2, SLO_COMM_MAX_WORKERS, "an integer >= 2",
                          &o->link.workers))
                return -1;
            o->have_workers = 1;
            break;
        case O_COLLECTIVE:
            if (strcmp(optarg, "ring") == 0)
                o->link.collective = SLO_COMM_RING;
            else if (strcmp(optarg, "ps") == 0)
                o->link.collective = SLO_COMM_PS;
            else {
                cli_usage_error(CMD, "--collective: expected ring or ps, found \"%s\"", optarg);
                return -1;
            }
            break;
        case O_INFLIGHT:
            if (parse_int("--in-flight", optarg, 0, SLO_COMM_MAX_IN_FLIGHT,
                          "an integer >= 0 (0 = unlimited)", &o->link.max_in_flight))
                return -1;
            break;
        case O_POLICY:
            if (strcmp(optarg, "all") == 0) {
                o->policy = -1;
            } else if ((o->policy = slo_comm_policy_find(optarg)) < 0) {
                char names[256] = "all";
                for (int p = 0; p < SLO_COMM_N_POLICIES; p++) {
                    size_t used = strlen(names);
                    snprintf(names + used, sizeof names - used, ", %s", slo_comm_policy_name(p));
                }
                cli_usage_error(CMD, "--policy: expected one of %s, found \"%s\"", names, optarg);
                return -1;
            }
            break;
        case O_JSON: o->json = 1; break;
        case O_TRACE: o->trace = optarg; break;
        case O_FORWARD: {
            char *end;
            double v;
            errno = 0;
            v = slo_strtod(optarg, &end);
            if (!*optarg || isspace((unsigned char)*optarg) || *end || errno || !isfinite(v) ||
                v < 0) {
                cli_usage_error(CMD, "--forward-ms: expected a number of milliseconds >= 0, "
                                     "found \"%s\" (the range is 0..%g)",
                                optarg, SLO_COMM_MAX_TIME_S * 1e3);
                return -1;
            }
            if (v > SLO_COMM_MAX_TIME_S * 1e3) {
                cli_usage_error(CMD, "--forward-ms: expected at most %g ms, found \"%s\"",
                                SLO_COMM_MAX_TIME_S * 1e3, optarg);
                return -1;
            }
            o->forward_s = v / 1e3;
            break;
        }
        case O_PROFILE: o->profile = optarg; break;
        case O_RECOMMEND:
            if ((o->recommend = slo_comm_framework_find(optarg)) < 0) {
                cli_usage_error(CMD, "--recommend: expected ddp, horovod or deepspeed, found "
                                     "\"%s\"", optarg);
                return -1;
            }
            break;
        case O_HELP: usage(stdout); return 1;
        case ':':
            cli_usage_error(CMD, "%s: expected a value, found none", argv[optind - 1]);
            return -1;
        default:
            cli_usage_error(CMD, "unknown option \"%s\" (slo comm --help)",
                            cli_refused_option(argc, argv));
            return -1;
        }
    }
    if (optind < argc) {
        cli_usage_error(CMD, "unexpected argument \"%s\" (slo comm --help)", argv[optind]);
        return -1;
    }
    if (!o->model) {
        cli_usage_error(CMD, "--model: expected resnet50, vgg16 or a per-layer CSV file, "
                             "found it missing");
        return -1;
    }
    if (o->recommend >= 0 && (o->policy >= 0 || o->trace)) {
        cli_usage_error(CMD, "--recommend: expected no %s with it (it compares the framework's "
                             "knobs with the optimal plan), found both",
                        o->trace ? "--trace" : "--policy");
        return -1;
    }
    /* DDP, Horovod and DeepSpeed reduce gradients by allreduce (NCCL, gloo,
     * MPI); their knobs under a parameter server would be no framework's */
    if (o->recommend >= 0 && o->link.collective == SLO_COMM_PS) {
        cli_usage_error(CMD, "--recommend %s: expected --collective ring (%s reduces gradients "
                             "by allreduce), found --collective ps",
                        slo_comm_framework_name(o->recommend),
                        slo_comm_framework_name(o->recommend));
        return -1;
    }
    if (!o->have_bandwidth && !o->profile) {
        cli_usage_error(CMD, "--bandwidth: expected a bandwidth such as 10Gbit or 1.25GB/s "
                             "(or --profile FILE), found it missing");
        return -1;
    }
    return 0;
}

/* 0, or the exit status after printing the error.
 * --profile FILE: the link measured by slo-mpiprof (doc/mpiprof.md); the
 * options given explicitly win. A bandwidth the profiler flagged suspect
 * (above its memcpy ceiling) is refused unless --bandwidth replaces it. */
static int apply_profile(struct options *o)
{
    struct slo_comm_link link;
    struct slo_comm_profile_info info;
    slo_error_t err = {0};

    if (!o->profile)
        return 0;
    if (slo_comm_profile_load(o->profile, &link, &info, &err))
        return cli_report(CMD, &err);
    if (!o->have_bandwidth) {
        if (info.bandwidth_suspect) {
            cli_usage_error(CMD, "--profile: %s: allreduce.ring_model.link_bandwidth_bytes_per_s "
                                 "is flagged suspect by slo-mpiprof (%s); expected a trusted "
                                 "figure, give --bandwidth to override it",
                            o->profile, info.suspect_reason);
            return SLO_EXIT_USAGE;
        }
        o->link.bandwidth_bytes_per_s = link.bandwidth_bytes_per_s;
    }
    if (!o->have_latency)
        o->link.latency_s = link.latency_s;
    if (!o->have_workers)
        o->link.workers = link.workers;
    return 0;
}

/* 1 when path names the same existing file as input (same device and
 * inode: also through a symlink or another spelling of the path). */
static int same_file(const char *path, const char *input)
{
    struct stat a, b;
    return input && stat(path, &a) == 0 && stat(input, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

/* A block (collective) of a result: its ranges are messages[from, to). */
struct block_view {
    size_t from, to, first_layer, last_layer;
    double bytes, start_s, end_s, done_s;
};

static size_t next_block(const struct slo_comm_result *r, size_t from, struct block_view *b)
{
    size_t k = from;
    b->from = from;
    b->first_layer = r->messages[from].first_layer;
    b->last_layer = r->messages[from].last_layer;
    b->bytes = 0;
    b->start_s = r->messages[from].start_s;
    b->end_s = r->messages[from].end_s;
    b->done_s = r->messages[from].done_s;
    for (; k < r->n_messages && r->messages[k].block == r->messages[from].block; k++) {
        const struct slo_comm_message *m = &r->messages[k];
        if (m->first_layer < b->first_layer)
            b->first_layer = m->first_layer;
        if (m->last_layer > b->last_layer)
            b->last_layer = m->last_layer;
        b->bytes += m->bytes;
        if (m->end_s > b->end_s)
            b->end_s = m->end_s;
    }
    b->to = k;
    return k;
}

/* The plan's blocks as the kernel writes them (slo_comm_plan_to_json):
 * integer byte offsets at element granularity, the simulator's times. */
static json_t *blocks_json(const struct slo_comm_result *r)
{
    char *text = NULL;
    json_t *plan, *blocks;
    if (slo_comm_plan_to_json(&r->plan, &text, NULL))
        return NULL;
    plan = json_loads(text, 0, NULL);
    free(text);
    blocks = json_incref(json_object_get(plan, "blocks"));
    json_decref(plan);
    return blocks;
}

static int trace_event(json_t *ev, const char *name, const char *cat, int pid, int tid,
                       double ts_s, double dur_s)
{
    json_t *e = json_pack("{s:s,s:s,s:s,s:f,s:f,s:i,s:i}", "name", name, "cat", cat, "ph", "X",
                          "ts", ts_s * 1e6, "dur", dur_s * 1e6, "pid", pid, "tid", tid);
    return !e || json_array_append_new(ev, e);
}

static int trace_meta(json_t *ev, const char *what, int pid, int tid, const char *name)
{
    json_t *e = json_pack("{s:s,s:s,s:i,s:i,s:{s:s}}", "name", what, "ph", "M", "pid", pid,
                          "tid", tid, "args", "name", name);
    return !e || json_array_append_new(ev, e);
}

/* Chrome trace-event format ("JSON Object Format", "Complete" events "X",
 * times in microseconds): per policy one process with a compute track
 * (this iteration's backward, then the next forward) and a link track. */
static int write_trace(FILE *out, const char *path, const struct slo_comm_model *m,
                       const struct slo_comm_result *res, const int *which, int n)
{
    json_t *root = json_object(), *ev = json_array();
    char name[160];
    int bad = !root || !ev || json_object_set_new(root, "traceEvents", ev);

    for (int i = 0; !bad && i < n; i++) {
        const struct slo_comm_result *r = &res[which[i]];
        int pid = i + 1;
        double t = r->backward_s;
        struct block_view b;
        snprintf(name, sizeof name, "%s (T = %.1f ms, rho = %.3f)",
                 slo_comm_policy_name(which[i]), r->iteration_s * 1e3, r->rho);
        bad |= trace_meta(ev, "process_name", pid, 0, name);
        bad |= trace_meta(ev, "thread_name", pid, 1, "compute");
        bad |= trace_meta(ev, "thread_name", pid, 2, "link");
        /* backward from the last layer down, starting at 0 */
        t = 0;
        for (size_t j = m->n_layers; !bad && j-- > 0;) {
            if (m->layers[j].backward_s > 0) {
                snprintf(name, sizeof name, "backward %zu %s", j, m->layers[j].name);
                bad |= trace_event(ev, name, "backward", pid, 1, t, m->layers[j].backward_s);
            }
            t += m->layers[j].backward_s;
        }
        for (size_t j = 0; !bad && j < m->n_layers; j++)
            if (m->layers[j].forward_s > 0) {
                snprintf(name, sizeof name, "forward %zu %s", j, m->layers[j].name);
                bad |= trace_event(ev, name, "forward", pid, 1, r->forward_start_s[j],
                                   m->layers[j].forward_s);
            }
        for (size_t k = 0; !bad && k < r->n_messages;) {
            size_t blk = r->messages[k].block;
            k = next_block(r, k, &b);
            snprintf(name, sizeof name, "block %zu: layers %zu-%zu, %.3f MB, done %.3f ms", blk,
                     b.first_layer, b.last_layer, b.bytes / 1e6, b.done_s * 1e3);
            bad |= trace_event(ev, name, "transfer", pid, 2, b.start_s,
                               b.end_s - b.start_s > 0 ? b.end_s - b.start_s : 0);
        }
    }
    if (!bad)
        bad = json_object_set_new(root, "displayTimeUnit", json_string("ms")) ||
              json_object_set_new(root, "otherData",
                                  json_pack("{s:s,s:s}", "generator", "slo comm", "time_origin",
                                            "start of the backward pass"));
    if (bad) {
        json_decref(root);
        fprintf(stderr, "slo %s: out of memory building the trace\n", CMD);
        return SLO_EXIT_INTERNAL;
    }
    /* a file that was opened but cannot be written (a full disk) is an
     * output failure: exit 1, as for stdout (doc/cli.md) */
    errno = 0;
    /* 17 digits: timestamps are in us and reach 1e14 on the slowest links
     * the CLI accepts (8 bit/s); 10 digits merged distinct events */
    if (json_dumpf(root, out, JSON_COMPACT | JSON_REAL_PRECISION(17)) || fflush(out) ||
        ferror(out)) {
        json_decref(root);
        fprintf(stderr, "slo %s: --trace: cannot write \"%s\": %s\n", CMD, path,
                errno ? strerror(errno) : "write error");
        return SLO_EXIT_INTERNAL;
    }
    json_decref(root);
    return SLO_EXIT_OK;
}

/* root (NULL: out of memory) as the --json document on stdout; the exit status */
static int emit_json(json_t *root)
{
    if (!root) {
        fprintf(stderr, "slo %s: out of memory building the JSON output\n", CMD);
        return SLO_EXIT_INTERNAL;
    }
    json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
    fputc('\n', stdout);
    json_decref(root);
    return SLO_EXIT_OK;
}

static int print_json(const struct options *o, const struct slo_comm_model *m, size_t grads,
                      double total_bytes, double lb, double seq, double comp,
                      const struct slo_comm_result *res, const int *which, int n, double t_fifo)
{
    json_t *root, *pols = json_array();
    for (int i = 0; pols && i < n; i++) {
        const struct slo_comm_result *r = &res[which[i]];
        json_t *blocks = blocks_json(r), *p;
        /* n_blocks and elem_bytes of the plan the blocks are (a block that
         * rounds to no element is not in it; slo_comm_plan_parse checks both) */
        p = blocks ? json_pack("{s:s,s:s,s:b,s:f,s:f,s:f,s:f,s:I,s:I,s:o}", "name",
                               slo_comm_policy_name(which[i]), "summary",
                               slo_comm_policy_summary(which[i]), "barrier",
                               slo_comm_policy_barrier(which[i]), "iteration_s", r->iteration_s,
                               "rho", r->rho, "overlap_efficiency", r->overlap_efficiency,
                               "speedup_vs_fifo", t_fifo / r->iteration_s, "n_blocks",
                               (json_int_t)r->plan.n_blocks, "elem_bytes",
                               (json_int_t)r->plan.elem_bytes, "blocks", blocks)
                   : NULL;
        if (!p || json_array_append_new(pols, p)) {
            json_decref(pols);
            pols = NULL;
        }
    }
    root = pols ? json_pack("{s:{s:s,s:I,s:I,s:f},s:{s:f,s:f,s:i,s:s,s:i,s:f,s:f},"
                            "s:f,s:f,s:f,s:f,s:o}",
                            "model", "name", m->name, "layers", (json_int_t)m->n_layers,
                            "gradients", (json_int_t)grads, "bytes", total_bytes, "link",
                            "bandwidth_bytes_per_s", o->link.bandwidth_bytes_per_s, "latency_s",
                            o->link.latency_s, "workers", o->link.workers, "collective",
                            slo_comm_collective_name(o->link.collective), "max_in_flight",
                            o->link.max_in_flight, "message_latency_s",
                            slo_comm_message_latency_s(&o->link), "bytes_factor",
                            slo_comm_bytes_factor(&o->link), "compute_s", comp,
                            "communication_s", seq - comp, "sequential_s", seq, "lower_bound_s",
                            lb, "policies", pols)
                : NULL;
    return emit_json(root);
}

static void print_table(const struct options *o, const struct slo_comm_model *m, size_t grads,
                        double total_bytes, double lb, double seq, double comp,
                        const struct slo_comm_result *res, const int *which, int n,
                        double t_fifo)
{
    int shown = o->policy >= 0 ? o->policy : SLO_COMM_OPTIMAL;
    const struct slo_comm_result *r = &res[shown];
    struct block_view b;

    printf("model %s: %zu layers, %zu gradients, %.1f MB\n", m->name, m->n_layers, grads,
           total_bytes / 1e6);
    printf("link: %s, %d workers, %.4g Gbit/s (%.4g MB/s), alpha %.4g us (%.4g us per "
           "collective), %d in flight%s\n",
           o->link.collective == SLO_COMM_RING ? "ring allreduce" : "parameter server",
           o->link.workers, o->link.bandwidth_bytes_per_s * 8 / 1e9,
           o->link.bandwidth_bytes_per_s / 1e6, o->link.latency_s * 1e6,
           slo_comm_message_latency_s(&o->link) * 1e6, o->link.max_in_flight,
           o->link.max_in_flight == 0 ? " (unlimited)" : "");
    printf("compute F+Bw %.2f ms, communication %.2f ms, no overlap %.2f ms, lower bound "
           "T_LB %.2f ms\n\n",
           comp * 1e3, (seq - comp) * 1e3, seq * 1e3, lb * 1e3);
    printf("%-14s %12s %8s %8s %8s %7s\n", "policy", "iteration ms", "rho", "overlap",
           "vs fifo", "blocks");
    for (int i = 0; i < n; i++) {
        const struct slo_comm_result *q = &res[which[i]];
        printf("%-14s %12.2f %8.4f %8.3f %8.3f %7zu\n", slo_comm_policy_name(which[i]),
               q->iteration_s * 1e3, q->rho, q->overlap_efficiency, t_fifo / q->iteration_s,
               q->n_blocks);
    }
    printf("\nplan of %s: %zu blocks (times from the start of the backward pass)\n",
           slo_comm_policy_name(shown), r->n_blocks);
    printf("%6s %11s %6s %12s %10s %10s %10s\n", "block", "layers", "ranges", "MB", "start ms",
           "end ms", "done ms");
    for (size_t k = 0; k < r->n_messages;) {
        size_t blk = r->messages[k].block;
        char layers[32];
        k = next_block(r, k, &b);
        snprintf(layers, sizeof layers, "%zu-%zu", b.first_layer, b.last_layer);
        printf("%6zu %11s %6zu %12.3f %10.3f %10.3f %10.3f\n", blk, layers, b.to - b.from,
               b.bytes / 1e6, b.start_s * 1e3, b.end_s * 1e3, b.done_s * 1e3);
    }
}

/* --recommend: the framework's knobs (slo_comm_recommend), table or JSON */
static int print_recommend(const struct options *o, const struct slo_comm_model *m)
{
    struct slo_comm_problem prob = {m, &o->link};
    struct slo_comm_recommendation r;
    const struct slo_comm_knobs *k = &r.knobs, *d = &r.defaults;
    slo_error_t err = {0};
    const char *fw = slo_comm_framework_name(o->recommend);
    json_t *root, *knobs, *defs;

    if (slo_comm_recommend(&prob, o->recommend, 4, &r, &err))
        return cli_report(CMD, &err);
    if (o->json) {
        switch (o->recommend) {
        case SLO_COMM_FRAMEWORK_DDP:
            knobs = json_pack("{s:f,s:f,s:I}", "bucket_cap_mb", k->ddp_bucket_cap_mb,
                              "first_bucket_mb", k->ddp_first_bucket_mb, "first_bucket_bytes",
                              (json_int_t)(k->ddp_first_bucket_mb * 1048576.0));
            defs = json_pack("{s:f,s:f,s:I}", "bucket_cap_mb", d->ddp_bucket_cap_mb,
                             "first_bucket_mb", d->ddp_first_bucket_mb, "first_bucket_bytes",
                             (json_int_t)(d->ddp_first_bucket_mb * 1048576.0));
            break;
        case SLO_COMM_FRAMEWORK_HOROVOD:
            knobs = json_pack("{s:I,s:f}", "HOROVOD_FUSION_THRESHOLD",
                              (json_int_t)k->hvd_fusion_threshold_bytes, "HOROVOD_CYCLE_TIME",
                              k->hvd_cycle_time_ms);
            defs = json_pack("{s:I,s:f}", "HOROVOD_FUSION_THRESHOLD",
                             (json_int_t)d->hvd_fusion_threshold_bytes, "HOROVOD_CYCLE_TIME",
                             d->hvd_cycle_time_ms);
            break;
        default:
            knobs = json_pack("{s:I,s:I}", "reduce_bucket_size",
                              (json_int_t)k->ds_reduce_bucket_size, "allgather_bucket_size",
                              (json_int_t)k->ds_allgather_bucket_size);
            defs = json_pack("{s:I,s:I}", "reduce_bucket_size",
                             (json_int_t)d->ds_reduce_bucket_size, "allgather_bucket_size",
                             (json_int_t)d->ds_allgather_bucket_size);
            break;
        }
        root = knobs && defs
                   ? json_pack("{s:{s:s,s:I},s:{s:f,s:f,s:i,s:s,s:i},s:{s:s,s:s,s:s,s:o,s:o,"
                               "s:f,s:f,s:f,s:f,s:I}}",
                               "model", "name", m->name, "layers", (json_int_t)m->n_layers,
                               "link", "bandwidth_bytes_per_s", o->link.bandwidth_bytes_per_s,
                               "latency_s", o->link.latency_s, "workers", o->link.workers,
                               "collective", slo_comm_collective_name(o->link.collective),
                               "max_in_flight", o->link.max_in_flight,
                               "recommend", "framework", fw, "status",
                               r.status == SLO_STATUS_OPTIMAL ? "optimal" : "feasible_unproven",
                               "reason", r.reason, "knobs", knobs, "defaults", defs,
                               "iteration_s", r.iteration_s, "default_iteration_s",
                               r.default_iteration_s, "optimal_iteration_s",
                               r.optimal_iteration_s, "lower_bound_s", r.lower_bound_s,
                               "evaluated", (json_int_t)r.n_evaluated)
                   : NULL;
        if (!knobs || !defs) { /* not given to json_pack (which steals "o" even on error) */
            json_decref(knobs);
            json_decref(defs);
        }
        return emit_json(root);
    }
    printf("model %s: %zu layers; link %.4g Gbit/s, alpha %.4g us, %d workers, %s\n", m->name,
           m->n_layers, o->link.bandwidth_bytes_per_s * 8 / 1e9, o->link.latency_s * 1e6,
           o->link.workers, o->link.collective == SLO_COMM_RING ? "ring" : "ps");
    switch (o->recommend) {
    case SLO_COMM_FRAMEWORK_DDP:
        printf("recommend ddp: DistributedDataParallel(bucket_cap_mb=%g), first bucket %g MiB "
               "(torch.distributed._DEFAULT_FIRST_BUCKET_BYTES = %.0f)\n",
               k->ddp_bucket_cap_mb, k->ddp_first_bucket_mb, k->ddp_first_bucket_mb * 1048576.0);
        printf("default:       bucket_cap_mb=%g, first bucket %g MiB\n", d->ddp_bucket_cap_mb,
               d->ddp_first_bucket_mb);
        break;
    case SLO_COMM_FRAMEWORK_HOROVOD:
        printf("recommend horovod: HOROVOD_FUSION_THRESHOLD=%.0f HOROVOD_CYCLE_TIME=%g\n",
               k->hvd_fusion_threshold_bytes, k->hvd_cycle_time_ms);
        printf("default:           HOROVOD_FUSION_THRESHOLD=%.0f HOROVOD_CYCLE_TIME=%g\n",
               d->hvd_fusion_threshold_bytes, d->hvd_cycle_time_ms);
        break;
    default:
        printf("recommend deepspeed: zero_optimization.reduce_bucket_size=%.0f (allgather_bucket_"
               "size not modelled: %.0f)\n", k->ds_reduce_bucket_size, k->ds_allgather_bucket_size);
        printf("default:             zero_optimization.reduce_bucket_size=%.0f\n",
               d->ds_reduce_bucket_size);
        break;
    }
    printf("\n%-22s %12s %8s\n", "", "iteration ms", "rho");
    printf("%-22s %12.2f %8.4f\n", "framework default", r.default_iteration_s * 1e3,
           r.default_iteration_s / r.lower_bound_s);
    printf("%-22s %12.2f %8.4f\n", "recommended knobs", r.iteration_s * 1e3,
           r.iteration_s / r.lower_bound_s);
    printf("%-22s %12.2f %8.4f\n", "optimal plan", r.optimal_iteration_s * 1e3,
           r.optimal_iteration_s / r.lower_bound_s);
    printf("%-22s %12.2f %8.4f\n", "lower bound T_LB", r.lower_bound_s * 1e3, 1.0);
    printf("(%zu knob settings simulated%s%s)\n", r.n_evaluated, *r.reason ? "; " : "",
           *r.reason ? "not proven best: a setting off the grid may be faster" : "");
    return SLO_EXIT_OK;
}

int slo_cmd_comm(int argc, char **argv)
{
    struct options o;
    struct slo_comm_model m;
    struct slo_comm_result res[SLO_COMM_N_POLICIES];
    int which[SLO_COMM_N_POLICIES], n = 0, rc, status = SLO_EXIT_OK;
    slo_error_t err = {0};
    double lb, seq, comp, total = 0;
    size_t grads = 0;
    FILE *trace = NULL;

    memset(res, 0, sizeof res);
    if ((rc = parse_options(argc, argv, &o)))
        return rc > 0 ? SLO_EXIT_OK : SLO_EXIT_USAGE;
    if ((rc = apply_profile(&o)))
        return rc;
    if (slo_comm_model_open(o.model, o.forward_s, "--model", "--forward-ms", &m, &err))
        return cli_report(CMD, &err);
    if (o.recommend >= 0) {
        status = print_recommend(&o, &m);
        slo_comm_model_free(&m);
        return status;
    }
    /* the trace must not overwrite an input (it is opened for writing, so
     * the file would be emptied) */
    if (o.trace && (same_file(o.trace, o.model) || same_file(o.trace, o.profile))) {
        status = cli_usage_error(CMD, "--trace: expected a file other than the inputs, found "
                                      "\"%s\", which is the %s file",
                                 o.trace, same_file(o.trace, o.model) ? "--model" : "--profile");
        slo_comm_model_free(&m);
        return status;
    }
    /* open the trace file first: a bad path fails before any output */
    if (o.trace && !(trace = fopen(o.trace, "w"))) {
        status = cli_usage_error(CMD, "--trace: cannot write \"%s\": %s", o.trace,
                                 strerror(errno));
        slo_comm_model_free(&m);
        return status;
    }
    for (size_t j = 0; j < m.n_layers; j++) {
        total += m.layers[j].grad_bytes;
        grads += m.layers[j].grad_bytes > 0;
    }
    if (slo_comm_lower_bound(&m, &o.link, &lb, &seq, &comp, &err)) {
        status = cli_report(CMD, &err);
        goto out;
    }
    for (int p = 0; p < SLO_COMM_N_POLICIES; p++) {
        if (o.policy >= 0 && p != o.policy && p != SLO_COMM_FIFO)
            continue;
        struct slo_comm_problem prob = {&m, &o.link};
        struct slo_comm_options opt;
        slo_comm_options_init(&opt);
        opt.policy = p;
        if (slo_comm_solve(&prob, &opt, &res[p], &err)) {
            status = cli_report(CMD, &err);
            goto out;
        }
        if (o.policy < 0 || p == o.policy)
            which[n++] = p;
    }
    /* the trace first, closed and checked: nothing is on stdout when it
     * fails */
    if (trace) {
        status = write_trace(trace, o.trace, &m, res, which, n);
        errno = 0;
        if (fclose(trace) && status == SLO_EXIT_OK) {
            fprintf(stderr, "slo %s: --trace: cannot write \"%s\": %s\n", CMD, o.trace,
                    errno ? strerror(errno) : "write error");
            status = SLO_EXIT_INTERNAL;
        }
        trace = NULL;
        if (status != SLO_EXIT_OK)
            goto out;
    }
    if (o.json)
        status = print_json(&o, &m, grads, total, lb, seq, comp, res, which, n,
                            res[SLO_COMM_FIFO].iteration_s);
    else
        print_table(&o, &m, grads, total, lb, seq, comp, res, which, n,
                    res[SLO_COMM_FIFO].iteration_s);
out:
    if (trace)
        fclose(trace); /* only on an earlier failure: the status is set */
    for (int p = 0; p < SLO_COMM_N_POLICIES; p++)
        slo_comm_result_free(&res[p]);
    slo_comm_model_free(&m);
    return status;
}
