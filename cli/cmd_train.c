/*
 * cmd_train.c - `slo train`: the cheapest training cluster that reaches a
 * target loss within a deadline (spotDNN), with the sliding window and the
 * exact search side by side.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define CMD "train"

struct train_opts {
    const char *workload, *catalog, *existing, *profile;
    double loss, time_s, budget, elapsed_s, loss_now, overhead_s;
    int have_loss, have_time, have_overhead, json, window, exact, max_nodes;
    int frontier, have_from, have_to;
    double from_s, to_s;
    const char *plot;
    long node_limit;
    enum slo_pricing pricing;
    struct cli_seen seen;
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slo train --workload NAME|FILE --slo-loss L --slo-time T [options]\n"
            "\n"
            "Plan the cheapest cluster of GPU instances that trains the workload to loss L\n"
            "within time T (spotDNN's model: PS and PCIe contention, weighted-average batch,\n"
            "convergence coefficient).\n"
            "\n"
            "SLO:\n"
            "  --slo-loss L          target training loss\n"
            "  --slo-time T          deadline: sbatch --time forms (M, M:S, H:M:S, D-H, D-H:M,\n"
            "                        D-H:M:S; a bare number is minutes) or 2400s, 40m, 2h\n"
            "  --budget USD          reject plans that cost more\n"
            "Inputs:\n"
            "  --workload NAME|FILE  training workload profile (embedded: resnet110)\n"
            "  --catalog NAME|FILE   instance catalog (embedded: spotdnn-resnet110, the\n"
            "                        default; aws-table3)\n"
            "  --profile FILE        take B_ps (PS bandwidth) from a slo-mpiprof profile of\n"
            "                        ranks on two or more nodes (doc/mpiprof.md)\n"
            "  --pricing MODEL       spot (default) or on-demand prices for cloud types\n"
            "Search:\n"
            "  --window              only the sliding window (spotDNN Algorithm 1)\n"
            "  --exact               only the exact search (proven cheapest)\n"
            "                        (default: both, the exact plan is recommended)\n"
            "  --max-nodes N         a plan holds at most N instances in total (one worker\n"
            "                        each), as sbatch --slo-* under the site's max_nodes\n"
            "  --node-limit N        branch-and-bound nodes the exact search may visit before\n"
            "                        it stops with its best plan unproven (default 2000000;\n"
            "                        its evaluation count also holds the seeding plans)\n"
            "Re-planning after a spot revocation:\n"
            "  --existing TYPE=N,... surviving instances every plan keeps\n"
            "  --elapsed T           time already spent (deadline left = slo-time - T)\n"
            "  --loss-now L          loss reached so far\n"
            "  --restart-overhead T  added to every candidate's time (default 30s when\n"
            "                        re-planning, else 0)\n"
            "Cost-deadline frontier:\n"
            "  --frontier            every deadline at which the cheapest plan changes, with\n"
            "                        that plan (exact, in one search; no --slo-time)\n"
            "  --from T1, --to T2    deadlines of the frontier (default 0 and unbounded: up\n"
            "                        to the cheapest plan of any duration); T1 < T2\n"
            "  --plot FILE           also draw it with gnuplot, FILE.svg or FILE.png\n"
            "Output:\n"
            "  --json                one JSON object (schema: doc/cli.md)\n"
            "  --help\n"
            "\nExit status: 0 a plan was found; 2 bad input, unreachable loss or no plan\n"
            "meets the SLO (the fastest achievable time is said); 1 internal error.\n");
}

/* "0", "00", "0s", "0:00", "0-0:00:00": zero in any of the duration forms. */
static int is_zero_duration(const char *text)
{
    size_t n = strlen(text);
    if (n > 1 && strchr("smhd", text[n - 1]))
        n--;
    return n > 0 && text[0] == '0' && strspn(text, "0:-.") == n;
}

/* A duration option; allow_zero also takes zero, which slo_parse_duration
 * rejects because a deadline must be positive. */
static int parse_time_opt(const char *opt, const char *text, double *out, int allow_zero)
{
    slo_error_t err = {0};
    int bare = 0;
    if (allow_zero && is_zero_duration(text)) {
        *out = 0;
        return 0;
    }
    if (slo_parse_duration(text, out, &bare, &err)) {
        cli_usage_error(CMD, "%s: %s", opt, err.text);
        return -1;
    }
    if (bare)
        fprintf(stderr, "slo " CMD ": note: %s %s read as %s minutes (sbatch --time form); "
                        "write %ss for seconds\n",
                opt, text, text, text);
    return 0;
}

/* A count option: a decimal integer from 1 to max. */
static int parse_count(const char *opt, const char *text, long max, long *out)
{
    char *end;
    long v;
    errno = 0;
    v = strtol(text, &end, 10);
    if (!(text[0] >= '0' && text[0] <= '9') || *end || errno || v < 1 || v > max) {
        cli_usage_error(CMD, "%s: expected an integer from 1 to %ld, found \"%s\"", opt, max,
                        text);
        return -1;
    }
    *out = v;
    return 0;
}

/* --plot FILE is checked before the search: a directory, or a file in a
 * directory that is missing or not writable, is bad input (exit 2), so
 * gnuplot never fails on it and nothing of the user's is removed. */
static int plot_target_error(const char *file)
{
    struct stat st;
    if (stat(file, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_usage_error(CMD, "--plot: expected a file to write, found a directory \"%s\"", file);
        return 1;
    }
    const char *slash = strrchr(file, '/');
    char dir[PATH_MAX];
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        snprintf(dir, sizeof dir, "%.*s", slash == file ? 1 : (int)(slash - file), file);
    if (access(dir, W_OK) != 0) {
        cli_usage_error(CMD, "--plot: cannot write \"%s\": directory %s: %s", file, dir,
                        strerror(errno));
        return 1;
    }
    return 0;
}

static int parse_opts(int argc, char **argv, struct train_opts *o)
{
    enum { O_LOSS = 256, O_TIME, O_WORKLOAD, O_CATALOG, O_PRICING, O_BUDGET, O_EXACT,
           O_WINDOW, O_EXISTING, O_ELAPSED, O_LOSS_NOW, O_OVERHEAD, O_JSON, O_PROFILE,
           O_MAX_NODES, O_NODE_LIMIT, O_FRONTIER, O_FROM, O_TO, O_PLOT, O_HELP };
    static const struct option longopts[] = {
        {"slo-loss", required_argument, NULL, O_LOSS},
        {"slo-time", required_argument, NULL, O_TIME},
        {"workload", required_argument, NULL, O_WORKLOAD},
        {"catalog", required_argument, NULL, O_CATALOG},
        {"pricing", required_argument, NULL, O_PRICING},
        {"budget", required_argument, NULL, O_BUDGET},
        {"exact", no_argument, NULL, O_EXACT},
        {"window", no_argument, NULL, O_WINDOW},
        {"existing", required_argument, NULL, O_EXISTING},
        {"elapsed", required_argument, NULL, O_ELAPSED},
        {"loss-now", required_argument, NULL, O_LOSS_NOW},
        {"restart-overhead", required_argument, NULL, O_OVERHEAD},
        {"json", no_argument, NULL, O_JSON},
        {"profile", required_argument, NULL, O_PROFILE},
        {"max-nodes", required_argument, NULL, O_MAX_NODES},
        {"node-limit", required_argument, NULL, O_NODE_LIMIT},
        {"frontier", no_argument, NULL, O_FRONTIER},
        {"from", required_argument, NULL, O_FROM},
        {"to", required_argument, NULL, O_TO},
        {"plot", required_argument, NULL, O_PLOT},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0}};
    long count;
    int c;

    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (cli_repeated_option(CMD, longopts, O_LOSS, c, optarg, &o->seen))
            return -1;
        switch (c) {
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
        case O_WORKLOAD: o->workload = optarg; break;
        case O_CATALOG: o->catalog = optarg; break;
        case O_PRICING:
            if (strcmp(optarg, "spot") == 0)
                o->pricing = SLO_PRICING_SPOT;
            else if (strcmp(optarg, "on-demand") == 0)
                o->pricing = SLO_PRICING_ON_DEMAND;
            else {
                cli_usage_error(CMD, "--pricing: expected spot or on-demand, found \"%s\"",
                                optarg);
                return -1;
            }
            break;
        case O_BUDGET:
            if (cli_parse_double(CMD, "--budget", optarg, 1e-12, 1e300, "a cost in USD > 0",
                                 &o->budget))
                return -1;
            break;
        case O_EXACT: o->exact = 1; break;
        case O_WINDOW: o->window = 1; break;
        case O_EXISTING: o->existing = optarg; break;
        case O_ELAPSED:
            if (parse_time_opt("--elapsed", optarg, &o->elapsed_s, 1))
                return -1;
            break;
        case O_LOSS_NOW:
            if (cli_parse_double(CMD, "--loss-now", optarg, 1e-300, 1e300, "a loss > 0",
                                 &o->loss_now))
                return -1;
            break;
        case O_OVERHEAD:
            if (parse_time_opt("--restart-overhead", optarg, &o->overhead_s, 1))
                return -1;
            o->have_overhead = 1;
            break;
        case O_JSON: o->json = 1; break;
        case O_PROFILE: o->profile = optarg; break;
        case O_MAX_NODES:
            if (parse_count("--max-nodes", optarg, INT_MAX, &count))
                return -1;
            o->max_nodes = (int)count;
            break;
        case O_NODE_LIMIT:
            if (parse_count("--node-limit", optarg, LONG_MAX, &count))
                return -1;
            o->node_limit = count;
            break;
        case O_FRONTIER: o->frontier = 1; break;
        case O_FROM:
            if (parse_time_opt("--from", optarg, &o->from_s, 1))
                return -1;
            o->have_from = 1;
            break;
        case O_TO:
            if (parse_time_opt("--to", optarg, &o->to_s, 0))
                return -1;
            o->have_to = 1;
            break;
        case O_PLOT: o->plot = optarg; break;
        case O_HELP: usage(stdout); return 1;
        case ':':
            cli_usage_error(CMD, "%s: expected a value, found none", argv[optind - 1]);
            return -1;
        default:
            cli_usage_error(CMD, "unknown or ambiguous option \"%s\" (slo train --help)",
                            cli_refused_option(argc, argv));
            return -1;
        }
    }
    if (optind < argc) {
        cli_usage_error(CMD, "unexpected argument \"%s\" (slo train --help)", argv[optind]);
        return -1;
    }
    if (!o->workload) {
        cli_usage_error(CMD, "--workload: expected NAME or FILE (embedded: resnet110), found it "
                             "missing");
        return -1;
    }
    if (!o->frontier && (o->have_from || o->have_to || o->plot)) {
        cli_usage_error(CMD, "%s: expected with --frontier, found it without",
                        o->have_from ? "--from" : o->have_to ? "--to" : "--plot");
        return -1;
    }
    if (o->frontier) {
        const char *bad = o->have_time ? "--slo-time (the frontier takes --from/--to)"
                          : o->window ? "--window (the frontier is exact)"
                          : o->existing ? "--existing (the frontier plans a fresh start)"
                          : o->elapsed_s > 0 ? "--elapsed (the frontier plans a fresh start)"
                          : o->loss_now > 0 ? "--loss-now (the frontier plans a fresh start)"
                          : NULL;
        size_t pl = o->plot ? strlen(o->plot) : 0;
        if (!o->have_loss) {
            cli_usage_error(CMD, "--slo-loss: expected a value, found it missing");
            return -1;
        }
        if (bad) {
            cli_usage_error(CMD, "--frontier: expected no %s, found it", bad);
            return -1;
        }
        if (!o->have_to)
            o->to_s = 1e300;
        if (!(o->from_s < o->to_s)) {
            cli_usage_error(CMD, "--from: expected T1 < T2, found --from %.6g s >= --to %.6g s",
                            o->from_s, o->to_s);
            return -1;
        }
        if (o->plot && !(pl > 4 && (strcmp(o->plot + pl - 4, ".svg") == 0 ||
                                    strcmp(o->plot + pl - 4, ".png") == 0))) {
            cli_usage_error(CMD, "--plot: expected FILE.svg or FILE.png, found \"%s\"", o->plot);
            return -1;
        }
        if (o->plot && plot_target_error(o->plot))
            return -1;
        o->exact = 1;
        return 0;
    }
    if (!o->have_loss || !o->have_time) {
        cli_usage_error(CMD, "%s: expected a value, found it missing",
                        o->have_loss ? "--slo-time" : "--slo-loss");
        return -1;
    }
    if (o->elapsed_s >= o->time_s) {
        cli_usage_error(CMD, "--elapsed: expected less than --slo-time (%.0f s), found %.0f s",
                        o->time_s, o->elapsed_s);
        return -1;
    }
    if (o->node_limit > 0 && o->window && !o->exact) {
        cli_usage_error(CMD, "--node-limit: expected the exact search, found --window alone "
                             "(the sliding window has no node limit)");
        return -1;
    }
    if (!o->window && !o->exact)
        o->window = o->exact = 1;
    if (!o->have_overhead)
        o->overhead_s = (o->existing || o->elapsed_s > 0 || o->loss_now > 0) ? 30 : 0;
    return 0;
}

static void plan_string(const struct slo_train_setup *s, const int *counts, char *buf,
                        size_t len)
{
    slo_train_counts_format(s, counts, '=', buf, len);
}

/* A plan's JSON object (doc/cli.md), feasible or not. */
static json_t *plan_object(const struct slo_train_setup *s, const struct slo_train_plan *p,
                           int with_search)
{
    json_t *o = json_object(), *plan = json_object();

    for (size_t k = 0; k < s->n_types; k++)
        if (p->counts[k])
            json_object_set_new(plan, s->types[k].name, json_integer(p->counts[k]));
    json_object_set_new(o, "plan", plan);
    json_object_set_new(o, "time_s", json_real(p->eval.time_s));
    json_object_set_new(o, "cost_usd", json_real(p->eval.cost_usd));
    json_object_set_new(o, "iterations", json_integer((json_int_t)p->eval.iterations));
    json_object_set_new(o, "workers", json_integer(p->eval.n_workers));
    json_object_set_new(o, "usd_per_h", json_real(p->eval.usd_per_h));
    json_object_set_new(o, "wa_batch", json_real(p->eval.wa_batch));
    json_object_set_new(o, "convergence_coefficient", json_real(p->eval.cc));
    json_object_set_new(o, "samples", json_real(p->eval.samples));
    json_object_set_new(o, "t_exp_s", json_real(p->eval.t_exp_s));
    json_object_set_new(o, "b_wk_mbps", json_real(p->eval.b_wk_mbps));
    json_object_set_new(o, "p_contention",
                        p->eval.p_contention < 0 ? json_null() : json_real(p->eval.p_contention));
    if (with_search) {
        json_object_set_new(o, "evaluations", json_integer(p->evaluations));
        json_object_set_new(o, "proven_optimal", json_boolean(p->proven));
        if (p->n_upper > 0) {
            json_object_set_new(o, "n_lower", json_integer(p->n_lower));
            json_object_set_new(o, "n_upper", json_integer(p->n_upper));
        }
    }
    return o;
}

/* A comparison: its plan object, or null when it was not computed or found none. */
static json_t *plan_json(const struct slo_train_setup *s, const struct slo_train_plan *p,
                         int with_search)
{
    if (!p || !p->feasible)
        return json_null();
    return plan_object(s, p, with_search);
}

/* The header every JSON answer starts with: workload, catalog, pricing, slo. */
static void json_head(json_t *root, const struct train_opts *o, const struct slo_catalog *cat,
                      const struct slo_workload *wl, const struct slo_train_result *r)
{
    json_t *slo = json_object();

    json_object_set_new(root, "workload", json_string(wl->name));
    json_object_set_new(root, "catalog", json_string(cat->name));
    json_object_set_new(root, "pricing",
                        json_string(o->pricing == SLO_PRICING_SPOT ? "spot" : "on-demand"));
    json_object_set_new(slo, "loss", json_real(o->loss));
    json_object_set_new(slo, "time_s", json_real(o->time_s));
    json_object_set_new(slo, "remaining_s", json_real(r->remaining_s));
    json_object_set_new(slo, "budget_usd", o->budget > 0 ? json_real(o->budget) : json_null());
    json_object_set_new(slo, "loss_now", o->loss_now > 0 ? json_real(o->loss_now) : json_null());
    json_object_set_new(slo, "restart_overhead_s", json_real(r->overhead_s));
    json_object_set_new(root, "slo", slo);
}

static int dump_json(json_t *root)
{
    int rv = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                          JSON_REAL_PRECISION(12));
    fputc('\n', stdout);
    json_decref(root);
    return rv;
}

static void print_json(const struct train_opts *o, const struct slo_catalog *cat,
                       const struct slo_workload *wl, const struct slo_train_result *r)
{
    const struct slo_train_setup *s = &r->setup;
    json_t *root = json_object(), *skipped = json_array();
    json_t *best = plan_json(s, &r->plan, 0);
    const char *key;
    json_t *v;

    json_head(root, o, cat, wl, r);
    json_object_set_new(root, "method",
                        json_string(r->method == SLO_TRAIN_SEARCH_WINDOW ? "window" : "exact"));
    /* optimal or feasible_unproven, as the infeasible object says its own */
    json_object_set_new(root, "status", json_string(slo_status_name(r->status)));
    json_object_foreach(best, key, v) json_object_set(root, key, v);
    json_decref(best);
    if (r->have_window)
        json_object_set_new(root, "window", plan_json(s, &r->window, 1));
    if (r->have_exact)
        json_object_set_new(root, "exact", plan_json(s, &r->exact, 1));
    json_object_set_new(root, "on_demand",
                        plan_json(s, r->have_on_demand ? &r->on_demand : NULL, 0));
    json_object_set_new(root, "homogeneous",
                        plan_json(s, r->have_homogeneous ? &r->homogeneous : NULL, 0));
    for (size_t i = 0; i < s->n_skipped; i++)
        json_array_append_new(skipped, json_string(cat->types[s->skipped[i]].name));
    json_object_set_new(root, "skipped_types", skipped);
    json_t *unlisted = json_array();
    for (size_t i = 0; i < wl->n_instances; i++)
        if (slo_catalog_find_type(cat, wl->instances[i].type) < 0)
            json_array_append_new(unlisted, json_string(wl->instances[i].type));
    json_object_set_new(root, "unlisted_profiles", unlisted);
    dump_json(root);
}

/* Nothing meets the SLO, as one JSON object (doc/cli.md "Infeasible"). */
static void print_json_infeasible(const struct train_opts *o, const struct slo_catalog *cat,
                                  const struct slo_workload *wl,
                                  const struct slo_train_result *r)
{
    json_t *root = json_object();
    static const char *const kinds[] = {NULL, "cheapest_without_budget", "fastest"};

    json_object_set_new(root, "status", json_string(slo_status_name(r->status)));
    json_object_set_new(root, "reason", json_string(r->reason));
    json_head(root, o, cat, wl, r);
    json_object_set_new(root, "closest_kind", r->closest_kind == SLO_TRAIN_CLOSEST_NONE
                                                  ? json_null()
                                                  : json_string(kinds[r->closest_kind]));
    json_object_set_new(root, "closest", r->closest_kind == SLO_TRAIN_CLOSEST_NONE
                                             ? json_null()
                                             : plan_object(&r->setup, &r->closest, 1));
    dump_json(root);
}

static void print_human(const struct train_opts *o, const struct slo_cluster *kept,
                        const struct slo_catalog *cat,
                        const struct slo_workload *wl, const struct slo_train_result *r)
{
    const struct slo_train_setup *s = &r->setup;
    const struct slo_train_plan *p = &r->plan;
    const struct slo_train_eval *e = &p->eval;
    char dl[32], t[32], buf[512];
    int gpus = 0;

    slo_format_duration(o->time_s, dl, sizeof dl);
    printf("workload %s, catalog %s, %s prices\n", wl->name, cat->name,
           o->pricing == SLO_PRICING_SPOT ? "spot" : "on-demand");
    printf("SLO: loss %.10g within %s (%.6g s)", o->loss, dl, o->time_s);
    if (o->budget > 0)
        printf(", at most %.6g USD", o->budget);
    printf("\n");
    if (o->loss_now > 0 || o->elapsed_s > 0 || o->existing) {
        printf("re-plan: %.0f s left", r->remaining_s);
        if (o->loss_now > 0)
            printf(", loss now %.10g", o->loss_now);
        if (kept) {
            /* as written, without the blanks slo_cluster_parse allows */
            printf(", keeping ");
            for (size_t i = 0; i < kept->n; i++)
                printf("%s%s=%s", i ? "," : "", kept->entry[i].type, kept->entry[i].count_text);
        }
        printf("\n");
    }
    if (r->overhead_s > 0)
        printf("restart overhead: %.0f s added to every plan's time\n", r->overhead_s);
    printf("\nrecommended plan (%s)\n",
           r->method == SLO_TRAIN_SEARCH_WINDOW ? "sliding window, spotDNN Algorithm 1"
           : p->proven ? "exact search: proven cheapest under the model"
                       : "exact search stopped at its node limit: the cheapest plan found, "
                         "not proven");
    /* The name column fits the longest name in the plan: pool names
     * (TYPE@ZONE, up to 63 characters) are longer than 16. */
    int w = 16;
    for (size_t k = 0; k < s->n_types; k++) {
        int len = (int)strlen(cat->types[s->types[k].catalog_index].name);
        if (p->counts[k] && len > w)
            w = len;
    }
    printf("  %-*s %-7s %-6s %5s %6s %11s\n", w, "instance type", "site", "GPU", "GPUs",
           "count", "USD/h each");
    for (size_t k = 0; k < s->n_types; k++) {
        if (!p->counts[k])
            continue;
        const struct slo_instance_type *it = &cat->types[s->types[k].catalog_index];
        printf("  %-*s %-7s %-6s %5d %6d %11.4f\n", w, it->name,
               it->site == SLO_SITE_ONPREM ? "onprem" : "cloud", it->gpu_model, it->gpus,
               p->counts[k], s->types[k].usd_per_h);
        gpus += it->gpus * p->counts[k];
    }
    slo_format_duration(e->time_s, t, sizeof t);
    printf("  %d worker%s, %d GPU%s, %.4f USD/h\n", e->n_workers, e->n_workers == 1 ? "" : "s",
           gpus, gpus == 1 ? "" : "s", e->usd_per_h);
    printf("  predicted time   %.2f s (%s) of %.0f s\n", e->time_s, t, r->remaining_s);
    printf("  cost             %.6f USD\n", e->cost_usd);
    printf("  iterations       %.0f normalized (%.0f samples)\n", e->iterations, e->samples);
    printf("  weighted-average batch %.1f, convergence coefficient %.3f\n", e->wa_batch, e->cc);
    if (e->p_contention < 0)
        printf("  PS bandwidth     no contention (%d x %g MB/s <= %g MB/s)\n", e->n_workers,
               s->wl.b_req_mbps, s->wl.b_ps_mbps);
    else
        printf("  PS bandwidth     %.2f MB/s per worker (contention probability %.3f)\n",
               e->b_wk_mbps, e->p_contention);

    printf("\n  %-22s %7s %10s %11s %9s  %s\n", "method", "workers", "time (s)", "cost (USD)",
           "evaluated", "plan");
    if (r->have_window) {
        if (r->window.feasible) {
            plan_string(s, r->window.counts, buf, sizeof buf);
            printf("  %-22s %7d %10.2f %11.6f %9ld  %s\n", "sliding window", r->window.eval.n_workers,
                   r->window.eval.time_s, r->window.eval.cost_usd, r->window.evaluations, buf);
        } else {
            printf("  %-22s %7s %10s %11s %9ld  %s\n", "sliding window", "-", "-", "-",
                   r->window.evaluations, "no plan in its windows");
        }
    }
    if (r->have_exact) {
        plan_string(s, r->exact.counts, buf, sizeof buf);
        printf("  %-22s %7d %10.2f %11.6f %9ld  %s\n", "exact search", r->exact.eval.n_workers,
               r->exact.eval.time_s, r->exact.eval.cost_usd, r->exact.evaluations, buf);
    }
    if (r->have_on_demand && r->on_demand.feasible) {
        plan_string(s, r->on_demand.counts, buf, sizeof buf);
        printf("  %-22s %7d %10.2f %11.6f %9s  %s\n", "on-demand prices only",
               r->on_demand.eval.n_workers, r->on_demand.eval.time_s, r->on_demand.eval.cost_usd,
               "", buf);
    } else if (o->pricing == SLO_PRICING_SPOT) {
        printf("  %-22s %7s %10s %11s %9s  %s\n", "on-demand prices only", "-", "-", "-", "",
               "none meets the SLO");
    }
    if (r->have_homogeneous && r->homogeneous.feasible) {
        plan_string(s, r->homogeneous.counts, buf, sizeof buf);
        printf("  %-22s %7d %10.2f %11.6f %9s  %s\n", "cheapest homogeneous",
               r->homogeneous.eval.n_workers, r->homogeneous.eval.time_s,
               r->homogeneous.eval.cost_usd, "", buf);
    } else if (r->have_homogeneous) {
        printf("  %-22s %7s %10s %11s %9s  %s\n", "cheapest homogeneous", "-", "-", "-", "",
               "none meets the SLO");
    }
    for (size_t i = 0; i < s->n_skipped; i++)
        printf("note: %s has no profile in workload %s and was not considered\n",
               cat->types[s->skipped[i]].name, wl->name);
    for (size_t i = 0; i < wl->n_instances; i++)
        if (slo_catalog_find_type(cat, wl->instances[i].type) < 0)
            printf("note: workload %s profiles %s, which catalog %s does not list\n", wl->name,
                   wl->instances[i].type, cat->name);
}

/* Draw the frontier with gnuplot (a step plot of cost over deadline) into
 * o->plot; 0 on success, else a message on stderr and 1. */
static int plot_frontier(const struct train_opts *o, const struct slo_workload *wl,
                         const struct slo_catalog *cat, const struct slo_train_frontier *f)
{
    size_t len = strlen(o->plot);
    int png = strcmp(o->plot + len - 4, ".png") == 0;
    double last = f->n ? f->points[f->n - 1].eval.time_s : 0;
    double right = o->have_to ? o->to_s : last * 1.1 + 1;
    FILE *g = popen("gnuplot", "w");
    if (!g) {
        fprintf(stderr, "slo " CMD ": --plot: cannot run gnuplot (%s)\n", strerror(errno));
        return 1;
    }
    fprintf(g, "set terminal %s size 800,500\n", png ? "pngcairo" : "svg");
    fprintf(g, "set output '");
    for (const char *c = o->plot; *c; c++) /* gnuplot single quotes: '' is a quote */
        fprintf(g, *c == '\'' ? "''" : "%c", *c);
    fprintf(g, "'\n");
    fprintf(g, "set title 'cheapest plan, %s to loss %g (%s, %s prices)' noenhanced\n", wl->name,
            o->loss, cat->name, o->pricing == SLO_PRICING_SPOT ? "spot" : "on-demand");
    fprintf(g, "set xlabel 'deadline (s)'\nset ylabel 'cost (USD)'\nset grid\nset key off\n");
    fprintf(g, "set xrange [%.6g:%.6g]\n", o->from_s, right);
    fprintf(g, "plot '-' using 1:2 with steps lw 2, '-' using 1:2 with points pt 7\n");
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < f->n; i++) {
            double t = f->points[i].eval.time_s;
            fprintf(g, "%.17g %.17g\n", t > o->from_s ? t : o->from_s, f->points[i].eval.cost_usd);
        }
        if (pass == 0 && f->n)
            fprintf(g, "%.17g %.17g\n", right, f->points[f->n - 1].eval.cost_usd);
        fprintf(g, "e\n");
    }
    int st = pclose(g);
    if (st != 0) {
        if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
            fprintf(stderr, "slo " CMD ": --plot %s: cannot run gnuplot (not installed? "
                            "Debian: gnuplot-nox)\n", o->plot);
        else
            fprintf(stderr, "slo " CMD ": --plot %s: gnuplot failed (exit status %d)\n", o->plot,
                    st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        struct stat sb;
        if (stat(o->plot, &sb) == 0 && S_ISREG(sb.st_mode))
            remove(o->plot); /* a half-drawn picture, never a directory */
        return 1;
    }
    return 0;
}

/* `slo train --frontier`: the cost-deadline frontier, a table or JSON. */
static int run_frontier(const struct train_opts *o, const struct slo_catalog *cat,
                        const struct slo_workload *wl)
{
    struct slo_train_setup s;
    struct slo_train_frontier f = {0};
    slo_error_t err = {0};
    char buf[512], t[32];
    int status;

    if (slo_train_setup_init(&s, cat, wl, o->pricing, &err))
        return cli_report(CMD, &err);
    struct slo_train_request req = {.target_loss = o->loss, .deadline_s = o->to_s,
                                    .budget_usd = o->budget, .node_limit = o->node_limit,
                                    .max_workers = o->max_nodes};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (slo_plan_frontier(&s, &req, o->from_s, &f, &err)) {
        slo_train_setup_free(&s);
        return cli_report(CMD, &err);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6;
    if (o->json) {
        json_t *root = json_object(), *slo = json_object(), *pts = json_array();
        json_object_set_new(root, "workload", json_string(wl->name));
        json_object_set_new(root, "catalog", json_string(cat->name));
        json_object_set_new(root, "pricing",
                            json_string(o->pricing == SLO_PRICING_SPOT ? "spot" : "on-demand"));
        json_object_set_new(slo, "loss", json_real(o->loss));
        json_object_set_new(slo, "from_s", json_real(o->from_s));
        json_object_set_new(slo, "to_s", o->have_to ? json_real(o->to_s) : json_null());
        json_object_set_new(slo, "budget_usd", o->budget > 0 ? json_real(o->budget) : json_null());
        json_object_set_new(root, "slo", slo);
        json_object_set_new(root, "status",
                            json_string(!f.proven ? (f.n ? "feasible_unproven"
                                                         : "infeasible_unproven")
                                        : f.n ? "optimal" : "infeasible"));
        json_object_set_new(root, "proven", json_boolean(f.proven));
        json_object_set_new(root, "nodes", json_integer(f.nodes));
        /* known only when no plan meets --from: then the first point is the
         * fastest plan (as the table's "no plan meets a deadline below") */
        json_object_set_new(root, "no_plan_below_s",
                            f.n && f.points[0].eval.time_s > o->from_s
                                ? json_real(f.points[0].eval.time_s)
                                : json_null());
        for (size_t i = 0; i < f.n; i++) {
            json_t *pt = plan_object(&s, &f.points[i], 0);
            double from = f.points[i].eval.time_s;
            json_object_set_new(pt, "from_deadline_s", json_real(from > o->from_s ? from : o->from_s));
            json_array_append_new(pts, pt);
        }
        json_object_set_new(root, "points", pts);
        dump_json(root);
    } else {
        printf("workload %s, catalog %s, %s prices\n", wl->name, cat->name,
               o->pricing == SLO_PRICING_SPOT ? "spot" : "on-demand");
        printf("cost-deadline frontier: loss %.10g, deadlines %.6g s to ", o->loss, o->from_s);
        if (o->have_to)
            printf("%.6g s", o->to_s);
        else
            printf("any");
        if (o->budget > 0)
            printf(", at most %.6g USD", o->budget);
        printf("\n%s: %zu plan%s, %ld nodes, %.1f ms\n",
               f.proven ? "exact search, every point proven"
                        : "exact search stopped at its node limit: not proven",
               f.n, f.n == 1 ? "" : "s", f.nodes, ms);
        if (f.n) {
            printf("\n  %-16s %10s %11s %7s  %s\n", "deadline from", "time (s)", "cost (USD)",
                   "workers", "plan");
            for (size_t i = 0; i < f.n; i++) {
                const struct slo_train_eval *e = &f.points[i].eval;
                slo_train_counts_format(&s, f.points[i].counts, '=', buf, sizeof buf);
                slo_format_duration(e->time_s > o->from_s ? e->time_s : o->from_s, t, sizeof t);
                printf("  %-16s %10.2f %11.6f %7d  %s\n", t, e->time_s, e->cost_usd,
                       e->n_workers, buf);
            }
            if (f.points[0].eval.time_s > o->from_s)
                printf("no plan meets a deadline below %.2f s\n", f.points[0].eval.time_s);
        }
    }
    if (!f.n) { /* without --to the deadline is unbounded: no "within 1e+300 s" */
        char within[64] = "at any deadline", budget[64] = "";
        if (o->have_to)
            snprintf(within, sizeof within, "within %.6g s", o->to_s);
        if (o->budget > 0)
            snprintf(budget, sizeof budget, " at a cost of at most %.10g USD", o->budget);
        fprintf(stderr, "slo " CMD ": no plan %s loss %.10g %s%s\n",
                f.proven ? "meets" : "found that meets", o->loss, within, budget);
    }
    status = f.n ? SLO_EXIT_OK : SLO_EXIT_USAGE;
    if (fflush(stdout) != 0)
        status = SLO_EXIT_INTERNAL;
    if (status == SLO_EXIT_OK && o->plot && plot_frontier(o, wl, cat, &f))
        status = SLO_EXIT_INTERNAL;
    slo_train_frontier_free(&f);
    slo_train_setup_free(&s);
    return status;
}

int slo_cmd_train(int argc, char **argv)
{
    struct train_opts o = {.pricing = SLO_PRICING_SPOT};
    struct slo_catalog cat = {0};
    struct slo_workload wl = {0};
    struct slo_cluster existing;
    struct slo_train_result r = {0};
    struct slo_train_options opt;
    slo_error_t err = {0};
    int rv, status = SLO_EXIT_USAGE;
    const char *catalog;

    if ((rv = parse_opts(argc, argv, &o)))
        return rv > 0 ? SLO_EXIT_OK : SLO_EXIT_USAGE;
    if (cli_load_workload(o.workload, &wl, &err)) {
        status = cli_report(CMD, &err);
        goto out;
    }
    catalog = o.catalog ? o.catalog : slo_embedded_default_catalog(wl.name);
    if (cli_load_catalog(catalog, &cat, &err)) {
        status = cli_report(CMD, &err);
        goto out;
    }
    if (o.profile) {
        /* B_ps measured by slo-mpiprof replaces the profile's (kernel:
         * slo_profile_ps_bandwidth) */
        double b_ps = 0, was = wl.b_ps_mbps;
        if (slo_profile_ps_bandwidth_load(o.profile, &b_ps, &err)) {
            status = cli_report(CMD, &err);
            goto out;
        }
        wl.b_ps_mbps = b_ps;
        fprintf(stderr, "slo " CMD ": note: B_ps %.1f MB/s from --profile %s (rank 0's least "
                        "cross-node bandwidth), instead of the workload's %.1f MB/s\n",
                b_ps, o.profile, was);
    }
    if (o.frontier) {
        status = run_frontier(&o, &cat, &wl);
        goto out;
    }
    if (o.existing && slo_cluster_parse(o.existing, &existing, &err)) {
        snprintf(err.source, sizeof err.source, "--existing");
        status = cli_report(CMD, &err);
        goto out;
    }
    struct slo_train_problem pb = {
        .catalog = &cat,
        .workload = &wl,
        .pricing = o.pricing,
        .target_loss = o.loss,
        .deadline_s = o.time_s,
        .budget_usd = o.budget,
        .loss_now = o.loss_now,
        .elapsed_s = o.elapsed_s,
        .overhead_s = o.overhead_s,
        .existing = o.existing ? &existing : NULL,
    };
    slo_train_options_init(&opt);
    opt.search = o.window && o.exact ? SLO_TRAIN_SEARCH_BOTH
                 : o.window          ? SLO_TRAIN_SEARCH_WINDOW
                                     : SLO_TRAIN_SEARCH_EXACT;
    opt.max_workers = o.max_nodes;
    opt.node_limit = o.node_limit;
    if ((rv = slo_train_solve(&pb, &opt, &r, &err))) {
        if (!r.existing) /* binding failed: name both inputs as the user gave them */
            snprintf(err.source, sizeof err.source, "--workload %s, --catalog %s", o.workload,
                     catalog);
        status = cli_report(CMD, &err);
        goto out;
    }
    if (!slo_status_feasible(r.status)) {
        fprintf(stderr, "slo " CMD ": %s\n", r.reason);
        if (o.json)
            print_json_infeasible(&o, &cat, &wl, &r);
        status = fflush(stdout) == 0 ? SLO_EXIT_USAGE : SLO_EXIT_INTERNAL;
        goto out;
    }
    if (o.json)
        print_json(&o, &cat, &wl, &r);
    else
        print_human(&o, pb.existing, &cat, &wl, &r);
    status = fflush(stdout) == 0 ? SLO_EXIT_OK : SLO_EXIT_INTERNAL;
out:
    slo_train_result_free(&r);
    slo_catalog_free(&cat);
    slo_workload_free(&wl);
    return status;
}
