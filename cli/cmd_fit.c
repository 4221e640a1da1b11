/*
 * cmd_fit.c - `slo fit`: fit model coefficients from profiling data.
 *   slo fit train [--workload W] [--catalog C] [--form F] LOG.csv...
 *   slo fit infer PROFILE (cli/cmd_infer.c)
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CMD "fit train"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slo fit train [--workload NAME|FILE] [--catalog NAME|FILE]\n"
            "                     [--form spotdnn-2023|spotdnn-2022] LOG.csv...\n"
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
            "  --form F      spotdnn-2023 (paper, default with --workload) or spotdnn-2022\n"
            "                (draft/code, default without)\n");
}

int slo_cmd_fit(int argc, char **argv)
{
    enum { O_WORKLOAD = 256, O_CATALOG, O_FORM, O_HELP };
    static const struct option longopts[] = {
        {"workload", required_argument, NULL, O_WORKLOAD},
        {"catalog", required_argument, NULL, O_CATALOG},
        {"form", required_argument, NULL, O_FORM},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0}};
    const char *workload = NULL, *catalog = NULL, *form = NULL;
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
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        switch (c) {
        case O_WORKLOAD: workload = optarg; break;
        case O_CATALOG: catalog = optarg; break;
        case O_FORM: form = optarg; break;
        case O_HELP: usage(stdout); return SLO_EXIT_OK;
        case ':':
            return cli_usage_error(CMD, "%s: expected a value, found none", argv[optind - 1]);
        default:
            return cli_usage_error(CMD, "unknown option \"%s\" (slo fit train --help)",
                                   cli_refused_option(argc, argv));
        }
    }
    m.form = workload ? SLO_LOSS_SPOTDNN_2023 : SLO_LOSS_SPOTDNN_2022;
    if (form && strcmp(form, "spotdnn-2023") == 0)
        m.form = SLO_LOSS_SPOTDNN_2023;
    else if (form && strcmp(form, "spotdnn-2022") == 0)
        m.form = SLO_LOSS_SPOTDNN_2022;
    else if (form)
        return cli_usage_error(CMD, "--form: expected spotdnn-2023 or spotdnn-2022, found \"%s\"",
                               form);
    if (m.form == SLO_LOSS_SPOTDNN_2023 && !workload)
        return cli_usage_error(CMD, "--form spotdnn-2023: expected --workload too (the "
                                    "convergence coefficient needs its per-instance speeds)");
    if (optind >= argc)
        return cli_usage_error(CMD, "expected training log files (CSV), found none");
    if (catalog && !workload)
        return cli_usage_error(CMD, "--catalog: expected --workload too (the catalog only "
                                    "serves the workload's convergence coefficient)");
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
        (cli_load_workload(workload, &wl, &err) ||
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
