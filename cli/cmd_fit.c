/*
 * cmd_fit.c - `slo fit`: fit model coefficients from profiling data.
 *   slo fit train [--workload W] [--catalog C] [--form F] LOG.csv...
 *   slo fit infer PROFILE (cli/cmd_infer.c)
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CMD "fit train"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slo fit train [--workload NAME|FILE] [--catalog NAME|FILE]\n"
            "                     [--form spotdnn-2023|spotdnn-2022] LOG.csv...\n"
            "       slo fit train --model-bytes N [--catalog NAME|FILE] [--form F]\n"
            "                     [--mpiprof FILE] [--b-req-mbps X] [--b-ps-mbps X]\n"
            "                     [--ps-type TYPE] [--contention A,B] [--name NAME] LOG.csv...\n"
            "       slo fit train [--mode sync-allreduce] [--model-bytes N] [--catalog C]\n"
            "                     [--name NAME] DDP-LOG.csv...   (doc/cli.md; detected from\n"
            "                     a \"# mode: sync-allreduce\" comment in the logs)\n"
            "       slo fit infer PROFILE   (iGniter coefficients; slo fit infer --help)\n"
            "\n"
            "Fit the spotDNN loss model (Eq. 3) to per-worker training logs (format:\n"
            "doc/formats.md). Logs with the same \"# cluster:\" line form one profiling\n"
            "run; use runs on at least two clusters whose weighted-average batches\n"
            "differ (the paper uses 2, 4 and 7 workers of mixed instance types). With\n"
            "--workload, prints that profile with the fitted loss_model\n"
            "(form spotdnn-2023 needs it: the convergence coefficient comes from its\n"
            "speeds); without, prints the loss_model object alone. Fit quality goes to\n"
            "stderr.\n"
            "\n"
            "With --model-bytes (or a \"# parameter_bytes:\" comment in the logs) and no\n"
            "--workload, fits EVERY coefficient and prints a complete workload profile:\n"
            "per-type speeds from each type's run alone (step_s), S_parm from the bytes,\n"
            "B_req/B_ps from --b-req-mbps/--b-ps-mbps, --mpiprof or --ps-type's\n"
            "network_mbps, alpha1/beta1 (Eq. 9) from the multi-worker runs, the loss\n"
            "model (doc/cli.md \"slo fit train\").\n"
            "  --form F      spotdnn-2023 (paper, default with --workload or a complete\n"
            "                profile) or spotdnn-2022 (draft/code, default otherwise)\n");
}

/* The fitted profile on stdout: SLO_EXIT_OK, or SLO_EXIT_INTERNAL (no
 * memory, a failed write). */
static int print_profile(const struct slo_workload *wl)
{
    char *text = slo_workload_to_json(wl);
    if (!text)
        return SLO_EXIT_INTERNAL;
    printf("%s\n", text);
    free(text);
    return fflush(stdout) == 0 ? SLO_EXIT_OK : SLO_EXIT_INTERNAL;
}

/* A fitted loss floor below 0 but within two standard errors of it (the
 * fit refuses one further below): written as 0, as profiles need gamma5 >= 0
 * (a loss is never negative), and said on stderr. */
static void floor_at_zero(double *gamma5, double se)
{
    if (*gamma5 < 0) {
        fprintf(stderr, "slo " CMD ": note: gamma5 %.4g +- %.2g is within two standard errors "
                        "of 0: written as 0 (a loss floor is never negative)\n",
                *gamma5, 2 * se);
        *gamma5 = 0;
    }
}

/* A complete profile from nothing but logs (issue 12, item 2). */
static int fit_complete(struct slo_train_log *logs, size_t n_logs,
                        struct slo_train_fit_options *fo, const char *catalog)
{
    struct slo_catalog cat = {0};
    struct slo_workload wl = {0};
    struct slo_train_fit_result res = {0};
    struct slo_train_setup s = {0};
    slo_error_t err = {0};
    int status;

    if (catalog && cli_load_catalog(catalog, &cat, &err))
        return cli_report(CMD, &err);
    fo->catalog = catalog ? &cat : NULL;
    if (slo_fit_train_profile(logs, n_logs, fo, &wl, &res, &err) ||
        (catalog && slo_train_setup_init(&s, &cat, &wl, SLO_PRICING_SPOT, &err))) {
        status = cli_report(CMD, &err);
        goto out;
    }
    fprintf(stderr, "slo " CMD ": %zu logs, %zu runs; S_parm %.6g MB; B_req %.6g MB/s (%s); "
                    "B_ps %.6g MB/s (%s); B_pcie: %s\n",
            n_logs, res.n_runs, wl.s_parm_mb, wl.b_req_mbps, res.b_req_source, wl.b_ps_mbps,
            res.b_ps_source,
            catalog ? "the catalog's pcie_mbps per type, else 10000 MB/s (paper)"
                    : "10000 MB/s (paper default; not measured)");
    for (size_t k = 0; k < res.n_types; k++) {
        const struct slo_train_fit_type *t = &res.types[k];
        double se_v = t->batch / (t->t_alone_s * t->t_alone_s) * t->t_alone_se_s;
        fprintf(stderr, "slo " CMD ": %s: T(1) %.6g s +- %.2g (median of %zu steps alone), "
                        "speed %.6g +- %.2g samples/s, batch %g (%d GPU%s), B_req %.6g MB/s\n",
                t->type, t->t_alone_s, 2 * t->t_alone_se_s, t->n_steps, t->batch / t->t_alone_s,
                2 * se_v, t->batch, t->gpus, t->gpus == 1 ? "" : "s", t->b_req_mbps);
    }
    if (res.contention_fitted && isfinite(res.alpha1_se) && isfinite(res.beta1_se))
        fprintf(stderr, "slo " CMD ": contention (Eq. 9) from %zu workers: alpha1 %.5g +- %.2g, "
                        "beta1 %.5g +- %.2g (two standard errors), rms residual of P %.3g\n",
                res.contention_used, wl.alpha1, 2 * res.alpha1_se, wl.beta1, 2 * res.beta1_se,
                res.rms_p);
    else if (res.contention_fitted) /* two observations for two coefficients: no residual */
        fprintf(stderr, "slo " CMD ": contention (Eq. 9) from %zu workers: alpha1 %.5g, beta1 "
                        "%.5g; their standard errors are unknown (as many observations as "
                        "coefficients: log more workers or cluster sizes)\n",
                res.contention_used, wl.alpha1, wl.beta1);
    else
        fprintf(stderr, "slo " CMD ": contention (Eq. 9): alpha1 %g, beta1 %g as --contention "
                        "states (not fitted)\n",
                wl.alpha1, wl.beta1);
    if (res.n_time_obs)
        fprintf(stderr, "slo " CMD ": iteration times of %zu workers in multi-worker runs: "
                        "model vs median step_s, rms %.2f%%, max %.2f%%\n",
                res.n_time_obs, 100 * res.time_rms_rel, 100 * res.time_max_rel);
    fprintf(stderr,
            "slo " CMD ": %zu loss samples from %zu clusters: rmse %.4g, R^2 %.4f, "
            "condition number %.3g, gamma1 %.5g +- %.2g, gamma2 %.4g +- %.2g, gamma3 %.5g "
            "+- %.2g, gamma5 %.4g +- %.2g (two standard errors)%s\n",
            res.loss.n_samples, res.loss.n_clusters, res.loss.rmse, res.loss.r2,
            res.loss.condition, wl.loss.gamma1, 2 * res.loss.gamma1_se, wl.loss.gamma2,
            2 * res.loss.gamma2_se, wl.loss.gamma3, 2 * res.loss.gamma3_se, wl.loss.gamma5,
            2 * res.loss.gamma5_se,
            wl.loss.form == SLO_LOSS_SPOTDNN_2023 ? "" : "; form spotdnn-2022");
    if (wl.loss.form == SLO_LOSS_SPOTDNN_2023)
        fprintf(stderr, "slo " CMD ": gamma4 %.5g%s\n", wl.loss.gamma4,
                res.loss.gamma4_at_limit ? " (the lower end of [0, 10]: R alone scales the loss)"
                                         : "");
    floor_at_zero(&wl.loss.gamma5, res.loss.gamma5_se);
    status = print_profile(&wl);
out:
    slo_train_setup_free(&s);
    slo_train_fit_result_free(&res);
    slo_workload_free(&wl);
    slo_catalog_free(&cat);
    return status;
}

/* A sync-allreduce profile from DDP logs (issue 17, slo_fit_sync_profile). */
static int fit_sync(struct slo_train_log *logs, size_t n_logs,
                    const struct slo_train_fit_options *fo, const char *catalog,
                    const char *workload, const char *form, const char *complete_opt)
{
    struct slo_catalog cat = {0};
    struct slo_workload wl = {0};
    struct slo_sync_fit_options so;
    struct slo_sync_fit_result res;
    slo_error_t err = {0};
    int status;

    if (workload || form || (complete_opt && strcmp(complete_opt, "model-bytes") != 0 &&
                             strcmp(complete_opt, "name") != 0))
        return cli_usage_error(CMD, "%s%s: expected with async-ps logs only (a sync-allreduce "
                                    "fit takes --model-bytes, --catalog, --name), found it with "
                                    "sync-allreduce logs",
                               workload ? "--workload" : form ? "--form" : "--",
                               workload || form ? "" : complete_opt);
    if (catalog && cli_load_catalog(catalog, &cat, &err))
        return cli_report(CMD, &err);
    slo_sync_fit_options_init(&so);
    so.catalog = catalog ? &cat : NULL;
    so.gradient_bytes = fo->parameter_bytes;
    so.name = fo->name;
    if (slo_fit_sync_profile(logs, n_logs, &so, &wl, &res, &err)) {
        status = cli_report(CMD, &err);
        goto out;
    }
    fprintf(stderr, "slo " CMD ": sync-allreduce: %zu logs, %zu runs, %zu types; gradient %.6g "
                    "bytes\n", n_logs, res.n_runs, res.n_types, wl.sync->gradient_bytes);
    for (size_t k = 0; k < wl.sync->n_instances; k++)
        fprintf(stderr, "slo " CMD ": %s: speed %.6g samples/s, step overhead %.3g s (its "
                        "runs alone)\n",
                wl.sync->instances[k].type, wl.sync->instances[k].speed,
                wl.sync->instances[k].step_overhead_s);
    if (res.n_worker_counts == 1)
        fprintf(stderr, "slo " CMD ": note: runs at one worker count N >= 2 only: their "
                        "allreduce time is kept as a latency, the bandwidth is not determined "
                        "(the catalog's links apply when planning; other N extrapolate the "
                        "ring's 2 (N-1) latency)\n");
    else if (!(res.link_mbps > 0))
        fprintf(stderr, "slo " CMD ": note: the multi-worker runs' extra step time does not "
                        "grow with the allreduce's bytes: latency only, no link_mbps (the "
                        "catalog's links apply when planning)\n");
    char link[48] = "none (latency only)";
    if (res.link_mbps > 0)
        snprintf(link, sizeof link, "%.6g MB/s", res.link_mbps);
    fprintf(stderr, "slo " CMD ": exposed allreduce from %zu runs with N >= 2: link %s, "
                    "latency %.3g s%s; step time vs every run: rms %.1f%%, max %.1f%%\n",
            res.n_allreduce_runs, link, res.latency_s,
            res.latency_at_zero ? " (fit <= 0, set to 0)" : "", 100 * res.step_rms_rel,
            100 * res.step_max_rel);
    fprintf(stderr, "slo " CMD ": loss at B0 %g: gamma1 %.5g, gamma3 %.5g, gamma5 %.4g; phi "
                    "%.5g; %zu rows, rmse %.4g, R^2 %.4f\n",
            res.b0, res.gamma1, res.gamma3, res.gamma5, res.phi, res.n_loss_rows,
            res.loss_rmse, res.loss_r2);
    if (wl.sync->batch_per_gpu > 0)
        fprintf(stderr, "slo " CMD ": batch: plans assume batch_per_gpu %d (the per-worker "
                        "batch of the run at B0, logged at two or more worker counts): the "
                        "global batch grows with the GPUs\n",
                wl.sync->batch_per_gpu);
    else
        fprintf(stderr, "slo " CMD ": batch: plans assume global_batch %g at every worker "
                        "count (B0: the runs used no one per-worker batch at two or more "
                        "worker counts); each GPU gets %g / GPUs\n",
                wl.sync->global_batch, wl.sync->global_batch);
    status = print_profile(&wl);
out:
    slo_workload_free(&wl);
    slo_catalog_free(&cat);
    return status;
}

int slo_cmd_fit(int argc, char **argv)
{
    enum { O_WORKLOAD = 256, O_CATALOG, O_FORM, O_HELP, O_BYTES, O_MPIPROF, O_BREQ, O_BPS,
           O_PSTYPE, O_CONT, O_NAME, O_MODE };
    static const struct option longopts[] = {
        {"workload", required_argument, NULL, O_WORKLOAD},
        {"catalog", required_argument, NULL, O_CATALOG},
        {"form", required_argument, NULL, O_FORM},
        {"help", no_argument, NULL, O_HELP},
        {"model-bytes", required_argument, NULL, O_BYTES},
        {"mpiprof", required_argument, NULL, O_MPIPROF},
        {"b-req-mbps", required_argument, NULL, O_BREQ},
        {"b-ps-mbps", required_argument, NULL, O_BPS},
        {"ps-type", required_argument, NULL, O_PSTYPE},
        {"contention", required_argument, NULL, O_CONT},
        {"name", required_argument, NULL, O_NAME},
        {"mode", required_argument, NULL, O_MODE},
        {NULL, 0, NULL, 0}};
    const char *mode = NULL; /* issue 17: --mode sync-allreduce|async-ps */
    const char *workload = NULL, *catalog = NULL, *form = NULL, *complete_opt = NULL;
    struct slo_train_fit_options fo;
    struct cli_seen seen = {{0}};
    int has_loss = 1;
    struct slo_workload wl = {0};
    struct slo_catalog cat = {0};
    struct slo_train_setup s = {0};
    struct slo_train_log *logs = NULL;
    struct slo_loss_sample *samples = NULL;
    struct slo_fit_report rep = {0};
    struct slo_loss_model m = {0};
    slo_error_t err = {0};
    size_t n_logs = 0, n_samples = 0;
    int c, status = SLO_EXIT_USAGE;

    if (argc >= 2 && strcmp(argv[1], "infer") == 0)
        return slo_cmd_fit_infer(argc - 1, argv + 1);
    if (argc < 2 || strcmp(argv[1], "train") != 0) {
        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
            usage(stdout);
            return SLO_EXIT_OK;
        }
        return cli_usage_error("fit", "expected a model to fit (train or infer), found %s%s%s",
                               argc < 2 ? "nothing" : "\"", argc < 2 ? "" : argv[1],
                               argc < 2 ? "" : "\"");
    }
    argc--;
    argv++;
    opterr = 0;
    optind = 1;
    slo_train_fit_options_init(&fo);
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        if (c >= O_WORKLOAD && c <= O_MODE && c != O_HELP &&
            cli_repeated_option(CMD, longopts, O_WORKLOAD, c, optarg, &seen))
            return SLO_EXIT_USAGE;
        for (int k = 0; longopts[k].name && !complete_opt; k++)
            if (c >= O_BYTES && c <= O_NAME && longopts[k].val == c)
                complete_opt = longopts[k].name;
        switch (c) {
        case O_WORKLOAD: workload = optarg; break;
        case O_CATALOG: catalog = optarg; break;
        case O_FORM: form = optarg; break;
        case O_BYTES:
            if (cli_parse_double(CMD, "--model-bytes", optarg, 1, 1e13,
                                 "a whole number of parameter bytes in [1, 1e13]",
                                 &fo.parameter_bytes))
                return SLO_EXIT_USAGE;
            if (fo.parameter_bytes != floor(fo.parameter_bytes))
                return cli_usage_error(CMD, "--model-bytes: expected a whole number of "
                                            "parameter bytes in [1, 1e13], found \"%s\"",
                                       optarg);
            break;
        case O_MPIPROF: fo.mpiprof_path = optarg; break;
        case O_BREQ:
            if (cli_parse_double(CMD, "--b-req-mbps", optarg, 1e-9, 1e9,
                                 "a bandwidth in (0, 1e9] MB/s", &fo.b_req_mbps))
                return SLO_EXIT_USAGE;
            break;
        case O_BPS:
            if (cli_parse_double(CMD, "--b-ps-mbps", optarg, 1e-9, 1e9,
                                 "a bandwidth in (0, 1e9] MB/s", &fo.b_ps_mbps))
                return SLO_EXIT_USAGE;
            break;
        case O_PSTYPE: fo.ps_type = optarg; break;
        case O_CONT: {
            char *end;
            fo.alpha1 = slo_strtod(optarg, &end);
            if (*end == ',')
                fo.beta1 = slo_strtod(end + 1, &end);
            if (end == optarg || *end != '\0' || !(fo.alpha1 > 0 && fo.alpha1 <= 1e3) ||
                !(fabs(fo.beta1) <= 1e3) || !strchr(optarg, ','))
                return cli_usage_error(CMD, "--contention: expected ALPHA1,BETA1 with alpha1 in "
                                            "(0, 1e3] and beta1 in [-1e3, 1e3] (Eq. 9), found "
                                            "\"%s\"",
                                       optarg);
            fo.contention_given = 1;
            break;
        }
        case O_NAME:
            if (!optarg[0] || strlen(optarg) >= SLO_NAME_LENGTH)
                return cli_usage_error(CMD, "--name: expected a profile name of 1 to %d "
                                            "characters, found \"%s\"",
                                       SLO_NAME_LENGTH - 1, optarg);
            fo.name = optarg;
            break;
        case O_MODE:
            if (strcmp(optarg, "sync-allreduce") != 0 && strcmp(optarg, "async-ps") != 0)
                return cli_usage_error(CMD, "--mode: expected sync-allreduce or async-ps, found "
                                            "\"%s\"", optarg);
            mode = optarg;
            break;
        case O_HELP: usage(stdout); return SLO_EXIT_OK;
        case ':':
            return cli_usage_error(CMD, "%s: expected a value, found none", argv[optind - 1]);
        default:
            return cli_usage_error(CMD, "unknown option \"%s\" (slo fit train --help)",
                                   cli_refused_option(argc, argv));
        }
    }
    if (complete_opt && workload)
        return cli_usage_error(CMD, "--%s: expected it without --workload (it fits a complete "
                                    "profile from the logs; --workload keeps the profile's "
                                    "values and fits its loss_model), found both",
                               complete_opt);
    m.form = workload || complete_opt ? SLO_LOSS_SPOTDNN_2023 : SLO_LOSS_SPOTDNN_2022;
    if (form && strcmp(form, "spotdnn-2023") == 0)
        m.form = SLO_LOSS_SPOTDNN_2023;
    else if (form && strcmp(form, "spotdnn-2022") == 0)
        m.form = SLO_LOSS_SPOTDNN_2022;
    else if (form)
        return cli_usage_error(CMD, "--form: expected spotdnn-2023 or spotdnn-2022, found \"%s\"",
                               form);
    if (optind >= argc)
        return cli_usage_error(CMD, "expected training log files (CSV), found none");

    for (int i = optind; i < argc; i++)
        for (int k = optind; k < i; k++) {
            char a[PATH_MAX], b[PATH_MAX];
            int same = realpath(argv[i], a) && realpath(argv[k], b) ? strcmp(a, b) == 0
                                                                     : strcmp(argv[i], argv[k]) == 0;
            if (same)
                return cli_usage_error(CMD, "%s: expected each log once, found it again (as %s)",
                                       argv[i], argv[k]);
        }

    if (workload &&
        (slo_workload_open_for_fit(workload, "--workload", &wl, &has_loss, &err) ||
         cli_load_catalog(catalog ? catalog : slo_embedded_default_catalog(wl.name), &cat,
                          &err) ||
         slo_train_setup_init(&s, &cat, &wl, SLO_PRICING_SPOT, &err))) {
        status = cli_report(CMD, &err);
        goto out;
    }
    logs = calloc((size_t)(argc - optind), sizeof *logs);
    if (!logs) {
        status = SLO_EXIT_INTERNAL;
        goto out;
    }
    for (int i = optind; i < argc; i++, n_logs++)
        if (slo_train_log_load(argv[i], &logs[n_logs], &err)) {
            status = cli_report(CMD, &err);
            goto out;
        }
    /* issue 17: DDP logs ("# mode: sync-allreduce" or --mode) fit the
     * synchronous model */
    {
        int sync = mode && strcmp(mode, "sync-allreduce") == 0;
        int first = slo_train_log_mode(&logs[0]);
        /* one mode per fit: an async log among DDP logs is another job */
        for (size_t i = 1; i < n_logs; i++)
            if (slo_train_log_mode(&logs[i]) != first) {
                status = cli_usage_error(CMD, "%s: expected the mode of %s (\"# mode: %s\"), "
                                              "found %s: logs of sync-allreduce and async-ps "
                                              "runs cannot be fitted together",
                                         logs[i].source, logs[0].source,
                                         first == SLO_TRAIN_SYNC_ALLREDUCE ? "sync-allreduce"
                                                                           : "async-ps, no "
                                                                             "mode comment",
                                         first == SLO_TRAIN_SYNC_ALLREDUCE
                                             ? "no \"# mode: sync-allreduce\" comment (an "
                                               "async-ps log)"
                                             : "\"# mode: sync-allreduce\"");
                goto out;
            }
        if (mode && !sync && first == SLO_TRAIN_SYNC_ALLREDUCE) {
            status = cli_usage_error(CMD, "--mode async-ps: expected async-ps logs, found %s "
                                          "with \"# mode: sync-allreduce\"",
                                     logs[0].source);
            goto out;
        }
        sync |= !mode && first == SLO_TRAIN_SYNC_ALLREDUCE;
        if (sync) {
            status = fit_sync(logs, n_logs, &fo, catalog, workload, form, complete_opt);
            goto out;
        }
    }
    /* Logs that carry the parameter bytes fit a complete profile too. */
    for (size_t i = 0; i < n_logs && !workload && !complete_opt; i++)
        if (logs[i].bytes_line) {
            complete_opt = "model-bytes";
            if (!form)
                m.form = SLO_LOSS_SPOTDNN_2023;
        }
    if (m.form == SLO_LOSS_SPOTDNN_2023 && !workload && !complete_opt) {
        status = cli_usage_error(CMD, "--form spotdnn-2023: expected --workload too (the "
                                      "convergence coefficient needs its per-instance speeds)");
        goto out;
    }
    if (catalog && !workload && !complete_opt) {
        status = cli_usage_error(CMD, "--catalog: expected --workload or --model-bytes too "
                                      "(the catalog serves the workload's convergence "
                                      "coefficient or the fitted profile's types)");
        goto out;
    }
    if (complete_opt) {
        fo.form = m.form;
        status = fit_complete(logs, n_logs, &fo, catalog);
        goto out;
    }
    (void)has_loss; /* a --workload without loss_model gets the fitted one */
    if (slo_train_logs_to_samples(logs, n_logs, workload ? &s : NULL,
                                  m.form == SLO_LOSS_SPOTDNN_2023, &samples, &n_samples, &err) ||
        slo_fit_loss(samples, n_samples, &m, &rep, &err)) {
        status = cli_report(CMD, &err);
        goto out;
    }
    fprintf(stderr,
            "slo " CMD ": %zu loss samples from %zu clusters: rmse %.4g, R^2 %.4f, "
            "condition number %.3g, gamma1 %.5g +- %.2g, gamma2 %.4g +- %.2g, gamma3 %.5g "
            "+- %.2g, gamma5 %.4g +- %.2g (two standard errors)\n",
            rep.n_samples, rep.n_clusters, rep.rmse, rep.r2, rep.condition, m.gamma1,
            2 * rep.gamma1_se, m.gamma2, 2 * rep.gamma2_se, m.gamma3, 2 * rep.gamma3_se,
            m.gamma5, 2 * rep.gamma5_se);
    /* gamma1 at either end and gamma4 at 10 are refused by slo_fit_loss;
     * gamma4 = 0 is its physical bound, a fit, but worth saying. */
    floor_at_zero(&m.gamma5, rep.gamma5_se);
    if (rep.gamma4_at_limit)
        fprintf(stderr, "slo " CMD ": note: gamma4 = %g is at the lower end of its range "
                        "[0, 10]: the convergence coefficient R alone scales the loss\n",
                m.gamma4);
    if (workload) {
        wl.loss = m;
        char *text = slo_workload_to_json(&wl);
        if (!text) {
            status = SLO_EXIT_INTERNAL;
            goto out;
        }
        printf("%s\n", text);
        free(text);
    } else {
        printf("{\"loss_model\": {\"form\": \"spotdnn-2022\", \"gamma1\": %.10g, \"gamma2\": "
               "%.10g, \"gamma3\": %.10g, \"gamma5\": %.10g}}\n",
               m.gamma1, m.gamma2, m.gamma3, m.gamma5);
    }
    status = fflush(stdout) == 0 ? SLO_EXIT_OK : SLO_EXIT_INTERNAL;
out:
    for (size_t i = 0; i < n_logs; i++)
        slo_train_log_free(&logs[i]);
    free(logs);
    free(samples);
    slo_train_setup_free(&s);
    slo_catalog_free(&cat);
    slo_workload_free(&wl);
    return status;
}
