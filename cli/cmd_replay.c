/*
 * cmd_replay.c - `slo replay`: run training plans through real spot capacity
 * traces and compare five policies (on-demand, spotDNN with and without
 * re-planning, the risk-aware plan, Can't Be Late's Uniform Progress) on the
 * same traces and start times (issue 13; kernel: slo_replay.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CMD "replay"
#define MAX_TRACES (SLO_CLUSTER_MAX_TYPES / 2)

struct replay_opts {
    const char *workload, *catalog;
    const char *trace_spec[MAX_TRACES];
    size_t n_traces;
    const char *rate_spec[MAX_TRACES];
    size_t n_rates;
    double loss, time_s, overhead_s, confidence;
    int have_loss, have_time, json;
    long starts;
    struct cli_seen seen;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slo replay --trace TYPE=FILE [--trace TYPE=FILE ...] --workload NAME|FILE\n"
            "                  --slo-loss L --slo-time T [options]\n"
            "\n"
            "Replay a training job's plans through spot capacity traces (the skypilot\n"
            "spot-traces shape: {\"metadata\": {\"gap_seconds\": G}, \"data\": [N, ...]}; each\n"
            "trace limits the spot instances of TYPE tick by tick) from N start times, and\n"
            "compare on the same traces and start times: on-demand, spotdnn (spotDNN's plan,\n"
            "no re-planning), spotdnn-replan (re-planned at each loss of capacity), risk-aware\n"
            "(the cheapest expected cost with P(deadline met) >= the confidence) and\n"
            "uniform-progress (Can't Be Late, NSDI'24). Only the traced types take part, each\n"
            "as spot (capacity from its trace) and on-demand (the catalog's quota).\n"
            "\n"
            "  --trace TYPE=FILE        a trace limiting TYPE's spot capacity (repeatable,\n"
            "                           each TYPE once, all with the same tick length)\n"
            "  --workload NAME|FILE     training workload profile (embedded: resnet110)\n"
            "  --catalog NAME|FILE      instance catalog (default aws-table3)\n"
            "  --slo-loss L             target training loss\n"
            "  --slo-time T             deadline (slo train's forms: 2h, 90m, 1:30:00)\n"
            "  --starts N               start times, evenly spread (default 20)\n"
            "  --restart-overhead T     pause at every change of cluster (default 30s)\n"
            "  --slo-confidence P       risk-aware plans: P(deadline met) >= P, in (0, 1)\n"
            "                           (default 0.9)\n"
            "  --interruption-rate TYPE=R  probability in [0, 1] that a spot instance of\n"
            "                           TYPE is revoked within an hour (default: estimated\n"
            "                           from its trace)\n"
            "  --json                   one JSON object (schema: doc/cli.md)\n"
            "  --help\n"
            "\nExit status: 0 replayed; 2 bad input, or not even on-demand meets the SLO;\n"
            "1 internal error.\n");
}

static int parse_time_opt(const char *opt, const char *text, double *out, int allow_zero)
{
    slo_error_t err = {0};
    int bare = 0;
    if (allow_zero && (strcmp(text, "0") == 0 || strcmp(text, "0s") == 0)) {
        *out = 0;
        return 0;
    }
    if (slo_parse_duration(text, out, &bare, &err)) {
        cli_usage_error(CMD, "%s: %s", opt, err.text);
        return -1;
    }
    if (bare)
        fprintf(stderr, "slo " CMD ": note: %s %s read as %s minutes (sbatch --time form); "
                        "write %ss for seconds\n", opt, text, text, text);
    return 0;
}

/* "TYPE=VALUE": split at the first '='; returns -1 (message printed) when
 * either side is empty. */
static int split_kv(const char *opt, const char *spec, const char *what, char *type,
                    size_t len, const char **value)
{
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec || !eq[1] || (size_t)(eq - spec) >= len) {
        cli_usage_error(CMD, "%s: expected TYPE=%s, found \"%s\"", opt, what, spec);
        return -1;
    }
    memcpy(type, spec, (size_t)(eq - spec));
    type[eq - spec] = 0;
    *value = eq + 1;
    return 0;
}

static int parse_opts(int argc, char **argv, struct replay_opts *o)
{
    enum { O_TRACE = 256, O_WORKLOAD, O_CATALOG, O_LOSS, O_TIME, O_STARTS, O_OVERHEAD,
           O_CONF, O_RATE, O_JSON, O_HELP };
    static const struct option longopts[] = {
        {"trace", required_argument, NULL, O_TRACE},
        {"workload", required_argument, NULL, O_WORKLOAD},
        {"catalog", required_argument, NULL, O_CATALOG},
        {"slo-loss", required_argument, NULL, O_LOSS},
        {"slo-time", required_argument, NULL, O_TIME},
        {"starts", required_argument, NULL, O_STARTS},
        {"restart-overhead", required_argument, NULL, O_OVERHEAD},
        {"slo-confidence", required_argument, NULL, O_CONF},
        {"interruption-rate", required_argument, NULL, O_RATE},
        {"json", no_argument, NULL, O_JSON},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0}};
    int c;
    char *end;

    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        /* --trace and --interruption-rate repeat by design */
        if (c != O_TRACE && c != O_RATE &&
            cli_repeated_option(CMD, longopts, O_TRACE, c, optarg, &o->seen))
            return -1;
        if ((c == O_TRACE || c == O_RATE) && optarg && strncmp(optarg, "--", 2) == 0) {
            cli_usage_error(CMD, "%s: expected a value, found the option \"%s\"",
                            c == O_TRACE ? "--trace" : "--interruption-rate", optarg);
            return -1;
        }
        switch (c) {
        case O_TRACE:
            if (o->n_traces == MAX_TRACES) {
                cli_usage_error(CMD, "--trace: expected at most %d traces", MAX_TRACES);
                return -1;
            }
            o->trace_spec[o->n_traces++] = optarg;
            break;
        case O_RATE:
            if (o->n_rates == MAX_TRACES) {
                cli_usage_error(CMD, "--interruption-rate: expected at most %d rates",
                                MAX_TRACES);
                return -1;
            }
            o->rate_spec[o->n_rates++] = optarg;
            break;
        case O_WORKLOAD: o->workload = optarg; break;
        case O_CATALOG: o->catalog = optarg; break;
        case O_LOSS:
            if (cli_parse_double(CMD, "--slo-loss", optarg, -1e300, 1e300, "a number", &o->loss))
                return -1;
            o->have_loss = 1;
            break;
        case O_TIME:
            if (parse_time_opt("--slo-time", optarg, &o->time_s, 0))
                return -1;
            o->have_time = 1;
            break;
        case O_STARTS:
            errno = 0;
            o->starts = strtol(optarg, &end, 10);
            if (!(optarg[0] >= '0' && optarg[0] <= '9') || *end || errno || o->starts < 1 ||
                o->starts > 1000000) {
                cli_usage_error(CMD, "--starts: expected an integer from 1 to 1000000, found "
                                     "\"%s\"", optarg);
                return -1;
            }
            break;
        case O_OVERHEAD:
            if (parse_time_opt("--restart-overhead", optarg, &o->overhead_s, 1))
                return -1;
            break;
        case O_CONF:
            if (cli_parse_double(CMD, "--slo-confidence", optarg, -1e300, 1e300,
                                 "a probability in (0, 1)", &o->confidence))
                return -1;
            if (!(o->confidence > 0 && o->confidence < 1)) {
                cli_usage_error(CMD, "--slo-confidence: expected a probability in (0, 1), "
                                     "found \"%s\"", optarg);
                return -1;
            }
            break;
        case O_JSON: o->json = 1; break;
        case O_HELP: usage(stdout); return 1;
        case ':':
            cli_usage_error(CMD, "%s: expected a value, found none", argv[optind - 1]);
            return -1;
        default:
            cli_usage_error(CMD, "unknown or ambiguous option \"%s\" (slo replay --help)",
                            cli_refused_option(argc, argv));
            return -1;
        }
    }
    if (optind < argc) {
        cli_usage_error(CMD, "unexpected argument \"%s\" (slo replay --help)", argv[optind]);
        return -1;
    }
    if (!o->n_traces) {
        cli_usage_error(CMD, "--trace: expected TYPE=FILE, found it missing");
        return -1;
    }
    if (!o->workload) {
        cli_usage_error(CMD, "--workload: expected NAME or FILE (embedded: resnet110), found "
                             "it missing");
        return -1;
    }
    if (!o->have_loss || !o->have_time) {
        cli_usage_error(CMD, "%s: expected a value, found it missing",
                        o->have_loss ? "--slo-time" : "--slo-loss");
        return -1;
    }
    return 0;
}

static int print_json(const struct replay_opts *o, const struct slo_catalog *cat,
                      const struct slo_workload *wl, const struct slo_spot_trace *tr,
                      const struct slo_replay_result *r)
{
    json_t *root = json_object(), *slo = json_object(), *traces = json_array(),
           *pols = json_array();
    json_object_set_new(root, "workload", json_string(wl->name));
    json_object_set_new(root, "catalog", json_string(cat->name));
    json_object_set_new(slo, "loss", json_real(o->loss));
    json_object_set_new(slo, "time_s", json_real(o->time_s));
    json_object_set_new(slo, "restart_overhead_s", json_real(o->overhead_s));
    json_object_set_new(slo, "confidence", json_real(o->confidence));
    json_object_set_new(root, "slo", slo);
    json_object_set_new(root, "starts", json_integer(r->n_starts));
    for (size_t k = 0; k < o->n_traces; k++) {
        json_t *t = json_object();
        json_object_set_new(t, "type", json_string(tr[k].type));
        json_object_set_new(t, "file", json_string(tr[k].source));
        json_object_set_new(t, "ticks", json_integer((json_int_t)tr[k].n_ticks));
        json_object_set_new(t, "gap_s", json_real(tr[k].gap_s));
        json_object_set_new(t, "max_capacity", json_integer(tr[k].max_capacity));
        json_object_set_new(t, "interruption_rate", json_real(r->p_revoke_h[k]));
        json_array_append_new(traces, t);
    }
    json_object_set_new(root, "traces", traces);
    for (int p = 0; p < SLO_REPLAY_N_POLICIES; p++) {
        const struct slo_replay_policy_result *pr = &r->policies[p];
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(pr->name));
        json_object_set_new(j, "runs", json_integer(pr->runs));
        json_object_set_new(j, "deadlines_met", json_integer(pr->deadlines_met));
        json_object_set_new(j, "mean_cost_usd", json_real(pr->mean_cost_usd));
        json_object_set_new(j, "mean_finish_s",
                            pr->deadlines_met ? json_real(pr->mean_finish_s) : json_null());
        json_object_set_new(j, "replans", json_integer(pr->replans));
        json_object_set_new(j, "predicted_p_meet", pr->predicted_p_meet < 0
                                                       ? json_null()
                                                       : json_real(pr->predicted_p_meet));
        json_object_set_new(j, "predicted_cost_usd",
                            pr->predicted_cost_usd < 0 ? json_null()
                                                       : json_real(pr->predicted_cost_usd));
        json_array_append_new(pols, j);
    }
    json_object_set_new(root, "policies", pols);
    int rv = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                          JSON_REAL_PRECISION(12));
    fputc('\n', stdout);
    json_decref(root);
    return rv ? SLO_EXIT_INTERNAL : SLO_EXIT_OK;
}

static void print_text(const struct replay_opts *o, const struct slo_spot_trace *tr,
                       const struct slo_replay_result *r)
{
    const struct slo_replay_policy_result *od = &r->policies[SLO_REPLAY_ON_DEMAND];
    printf("replay: loss %g within %.0f s, restart overhead %.0f s, %d start time%s\n",
           o->loss, o->time_s, o->overhead_s, r->n_starts, r->n_starts == 1 ? "" : "s");
    for (size_t k = 0; k < o->n_traces; k++)
        printf("  trace %s: %s (%zu tick%s of %g s, up to %d instance%s, %.3f "
               "interruption rate per hour)\n",
               tr[k].type, tr[k].source, tr[k].n_ticks, tr[k].n_ticks == 1 ? "" : "s",
               tr[k].gap_s, tr[k].max_capacity, tr[k].max_capacity == 1 ? "" : "s",
               r->p_revoke_h[k]);
    printf("%-17s %5s %9s %14s %12s %8s %10s\n", "policy", "runs", "met", "mean cost USD",
           "vs on-demand", "replans", "P(met)");
    for (int p = 0; p < SLO_REPLAY_N_POLICIES; p++) {
        const struct slo_replay_policy_result *pr = &r->policies[p];
        char pm[16] = "-";
        if (pr->predicted_p_meet >= 0)
            snprintf(pm, sizeof pm, "%.3f", pr->predicted_p_meet);
        printf("%-17s %5d %4d/%-4d %14.4f %11.1f%% %8ld %10s\n", pr->name, pr->runs,
               pr->deadlines_met, pr->runs, pr->mean_cost_usd,
               od->mean_cost_usd > 0 ? 100.0 * (pr->mean_cost_usd / od->mean_cost_usd - 1)
                                     : 0.0,
               pr->replans, pm);
    }
}

int slo_cmd_replay(int argc, char **argv)
{
    struct replay_opts o;
    struct slo_catalog cat = {0};
    struct slo_workload wl = {0};
    struct slo_spot_trace tr[MAX_TRACES];
    double rates[MAX_TRACES];
    struct slo_replay_problem pb;
    struct slo_replay_options opt;
    struct slo_replay_result res;
    slo_error_t err = {0};
    int rc, status = SLO_EXIT_USAGE;
    size_t loaded = 0;

    memset(&o, 0, sizeof o);
    memset(tr, 0, sizeof tr);
    memset(&res, 0, sizeof res);
    o.overhead_s = 30;
    o.confidence = 0.9;
    o.starts = 20;
    if ((rc = parse_opts(argc, argv, &o)))
        return rc > 0 ? SLO_EXIT_OK : SLO_EXIT_USAGE;
    if (cli_load_workload(o.workload, &wl, &err)) {
        status = cli_report(CMD, &err);
        goto out;
    }
    if (cli_load_catalog(o.catalog ? o.catalog : "aws-table3", &cat, &err)) {
        status = cli_report(CMD, &err);
        goto out;
    }
    for (size_t k = 0; k < o.n_traces; k++) {
        char type[SLO_NAME_LENGTH];
        const char *file;
        if (split_kv("--trace", o.trace_spec[k], "FILE", type, sizeof type, &file))
            goto out;
        if (slo_spot_trace_load(file, type, &tr[k], &err)) {
            status = cli_report(CMD, &err);
            goto out;
        }
        loaded = k + 1;
        rates[k] = -1;
    }
    for (size_t i = 0; i < o.n_rates; i++) {
        char type[SLO_NAME_LENGTH];
        const char *val;
        double r;
        size_t k;
        if (split_kv("--interruption-rate", o.rate_spec[i], "R", type, sizeof type, &val))
            goto out;
        if (cli_parse_double(CMD, "--interruption-rate", val, -1e300, 1e300, "a number", &r))
            goto out;
        if (!(r >= 0 && r <= 1)) {
            cli_usage_error(CMD, "--interruption-rate: %s: expected a probability of a "
                                 "revocation within an hour in [0, 1], found \"%s\"", type,
                                 val);
            goto out;
        }
        for (k = 0; k < o.n_traces && strcmp(tr[k].type, type) != 0; k++)
            ;
        if (k == o.n_traces) {
            cli_usage_error(CMD, "--interruption-rate: expected a type given with --trace, "
                                 "found \"%s\"", type);
            goto out;
        }
        rates[k] = r;
    }
    for (size_t k = 0; k < o.n_traces; k++)
        if (rates[k] < 0)
            rates[k] = slo_spot_trace_revocation_p(&tr[k]);
    memset(&pb, 0, sizeof pb);
    pb.catalog = &cat;
    pb.workload = &wl;
    pb.traces = tr;
    pb.n_traces = o.n_traces;
    pb.target_loss = o.loss;
    pb.deadline_s = o.time_s;
    pb.overhead_s = o.overhead_s;
    pb.p_revoke_h = rates;
    slo_replay_options_init(&opt);
    opt.n_starts = (int)o.starts;
    opt.confidence = o.confidence;
    if (slo_replay_solve(&pb, &opt, &res, &err)) {
        status = cli_report(CMD, &err);
        goto out;
    }
    if (o.json)
        status = print_json(&o, &cat, &wl, tr, &res);
    else {
        print_text(&o, tr, &res);
        status = SLO_EXIT_OK;
    }
out:
    slo_replay_result_free(&res);
    for (size_t k = 0; k < loaded; k++)
        slo_spot_trace_free(&tr[k]);
    slo_catalog_free(&cat);
    slo_workload_free(&wl);
    return status;
}
