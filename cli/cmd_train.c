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
    double confidence;     /* --slo-confidence P, in (0, 1); 0: not given */
    const char *plot;
    const char *compare;   /* --compare "CLUSTER;CLUSTER..." (sync-allreduce, issue 17) */
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
            "  --slo-confidence P    the cheapest plan in expected cost that meets the deadline\n"
            "                        with probability >= P, in (0, 1), under the catalog's spot\n"
            "                        interruption rates (revocation risk: doc/model.md)\n"
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
            "  --restart-overhead T  added to every candidate's time (default when re-planning:\n"
            "                        the catalog's restart_overhead_s, else 30s; else 0); also\n"
            "                        the pause each revocation costs in the risk report\n"
            "Cost-deadline frontier:\n"
            "  --frontier            every deadline at which the cheapest plan changes, with\n"
            "                        that plan (exact, in one search; no --slo-time)\n"
            "  --from T1, --to T2    deadlines of the frontier (default 0 and unbounded: up\n"
            "                        to the cheapest plan of any duration); T1 < T2\n"
            "  --plot FILE           also draw it with gnuplot, FILE.svg or FILE.png\n"
            "Synchronous data parallel (a workload with \"mode\": \"sync-allreduce\"):\n"
            "  --compare \"C;C...\"    predict each cluster C (TYPE=N,...) and name the\n"
            "                        cheapest that meets the SLO, instead of planning\n"
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

/* The directory of --plot FILE ("." without a slash) into dir[size]. */
static void plot_dir(const char *file, char *dir, size_t size)
{
    const char *slash = strrchr(file, '/');
    if (!slash)
        snprintf(dir, size, ".");
    else
        snprintf(dir, size, "%.*s", slash == file ? 1 : (int)(slash - file), file);
}

/* Create an empty temporary file next to --plot FILE (same directory, so a
 * rename puts it in place); its name into tmp[size]. Returns 0, or -1 with
 * errno set (the directory is missing, read-only, not writable...). */
static int plot_tmp_create(const char *file, char *tmp, size_t size)
{
    char dir[PATH_MAX];
    plot_dir(file, dir, sizeof dir);
    if ((size_t)snprintf(tmp, size, "%s/.slo-plot-XXXXXX", dir) >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd < 0)
        return -1;
    mode_t um = umask(0);
    umask(um);
    if (fchmod(fd, 0666 & ~um) != 0 || close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

/* --plot FILE is checked before the search: a directory, or a file in a
 * directory where no file can be created (missing, read-only, /proc, /sys,
 * not writable) is bad input (exit 2), so gnuplot never fails on it and
 * nothing of the user's is removed. The check creates and removes a
 * temporary file there, as access(2) says yes to root on /sys. */
static int plot_target_error(const char *file)
{
    struct stat st;
    char dir[PATH_MAX], tmp[PATH_MAX];
    if (stat(file, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_usage_error(CMD, "--plot: expected a file to write, found a directory \"%s\"", file);
        return 1;
    }
    if (stat(file, &st) == 0 && !S_ISREG(st.st_mode)) {
        cli_usage_error(CMD, "--plot: expected a regular file to write, found \"%s\" is not one",
                        file);
        return 1;
    }
    plot_dir(file, dir, sizeof dir);
    if (plot_tmp_create(file, tmp, sizeof tmp) != 0) {
        cli_usage_error(CMD, "--plot: expected a file that can be created, found \"%s\" cannot "
                             "be (directory %s: %s)", file, dir, strerror(errno));
        return 1;
    }
    unlink(tmp);
    return 0;
}

static int parse_opts(int argc, char **argv, struct train_opts *o)
{
    enum { O_LOSS = 256, O_TIME, O_WORKLOAD, O_CATALOG, O_PRICING, O_BUDGET, O_EXACT,
           O_WINDOW, O_EXISTING, O_ELAPSED, O_LOSS_NOW, O_OVERHEAD, O_JSON, O_PROFILE,
           O_MAX_NODES, O_NODE_LIMIT, O_FRONTIER, O_FROM, O_TO, O_PLOT, O_CONFIDENCE, O_HELP,
           O_COMPARE };
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
        {"slo-confidence", required_argument, NULL, O_CONFIDENCE},
        {"help", no_argument, NULL, O_HELP},
        {"compare", required_argument, NULL, O_COMPARE},
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
            if (cli_parse_double(CMD, "--budget", optarg, 1e-12, 1e300,
                                 "a cost in USD in (0, 1e300]", &o->budget))
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
        case O_CONFIDENCE:
            if (cli_parse_double(CMD, "--slo-confidence", optarg, -1e300, 1e300,
                                 "a probability in (0, 1)", &o->confidence))
                return -1;
            if (!(o->confidence > 0 && o->confidence < 1)) {
                cli_usage_error(CMD, "--slo-confidence: expected a probability in (0, 1) (of "
                                     "meeting the deadline), found \"%s\"", optarg);
                return -1;
            }
            break;
        case O_HELP: usage(stdout); return 1;
        case O_COMPARE: o->compare = optarg; break;
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
                          : o->confidence > 0 ? "--slo-confidence (it takes one --slo-time)"
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

/* ------------------------------------------------------------------ */
/* Revocation risk of the plans (issue 13 item 4; doc/model.md          */
/* "Revocation risk"): slo_risk_evaluate with the catalog's rates.      */
/* ------------------------------------------------------------------ */

struct risk_ctx {
    const struct slo_catalog *cat;  /* rates (interruption_rate), prices */
    enum slo_pricing pricing;       /* the run's pricing */
    double left_s;                  /* deadline left, s */
    double restart_s;               /* pause per revocation, s */
    const char *restart_from;       /* "--restart-overhead", "catalog", "default" */
    double *rates;                  /* [cat->n_types] interruption rates, owned */
    char unknown[SLO_REASON_LENGTH];/* why a spot plan's risk is unknown, or "" */
    double confidence;              /* --slo-confidence, 0 when not given */
    int rec_on_demand;              /* the recommended plan is priced on demand */
    const struct slo_risk_plan_result *chosen; /* --slo-confidence's pick, or NULL */
};
static struct risk_ctx risk;

/* The risk of counts (setup order) computing for time_s, priced on demand
 * when od (else at the run's pricing): 0 with *ev set; 1 when a spot type
 * it uses has no interruption rate; -1 out of memory. */
static int plan_risk(const struct slo_train_setup *s, const int *counts, double time_s, int od,
                     struct slo_risk_eval *ev)
{
    struct slo_risk_pool *pools;
    slo_error_t err = {0};
    int rv = 0;

    if (!risk.cat || !counts || !(time_s > 0))
        return 1;
    pools = calloc(s->n_types ? s->n_types : 1, sizeof *pools);
    if (!pools)
        return -1;
    for (size_t k = 0; k < s->n_types; k++) {
        const struct slo_instance_type *it = &risk.cat->types[s->types[k].catalog_index];
        pools[k].count = counts[k];
        pools[k].spot = !od && risk.pricing == SLO_PRICING_SPOT && it->site == SLO_SITE_CLOUD;
        pools[k].usd_per_h =
            od ? slo_instance_price(it, SLO_PRICING_ON_DEMAND) : s->types[k].usd_per_h;
        pools[k].replace_usd_per_h = slo_instance_price(it, SLO_PRICING_ON_DEMAND);
        if (pools[k].spot && counts[k] > 0 && !it->has_interruption_rate)
            rv = 1;
        pools[k].p_revoke_h = pools[k].spot && it->has_interruption_rate ? it->interruption_rate
                                                                         : 0;
    }
    if (!rv && slo_risk_evaluate(pools, s->n_types, time_s, risk.left_s, risk.restart_s, ev,
                                 &err))
        rv = -1;
    free(pools);
    return rv;
}

/* "risk" of a plan object o (doc/cli.md): P(deadline met), expected cost with
 * re-planning, expected revocations, revocations the slack absorbs; null
 * when unknown. */
static void add_risk(json_t *o, const struct slo_train_setup *s, const struct slo_train_plan *p,
                     int od)
{
    struct slo_risk_eval ev;
    json_t *r;

    if (!json_is_object(o))
        return;
    if (plan_risk(s, p->counts, p->eval.time_s, od, &ev)) {
        json_object_set_new(o, "risk", json_null());
        return;
    }
    r = json_object();
    json_object_set_new(r, "p_deadline_met", json_real(ev.p_meet));
    json_object_set_new(r, "expected_cost_usd", json_real(ev.expected_cost_usd));
    json_object_set_new(r, "expected_revocations", json_real(ev.expected_revocations));
    json_object_set_new(r, "revocations_absorbed", json_integer(ev.max_revocations));
    json_object_set_new(o, "risk", r);
}

/* The model's inputs, once per answer (doc/cli.md "risk_model"). */
static json_t *risk_model_json(void)
{
    json_t *m = json_object();
    json_object_set_new(m, "model", json_string("poisson-revocations-on-demand-replacement"));
    json_object_set_new(m, "interruption_rates", json_string("catalog"));
    json_object_set_new(m, "restart_overhead_s", json_real(risk.restart_s));
    json_object_set_new(m, "restart_overhead_from", json_string(risk.restart_from));
    json_object_set_new(m, "unknown", risk.unknown[0] ? json_string(risk.unknown) : json_null());
    json_object_set_new(m, "confidence",
                        risk.confidence > 0 ? json_real(risk.confidence) : json_null());
    if (risk.chosen) {
        const struct slo_risk_plan_result *c = risk.chosen;
        json_object_set_new(m, "candidates", json_integer(c->candidates));
        json_object_set_new(m, "chosen_pricing",
                            json_string(c->on_demand ? "on-demand" : "spot"));
        json_object_set_new(m, "chosen_slack_revocations", json_integer(c->slack_revocations));
        json_object_set_new(m, "chosen_planned_deadline_s", json_real(c->plan_deadline_s));
    }
    return m;
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

    add_risk(best, s, &r->plan, risk.rec_on_demand);
    json_head(root, o, cat, wl, r);
    json_object_set_new(root, "method",
                        json_string(r->method == SLO_TRAIN_SEARCH_WINDOW ? "window" : "exact"));
    /* optimal or feasible_unproven, as the infeasible object says its own */
    json_object_set_new(root, "status", json_string(slo_status_name(r->status)));
    json_object_foreach(best, key, v) json_object_set(root, key, v);
    json_decref(best);
    if (r->have_window) {
        json_t *w = plan_json(s, &r->window, 1);
        add_risk(w, s, &r->window, 0);
        json_object_set_new(root, "window", w);
    }
    if (r->have_exact) {
        json_t *x = plan_json(s, &r->exact, 1);
        add_risk(x, s, &r->exact, 0);
        json_object_set_new(root, "exact", x);
    }
    json_t *od = plan_json(s, r->have_on_demand ? &r->on_demand : NULL, 0);
    add_risk(od, s, &r->on_demand, 1);
    json_object_set_new(root, "on_demand", od);
    json_t *hom = plan_json(s, r->have_homogeneous ? &r->homogeneous : NULL, 0);
    add_risk(hom, s, &r->homogeneous, 0);
    json_object_set_new(root, "homogeneous", hom);
    json_object_set_new(root, "risk_model", risk_model_json());
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

/* One row of the risk table. */
static void risk_row(const char *name, const struct slo_train_setup *s,
                     const struct slo_train_plan *p, int od, int *unknown)
{
    struct slo_risk_eval ev;
    if (!p->feasible)
        return;
    if (plan_risk(s, p->counts, p->eval.time_s, od, &ev)) {
        printf("  %-22s %8s %10s %14s %10s\n", name, "-", "-", "-", "-");
        *unknown = 1;
        return;
    }
    printf("  %-22s %8.4f %10.3f %14.6f %10d\n", name, ev.p_meet, ev.expected_revocations,
           ev.expected_cost_usd, ev.max_revocations);
}

/* The revocation risk of every plan of the answer (doc/model.md). */
static void print_risk_rows(const struct slo_train_result *r)
{
    const struct slo_train_setup *s = &r->setup;
    int unknown = 0;

    printf("\nrevocation risk (doc/model.md \"Revocation risk\"): spot instances revoked at "
           "the catalog's interruption rates, each replaced on demand after %.0f s (%s)\n",
           risk.restart_s, risk.restart_from);
    printf("  %-22s %8s %10s %14s %10s\n", "plan", "P(met)", "revocations", "expected USD",
           "absorbed");
    risk_row("recommended", s, &r->plan, risk.rec_on_demand, &unknown);
    if (r->have_window)
        risk_row("sliding window", s, &r->window, 0, &unknown);
    if (r->have_exact)
        risk_row("exact search", s, &r->exact, 0, &unknown);
    if (r->have_on_demand)
        risk_row("on-demand prices only", s, &r->on_demand, 1, &unknown);
    if (r->have_homogeneous)
        risk_row("cheapest homogeneous", s, &r->homogeneous, 0, &unknown);
    if (unknown)
        printf("  -: not known: %s\n", risk.unknown);
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
    if (risk.chosen && risk.chosen->on_demand)
        printf("\nrecommended plan (--slo-confidence %g: the cheapest in expected cost of %d "
               "candidates whose probability of meeting the deadline is at least %g; the plan "
               "at on-demand prices)\n",
               risk.confidence, risk.chosen->candidates, risk.confidence);
    else if (risk.chosen)
        printf("\nrecommended plan (--slo-confidence %g: the cheapest in expected cost of %d "
               "candidates whose probability of meeting the deadline is at least %g; spotDNN's "
               "plan for the deadline less %d restart overhead%s, slack for %d revocation%s)\n",
               risk.confidence, risk.chosen->candidates, risk.confidence,
               risk.chosen->slack_revocations, risk.chosen->slack_revocations == 1 ? "" : "s",
               risk.chosen->slack_revocations, risk.chosen->slack_revocations == 1 ? "" : "s");
    else
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
               p->counts[k],
               risk.rec_on_demand ? slo_instance_price(it, SLO_PRICING_ON_DEMAND)
                                  : s->types[k].usd_per_h);
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
    print_risk_rows(r);
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
    char tmp[PATH_MAX];
    if (plot_tmp_create(o->plot, tmp, sizeof tmp) != 0) {
        fprintf(stderr, "slo " CMD ": --plot %s: cannot create a file there (%s)\n", o->plot,
                strerror(errno));
        return 1;
    }
    FILE *g = popen("gnuplot", "w");
    if (!g) {
        fprintf(stderr, "slo " CMD ": --plot: cannot run gnuplot (%s)\n", strerror(errno));
        unlink(tmp);
        return 1;
    }
    fprintf(g, "set terminal %s size 800,500\n", png ? "pngcairo" : "svg");
    fprintf(g, "set output '");
    for (const char *c = tmp; *c; c++) /* gnuplot single quotes: '' is a quote */
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
        unlink(tmp); /* a half-drawn picture; the user's FILE is untouched */
        return 1;
    }
    if (rename(tmp, o->plot) != 0) {
        fprintf(stderr, "slo " CMD ": --plot %s: cannot put the picture in place (%s)\n", o->plot,
                strerror(errno));
        unlink(tmp);
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

/* The risk context of a feasible answer r and, with --slo-confidence, the
 * risk-aware plan (slo_risk_plan) put in r->plan. Returns SLO_EXIT_OK, or
 * the exit status after its message (rates unknown, the confidence out of
 * reach: exit 2). */
static int risk_setup(const struct train_opts *o, const struct slo_train_problem *pb,
                      const struct slo_train_options *opt, const struct slo_catalog *cat,
                      const struct slo_workload *wl, struct slo_train_result *r,
                      struct slo_risk_plan_result *rp)
{
    const struct slo_train_setup *s = &r->setup;
    slo_error_t err = {0};

    memset(&risk, 0, sizeof risk);
    risk.cat = cat;
    risk.pricing = o->pricing;
    risk.left_s = r->remaining_s;
    risk.confidence = o->confidence;
    risk.restart_s = o->have_overhead         ? o->overhead_s
                     : cat->has_restart_overhead ? cat->restart_overhead_s
                                                 : 30;
    risk.restart_from = o->have_overhead         ? "--restart-overhead"
                        : cat->has_restart_overhead ? "the catalog's restart_overhead_s"
                                                    : "default; the catalog gives no "
                                                      "restart_overhead_s";
    risk.rates = calloc(cat->n_types ? cat->n_types : 1, sizeof *risk.rates);
    if (!risk.rates) {
        fprintf(stderr, "slo " CMD ": out of memory\n");
        return SLO_EXIT_INTERNAL;
    }
    for (size_t k = 0; k < cat->n_types; k++)
        risk.rates[k] = cat->types[k].has_interruption_rate ? cat->types[k].interruption_rate : 0;
    for (size_t k = 0; k < s->n_types && o->pricing == SLO_PRICING_SPOT; k++) {
        const struct slo_instance_type *it = &cat->types[s->types[k].catalog_index];
        if (it->site == SLO_SITE_CLOUD && s->types[k].quota > 0 && !it->has_interruption_rate) {
            snprintf(risk.unknown, sizeof risk.unknown,
                     "catalog %s gives no interruption_rate for %s (doc/formats.md)", cat->name,
                     it->name);
            break;
        }
    }
    /* On-demand pricing has no spot risk: its plan meets the deadline with
     * probability 1 >= any confidence. */
    if (!(o->confidence > 0) || o->pricing != SLO_PRICING_SPOT)
        return SLO_EXIT_OK;
    if (risk.unknown[0]) {
        cli_usage_error(CMD, "--slo-confidence: expected an interruption rate for every spot "
                             "type a plan may use, found none: %s",
                        risk.unknown);
        return SLO_EXIT_USAGE;
    }
    if (slo_risk_plan(pb, opt, risk.rates, risk.restart_s, o->confidence, rp, &err))
        return cli_report(CMD, &err);
    if (!rp->found || !rp->meets_confidence) {
        char list[512] = "", reason[SLO_REASON_LENGTH];
        if (rp->found)
            plan_string(s, rp->counts, list, sizeof list);
        if (rp->found && rp->over_budget)
            snprintf(reason, sizeof reason,
                     "--budget: expected a plan whose expected cost under --slo-confidence %g "
                     "is at most %.10g USD, found none: the cheapest in expectation of %d "
                     "candidate%s, %s at %s prices (%.2f s, %.6f USD without revocations), "
                     "meets the deadline with probability %.4f at an expected %.6f USD",
                     o->confidence, pb->budget_usd, rp->candidates,
                     rp->candidates == 1 ? "" : "s", list,
                     rp->on_demand ? "on-demand" : "spot", rp->time_s, rp->cost_usd,
                     rp->risk.p_meet, rp->risk.expected_cost_usd);
        else if (rp->found)
            snprintf(reason, sizeof reason,
                     "no plan meets the deadline (%.0f s left) with probability >= %g "
                     "(--slo-confidence): the most likely of %d candidate%s, %s at %s prices "
                     "(%.2f s, %.6f USD without revocations), meets it with probability %.4f",
                     r->remaining_s, o->confidence, rp->candidates,
                     rp->candidates == 1 ? "" : "s", list,
                     rp->on_demand ? "on-demand" : "spot", rp->time_s, rp->cost_usd,
                     rp->risk.p_meet);
        else
            snprintf(reason, sizeof reason,
                     "no plan meets the deadline (%.0f s left) with probability >= %g "
                     "(--slo-confidence): no candidate meets it even without revocations",
                     r->remaining_s, o->confidence);
        fprintf(stderr, "slo " CMD ": %s\n", reason);
        if (o->json) {
            json_t *root = json_object();
            json_object_set_new(root, "status",
                                json_string(slo_status_name(SLO_STATUS_INFEASIBLE)));
            json_object_set_new(root, "reason", json_string(reason));
            json_head(root, o, cat, wl, r);
            json_object_set_new(root, "closest_kind",
                                !rp->found       ? json_null()
                                : rp->over_budget ? json_string("cheapest_expected")
                                                  : json_string("most_likely"));
            if (rp->found) {
                struct slo_train_plan ml = {.feasible = 1, .counts = rp->counts,
                                            .eval = rp->eval, .proven = rp->proven};
                json_t *c = plan_object(s, &ml, 0);
                add_risk(c, s, &ml, rp->on_demand);
                json_object_set_new(root, "closest", c);
            } else {
                json_object_set_new(root, "closest", json_null());
            }
            json_object_set_new(root, "risk_model", risk_model_json());
            dump_json(root);
            if (fflush(stdout) != 0)
                return SLO_EXIT_INTERNAL;
        }
        return SLO_EXIT_USAGE;
    }
    /* The risk-aware plan is the answer; the comparisons stay spotDNN's. */
    memcpy(r->plan.counts, rp->counts, s->n_types * sizeof *rp->counts);
    r->plan.eval = rp->eval;
    r->plan.proven = rp->proven;
    risk.rec_on_demand = rp->on_demand;
    risk.chosen = rp;
    return SLO_EXIT_OK;
}

/* ---- sync-allreduce workloads (issue 17) ---------------------------- */

static json_t *sync_json(const struct slo_train_setup *s, const int *counts,
                         const struct slo_sync_eval *e, int meets)
{
    json_t *o = json_object(), *cl = json_object();
    for (size_t k = 0; k < s->n_types; k++)
        if (counts[k])
            json_object_set_new(cl, s->types[k].name, json_integer(counts[k]));
    json_object_set_new(o, "cluster", cl);
    json_object_set_new(o, "nodes", json_integer(e->nodes));
    json_object_set_new(o, "gpus", json_integer(e->gpus));
    json_object_set_new(o, "global_batch", json_real(e->batch));
    json_object_set_new(o, "t_comp_s", json_real(e->t_comp_s));
    /* one GPU has no allreduce and so no link: null, not 0 MB/s */
    json_object_set_new(o, "link_mbps", e->gpus > 1 ? json_real(e->link_mbps) : json_null());
    json_object_set_new(o, "t_allreduce_s", json_real(e->t_allreduce_s));
    json_object_set_new(o, "t_exposed_s", json_real(e->t_exposed_s));
    json_object_set_new(o, "step_s", json_real(e->step_s));
    json_object_set_new(o, "efficiency", json_real(e->efficiency));
    json_object_set_new(o, "iterations", json_integer((json_int_t)e->iterations));
    json_object_set_new(o, "time_s", json_real(e->time_s));
    json_object_set_new(o, "usd_per_h", json_real(e->usd_per_h));
    json_object_set_new(o, "cost_usd", json_real(e->cost_usd));
    if (meets >= 0)
        json_object_set_new(o, "meets_slo", json_boolean(meets));
    return o;
}

static void sync_print(const char *label, const struct slo_train_setup *s, const int *counts,
                       const struct slo_sync_eval *e)
{
    char list[512], t[32];
    slo_train_counts_format(s, counts, '=', list, sizeof list);
    slo_format_duration(e->time_s, t, sizeof t);
    printf("%s%s\n", label, list);
    printf("  %d node%s, %d GPU%s, %.4f USD/h, global batch %.0f\n", e->nodes,
           e->nodes == 1 ? "" : "s", e->gpus, e->gpus == 1 ? "" : "s", e->usd_per_h, e->batch);
    if (e->gpus < 2)
        printf("  step             %.6f s = compute (one GPU: no allreduce)\n", e->step_s);
    else
        printf("  step             %.6f s = compute %.6f s + exposed allreduce %.6f s (ring "
               "%.6f s on %.0f MB/s)\n",
               e->step_s, e->t_comp_s, e->t_exposed_s, e->t_allreduce_s, e->link_mbps);
    printf("  efficiency E(B)  %.4f, %.0f steps\n", e->efficiency, e->iterations);
    printf("  predicted time   %.2f s (%s)\n", e->time_s, t);
    printf("  cost             %.6f USD\n", e->cost_usd);
}

/* The request of problem pb, as slo_train_solve builds it. */
static struct slo_train_request sync_request(const struct slo_train_problem *pb)
{
    struct slo_train_request req = {
        .target_loss = pb->target_loss,
        .deadline_s = pb->deadline_s - pb->elapsed_s,
        .budget_usd = pb->budget_usd,
        .loss_now = pb->loss_now,
        .overhead_s = pb->overhead_s,
    };
    return req;
}

/* --compare "C;C...": every candidate cluster's prediction, and the cheapest
 * that meets deadline and budget. */
static int sync_compare(const struct train_opts *o, const struct slo_train_problem *pb)
{
    struct slo_train_setup s = {0};
    struct slo_train_request req = sync_request(pb);
    slo_error_t err = {0};
    char spec[4096], *save = NULL, *item;
    int status = SLO_EXIT_USAGE, n = 0, best = -1;
    double best_cost = 0, best_time = 0;
    struct {
        int counts[SLO_CLUSTER_MAX_TYPES];
        struct slo_sync_eval e;
        int meets;
        char text[256];
    } *cand = NULL;
    json_t *root = NULL, *arr = NULL;

    if (strlen(o->compare) >= sizeof spec)
        return cli_usage_error(CMD, "--compare: expected at most %zu characters, found %zu",
                               sizeof spec - 1, strlen(o->compare));
    snprintf(spec, sizeof spec, "%s", o->compare);
    if (slo_sync_setup_init(&s, pb->catalog, pb->workload, pb->pricing, &err))
        return cli_report(CMD, &err);
    if (s.n_types > SLO_CLUSTER_MAX_TYPES) {
        slo_train_setup_free(&s);
        return cli_usage_error(CMD, "--compare: at most %d profiled types", SLO_CLUSTER_MAX_TYPES);
    }
    if (!(cand = calloc(64, sizeof *cand))) {
        slo_train_setup_free(&s);
        fprintf(stderr, "slo " CMD ": out of memory\n");
        return SLO_EXIT_INTERNAL;
    }
    /* --existing: the survivors every candidate must keep (as the planner) */
    int keep[SLO_CLUSTER_MAX_TYPES] = {0};
    for (size_t i = 0; pb->existing && i < pb->existing->n; i++) {
        const struct slo_cluster_entry *x = &pb->existing->entry[i];
        size_t k;
        for (k = 0; k < s.n_types; k++)
            if (strcmp(s.types[k].name, x->type) == 0)
                break;
        if (k == s.n_types) {
            cli_usage_error(CMD, "--existing: expected an instance type of the catalog that the "
                                 "workload profiles, found \"%s\"", x->type);
            goto out;
        }
        keep[k] = (int)x->count;
    }
    /* split by hand: strtok_r would skip the empty items of "A;" and ";;" */
    for (item = spec; item; item = save) {
        struct slo_cluster c;
        int nodes = 0;
        save = strchr(item, ';');
        if (save)
            *save++ = '\0';
        if (!item[0]) {
            cli_usage_error(CMD, "--compare: expected CLUSTER;CLUSTER... (TYPE=N,...), found "
                                 "an empty cluster in \"%s\"", o->compare);
            goto out;
        }
        if (n == 64) {
            cli_usage_error(CMD, "--compare: expected at most 64 clusters");
            goto out;
        }
        snprintf(cand[n].text, sizeof cand[n].text, "%.255s", item);
        if (slo_cluster_parse(item, &c, &err)) {
            snprintf(err.source, sizeof err.source, "--compare");
            status = cli_report(CMD, &err);
            goto out;
        }
        for (size_t i = 0; i < c.n; i++) {
            size_t k;
            for (k = 0; k < s.n_types; k++)
                if (strcmp(s.types[k].name, c.entry[i].type) == 0)
                    break;
            if (k == s.n_types) {
                cli_usage_error(CMD, "--compare: expected an instance type of the catalog that "
                                     "the workload profiles, found \"%s\"", c.entry[i].type);
                goto out;
            }
            if (c.entry[i].count < 0 || c.entry[i].count > s.types[k].quota) {
                cli_usage_error(CMD, "--compare: %s: expected a count from 0 to the catalog's "
                                     "quota %d, found \"%s\"", c.entry[i].type,
                                s.types[k].quota, c.entry[i].count_text);
                goto out;
            }
            cand[n].counts[k] = (int)c.entry[i].count;
        }
        for (size_t k = 0; k < s.n_types; k++) {
            nodes += cand[n].counts[k];
            if (cand[n].counts[k] < keep[k]) {
                cli_usage_error(CMD, "--compare %s: expected a cluster that keeps --existing's "
                                     "%d %s (the surviving instances), found %d",
                                item, keep[k], s.types[k].name, cand[n].counts[k]);
                goto out;
            }
        }
        if (o->max_nodes > 0 && nodes > o->max_nodes) {
            cli_usage_error(CMD, "--compare %s: expected at most --max-nodes %d instances, "
                                 "found %d", item, o->max_nodes, nodes);
            goto out;
        }
        for (int q = 0; q < n; q++)
            if (memcmp(cand[q].counts, cand[n].counts, sizeof cand[n].counts) == 0) {
                cli_usage_error(CMD, "--compare: expected each cluster once, found \"%s\" "
                                     "again (as candidate %d, \"%s\")",
                                item, q + 1, cand[q].text);
                goto out;
            }
        int rv = slo_sync_evaluate(&s, cand[n].counts, &req, &cand[n].e, NULL, &err);
        if (rv) {
            if (rv == SLO_ERR_INVALID)
                snprintf(err.source, sizeof err.source, "--compare %.200s", item);
            status = cli_report(CMD, &err);
            goto out;
        }
        cand[n].meets = cand[n].e.time_s <= req.deadline_s &&
                        !(req.budget_usd > 0 && cand[n].e.cost_usd > req.budget_usd);
        if (cand[n].meets && (best < 0 || cand[n].e.cost_usd < best_cost ||
                              (cand[n].e.cost_usd == best_cost && cand[n].e.time_s < best_time))) {
            best = n;
            best_cost = cand[n].e.cost_usd;
            best_time = cand[n].e.time_s;
        }
        n++;
    }
    if (n == 0) {
        cli_usage_error(CMD, "--compare: expected CLUSTER;CLUSTER... (TYPE=N,...), found \"%s\"",
                        o->compare);
        goto out;
    }
    if (best < 0) {
        /* a refusal: the reason and the fastest candidate on stderr, nothing
         * on stdout but --json's object (as the planner's infeasible SLO) */
        int fastest = 0;
        for (int i = 1; i < n; i++)
            if (cand[i].e.time_s < cand[fastest].e.time_s)
                fastest = i;
        fprintf(stderr, "slo " CMD ": no candidate meets the SLO: loss %g within %g s%s; the "
                        "fastest, candidate %d (%s), needs %.2f s at %.6f USD\n",
                pb->target_loss, req.deadline_s, req.budget_usd > 0 ? " and the budget" : "",
                fastest + 1, cand[fastest].text, cand[fastest].e.time_s,
                cand[fastest].e.cost_usd);
        if (!o->json) {
            status = SLO_EXIT_USAGE;
            goto out;
        }
    }
    if (o->json) {
        root = json_object();
        arr = json_array();
        json_object_set_new(root, "workload", json_string(pb->workload->name));
        json_object_set_new(root, "catalog", json_string(pb->catalog->name));
        json_object_set_new(root, "mode", json_string("sync-allreduce"));
        json_object_set_new(root, "pricing",
                            json_string(o->pricing == SLO_PRICING_SPOT ? "spot" : "on-demand"));
        for (int i = 0; i < n; i++)
            json_array_append_new(arr, sync_json(&s, cand[i].counts, &cand[i].e, cand[i].meets));
        json_object_set_new(root, "candidates", arr);
        json_object_set_new(root, "winner", best >= 0 ? json_integer(best) : json_null());
        dump_json(root);
    } else {
        printf("workload %s (sync-allreduce), catalog %s, %s prices\n", pb->workload->name,
               pb->catalog->name, o->pricing == SLO_PRICING_SPOT ? "spot" : "on-demand");
        for (int i = 0; i < n; i++) {
            char label[300];
            snprintf(label, sizeof label, "\ncandidate %d%s: ", i + 1,
                     i == best ? " (winner)" : cand[i].meets ? "" : " (misses the SLO)");
            sync_print(label, &s, cand[i].counts, &cand[i].e);
        }
        if (best >= 0) {
            /* the reason: what made it cheapest */
            int fastest = 0;
            for (int i = 1; i < n; i++)
                if (cand[i].e.time_s < cand[fastest].e.time_s)
                    fastest = i;
            printf("\nwinner: candidate %d, the cheapest that meets the SLO (%.6f USD); ",
                   best + 1, best_cost);
            if (fastest == best)
                printf("it is also the fastest\n");
            else
                printf("candidate %d is faster (%.2f s) but costs %.6f USD: its price per hour "
                       "grows more than its time shrinks\n",
                       fastest + 1, cand[fastest].e.time_s, cand[fastest].e.cost_usd);
        }
    }
    status = fflush(stdout) == 0 ? (best >= 0 ? SLO_EXIT_OK : SLO_EXIT_USAGE) : SLO_EXIT_INTERNAL;
out:
    free(cand);
    slo_train_setup_free(&s);
    return status;
}

/* slo train for a sync-allreduce workload: the exact planner (or --compare). */
static int run_sync(const struct train_opts *o, struct slo_train_problem *pb,
                    const struct slo_train_options *opt)
{
    const char *bad = o->frontier ? "--frontier" : o->profile ? "--profile"
                      : o->confidence > 0 ? "--slo-confidence"
                      : opt->search == SLO_TRAIN_SEARCH_WINDOW ? "--window" : NULL;
    if (!bad && o->compare && o->node_limit > 0)
        return cli_usage_error(CMD, "--node-limit: expected the exact search, found --compare "
                                    "(it predicts the listed clusters and searches nothing)");
    struct slo_train_result r = {0};
    struct slo_train_request req = sync_request(pb);
    slo_error_t err = {0};
    int status;

    if (bad)
        return cli_usage_error(CMD, "%s: expected an async-ps workload (spotDNN's model), found "
                                    "workload %s with \"mode\": \"sync-allreduce\"",
                               bad, pb->workload->name);
    if (o->compare)
        return sync_compare(o, pb);
    if (slo_train_solve(pb, opt, &r, &err)) {
        status = cli_report(CMD, &err);
        goto out;
    }
    req.existing = r.existing;
    if (!slo_status_feasible(r.status)) {
        fprintf(stderr, "slo " CMD ": %s\n", r.reason);
        if (o->json) {
            json_t *root = json_object();
            struct slo_sync_eval e;
            json_object_set_new(root, "workload", json_string(pb->workload->name));
            json_object_set_new(root, "mode", json_string("sync-allreduce"));
            json_object_set_new(root, "status", json_string(slo_status_name(r.status)));
            json_object_set_new(root, "reason", json_string(r.reason));
            if (r.closest.counts &&
                slo_sync_evaluate(&r.setup, r.closest.counts, &req, &e, NULL, NULL) == SLO_OK)
                json_object_set_new(root, "closest", sync_json(&r.setup, r.closest.counts, &e, 0));
            dump_json(root);
        }
        status = fflush(stdout) == 0 ? SLO_EXIT_USAGE : SLO_EXIT_INTERNAL;
        goto out;
    }
    struct slo_sync_eval e, he;
    int have_h = r.have_homogeneous && r.homogeneous.feasible &&
                 slo_sync_evaluate(&r.setup, r.homogeneous.counts, &req, &he, NULL, NULL) == 0;
    if ((status = slo_sync_evaluate(&r.setup, r.plan.counts, &req, &e, NULL, &err))) {
        status = cli_report(CMD, &err);
        goto out;
    }
    if (o->json) {
        json_t *root = json_object();
        json_object_set_new(root, "workload", json_string(pb->workload->name));
        json_object_set_new(root, "catalog", json_string(pb->catalog->name));
        json_object_set_new(root, "mode", json_string("sync-allreduce"));
        json_object_set_new(root, "pricing",
                            json_string(o->pricing == SLO_PRICING_SPOT ? "spot" : "on-demand"));
        json_object_set_new(root, "status", json_string(slo_status_name(r.status)));
        json_object_set_new(root, "method", json_string("exact"));
        json_object_set_new(root, "proven", json_boolean(r.plan.proven));
        json_object_set_new(root, "search_nodes", json_integer(r.plan.evaluations));
        json_object_set_new(root, "plan", sync_json(&r.setup, r.plan.counts, &e, 1));
        json_object_set_new(root, "homogeneous",
                            have_h ? sync_json(&r.setup, r.homogeneous.counts, &he, 1)
                                   : json_null());
        json_object_set_new(root, "on_demand_cost_usd",
                            r.have_on_demand ? json_real(r.on_demand.eval.cost_usd)
                                             : json_null());
        dump_json(root);
    } else {
        char dl[32];
        slo_format_duration(req.deadline_s, dl, sizeof dl);
        printf("workload %s (sync-allreduce), catalog %s, %s prices\n", pb->workload->name,
               pb->catalog->name, o->pricing == SLO_PRICING_SPOT ? "spot" : "on-demand");
        printf("SLO: loss %.10g within %s (%.6g s)", pb->target_loss, dl, req.deadline_s);
        if (pb->budget_usd > 0)
            printf(", at most %.6g USD", pb->budget_usd);
        printf("\n\n");
        sync_print(r.plan.proven ? "recommended plan (exact search: proven cheapest under the "
                                   "model): "
                                 : "recommended plan (exact search stopped at its node limit: "
                                   "not proven): ",
                   &r.setup, r.plan.counts, &e);
        printf("  search nodes     %ld\n", r.plan.evaluations);
        if (have_h)
            printf("\ncheapest plan of one instance type: %.6f USD in %.2f s\n", he.cost_usd,
                   he.time_s);
        if (r.have_on_demand)
            printf("the same search at on-demand prices: %.6f USD\n", r.on_demand.eval.cost_usd);
    }
    status = fflush(stdout) == 0 ? SLO_EXIT_OK : SLO_EXIT_INTERNAL;
out:
    slo_train_result_free(&r);
    return status;
}

int slo_cmd_train(int argc, char **argv)
{
    struct train_opts o = {.pricing = SLO_PRICING_SPOT};
    struct slo_catalog cat = {0};
    struct slo_workload wl = {0};
    struct slo_cluster existing;
    struct slo_train_result r = {0};
    struct slo_risk_plan_result rp = {0};
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
    if (o.profile && wl.mode != SLO_TRAIN_SYNC_ALLREDUCE) {
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
    if (o.compare && wl.mode != SLO_TRAIN_SYNC_ALLREDUCE) {
        status = cli_usage_error(CMD, "--compare: expected a sync-allreduce workload, found "
                                      "workload %s (async-ps)", wl.name);
        goto out;
    }
    if (o.frontier && wl.mode != SLO_TRAIN_SYNC_ALLREDUCE) {
        status = run_frontier(&o, &cat, &wl);
        goto out;
    }
    /* The catalog's restart overhead replaces the 30 s default of a re-plan. */
    if (!o.have_overhead && o.overhead_s > 0 && cat.has_restart_overhead)
        o.overhead_s = cat.restart_overhead_s;
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
    if (wl.mode == SLO_TRAIN_SYNC_ALLREDUCE) { /* issue 17 */
        status = run_sync(&o, &pb, &opt);
        goto out;
    }
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
    if ((status = risk_setup(&o, &pb, &opt, &cat, &wl, &r, &rp)) != SLO_EXIT_OK)
        goto out;
    if (o.json)
        print_json(&o, &cat, &wl, &r);
    else
        print_human(&o, pb.existing, &cat, &wl, &r);
    status = fflush(stdout) == 0 ? SLO_EXIT_OK : SLO_EXIT_INTERNAL;
out:
    slo_risk_plan_result_free(&rp);
    free(risk.rates);
    risk.rates = NULL;
    slo_train_result_free(&r);
    slo_catalog_free(&cat);
    slo_workload_free(&wl);
    return status;
}
