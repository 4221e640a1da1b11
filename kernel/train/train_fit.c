/*
 * train_fit.c - a complete spotDNN workload profile from training logs
 * (issue 12, item 2): per-type iteration times and speeds, the
 * communication volume, B_req and B_ps (stated, slo-mpiprof or the
 * catalog), the contention coefficients alpha1, beta1 (Eq. 9,
 * contention_fit.c) and the loss model (Eq. 3, spotdnn_fit.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contention_fit.h"
#include "slo_private.h"
#include "sync_private.h"

#define SRC NULL /* messages without a file: "slo fit train: TEXT" */

void slo_train_fit_options_init(struct slo_train_fit_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->form = SLO_LOSS_SPOTDNN_2023;
}

void slo_train_fit_result_free(struct slo_train_fit_result *r)
{
    if (!r)
        return;
    free(r->types);
    memset(r, 0, sizeof *r);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[n] (sorted in place) and the standard error of the median,
 * 1.2533 sd / sqrt(n) (the normal-theory figure). */
static double median_se(double *v, size_t n, double *se)
{
    double mean = 0, ss = 0;

    qsort(v, n, sizeof *v, cmp_double);
    for (size_t i = 0; i < n; i++)
        mean += v[i] / (double)n;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - mean) * (v[i] - mean);
    *se = n > 1 ? 1.2533 * sqrt(ss / (double)(n - 1)) / sqrt((double)n) : NAN;
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The step_s of one log's rows but the first (the first step carries the
 * start-up), median; -1 when fewer than 2 such rows. */
static double log_median(const struct slo_train_log *lg, double *scratch)
{
    size_t m = 0;
    double se;

    for (size_t r = 1; r < lg->n_rows; r++)
        scratch[m++] = lg->step_s[r];
    return m >= 2 ? median_se(scratch, m, &se) : -1;
}

/* Catalog entry whose profile name is type, or NULL. */
static const struct slo_instance_type *cat_find(const struct slo_catalog *cat,
                                                const char *type)
{
    for (size_t i = 0; cat && i < cat->n_types; i++)
        if (strcmp(slo_instance_profile(&cat->types[i]), type) == 0)
            return &cat->types[i];
    return NULL;
}

static int find_type(const struct slo_train_fit_result *res, const char *type)
{
    for (size_t k = 0; k < res->n_types; k++)
        if (strcmp(res->types[k].type, type) == 0)
            return (int)k;
    return -1;
}

/* Workers of a normalized cluster text; its single type when it has one
 * entry (else ""). */
static int cluster_workers(const char *cluster, char *single, size_t len)
{
    struct slo_cluster c;
    slo_error_t e = {0};
    int n = 0;

    single[0] = '\0';
    if (slo_cluster_parse(cluster, &c, &e))
        return 0;
    for (size_t i = 0; i < c.n; i++)
        n += (int)c.entry[i].count;
    if (c.n == 1)
        snprintf(single, len, "%s", c.entry[0].type);
    return n;
}

/* Same model in every log: "# model:" and "# parameter_bytes:" agree with
 * the first log that has them and with opt->parameter_bytes (also the
 * sync-allreduce fit's check: sync_private.h). */
int slo__train_check_models(const struct slo_train_log *logs, size_t n_logs,
                            const struct slo_train_fit_options *opt, double *bytes,
                            const char **model, slo_error_t *err)
{
    const struct slo_train_log *fm = NULL, *fb = NULL;

    *bytes = opt->parameter_bytes;
    *model = NULL;
    for (size_t i = 0; i < n_logs; i++) {
        const struct slo_train_log *lg = &logs[i];
        if (lg->model_line) {
            if (fm && strcmp(fm->model, lg->model) != 0)
                return slo__fail(err, SLO_ERR_INVALID, lg->source,
                                 "line %zu, model: expected the model of the other logs "
                                 "(\"%s\", %s line %zu), found \"%s\": logs of different "
                                 "models cannot be fitted together",
                                 lg->model_line, fm->model, fm->source, fm->model_line,
                                 lg->model);
            if (!fm)
                fm = lg;
        }
        if (lg->bytes_line) {
            if (opt->parameter_bytes > 0 && lg->parameter_bytes != opt->parameter_bytes)
                return slo__fail(err, SLO_ERR_INVALID, lg->source,
                                 "line %zu, parameter_bytes: expected %.17g as --model-bytes "
                                 "says, found %.17g: a log of another model",
                                 lg->bytes_line, opt->parameter_bytes, lg->parameter_bytes);
            if (fb && lg->parameter_bytes != fb->parameter_bytes)
                return slo__fail(err, SLO_ERR_INVALID, lg->source,
                                 "line %zu, parameter_bytes: expected %.17g as in %s line %zu, "
                                 "found %.17g: logs of different models cannot be fitted "
                                 "together",
                                 lg->bytes_line, fb->parameter_bytes, fb->source, fb->bytes_line,
                                 lg->parameter_bytes);
            if (!fb)
                fb = lg;
        }
    }
    if (*bytes <= 0 && fb)
        *bytes = fb->parameter_bytes;
    if (!(*bytes > 0))
        return slo__fail(err, SLO_ERR_INVALID, SRC,
                         "expected the model's parameter bytes (--model-bytes N, or a \"# "
                         "parameter_bytes: N\" comment in the logs: StepLogger's "
                         "parameter_bytes), found neither");
    if (fm)
        *model = fm->model;
    return SLO_OK;
}

/* Per-log checks and the type table: columns, catalog types, batches. */
static int collect_types(const struct slo_train_log *logs, size_t n_logs,
                         const struct slo_catalog *cat, struct slo_train_fit_result *res,
                         slo_error_t *err)
{
    res->types = calloc(n_logs, sizeof *res->types);
    if (!res->types)
        return slo__fail(err, SLO_ERR_NOMEM, SRC, "out of memory");
    for (size_t i = 0; i < n_logs; i++) {
        const struct slo_train_log *lg = &logs[i];
        struct slo_cluster c;
        slo_error_t e = {0};
        if (!lg->has_step_s || lg->batch <= 0 || !lg->type[0])
            return slo__fail(err, SLO_ERR_INVALID, lg->source,
                             "expected the columns step_s, batch and type (StepLogger writes "
                             "them) to fit per-type iteration times, found %s%s%s%s",
                             lg->n_rows == 0 ? "no rows" : "",
                             lg->n_rows && !lg->has_step_s ? "no step_s column " : "",
                             lg->n_rows && lg->batch <= 0 ? "no batch column " : "",
                             lg->n_rows && !lg->type[0] ? "no type column" : "");
        if (slo_cluster_parse(lg->cluster, &c, &e))
            return slo__fail(err, SLO_ERR_INVALID, lg->source, "line %zu, cluster: %s",
                             lg->cluster_line, e.text);
        for (size_t j = 0; cat && j < c.n; j++)
            if (!cat_find(cat, c.entry[j].type))
                return slo__fail(err, SLO_ERR_INVALID, lg->source,
                                 "line %zu, cluster: type %s: expected an instance type of "
                                 "the catalog %s, found it missing",
                                 lg->cluster_line, c.entry[j].type, cat->name);
        const struct slo_instance_type *it = cat_find(cat, lg->type);
        int gpus = it ? it->gpus : 1;
        int k = find_type(res, lg->type);
        if (k < 0) {
            k = (int)res->n_types++;
            snprintf(res->types[k].type, sizeof res->types[k].type, "%s", lg->type);
            res->types[k].gpus = gpus;
            res->types[k].batch = lg->batch;
            if (fmod(lg->batch, gpus) != 0)
                return slo__fail(err, SLO_ERR_INVALID, lg->source,
                                 "column batch: expected a multiple of the %d GPUs of %s in "
                                 "the catalog (batch_per_gpu = batch / gpus), found %.17g",
                                 gpus, lg->type, lg->batch);
        } else if (res->types[k].batch != lg->batch) {
            return slo__fail(err, SLO_ERR_INVALID, lg->source,
                             "column batch: expected %.17g for type %s as in the other logs "
                             "(one batch per type in a profile), found %.17g",
                             res->types[k].batch, lg->type, lg->batch);
        }
    }
    /* Every type a cluster names needs logs of its own: without them its
     * speed is unknown, and R (Eq. 5) of that run would count it as idle. */
    for (size_t i = 0; i < n_logs; i++) {
        struct slo_cluster c;
        slo_error_t e = {0};
        if (slo_cluster_parse(logs[i].cluster, &c, &e))
            continue; /* refused above */
        for (size_t j = 0; j < c.n; j++)
            if (find_type(res, c.entry[j].type) < 0)
                return slo__fail(err, SLO_ERR_INVALID, logs[i].source,
                                 "line %zu, cluster: type %s: expected logs of its workers "
                                 "(type column %s; its speed alone and in this run), found "
                                 "none among the %zu logs",
                                 logs[i].cluster_line, c.entry[j].type, c.entry[j].type,
                                 n_logs);
    }
    return SLO_OK;
}

/* T^k(1) of every type from its logs alone. */
static int alone_times(const struct slo_train_log *logs, size_t n_logs,
                       struct slo_train_fit_result *res, double *scratch, slo_error_t *err)
{
    for (size_t k = 0; k < res->n_types; k++) {
        struct slo_train_fit_type *t = &res->types[k];
        size_t m = 0;
        char single[SLO_NAME_LENGTH];
        for (size_t i = 0; i < n_logs; i++)
            if (cluster_workers(logs[i].cluster, single, sizeof single) == 1 &&
                strcmp(single, t->type) == 0)
                for (size_t r = 1; r < logs[i].n_rows; r++)
                    scratch[m++] = logs[i].step_s[r];
        if (m < 2)
            return slo__fail(err, SLO_ERR_INVALID, SRC,
                             "type %s: need a run of one %s worker alone (\"# cluster: "
                             "%s=1\", slo-profile-train's runs alone) with at least 3 rows for "
                             "its iteration time T(1), found %s",
                             t->type, t->type, t->type,
                             m ? "one with fewer rows" : "none among the logs");
        t->n_steps = m;
        t->t_alone_s = median_se(scratch, m, &t->t_alone_se_s);
        if (!(t->t_alone_s > 0))
            return slo__fail(err, SLO_ERR_INVALID, SRC,
                             "type %s: expected a median step_s > 0 alone, found %g", t->type,
                             t->t_alone_s);
    }
    return SLO_OK;
}

/* B_req (median point-to-point bandwidth of the pairs (0, k) at the
 * largest size: what one worker draws from the PS alone) and B_ps
 * (slo_profile_ps_bandwidth, as `slo train --profile`) from a slo-mpiprof
 * document with the PS at rank 0; 0 for what it does not give (why says
 * why for B_ps). */
static int mpiprof_bandwidths(const char *path, double *b_req, double *b_ps, char *why,
                              size_t wlen, slo_error_t *err)
{
    struct slo_comm_link link;
    char *text = NULL;
    json_t *root = NULL;
    double bw[1024];
    size_t m = 0;
    int rv;

    *b_req = *b_ps = 0;
    why[0] = '\0';
    /* The profile's own rules (a failing transport is refused there). */
    if ((rv = slo_comm_profile_load(path, &link, NULL, err)))
        return rv;
    if ((rv = slo__read_file(path, &text, err)) ||
        (rv = slo__json_parse_text(text, path, &root, err))) {
        free(text);
        return rv;
    }
    free(text);
    json_t *pp = json_object_get(root, "point_to_point");
    json_t *pairs = json_object_get(pp, "pairs");
    size_t i;
    json_t *pr;
    json_array_foreach(pairs, i, pr) {
        if (json_integer_value(json_object_get(pr, "rank_a")) != 0)
            continue;
        json_t *b = json_object_get(pr, "bandwidth");
        json_t *last = json_array_get(b, json_array_size(b) - 1);
        double v = json_number_value(json_object_get(last, "bandwidth_bytes_per_s"));
        if (v > 0 && m < sizeof bw / sizeof bw[0])
            bw[m++] = v / 1e6;
    }
    if (m) {
        double se;
        *b_req = median_se(bw, m, &se);
    }
    json_decref(root);
    /* B_ps as slo train --profile takes it (slo_profile_ps_bandwidth: the
     * least cross-node pair with rank 0); a profile of one node has none. */
    {
        slo_error_t e = {0};
        if (slo_profile_ps_bandwidth_load(path, b_ps, &e)) {
            *b_ps = 0;
            snprintf(why, wlen, "%.*s", (int)(wlen - 1), e.text);
        }
    }
    return SLO_OK;
}

/* One bandwidth and its source: *v = the first > 0 of option (MB/s, the
 * option opt_name), mpiprof (slo-mpiprof's figure, mpi_src saying which)
 * and net (--ps-type's catalog network_mbps), with src[len] naming it;
 * *v <= 0 with src opt_name when none is. */
static void pick_bandwidth(double option, const char *opt_name, double mpiprof,
                           const char *mpi_src, double net, const char *ps_type, double *v,
                           char *src, size_t len)
{
    *v = option;
    snprintf(src, len, "%s", opt_name);
    if (!(*v > 0) && mpiprof > 0) {
        *v = mpiprof;
        snprintf(src, len, "%s", mpi_src);
    }
    if (!(*v > 0) && net > 0) {
        *v = net;
        snprintf(src, len, "network_mbps of --ps-type %s", ps_type);
    }
}

/* B_req, B_ps and their sources. */
static int bandwidths(const struct slo_train_fit_options *opt, double *b_req, double *b_ps,
                      struct slo_train_fit_result *res, slo_error_t *err)
{
    double mreq = 0, mps = 0, net = 0;
    char why[SLO_ERROR_TEXT_LENGTH] = "";
    int rv;

    if (opt->ps_type) {
        const struct slo_instance_type *it = cat_find(opt->catalog, opt->ps_type);
        if (!opt->catalog || !it)
            return slo__fail(err, SLO_ERR_INVALID, "--ps-type",
                             "expected an instance type of the catalog%s%s, found \"%s\"%s",
                             opt->catalog ? " " : "", opt->catalog ? opt->catalog->name : "",
                             opt->ps_type, opt->catalog ? "" : " and no --catalog");
        net = it->network_mbps;
        if (!(net > 0))
            return slo__fail(err, SLO_ERR_INVALID, "--ps-type",
                             "%s: expected a catalog type with network_mbps (the PS NIC, "
                             "B_ps), found none in %s",
                             opt->ps_type, opt->catalog->name);
    }
    if (opt->mpiprof_path &&
        (rv = mpiprof_bandwidths(opt->mpiprof_path, &mreq, &mps, why, sizeof why, err)))
        return rv;
    pick_bandwidth(opt->b_req_mbps, "--b-req-mbps", mreq,
                   "slo-mpiprof, median rank 0 pair at the largest size", net, opt->ps_type,
                   b_req, res->b_req_source, sizeof res->b_req_source);
    pick_bandwidth(opt->b_ps_mbps, "--b-ps-mbps", mps, "slo-mpiprof, NIC of rank 0's node", net,
                   opt->ps_type, b_ps, res->b_ps_source, sizeof res->b_ps_source);
    if (!(*b_req > 0) || !(*b_ps > 0)) {
        int req = !(*b_req > 0);
        char found[SLO_ERROR_TEXT_LENGTH];
        if (!opt->mpiprof_path)
            snprintf(found, sizeof found, "none");
        else
            snprintf(found, sizeof found, "only the profile %.200s, %.250s", opt->mpiprof_path,
                     req ? "which has no pair with rank 0" : why);
        return slo__fail(err, SLO_ERR_INVALID, SRC,
                         "expected a source for %s (%s): --%s MB/s, --mpiprof FILE%s or "
                         "--catalog C --ps-type TYPE (its network_mbps), found %s",
                         req ? "B_req" : "B_ps",
                         req ? "the bandwidth one worker draws from the PS alone"
                             : "the PS's NIC bandwidth",
                         req ? "b-req-mbps" : "b-ps-mbps",
                         req ? " (rank 0 the PS)" : " (ranks across nodes)", found);
    }
    if (!(*b_req <= 1e9) || !(*b_ps <= 1e9))
        return slo__fail(err, SLO_ERR_INVALID, SRC,
                         "expected B_req and B_ps in (0, 1e9] MB/s, found %g and %g", *b_req,
                         *b_ps);
    return SLO_OK;
}

/* The smallest n in the contention branch of type k: n B_req^k > B_ps. */
static int first_contention_n(double b_req, double b_ps)
{
    double x = floor(b_ps / b_req) + 1;
    return x > 1e6 ? 1000000 : x < 2 ? 2 : (int)x;
}

/* alpha1, beta1 from every worker of the runs with n >= 2. */
static int fit_contention(const struct slo_train_log *logs, size_t n_logs, double S,
                          double b_req, double b_ps, struct slo_workload *wl,
                          struct slo_train_fit_result *res, double *scratch, slo_error_t *err)
{
    struct slo__contention_run *runs = calloc(n_logs ? n_logs : 1, sizeof *runs);
    struct slo__contention_fit f;
    size_t m = 0;
    char single[SLO_NAME_LENGTH], sizes[160] = "";

    int rv, nmin = 1000000;

    if (!runs)
        return slo__fail(err, SLO_ERR_NOMEM, SRC, "out of memory");
    for (size_t k = 0; k < res->n_types; k++) {
        int n0 = first_contention_n(res->types[k].b_req_mbps, b_ps);
        if (n0 < nmin)
            nmin = n0;
    }
    for (size_t i = 0; i < n_logs; i++) {
        int n = cluster_workers(logs[i].cluster, single, sizeof single);
        double T = log_median(&logs[i], scratch);
        int k = find_type(res, logs[i].type);
        if (n < 2 || T <= 0 || k < 0)
            continue;
        runs[m].n_workers = n;
        runs[m].t_iter_s = T;
        runs[m].t_alone_s = res->types[k].t_alone_s;
        runs[m].b_req_mbps = res->types[k].b_req_mbps;
        m++;
        int seen = 0;
        for (size_t q = 0; q + 1 < m; q++)
            seen |= runs[q].n_workers == n;
        size_t used = strlen(sizes);
        if (!seen && used + 16 < sizeof sizes)
            snprintf(sizes + used, sizeof sizes - used, "%s%d", used ? ", " : "n = ", n);
    }
    /* Its own error: err may be NULL (slo_core.h), and its text goes into ours. */
    slo_error_t fe = {0};
    rv = slo__fit_contention(runs, m, res->types[0].t_alone_s, S, b_req, b_ps, &f, &fe);
    free(runs);
    if (rv && rv != SLO_ERR_INVALID) {
        if (err)
            *err = fe;
        return rv;
    }
    if (rv == SLO_ERR_INVALID) {
        char why[SLO_ERROR_TEXT_LENGTH];
        snprintf(why, sizeof why, "%s", fe.text);
        return slo__fail(err, SLO_ERR_INVALID, SRC,
                         "too few runs to identify the contention coefficients alpha1, beta1 "
                         "(Eq. 9): need runs at 2 or more cluster sizes in the contention "
                         "branch (n x B_req > B_ps = %g MB/s: n >= %d, e.g. n = %d and %d, "
                         "slo-profile-train --sizes), with steps slower than alone; found "
                         "multi-worker runs %s (%s), or state them with --contention A,B",
                         b_ps, nmin, nmin, 2 * nmin, m ? sizes : "none", why);
    }
    if (!(f.alpha1 > 0) || f.alpha1 > 1e3 || !(fabs(f.beta1) <= 1e3))
        return slo__fail(err, SLO_ERR_INVALID, SRC,
                         "contention: expected a fitted alpha1 in (0, 1e3] and beta1 in [-1e3, "
                         "1e3] (P growing with sqrt(n), Eq. 9), found alpha1 %g, beta1 %g from "
                         "%zu worker runs: the runs show no contention that grows with the "
                         "cluster size; state it with --contention A,B",
                         f.alpha1, f.beta1, f.n_used);
    wl->alpha1 = f.alpha1;
    wl->beta1 = f.beta1;
    res->contention_fitted = 1;
    res->alpha1_se = f.alpha1_se;
    res->beta1_se = f.beta1_se;
    res->contention_used = f.n_used;
    res->rms_p = f.rms_p;
    return SLO_OK;
}

/* Model iteration time of type k at n (Eqs. 6-9 with the fitted values):
 * T(1) + 2 S / B_wk(n) - 2 S / B_req (T_comp and PCIe cancel). */
static double model_time(const struct slo_workload *wl, const struct slo_train_fit_type *t,
                         int n)
{
    double b = t->b_req_mbps, bwk = b;
    if (n * b > wl->b_ps_mbps) {
        double p = slo_contention_probability(wl->alpha1, wl->beta1, 0, n);
        bwk = p * wl->b_ps_mbps / n + (1 - p) * b;
    }
    return t->t_alone_s + 2 * wl->s_parm_mb / bwk - 2 * wl->s_parm_mb / b;
}

static void time_residuals(const struct slo_train_log *logs, size_t n_logs,
                           const struct slo_workload *wl, struct slo_train_fit_result *res,
                           double *scratch)
{
    double ss = 0;
    char single[SLO_NAME_LENGTH];

    for (size_t i = 0; i < n_logs; i++) {
        int n = cluster_workers(logs[i].cluster, single, sizeof single);
        int k = find_type(res, logs[i].type);
        double T = log_median(&logs[i], scratch);
        if (n < 2 || k < 0 || T <= 0)
            continue;
        double rel = (model_time(wl, &res->types[k], n) - T) / T;
        ss += rel * rel;
        if (fabs(rel) > res->time_max_rel)
            res->time_max_rel = fabs(rel);
        res->n_time_obs++;
    }
    res->time_rms_rel = res->n_time_obs ? sqrt(ss / (double)res->n_time_obs) : 0;
}

/* Loss samples with R (Eq. 5) from each run's measured per-worker speeds:
 * batch / median step_s of its logs per type, the type's alone speed for a
 * type without a log in the run. */
static int loss_samples(const struct slo_train_log *logs, size_t n_logs,
                        const struct slo_train_fit_result *res, struct slo_loss_sample **out,
                        size_t *n_out, double *scratch, slo_error_t *err)
{
    int rv = slo_train_logs_to_samples(logs, n_logs, NULL, 0, out, n_out, err);
    size_t w = 0;

    if (rv)
        return rv;
    for (size_t i = 0; i < n_logs; i++) {
        struct slo_cluster c;
        slo_error_t e = {0};
        size_t ns = 0;
        slo_cluster_parse(logs[i].cluster, &c, &e);
        size_t nw = 0;
        for (size_t j = 0; j < c.n; j++)
            nw += (size_t)c.entry[j].count;
        double *speeds = malloc((nw ? nw : 1) * sizeof *speeds);
        if (!speeds) {
            free(*out);
            *out = NULL;
            return slo__fail(err, SLO_ERR_NOMEM, SRC, "out of memory");
        }
        for (size_t j = 0; j < c.n; j++) {
            double sum = 0;
            int cnt = 0, k = find_type(res, c.entry[j].type);
            for (size_t l = 0; l < n_logs; l++)
                if (strcmp(logs[l].cluster, logs[i].cluster) == 0 &&
                    strcmp(logs[l].type, c.entry[j].type) == 0) {
                    double T = log_median(&logs[l], scratch);
                    if (T > 0) {
                        sum += logs[l].batch / T;
                        cnt++;
                    }
                }
            double v = cnt ? sum / cnt
                       : k >= 0 ? res->types[k].batch / res->types[k].t_alone_s : 0;
            for (long q = 0; q < c.entry[j].count; q++)
                speeds[ns++] = v;
        }
        double R = slo_convergence_coefficient(speeds, ns);
        free(speeds);
        if (!isfinite(R))
            R = 0;
        for (size_t r = 0; r < logs[i].n_rows; r++)
            if (logs[i].global_samples[r] != 0 && w < *n_out)
                (*out)[w++].cc = R;
    }
    return SLO_OK;
}

int slo_fit_train_profile(const struct slo_train_log *logs, size_t n_logs,
                          const struct slo_train_fit_options *opt, struct slo_workload *wl,
                          struct slo_train_fit_result *res, slo_error_t *err)
{
    const char *model;
    double bytes = 0, b_req = 0, b_ps = 0, *scratch = NULL;
    size_t total = 0, n_samples = 0;
    struct slo_loss_sample *samples = NULL;
    int rv;

    memset(wl, 0, sizeof *wl);
    memset(res, 0, sizeof *res);
    if (n_logs == 0)
        return slo__fail(err, SLO_ERR_INVALID, SRC, "expected at least one training log");
    for (size_t i = 0; i < n_logs; i++)
        total += logs[i].n_rows;
    scratch = malloc((total ? total : 1) * sizeof *scratch);
    if (!scratch)
        return slo__fail(err, SLO_ERR_NOMEM, SRC, "out of memory");
    if ((rv = slo__train_check_models(logs, n_logs, opt, &bytes, &model, err)) ||
        (rv = collect_types(logs, n_logs, opt->catalog, res, err)) ||
        (rv = alone_times(logs, n_logs, res, scratch, err)) ||
        (rv = bandwidths(opt, &b_req, &b_ps, res, err)))
        goto fail;
    snprintf(wl->name, sizeof wl->name, "%s",
             opt->name ? opt->name : model ? model : "fitted");
    wl->s_parm_mb = bytes / 1e6;
    wl->b_req_mbps = b_req;
    wl->b_ps_mbps = b_ps;
    wl->b_pcie_mbps = 10000; /* paper Sec. V-A; the catalog's pcie_mbps wins per type */
    wl->compat = SLO_COMPAT_PAPER;
    wl->loss.form = opt->form;
    for (size_t k = 0; k < res->n_types; k++) {
        struct slo_train_fit_type *t = &res->types[k];
        const struct slo_instance_type *it = cat_find(opt->catalog, t->type);
        t->b_req_mbps = b_req;
        if (it && it->network_mbps > 0) {
            wl->worker_network_catalog = 1;
            t->b_req_mbps = fmin(it->network_mbps, b_req);
        }
        double pcie = it && it->pcie_mbps > 0 ? it->pcie_mbps : wl->b_pcie_mbps;
        double comm = 2 * wl->s_parm_mb / t->b_req_mbps + 2 * t->gpus * wl->s_parm_mb / pcie;
        if (!(t->t_alone_s > comm))
            {
                rv = slo__fail(err, SLO_ERR_INVALID, SRC,
                               "type %s: expected a step alone longer than its communication "
                               "time, found the median step_s %.6g s <= %.6g s (2 S / B_req + 2 "
                               "gpus S / B_pcie with S %g MB, B_req %g MB/s, B_pcie %g MB/s): "
                               "the bandwidths or the parameter bytes do not describe these "
                               "runs",
                               t->type, t->t_alone_s, comm, wl->s_parm_mb, t->b_req_mbps, pcie);
                goto fail;
            }
    }
    /* Distinct clusters. */
    for (size_t i = 0; i < n_logs; i++) {
        int first = 1;
        for (size_t j = 0; j < i && first; j++)
            first = strcmp(logs[i].cluster, logs[j].cluster) != 0;
        res->n_runs += first;
    }
    if (opt->contention_given) {
        wl->alpha1 = opt->alpha1;
        wl->beta1 = opt->beta1;
    } else if ((rv = fit_contention(logs, n_logs, wl->s_parm_mb, b_req, b_ps, wl, res, scratch,
                                    err))) {
        goto fail;
    }
    time_residuals(logs, n_logs, wl, res, scratch);
    wl->n_instances = res->n_types;
    wl->instances = calloc(res->n_types, sizeof *wl->instances);
    if (!wl->instances) {
        rv = slo__fail(err, SLO_ERR_NOMEM, SRC, "out of memory");
        goto fail;
    }
    for (size_t k = 0; k < res->n_types; k++) {
        struct slo_workload_instance *in = &wl->instances[k];
        snprintf(in->type, sizeof in->type, "%s", res->types[k].type);
        in->batch_per_gpu = (int)(res->types[k].batch / res->types[k].gpus);
        in->speed = res->types[k].batch / res->types[k].t_alone_s;
    }
    if ((rv = loss_samples(logs, n_logs, res, &samples, &n_samples, scratch, err)) ||
        (rv = slo_fit_loss(samples, n_samples, &wl->loss, &res->loss, err)))
        goto fail;
    free(samples);
    free(scratch);
    return SLO_OK;
fail:
    free(samples);
    free(scratch);
    slo_workload_free(wl);
    slo_train_fit_result_free(res);
    return rv;
}
