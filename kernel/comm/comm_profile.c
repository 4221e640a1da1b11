/*
 * comm_profile.c - read the link (alpha, B, p) of slo_comm.h from a
 * slo-mpiprof profile document (schema: doc/mpiprof.md).
 *
 * Source of the conversion: the ring allreduce model of slo_comm.h's header
 * comment (notes 3.1 of shared/research/prophet.md),
 *   t(s) = 2(p-1) alpha_step + 2(p-1)/p * s / B,
 * against the profiler's least-squares fit t(s) = alpha + beta s, so
 * alpha_step = alpha / (2(p-1)) and B = 2(p-1) / (p beta).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_comm.h"
#include "slo_private.h"

/* Unit suffixes of the profile's field names, longest first. */
static const char *const unit_suffixes[] = {"_bytes_per_s", "_s_per_byte", "_bytes", "_s",
                                            NULL};

/* A required field is missing: if a sibling has the same stem in another
 * unit ("link_bandwidth_mbps" for "link_bandwidth_bytes_per_s"), say so. */
static int missing_field(const json_t *obj, const char *key, const char *want,
                         const char *source, const char *path, slo_error_t *err)
{
    char stem[128];
    const char *k;
    json_t *v;
    size_t klen = strlen(key), slen = klen;

    for (const char *const *u = unit_suffixes; *u; u++) {
        size_t ul = strlen(*u);
        if (klen > ul && strcmp(key + klen - ul, *u) == 0) {
            slen = klen - ul;
            break;
        }
    }
    snprintf(stem, sizeof stem, "%.*s_", (int)slen, key);
    if (json_is_object(obj) && slen < klen)
        json_object_foreach((json_t *)obj, k, v) {
            if (strncmp(k, stem, strlen(stem)) == 0 && strcmp(k, key) != 0)
                return slo__fail(err, SLO_ERR_INVALID, source,
                                "%s.%s: expected %s, found \"%s\" instead (another unit: "
                                "units are in the field names, this reader takes %s)",
                                path, key, want, k, key + slen + 1);
        }
    return slo__fail(err, SLO_ERR_INVALID, source, "%s.%s: expected %s, found it missing",
                    path, key, want);
}

/* obj.key as an object; path is obj's path ("" at the top). */
static int get_object(const json_t *obj, const char *key, const char *source, const char *path,
                      json_t **out, slo_error_t *err)
{
    json_t *v = json_object_get(obj, key);
    char found[96];
    if (!v)
        return slo__fail(err, SLO_ERR_INVALID, source, "%s%s%s: expected an object, found it "
                        "missing", path, *path ? "." : "", key);
    if (!json_is_object(v))
        return slo__fail(err, SLO_ERR_INVALID, source, "%s%s%s: expected an object, found %s",
                        path, *path ? "." : "", key, slo__json_describe(v, found, sizeof found));
    *out = v;
    return SLO_OK;
}

/* A required number in [min, max] (want describes it), with the unit hint. */
static int get_number(const json_t *obj, const char *key, double min, double max,
                      const char *want, const char *source, const char *path, double *out,
                      slo_error_t *err)
{
    json_t *v = json_object_get(obj, key);
    char found[96];
    if (!v)
        return missing_field(obj, key, want, source, path, err);
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < min ||
        json_number_value(v) > max)
        return slo__fail(err, SLO_ERR_INVALID, source, "%s.%s: expected %s, found %s", path, key,
                        want, slo__json_describe(v, found, sizeof found));
    *out = json_number_value(v);
    return SLO_OK;
}

/* Parse text (source names it; NULL: "profile") into *root, a slo-mpiprof
 * profile of the schema this reader knows. On failure *root is NULL. */
static int open_profile(const char *text, const char **source, json_t **root,
                        slo_error_t *err)
{
    json_t *v;
    char found[96];
    int rc;
    if (!*source)
        *source = "profile";
    if ((rc = slo__json_parse_text(text, *source, root, err)))
        return rc;
    v = json_object_get(*root, "schema_version");
    if (v && json_is_integer(v) && json_integer_value(v) == SLO_COMM_PROFILE_SCHEMA_VERSION)
        return SLO_OK;
    rc = slo__fail(err, SLO_ERR_INVALID, *source,
                  "schema_version: expected %d (a slo-mpiprof profile), found %s%s",
                  SLO_COMM_PROFILE_SCHEMA_VERSION,
                  v ? slo__json_describe(v, found, sizeof found) : "it missing",
                  v && json_is_integer(v) ? " (a newer or older profiler: re-run this "
                                            "slo-mpiprof)" : "");
    json_decref(*root);
    *root = NULL;
    return rc;
}

static int agrees(double a, double b)
{
    return fabs(a - b) <= 1e-6 * fmax(fabs(a), fabs(b));
}

int slo_comm_profile_parse(const char *text, const char *source, struct slo_comm_link *link,
                           struct slo_comm_profile_info *info, slo_error_t *err)
{
    json_t *root = NULL, *mpi, *ceiling, *allreduce, *fit, *ring, *v;
    struct slo_comm_profile_info in;
    struct slo_comm_link out;
    char found[96], want[160];
    int rc, workers = 0;
    double alpha, beta, ring_alpha, ring_bw;

    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    if ((rc = open_profile(text, &source, &root, err)))
        return rc;
    if ((rc = get_object(root, "mpi", source, "", &mpi, err)) ||
        (rc = slo__json_int(mpi, "world_size", 1, 1, SLO_COMM_MAX_WORKERS, source, "mpi",
                           &in.world_size, err)))
        goto out;
    if (in.world_size < 2) {
        rc = slo__fail(err, SLO_ERR_INVALID, source,
                      "mpi.world_size: expected at least 2 ranks (a link needs two ends), "
                      "found %d", in.world_size);
        goto out;
    }
    if ((rc = get_object(root, "ceiling", source, "", &ceiling, err)) ||
        (rc = get_number(ceiling, "memcpy_bytes_per_s", DBL_MIN, DBL_MAX, "a number > 0",
                         source, "ceiling", &in.memcpy_bytes_per_s, err)))
        goto out;
    if ((rc = get_object(root, "allreduce", source, "", &allreduce, err)) ||
        (rc = get_object(allreduce, "fit", source, "allreduce", &fit, err)) ||
        (rc = get_number(fit, "alpha_s", 0, DBL_MAX, "a number >= 0", source, "allreduce.fit",
                         &alpha, err)) ||
        (rc = get_number(fit, "beta_s_per_byte", 0, DBL_MAX, "a number >= 0", source,
                         "allreduce.fit", &beta, err)) ||
        (rc = get_number(fit, "rms_residual_s", 0, DBL_MAX, "a number >= 0", source,
                         "allreduce.fit", &in.fit_rms_residual_s, err)) ||
        (rc = get_number(fit, "max_relative_residual", 0, DBL_MAX, "a number >= 0", source,
                         "allreduce.fit", &in.fit_max_relative_residual, err)))
        goto out;
    in.fit_alpha_s = alpha;
    in.fit_beta_s_per_byte = beta;

    v = json_object_get(allreduce, "ring_model");
    if (v && json_is_null(v)) {
        rc = slo__fail(err, SLO_ERR_INVALID, source,
                      "allreduce.ring_model: expected an object, found null (the profiler "
                      "could not derive a ring link from this run)");
        goto out;
    }
    if ((rc = get_object(allreduce, "ring_model", source, "allreduce", &ring, err)) ||
        (rc = slo__json_int(ring, "workers", 1, 2, SLO_COMM_MAX_WORKERS, source,
                           "allreduce.ring_model", &workers, err)))
        goto out;
    if (workers != in.world_size) {
        rc = slo__fail(err, SLO_ERR_INVALID, source,
                      "allreduce.ring_model.workers: expected mpi.world_size = %d, found %d",
                      in.world_size, workers);
        goto out;
    }
    snprintf(want, sizeof want, "a number in [0, %g] (seconds per ring step)",
             SLO_COMM_MAX_LATENCY_S);
    if ((rc = get_number(ring, "alpha_s", 0, SLO_COMM_MAX_LATENCY_S, want, source,
                         "allreduce.ring_model", &ring_alpha, err)))
        goto out;
    v = json_object_get(ring, "suspect");
    if (!v || !json_is_boolean(v)) {
        rc = slo__fail(err, SLO_ERR_INVALID, source,
                      "allreduce.ring_model.suspect: expected true or false, found %s",
                      v ? slo__json_describe(v, found, sizeof found) : "it missing");
        goto out;
    }
    in.bandwidth_suspect = json_is_true(v);
    if (in.bandwidth_suspect) {
        json_t *r = json_object_get(ring, "suspect_reason");
        if (!json_is_string(r) || !json_string_length(r)) {
            rc = slo__fail(err, SLO_ERR_INVALID, source,
                          "allreduce.ring_model.suspect_reason: expected a non-empty string "
                          "(suspect is true), found %s",
                          r ? slo__json_describe(r, found, sizeof found) : "it missing");
            goto out;
        }
        snprintf(in.suspect_reason, sizeof in.suspect_reason, "%s", json_string_value(r));
    }
    v = json_object_get(ring, "link_bandwidth_bytes_per_s");
    if (v && json_is_null(v) && beta == 0) {
        rc = slo__fail(err, SLO_ERR_INVALID, source,
                      "allreduce.ring_model.link_bandwidth_bytes_per_s: expected a number, "
                      "found null (the fit's beta is 0: the sizes measured do not determine a "
                      "bandwidth; re-run slo-mpiprof with larger --sizes)");
        goto out;
    }
    snprintf(want, sizeof want, "a number in [%g, %g]", SLO_COMM_MIN_BANDWIDTH_BYTES_PER_S,
             SLO_COMM_MAX_BANDWIDTH_BYTES_PER_S);
    if ((rc = get_number(ring, "link_bandwidth_bytes_per_s", SLO_COMM_MIN_BANDWIDTH_BYTES_PER_S,
                         SLO_COMM_MAX_BANDWIDTH_BYTES_PER_S, want, source,
                         "allreduce.ring_model", &ring_bw, err)))
        goto out;
    /* the ring figures must follow from the fit (header comment) */
    if (!agrees(ring_alpha, alpha / (2.0 * (workers - 1)))) {
        rc = slo__fail(err, SLO_ERR_INVALID, source,
                      "allreduce.ring_model.alpha_s: expected allreduce.fit.alpha_s / "
                      "(2(p-1)) = %.10g, found %.10g", alpha / (2.0 * (workers - 1)),
                      ring_alpha);
        goto out;
    }
    if (beta <= 0 || !agrees(ring_bw, 2.0 * (workers - 1) / (workers * beta))) {
        rc = slo__fail(err, SLO_ERR_INVALID, source,
                      "allreduce.ring_model.link_bandwidth_bytes_per_s: expected 2(p-1) / (p "
                      "allreduce.fit.beta_s_per_byte) = %.10g, found %.10g",
                      beta > 0 ? 2.0 * (workers - 1) / (workers * beta) : INFINITY, ring_bw);
        goto out;
    }
    out.bandwidth_bytes_per_s = ring_bw;
    out.latency_s = ring_alpha;
    out.workers = workers;
    out.collective = SLO_COMM_RING;
    out.max_in_flight = 1;
    {
        slo_error_t e = {0};
        if ((rc = slo_comm_link_check(&out, &e))) {
            slo__fail(err, rc, source, "link from allreduce.ring_model: %s: %s", e.source,
                     e.text);
            goto out;
        }
    }
    *link = out;
    if (info)
        *info = in;
    rc = SLO_OK;
out:
    json_decref(root);
    return rc;
}

int slo_comm_profile_load(const char *path, struct slo_comm_link *link,
                          struct slo_comm_profile_info *info, slo_error_t *err)
{
    char *text;
    int rc = slo__read_file(path, &text, err);
    if (rc)
        return rc;
    rc = slo_comm_profile_parse(text, path, link, info, err);
    free(text);
    return rc;
}

int slo_profile_ps_bandwidth(const char *text, const char *source, double *b_ps_mbps,
                             slo_error_t *err)
{
    json_t *root = NULL, *p2p, *pairs, *v;
    char found[96];
    double best = INFINITY;
    int rc, n_cross = 0;
    size_t i;

    if ((rc = open_profile(text, &source, &root, err)))
        return rc;
    if ((rc = get_object(root, "point_to_point", source, "", &p2p, err)))
        goto out;
    pairs = json_object_get(p2p, "pairs");
    if (!pairs || !json_is_array(pairs)) {
        rc = slo__fail(err, SLO_ERR_INVALID, source,
                      "point_to_point.pairs: expected an array, found %s",
                      pairs ? slo__json_describe(pairs, found, sizeof found) : "it missing");
        goto out;
    }
    json_array_foreach(pairs, i, v) {
        char path[64];
        json_t *a = json_object_get(v, "rank_a"), *b = json_object_get(v, "rank_b");
        json_t *same = json_object_get(v, "same_node"), *bw = json_object_get(v, "bandwidth");
        json_t *last;
        double x;
        snprintf(path, sizeof path, "point_to_point.pairs[%zu]", i);
        if (!json_is_object(v) || !json_is_integer(a) || !json_is_integer(b) ||
            !json_is_boolean(same)) {
            rc = slo__fail(err, SLO_ERR_INVALID, source,
                          "%s: expected an object with integers rank_a, rank_b and a boolean "
                          "same_node, found %s",
                          path, slo__json_describe(v, found, sizeof found));
            goto out;
        }
        if (json_is_true(same) || (json_integer_value(a) != 0 && json_integer_value(b) != 0))
            continue;
        if ((rc = get_number(v, "large_message_bandwidth_bytes_per_s", DBL_MIN, DBL_MAX,
                             "a number > 0", source, path, &x, err)))
            goto out;
        /* the largest size's entry carries the profiler's verdict */
        last = json_is_array(bw) ? json_array_get(bw, json_array_size(bw) - 1) : NULL;
        if (last && json_is_true(json_object_get(last, "suspect"))) {
            rc = slo__fail(err, SLO_ERR_INVALID, source,
                          "%s: expected a bandwidth the profiler stands by, found it flagged "
                          "suspect (above its memcpy ceiling)", path);
            goto out;
        }
        n_cross++;
        if (x < best)
            best = x;
    }
    if (n_cross == 0) {
        rc = slo__fail(err, SLO_ERR_INVALID, source,
                      "point_to_point.pairs: expected a pair of rank 0 (the PS) with a rank on "
                      "another node, found every pair sharing a node: its bandwidth is a memory "
                      "copy, not a NIC (run slo-mpiprof with ranks on two nodes)");
        goto out;
    }
    *b_ps_mbps = best / 1e6;
    rc = SLO_OK;
out:
    json_decref(root);
    return rc;
}

int slo_profile_ps_bandwidth_load(const char *path, double *b_ps_mbps, slo_error_t *err)
{
    char *text;
    int rc = slo__read_file(path, &text, err);
    if (rc)
        return rc;
    rc = slo_profile_ps_bandwidth(text, path, b_ps_mbps, err);
    free(text);
    return rc;
}
