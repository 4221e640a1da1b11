/*
 * mpiprof_doc.c - rank 0 assembles the profile document (schema:
 * doc/mpiprof.md) from the phases' results: run and MPI facts, nodes and
 * ranks, the ceilings (the slowest node's memcpy; the NIC speed across
 * nodes), every figure above 1.05 x its ceiling flagged "suspect", the
 * point-to-point summary, and the allreduce points with the alpha-beta
 * (Hockney) fit t = alpha + beta * bytes and its ring reading, both from
 * libslo (slo_comm_fit_alpha_beta, slo_comm_ring_latency_from_fit,
 * slo_comm_ring_bandwidth_from_fit; kernel/comm/slo_comm.h). Before it is
 * written the document must pass libslo's validator (slo_comm_profile_check,
 * what --check runs) and link reader (slo_comm_profile_parse, what
 * `slo comm --profile` runs).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _XOPEN_SOURCE 700 /* gmtime_r */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpiprof.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static json_t *flag(json_t *obj, double value, double ceiling, const char *what,
                    const char *ceiling_what)
{
    int suspect = !isfinite(value) || (ceiling > 0 && value > MPIPROF_CEILING_FACTOR * ceiling);
    json_object_set_new(obj, "suspect", json_boolean(suspect));
    if (suspect) {
        char reason[512];
        if (!isfinite(value))
            snprintf(reason, sizeof reason, "%s is not finite: the measurement determines no "
                                            "bandwidth", what);
        else
            snprintf(reason, sizeof reason,
                     "%s %.4g B/s is above %.2f x %s %.4g B/s: physically impossible for a "
                     "copy through memory (a cache effect or a timing error), not a link "
                     "figure", what, value, MPIPROF_CEILING_FACTOR, ceiling_what, ceiling);
        json_object_set_new(obj, "suspect_reason", json_string(reason));
    }
    return obj;
}

/* schema_version .. nodes: the run, the MPI library, ranks and nodes */
static json_t *document_head(struct mpiprof_run *r)
{
    json_t *doc = json_object(), *mpi = mpiprof_transport(), *ranks = json_array();
    char when[32];
    time_t tt = time(NULL);
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_object_set_new(doc, "schema_version", json_integer(MPIPROF_SCHEMA_VERSION));
    json_object_set_new(doc, "generator", json_string(MPIPROF_NAME " " PACKAGE_VERSION));
    json_object_set_new(doc, "created_utc", json_string(when));
    json_object_set_new(doc, "mode", json_string(r->p->quick ? "quick" : "default"));
    json_object_set_new(mpi, "world_size", json_integer(r->np));
    json_object_set_new(mpi, "launcher", json_string(r->launched ? r->launched : "singleton"));
    json_object_set_new(mpi, "slurm_job_id", getenv("SLURM_JOB_ID")
                                                 ? json_string(getenv("SLURM_JOB_ID"))
                                                 : json_null());
    json_object_set_new(doc, "mpi", mpi);
    for (int q = 0; q < r->np; q++) {
        size_t node = 0;
        for (size_t k = 0; k < json_array_size(r->nodes); k++) {
            json_t *rs = json_object_get(json_array_get(r->nodes, k), "ranks");
            for (size_t z = 0; z < json_array_size(rs); z++)
                if (json_integer_value(json_array_get(rs, z)) == q)
                    node = k;
        }
        json_array_append_new(ranks, json_pack("{s:i,s:s,s:I,s:s}", "rank", q, "hostname",
                                               r->hosts + (size_t)q * MPIPROF_HOST_LEN, "node",
                                               (json_int_t)node, "cpu_binding",
                                               r->binds + (size_t)q * MPIPROF_BIND_LEN));
    }
    json_object_set_new(doc, "ranks", ranks);
    json_object_set_new(doc, "nodes", json_incref(r->nodes));
    return doc;
}

/* The ceiling object; *memcpy_all: the slowest node's memcpy (0 if none),
 * *nic_all: the slowest node's fastest NIC across nodes (0 if unknown). */
static json_t *ceilings(const json_t *nodes, double *memcpy_all, double *nic_all)
{
    double ceil_all = INFINITY, nic = INFINITY;
    size_t k;
    json_t *v;
    json_array_foreach(nodes, k, v) {
        double m = json_number_value(json_object_get(v, "memcpy_bytes_per_s"));
        if (m > 0 && m < ceil_all)
            ceil_all = m;
    }
    if (!isfinite(ceil_all))
        ceil_all = 0;
    /* largest NIC speed per node, when every node tells it */
    json_array_foreach(nodes, k, v) {
        json_t *nics = json_object_get(json_object_get(v, "topology"), "nics"), *n;
        size_t q;
        double best = 0;
        json_array_foreach(nics, q, n) {
            double sp = json_number_value(json_object_get(n, "speed_bytes_per_s"));
            if (sp > best)
                best = sp;
        }
        if (best <= 0)
            nic = NAN;
        else if (best < nic)
            nic = best;
    }
    if (json_array_size(nodes) < 2 || !isfinite(nic))
        nic = 0;
    *memcpy_all = ceil_all;
    *nic_all = nic;
    return json_pack("{s:o,s:o,s:f,s:s}", "memcpy_bytes_per_s", mpiprof_num(ceil_all),
                     "nic_bytes_per_s", nic > 0 ? json_real(nic) : json_null(), "factor",
                     MPIPROF_CEILING_FACTOR, "source",
                     "memcpy: the slowest node's single-core memcpy (bytes copied "
                     "per second, best of the repetitions); nic: the slowest "
                     "node's fastest NIC link speed (sysfs), only for runs "
                     "across nodes");
}

/* 1 when the comma-separated list has the token name. */
static int list_has(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

/* Open MPI may move shared-memory messages by CMA in this run: the PML
 * ob1 or unknown (UCX and cm bring their own transports) and the
 * shared-memory BTL (vader, alias sm) allowed; the same rule as libslo's
 * reader (kernel/comm/comm_profile.c, may_use_cma) */
static int vader_allowed(const json_t *transport)
{
    const char *pml = json_string_value(
        json_object_get(json_object_get(transport, "pml"), "selected"));
    const char *btl = json_string_value(
        json_object_get(json_object_get(transport, "btl"), "allowed"));
    if (pml && strcmp(pml, "ob1") && strcmp(pml, "unknown"))
        return 0;
    return !btl || !strcmp(btl, "unknown") || btl[0] == '^' || list_has(btl, "vader") ||
           list_has(btl, "sm");
}

/* A same-node pair on a node whose ranks cannot use cross-memory attach
 * while Open MPI's shared-memory single copy is (or may be) cma: the
 * transport fails and falls back for every large message (mpiprof_cma.c),
 * so the pair's figures are not the path's. The reason, or NULL. */
static const char *cma_suspect(const json_t *node, const char *single_copy,
                               const json_t *transport, char *buf, size_t len)
{
    const json_t *cm = json_object_get(node, "cross_memory_attach");
    const json_t *sc = json_object_get(cm, "ptrace_scope");
    char scope[64] = "";
    if (!json_is_false(json_object_get(cm, "usable")) ||
        (strcmp(single_copy, "cma") != 0 && strcmp(single_copy, "unknown") != 0) ||
        !vader_allowed(transport))
        return NULL;
    if (json_is_integer(sc))
        snprintf(scope, sizeof scope, "; ptrace_scope %lld",
                 (long long)json_integer_value(sc));
    snprintf(buf, len,
             "cross-memory attach blocked on %s (process_vm_readv: %s%s) with Open MPI's "
             "single copy %s: large messages fail (\"Read -1, expected N, errno = 1\") and "
             "fall back, so the figures are not the link's; measure again with "
             "OMPI_MCA_btl_vader_single_copy_mechanism=none",
             json_string_value(json_object_get(node, "hostname")),
             json_is_string(json_object_get(cm, "error"))
                 ? json_string_value(json_object_get(cm, "error"))
                 : "failed",
             scope, single_copy);
    return buf;
}

/* point_to_point: every pair's figures flagged against its ceiling, the
 * pair's transport verdict, the pair summaries and the summary over the
 * pairs */
static json_t *point_to_point(const struct mpiprof_run *r, double nic_all,
                              const char *single_copy, const json_t *transport)
{
    const struct mpiprof_params *p = r->p;
    double min_bw = INFINITY, max_bw = 0, min_lat = INFINITY, max_lat = 0;
    int n_suspect = 0, n_suspect_pairs = 0;
    size_t k;
    json_t *pair, *sizes, *pp;
    json_array_foreach(r->pairs, k, pair) {
        int a = (int)json_integer_value(json_object_get(pair, "rank_a"));
        int b = (int)json_integer_value(json_object_get(pair, "rank_b"));
        json_t *na = NULL, *nb = NULL, *e;
        size_t q;
        double ceil = 0, large, small;
        char what[160];
        json_array_foreach(r->nodes, q, e) {
            json_t *rs = json_object_get(e, "ranks"), *x;
            size_t z;
            json_array_foreach(rs, z, x) {
                if (json_integer_value(x) == a)
                    na = e;
                if (json_integer_value(x) == b)
                    nb = e;
            }
        }
        ceil = fmin(json_number_value(json_object_get(na, "memcpy_bytes_per_s")),
                    json_number_value(json_object_get(nb, "memcpy_bytes_per_s")));
        snprintf(what, sizeof what, "the memcpy bandwidth of %s%s%s",
                 json_string_value(json_object_get(na, "hostname")), na == nb ? "" : " / ",
                 na == nb ? "" : json_string_value(json_object_get(nb, "hostname")));
        if (na != nb && nic_all > 0 && nic_all < ceil) {
            ceil = nic_all;
            snprintf(what, sizeof what, "the NIC link speed");
        }
        json_array_foreach(json_object_get(pair, "bandwidth"), q, e) {
            flag(e, json_number_value(json_object_get(e, "bandwidth_bytes_per_s")), ceil,
                 "bandwidth", what);
            n_suspect += json_is_true(json_object_get(e, "suspect"));
        }
        large = json_number_value(json_object_get(
            json_array_get(json_object_get(pair, "bandwidth"), p->n_sizes - 1),
            "bandwidth_bytes_per_s"));
        small = json_number_value(
            json_object_get(json_array_get(json_object_get(pair, "latency"), 0), "latency_s"));
        json_object_set_new(pair, "large_message_bandwidth_bytes_per_s", mpiprof_num(large));
        json_object_set_new(pair, "small_message_latency_s", mpiprof_num(small));
        {
            char reason[1024];
            const char *why = na == nb ? cma_suspect(na, single_copy, transport, reason, sizeof reason)
                                       : NULL;
            json_object_set_new(pair, "suspect", json_boolean(why != NULL));
            if (why) {
                json_object_set_new(pair, "suspect_reason", json_string(why));
                n_suspect_pairs++;
            }
        }
        min_bw = fmin(min_bw, large), max_bw = fmax(max_bw, large);
        min_lat = fmin(min_lat, small), max_lat = fmax(max_lat, small);
    }
    sizes = json_array();
    for (size_t i = 0; i < p->n_sizes; i++)
        json_array_append_new(sizes, json_integer((json_int_t)p->sizes[i]));
    pp = json_pack("{s:o,s:i,s:s,s:s,s:O,s:o}", "sizes_bytes", sizes, "window", p->window,
                   "method",
                   "bandwidth: rank_a posts `window` MPI_Isend of size_bytes, rank_b the "
                   "matching MPI_Irecv, a 4-byte ack closes each iteration; bytes moved / "
                   "time on rank_a (osu_bw). latency: ping-pong, half the round trip "
                   "(osu_latency). One pair at a time, the other ranks asleep in a "
                   "barrier.",
                   "direction", "rank_a -> rank_b (rank_a < rank_b)", "pairs", r->pairs,
                   "summary",
                   json_pack("{s:o,s:o,s:o,s:o,s:i,s:i}", "min_large_message_bandwidth_bytes_per_s",
                             mpiprof_num(r->n_pairs ? min_bw : NAN),
                             "max_large_message_bandwidth_bytes_per_s",
                             mpiprof_num(r->n_pairs ? max_bw : NAN), "min_small_message_latency_s",
                             mpiprof_num(r->n_pairs ? min_lat : NAN), "max_small_message_latency_s",
                             mpiprof_num(r->n_pairs ? max_lat : NAN), "suspect_figures",
                             n_suspect, "suspect_pairs", n_suspect_pairs));
    return pp;
}

/* allreduce: the points, the alpha-beta fit of their min times and its ring
 * reading (null for 1 rank or when the fit fails) */
static json_t *allreduce(const struct mpiprof_run *r, double ceil_all)
{
    const struct mpiprof_params *p = r->p;
    const struct mpiprof_allreduce_point *ap = r->ap;
    int np = r->np;
    json_t *pts = json_array(), *ar, *fitj = json_null(), *ring = json_null();
    double *s = mpiprof_xalloc(sizeof(double) * p->n_allreduce_sizes),
           *t = mpiprof_xalloc(sizeof(double) * p->n_allreduce_sizes);
    struct slo_comm_alpha_beta fit;
    int fit_ok, verified = 1;
    for (size_t i = 0; i < p->n_allreduce_sizes; i++) {
        s[i] = (double)ap[i].bytes;
        t[i] = ap[i].min_s; /* the fit's statistic: robust to a loaded machine */
        verified &= ap[i].verified;
    }
    fit_ok = np >= 2 && slo_comm_fit_alpha_beta(s, t, p->n_allreduce_sizes, &fit, NULL) == SLO_OK;
    for (size_t i = 0; i < p->n_allreduce_sizes; i++) {
        double algbw = s[i] / ap[i].median_s; /* nccl-tests algbw: the median */
        double busbw = np >= 2 ? algbw * 2.0 * (np - 1) / np : NAN;
        json_t *pt = json_pack("{s:I,s:i,s:o,s:o,s:o,s:o,s:b}", "size_bytes",
                               (json_int_t)ap[i].bytes, "repetitions", ap[i].reps,
                               "min_time_s", mpiprof_num(ap[i].min_s), "median_time_s",
                               mpiprof_num(ap[i].median_s), "algorithm_bandwidth_bytes_per_s",
                               mpiprof_num(algbw), "bus_bandwidth_bytes_per_s",
                               mpiprof_num(busbw), "verified", ap[i].verified);
        if (fit_ok) {
            double f = fit.alpha_s + fit.beta_s_per_byte * s[i];
            json_object_set_new(pt, "fit_time_s", mpiprof_num(f));
            json_object_set_new(pt, "relative_residual", mpiprof_num((f - t[i]) / t[i]));
        }
        if (np >= 2)
            flag(pt, busbw, ceil_all, "bus bandwidth", "the slowest node's memcpy bandwidth");
        json_array_append_new(pts, pt);
    }
    if (fit_ok) {
        double ra = slo_comm_ring_latency_from_fit(fit.alpha_s, np);
        double rb = slo_comm_ring_bandwidth_from_fit(fit.beta_s_per_byte, np);
        fitj = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:I}", "model",
                         "t = alpha + beta * bytes", "method",
                         "LAPACKE_dgels, rows scaled by 1/t (relative residuals); a "
                         "negative coefficient is set to 0 and the other refitted",
                         "statistic", "min_time_s", "datatype", "MPI_DOUBLE, MPI_SUM",
                         "alpha_s", mpiprof_num(fit.alpha_s), "beta_s_per_byte",
                         mpiprof_num(fit.beta_s_per_byte), "unconstrained_alpha_s",
                         mpiprof_num(fit.unconstrained_alpha_s), "unconstrained_beta_s_per_byte",
                         mpiprof_num(fit.unconstrained_beta_s_per_byte), "constrained",
                         fit.constrained, "rms_residual_s", mpiprof_num(fit.rms_residual_s),
                         "max_relative_residual", mpiprof_num(fit.max_relative_residual),
                         "points", (json_int_t)p->n_allreduce_sizes);
        ring = json_pack("{s:s,s:i,s:o,s:o}", "model",
                         "t = 2(p-1) alpha_step + 2(p-1)/p * bytes / B (kernel/comm/slo_comm.h)",
                         "workers", np, "alpha_s", mpiprof_num(ra), "link_bandwidth_bytes_per_s",
                         mpiprof_num(rb));
        flag(ring, rb, ceil_all, "ring link bandwidth", "the slowest node's memcpy bandwidth");
    }
    ar = json_pack("{s:s,s:s,s:b,s:o,s:o,s:o}", "method",
                   "per repetition: MPI_Barrier, then MPI_Allreduce timed on every rank; "
                   "the slowest rank's time; min and median over the repetitions after "
                   "warm-up", "datatype", "MPI_DOUBLE", "verified", verified, "points",
                   pts, "fit", fitj, "ring_model", ring);
    free(s);
    free(t);
    if (!verified)
        fprintf(stderr, "%s: warning: an allreduce returned a wrong sum "
                        "(allreduce.points[].verified)\n", MPIPROF_NAME);
    return ar;
}

json_t *mpiprof_document(struct mpiprof_run *r)
{
    json_t *doc = document_head(r);
    double ceil_all, nic_all;
    json_object_set_new(doc, "ceiling", ceilings(r->nodes, &ceil_all, &nic_all));
    const json_t *transport = json_object_get(json_object_get(doc, "mpi"), "transport");
    const char *single_copy =
        json_string_value(json_object_get(transport, "shared_memory_single_copy"));
    json_object_set_new(doc, "point_to_point",
                        point_to_point(r, nic_all, single_copy ? single_copy : "unknown",
                                       transport));
    json_object_set_new(doc, "allreduce", allreduce(r, ceil_all));
    json_object_set_new(doc, "elapsed_s", json_real(mpiprof_now_s() - r->t_start));
    return doc;
}

int mpiprof_self_check(json_t *doc, int np)
{
    json_t *sum = json_object_get(json_object_get(doc, "point_to_point"), "summary");
    int suspect_pairs = (int)json_integer_value(json_object_get(sum, "suspect_pairs"));
    /* the text as read back (17 digits: every double exact) */
    char *text = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    slo_error_t e = {0};
    if (!text)
        mpiprof_die_local(1, "out of memory writing the document");
    /* the document must pass --check */
    if (slo_comm_profile_check(text, "the measured profile", NULL, &e)) {
        fprintf(stderr, "%s: internal error: the document fails its own schema: %s\n",
                MPIPROF_NAME, e.text);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* and the link reader (slo comm --profile, --check) must accept it: a
     * fit with no bandwidth term (beta 0, as when every size is small, e.g.
     * --sizes 1,16) gives a document it rejects (trial finding M4) */
    /* pairs on a failing transport (cma_suspect): the link reader refuses
     * the document by design; it is written all the same, with the flags,
     * so that --check and the user see why (main exits 1) */
    if (np >= 2 && !suspect_pairs) {
        struct slo_comm_link lk;
        struct slo_comm_profile_info inf;
        if (slo_comm_profile_parse(text, "the measured profile", &lk, &inf, &e)) {
            fprintf(stderr, "%s: the measured profile is not usable by slo comm --profile, "
                            "nothing written: %s (larger --sizes, up to 1MiB or more, let the "
                            "allreduce times show the bandwidth)\n", MPIPROF_NAME, e.text);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    free(text);
    return suspect_pairs;
}
