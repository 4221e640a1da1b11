/*
 * comm_profile.c - slo-mpiprof profile documents (schema: doc/mpiprof.md):
 * the one validator of the format, used by `slo comm --profile`, `slo train
 * --profile`, slo-train-demo and `slo-mpiprof --check` (and the profiler's
 * self-check before it writes). Three readings share one set of field
 * readers (so a field gets the same message whoever reads it):
 *   slo_comm_profile_parse    the link (alpha, B, p) of slo_comm.h
 *   slo_comm_profile_check    the whole document: every field's presence,
 *                             type, unit (by name) and range, and the
 *                             schema's consistency rules
 *   slo_profile_ps_bandwidth  spotDNN's B_ps from the point-to-point pairs
 *
 * Source of the link conversion: the ring allreduce model of slo_comm.h's
 * header comment (notes 3.1 of shared/research/prophet.md),
 *   t(s) = 2(p-1) alpha_step + 2(p-1)/p * s / B,
 * against the profiler's least-squares fit t(s) = alpha + beta s, so
 * alpha_step = alpha / (2(p-1)) and B = 2(p-1) / (p beta)
 * (slo_comm_ring_latency_from_fit / _bandwidth_from_fit, comm_link_fit.c).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_comm.h"
#include "slo_private.h"

/* ------------------------------------------------------------------ */
/* Field readers: "PATH.KEY: expected WANT, found WHAT" (SLO_ERR_INVALID) */
/* ------------------------------------------------------------------ */

/* One reading: where the text came from and the first error. The readers
 * return c->rc (nonzero, SLO_ERR_*) or NULL on failure, with c->err set. */
struct ctx {
    const char *source;
    slo_error_t *err;
    int rc;
};

static int fail(struct ctx *c, const char *fmt, ...) SLO_PRINTF(2, 3);
static int fail(struct ctx *c, const char *fmt, ...)
{
    char text[SLO_ERROR_TEXT_LENGTH];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    c->rc = slo__fail(c->err, SLO_ERR_INVALID, c->source, "%s", text);
    return c->rc;
}

/* A value for "found ...": slo__json_describe, with an array's length and a
 * whole real saying it is not an integer (trial finding M10: "expected an
 * integer ..., found 1" for 1.0). */
static const char *describe(const json_t *v, char *buf, size_t len)
{
    if (!v)
        snprintf(buf, len, "it missing");
    else if (json_is_array(v))
        snprintf(buf, len, "an array of %zu", json_array_size(v));
    else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
             fabs(json_real_value(v)) < 1e15)
        snprintf(buf, len, "%.1f (a number with a fraction part, not an integer)",
                 json_real_value(v));
    else
        slo__json_describe(v, buf, len);
    return buf;
}

/* Unit suffixes of the profile's field names, longest first. */
static const char *const unit_suffixes[] = {"_bytes_per_s", "_s_per_byte", "_bytes", "_s",
                                            NULL};

/* obj.key, or NULL and a failure naming path.key (path "" at the top); a
 * sibling with the same stem in another unit is named ("found
 * \"link_bandwidth_mbps\" instead"). */
static json_t *field(struct ctx *c, const json_t *obj, const char *path, const char *key,
                     const char *want)
{
    json_t *v = json_object_get(obj, key), *x;
    size_t klen = strlen(key), slen = klen;
    const char *k;
    if (v)
        return v;
    for (const char *const *u = unit_suffixes; *u; u++)
        if (klen > strlen(*u) && strcmp(key + klen - strlen(*u), *u) == 0) {
            slen = klen - strlen(*u);
            break;
        }
    if (slen < klen && json_is_object(obj))
        json_object_foreach((json_t *)obj, k, x) {
            if (strncmp(k, key, slen + 1) == 0 && strcmp(k, key) != 0) {
                fail(c, "%s%s%s: expected %s, found \"%s\" instead (another unit: units are "
                        "in the field names, this reader takes %s)", path, *path ? "." : "",
                     key, want, k, key + slen + 1);
                return NULL;
            }
        }
    fail(c, "%s%s%s: expected %s, found it missing", path, *path ? "." : "", key, want);
    return NULL;
}

static int bad(struct ctx *c, const char *path, const char *key, const char *want,
               const json_t *v)
{
    char found[96];
    return fail(c, "%s%s%s: expected %s, found %s", path, *path ? "." : "", key, want,
                describe(v, found, sizeof found));
}

/* A finite number in [min, max]; want says so ("a number > 0"). */
static int number(struct ctx *c, const json_t *o, const char *path, const char *key,
                  double min, double max, const char *want, double *out)
{
    json_t *v = field(c, o, path, key, want);
    if (!v)
        return c->rc;
    if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < min ||
        json_number_value(v) > max)
        return bad(c, path, key, want, v);
    *out = json_number_value(v);
    return 0;
}

/* A number > min (strict) or >= min; nullable: null allowed (*out = NAN). */
static int num(struct ctx *c, const json_t *o, const char *path, const char *key, double min,
               int strict, int nullable, double *out)
{
    char want[96];
    json_t *v;
    snprintf(want, sizeof want, "a number %s %g%s", strict ? ">" : ">=", min,
             nullable ? " or null" : "");
    if (!(v = field(c, o, path, key, want)))
        return c->rc;
    if (nullable && json_is_null(v)) {
        *out = NAN;
        return 0;
    }
    if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
        (strict ? json_number_value(v) <= min : json_number_value(v) < min))
        return bad(c, path, key, want, v);
    *out = json_number_value(v);
    return 0;
}

static int integer(struct ctx *c, const json_t *o, const char *path, const char *key,
                   long long min, long long max, long long *out)
{
    char want[96];
    json_t *v;
    snprintf(want, sizeof want, "an integer in [%lld, %lld]", min, max);
    if (!(v = field(c, o, path, key, want)))
        return c->rc;
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
        return bad(c, path, key, want, v);
    *out = json_integer_value(v);
    return 0;
}

static int string(struct ctx *c, const json_t *o, const char *path, const char *key,
                  int nullable, const char **out)
{
    const char *want = nullable ? "a string or null" : "a string";
    json_t *v;
    if (!(v = field(c, o, path, key, want)))
        return c->rc;
    if (nullable && json_is_null(v)) {
        if (out)
            *out = NULL;
        return 0;
    }
    if (!json_is_string(v))
        return bad(c, path, key, want, v);
    if (out)
        *out = json_string_value(v);
    return 0;
}

static int boolean(struct ctx *c, const json_t *o, const char *path, const char *key, int *out)
{
    json_t *v;
    if (!(v = field(c, o, path, key, "true or false")))
        return c->rc;
    if (!json_is_boolean(v))
        return bad(c, path, key, "true or false", v);
    *out = json_is_true(v);
    return 0;
}

static json_t *object(struct ctx *c, const json_t *o, const char *path, const char *key,
                      int nullable)
{
    const char *want = nullable ? "an object or null" : "an object";
    json_t *v = field(c, o, path, key, want);
    if (!v)
        return NULL;
    if (json_is_object(v) || (nullable && json_is_null(v)))
        return v;
    bad(c, path, key, want, v);
    return NULL;
}

static json_t *array(struct ctx *c, const json_t *o, const char *path, const char *key,
                     size_t min_len)
{
    char want[64];
    json_t *v;
    snprintf(want, sizeof want, "an array of at least %zu", min_len);
    if (!(v = field(c, o, path, key, want)))
        return NULL;
    if (!json_is_array(v) || json_array_size(v) < min_len) {
        bad(c, path, key, want, v);
        return NULL;
    }
    return v;
}

static int element_object(struct ctx *c, const json_t *arr, size_t i, const char *path,
                          const char *key, char *epath, size_t elen, json_t **out)
{
    json_t *e = json_array_get(arr, i);
    char found[96];
    snprintf(epath, elen, "%s%s%s[%zu]", path, *path ? "." : "", key, i);
    if (!json_is_object(e))
        return fail(c, "%s: expected an object, found %s", epath, describe(e, found, sizeof found));
    *out = e;
    return 0;
}

static int close_to(double a, double b, double rel)
{
    return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-300;
}

/* Parse text into *root, a profile of the schema this reader knows (the
 * first rule of every reading). check: slo_comm_profile_check's words for
 * text that is not a JSON object. On failure *root is NULL. */
static int open_profile(struct ctx *c, const char *text, int check, json_t **root)
{
    long long ver;
    slo_error_t e = {0};
    int rc;
    if ((rc = slo__json_parse_text(text, c->source, root, &e))) {
        c->rc = slo__fail(c->err, rc, c->source, "%s%s",
                          !check ? "" : strstr(e.text, "malformed JSON") ? "not a JSON document: "
                                                                         : "document: ",
                          e.text);
        return c->rc;
    }
    if (!json_object_get(*root, "schema_version")) {
        fail(c, "schema_version: expected %d (a slo-mpiprof profile), found it missing",
             SLO_COMM_PROFILE_SCHEMA_VERSION);
        goto bad;
    }
    if (integer(c, *root, "", "schema_version", 0, 1000000, &ver))
        goto bad;
    if (ver != SLO_COMM_PROFILE_SCHEMA_VERSION) {
        fail(c, "schema_version: expected %d, found %lld (written by another version of "
                "slo-mpiprof: re-run this one)", SLO_COMM_PROFILE_SCHEMA_VERSION, ver);
        goto bad;
    }
    return SLO_OK;
bad:
    json_decref(*root);
    *root = NULL;
    return c->rc;
}

/* ------------------------------------------------------------------ */
/* The link                                                            */
/* ------------------------------------------------------------------ */

static int agrees(double a, double b)
{
    return fabs(a - b) <= 1e-6 * fmax(fabs(a), fabs(b));
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

/* 1 when Open MPI may move shared-memory messages by cross-memory attach
 * in the run the transport object (mpi.transport) describes: the single
 * copy cma or unknown, the PML ob1 or unknown (UCX and cm bring their
 * own), and the shared-memory BTL (vader, alias sm) allowed ("unknown", an
 * exclusion list "^...", or a list naming it). */
static int may_use_cma(const json_t *transport)
{
    const char *sc = json_string_value(json_object_get(transport, "shared_memory_single_copy"));
    const char *pml = json_string_value(
        json_object_get(json_object_get(transport, "pml"), "selected"));
    const char *btl = json_string_value(
        json_object_get(json_object_get(transport, "btl"), "allowed"));
    if (sc && strcmp(sc, "cma") && strcmp(sc, "unknown"))
        return 0;
    if (pml && strcmp(pml, "ob1") && strcmp(pml, "unknown"))
        return 0;
    return !btl || !strcmp(btl, "unknown") || btl[0] == '^' || list_has(btl, "vader") ||
           list_has(btl, "sm");
}

/* 1 when node (a nodes[] entry) records cross-memory attach blocked
 * between its ranks (slo-mpiprof's process_vm_readv probe) in a run where
 * Open MPI may use it (may_use_cma). */
static int cma_blocked(const json_t *root, const json_t *node)
{
    const json_t *cm = json_object_get(node, "cross_memory_attach");
    return json_is_false(json_object_get(cm, "usable")) &&
           may_use_cma(json_object_get(json_object_get(root, "mpi"), "transport"));
}

/* Every reading of the figures refuses a profile measured on a failing
 * transport (issue 15): a pair the profiler flagged suspect
 * (point_to_point.pairs[].suspect, with its reason), or a node whose ranks
 * cannot use cross-memory attach while Open MPI's single copy is cma
 * (nodes[].cross_memory_attach.usable false): there every large message
 * failed and Open MPI fell back, so neither the pairs nor the allreduce fit
 * describe the link. The fields are optional (profiles written before
 * slo-mpiprof recorded them carry neither). SLO_ERR_INVALID naming the
 * field. */
static int transport_verdict(struct ctx *c, const json_t *root)
{
    const json_t *pairs = json_object_get(json_object_get(root, "point_to_point"), "pairs");
    const json_t *nodes = json_object_get(root, "nodes"), *v;
    size_t i;
    json_array_foreach(pairs, i, v) {
        if (json_is_true(json_object_get(v, "suspect"))) {
            const char *why = json_string_value(json_object_get(v, "suspect_reason"));
            return fail(c, "point_to_point.pairs[%zu] (ranks %lld-%lld): expected a working "
                           "transport, found the pair flagged suspect by slo-mpiprof: %s; "
                           "profile not used",
                        i, (long long)json_integer_value(json_object_get(v, "rank_a")),
                        (long long)json_integer_value(json_object_get(v, "rank_b")),
                        why ? why : "no reason given");
        }
    }
    json_array_foreach(nodes, i, v) {
        if (cma_blocked(root, v)) {
            const char *e = json_string_value(
                json_object_get(json_object_get(v, "cross_memory_attach"), "error"));
            return fail(c, "nodes[%zu].cross_memory_attach.usable: expected true (Open MPI's "
                           "shared-memory single copy is cma), found false (%s): its large "
                           "messages failed and fell back; measure again with "
                           "OMPI_MCA_btl_vader_single_copy_mechanism=none; profile not used",
                        i, e ? e : "process_vm_readv failed");
        }
    }
    return SLO_OK;
}

/* The ring link of slo_comm_profile_parse from an opened document. */
static int read_link(struct ctx *c, const json_t *root, struct slo_comm_link *link,
                     struct slo_comm_profile_info *info)
{
    json_t *mpi, *ceiling, *allreduce, *fit, *ring, *v;
    struct slo_comm_profile_info in;
    struct slo_comm_link out;
    char found[96], want[160];
    long long world = 0, workers = 0;
    double alpha, beta, ring_alpha, ring_bw, want_alpha, want_bw;

    memset(&in, 0, sizeof in);
    memset(&out, 0, sizeof out);
    if (transport_verdict(c, root))
        return c->rc;
    if (!(mpi = object(c, root, "", "mpi", 0)) ||
        integer(c, mpi, "mpi", "world_size", 1, SLO_COMM_MAX_WORKERS, &world))
        return c->rc;
    in.world_size = (int)world;
    if (in.world_size < 2)
        return fail(c, "mpi.world_size: expected at least 2 ranks (a link needs two ends), "
                       "found %d", in.world_size);
    if (!(ceiling = object(c, root, "", "ceiling", 0)) ||
        number(c, ceiling, "ceiling", "memcpy_bytes_per_s", DBL_MIN, DBL_MAX, "a number > 0",
               &in.memcpy_bytes_per_s))
        return c->rc;
    if (!(allreduce = object(c, root, "", "allreduce", 0)) ||
        !(fit = object(c, allreduce, "allreduce", "fit", 0)) ||
        number(c, fit, "allreduce.fit", "alpha_s", 0, DBL_MAX, "a number >= 0", &alpha) ||
        number(c, fit, "allreduce.fit", "beta_s_per_byte", 0, DBL_MAX, "a number >= 0", &beta) ||
        number(c, fit, "allreduce.fit", "rms_residual_s", 0, DBL_MAX, "a number >= 0",
               &in.fit_rms_residual_s) ||
        number(c, fit, "allreduce.fit", "max_relative_residual", 0, DBL_MAX, "a number >= 0",
               &in.fit_max_relative_residual))
        return c->rc;
    in.fit_alpha_s = alpha;
    in.fit_beta_s_per_byte = beta;

    v = json_object_get(allreduce, "ring_model");
    if (v && json_is_null(v))
        return fail(c, "allreduce.ring_model: expected an object, found null (the profiler "
                       "could not derive a ring link from this run)");
    if (!(ring = object(c, allreduce, "allreduce", "ring_model", 0)) ||
        integer(c, ring, "allreduce.ring_model", "workers", 2, SLO_COMM_MAX_WORKERS, &workers))
        return c->rc;
    if (workers != in.world_size)
        return fail(c, "allreduce.ring_model.workers: expected mpi.world_size = %d, found %lld",
                    in.world_size, workers);
    snprintf(want, sizeof want, "a number in [0, %g] (seconds per ring step)",
             SLO_COMM_MAX_LATENCY_S);
    if (number(c, ring, "allreduce.ring_model", "alpha_s", 0, SLO_COMM_MAX_LATENCY_S, want,
               &ring_alpha))
        return c->rc;
    v = json_object_get(ring, "suspect");
    if (!v || !json_is_boolean(v))
        return fail(c, "allreduce.ring_model.suspect: expected true or false, found %s",
                    describe(v, found, sizeof found));
    in.bandwidth_suspect = json_is_true(v);
    if (in.bandwidth_suspect) {
        json_t *r = json_object_get(ring, "suspect_reason");
        if (!json_is_string(r) || !json_string_length(r))
            return fail(c, "allreduce.ring_model.suspect_reason: expected a non-empty string "
                           "(suspect is true), found %s", describe(r, found, sizeof found));
        snprintf(in.suspect_reason, sizeof in.suspect_reason, "%s", json_string_value(r));
    }
    v = json_object_get(ring, "link_bandwidth_bytes_per_s");
    if (v && json_is_null(v) && beta == 0)
        return fail(c, "allreduce.ring_model.link_bandwidth_bytes_per_s: expected a number, "
                       "found null (the fit's beta is 0: the sizes measured do not determine a "
                       "bandwidth; re-run slo-mpiprof with larger --sizes)");
    snprintf(want, sizeof want, "a number in [%g, %g]", SLO_COMM_MIN_BANDWIDTH_BYTES_PER_S,
             SLO_COMM_MAX_BANDWIDTH_BYTES_PER_S);
    if (number(c, ring, "allreduce.ring_model", "link_bandwidth_bytes_per_s",
               SLO_COMM_MIN_BANDWIDTH_BYTES_PER_S, SLO_COMM_MAX_BANDWIDTH_BYTES_PER_S, want,
               &ring_bw))
        return c->rc;
    /* the ring figures must follow from the fit (header comment) */
    want_alpha = slo_comm_ring_latency_from_fit(alpha, (int)workers);
    if (!agrees(ring_alpha, want_alpha))
        return fail(c, "allreduce.ring_model.alpha_s: expected allreduce.fit.alpha_s / "
                       "(2(p-1)) = %.10g, found %.10g", want_alpha, ring_alpha);
    want_bw = slo_comm_ring_bandwidth_from_fit(beta, (int)workers);
    if (beta <= 0 || !agrees(ring_bw, want_bw))
        return fail(c, "allreduce.ring_model.link_bandwidth_bytes_per_s: expected 2(p-1) / (p "
                       "allreduce.fit.beta_s_per_byte) = %.10g, found %.10g", want_bw, ring_bw);
    out.bandwidth_bytes_per_s = ring_bw;
    out.latency_s = ring_alpha;
    out.workers = (int)workers;
    out.collective = SLO_COMM_RING;
    out.max_in_flight = 1;
    {
        slo_error_t e = {0};
        int rc;
        if ((rc = slo_comm_link_check(&out, &e)))
            return c->rc = slo__fail(c->err, rc, c->source, "link from allreduce.ring_model: "
                                     "%s: %s", e.source, e.text);
    }
    *link = out;
    if (info)
        *info = in;
    return SLO_OK;
}

int slo_comm_profile_parse(const char *text, const char *source, struct slo_comm_link *link,
                           struct slo_comm_profile_info *info, slo_error_t *err)
{
    struct ctx c = {source ? source : "profile", err, SLO_OK};
    json_t *root = NULL;
    int rc;
    if (!text || !link)
        return slo__fail(err, SLO_ERR_INVALID, c.source, "expected a profile text and a link, "
                         "found NULL");
    /* nccl-tests all_reduce_perf output (comm_nccl.c) */
    if (slo_comm_nccl_detect(text))
        return slo_comm_nccl_parse(text, source, link, info, err);
    if ((rc = open_profile(&c, text, 0, &root)))
        return rc;
    rc = read_link(&c, root, link, info);
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

/* ------------------------------------------------------------------ */
/* The whole document (slo-mpiprof --check)                            */
/* ------------------------------------------------------------------ */

/* suspect / suspect_reason, and: above factor x ceiling must be suspect */
static int check_flag(struct ctx *c, const json_t *o, const char *path, double value,
                      double ceiling, const char *what)
{
    int s;
    const char *r;
    if (boolean(c, o, path, "suspect", &s))
        return c->rc;
    if (s && (string(c, o, path, "suspect_reason", 0, &r) || !*r))
        return c->rc ? c->rc : fail(c, "%s.suspect_reason: expected a reason, found \"\"", path);
    if (!s && (isnan(value) ||
               (ceiling > 0 && value > SLO_COMM_PROFILE_CEILING_FACTOR * ceiling)))
        return fail(c, "%s.suspect: expected true (%s %.4g is above %.2f x the ceiling %.4g), "
                       "found false", path, what, value, SLO_COMM_PROFILE_CEILING_FACTOR, ceiling);
    return 0;
}

static int check_device(struct ctx *c, const json_t *d, const char *path, int nic)
{
    double sp;
    if (string(c, d, path, "name", 0, NULL) || string(c, d, path, "backend", 0, NULL) ||
        string(c, d, path, "pci_busid", 1, NULL) || string(c, d, path, "pcie_bridge", 1, NULL))
        return c->rc;
    if (nic && num(c, d, path, "speed_bytes_per_s", 0, 1, 1, &sp))
        return c->rc;
    return 0;
}

/* nodes[node].memcpy_bytes_per_s (checked before the pairs are) */
static double node_memcpy(const json_t *nodes, int node)
{
    return json_number_value(
        json_object_get(json_array_get(nodes, (size_t)node), "memcpy_bytes_per_s"));
}

/* The schema walk of slo_comm_profile_check on a parsed document whose
 * schema_version open_profile has checked; *world_size = mpi.world_size. */
static int check_document(struct ctx *c, const json_t *doc, long long *world_size)
{
    char path[128], p2[256], p3[400];
    long long np, ll;
    const char *mode;
    json_t *mpi, *t, *nodes, *ranks, *ceiling, *pp, *sizes, *pairs, *ar, *pts, *fit, *ring, *e;
    double d, ceil_memcpy = INFINITY, nic;
    int b;
    size_t i, j, n_nodes, n_sizes, n_pairs;
    int *node_of = NULL;

    if (string(c, doc, "", "generator", 0, NULL) || string(c, doc, "", "created_utc", 0, NULL) ||
        string(c, doc, "", "mode", 0, &mode) || num(c, doc, "", "elapsed_s", 0, 0, 0, &d))
        return c->rc;
    if (strcmp(mode, "quick") && strcmp(mode, "default")) {
        fail(c, "mode: expected \"quick\" or \"default\", found \"%s\"", mode);
        return c->rc;
    }

    /* mpi */
    if (!(mpi = object(c, doc, "", "mpi", 0)) ||
        string(c, mpi, "mpi", "library_version", 0, NULL) ||
        string(c, mpi, "mpi", "mpi_version", 0, NULL) ||
        integer(c, mpi, "mpi", "world_size", 1, 1000000, &np) ||
        string(c, mpi, "mpi", "launcher", 0, NULL) ||
        string(c, mpi, "mpi", "slurm_job_id", 1, NULL) ||
        !(t = object(c, mpi, "mpi", "transport", 0)) ||
        boolean(c, t, "mpi.transport", "mpi_t_available", &b))
        return c->rc;
    {
        json_t *pml = object(c, t, "mpi.transport", "pml", 0), *btl;
        if (!pml || string(c, pml, "mpi.transport.pml", "selected", 0, NULL) ||
            string(c, pml, "mpi.transport.pml", "mca_value", 1, NULL) ||
            string(c, pml, "mpi.transport.pml", "source", 0, NULL) ||
            !(btl = object(c, t, "mpi.transport", "btl", 0)) ||
            string(c, btl, "mpi.transport.btl", "allowed", 0, NULL) ||
            string(c, btl, "mpi.transport.btl", "source", 0, NULL) ||
            string(c, t, "mpi.transport", "shared_memory_single_copy", 0, NULL))
            return c->rc;
    }

    /* nodes */
    if (!(nodes = array(c, doc, "", "nodes", 1)))
        return c->rc;
    n_nodes = json_array_size(nodes);
    node_of = malloc(sizeof(int) * (size_t)np);
    if (!node_of) {
        c->rc = slo__fail(c->err, SLO_ERR_NOMEM, c->source, "out of memory");
        return c->rc;
    }
    for (long long r = 0; r < np; r++)
        node_of[r] = -1;
    for (i = 0; i < n_nodes; i++) {
        json_t *nd, *rs, *topo, *x;
        if (element_object(c, nodes, i, "", "nodes", path, sizeof path, &nd) ||
            string(c, nd, path, "hostname", 0, NULL) || !(rs = array(c, nd, path, "ranks", 1)) ||
            num(c, nd, path, "memcpy_bytes_per_s", 0, 1, 0, &d) ||
            integer(c, nd, path, "memcpy_buffer_bytes", 1, 1LL << 40, &ll) ||
            !(topo = object(c, nd, path, "topology", 0)))
            goto out;
        if (d < ceil_memcpy)
            ceil_memcpy = d;
        if (json_object_get(nd, "cross_memory_attach")) { /* optional (older profiles) */
            json_t *cm;
            int tested;
            snprintf(p2, sizeof p2, "%s.cross_memory_attach", path);
            if (!(cm = object(c, nd, path, "cross_memory_attach", 0)) ||
                boolean(c, cm, p2, "tested", &tested) || string(c, cm, p2, "error", 1, NULL) ||
                string(c, cm, p2, "method", 0, NULL))
                goto out;
            x = json_object_get(cm, "usable");
            if (tested ? !json_is_boolean(x) : !json_is_null(x)) {
                bad(c, p2, "usable", tested ? "true or false (tested is true)"
                                            : "null (tested is false)", x);
                goto out;
            }
            x = json_object_get(cm, "errno");
            if (!(json_is_null(x) || (json_is_integer(x) && json_integer_value(x) > 0))) {
                bad(c, p2, "errno", "an integer > 0 or null", x);
                goto out;
            }
            x = json_object_get(cm, "ptrace_scope");
            if (!(json_is_null(x) || (json_is_integer(x) && json_integer_value(x) >= 0))) {
                bad(c, p2, "ptrace_scope", "an integer >= 0 or null", x);
                goto out;
            }
        }
        json_array_foreach(rs, j, x) {
            long long r = json_is_integer(x) ? json_integer_value(x) : -1;
            if (r < 0 || r >= np || node_of[r] >= 0) {
                char found[96];
                fail(c, "%s.ranks[%zu]: expected a rank in [0, %lld] not listed before, "
                        "found %s", path, j, np - 1, describe(x, found, sizeof found));
                goto out;
            }
            node_of[r] = (int)i;
        }
        snprintf(p2, sizeof p2, "%s.topology", path);
        if (boolean(c, topo, p2, "available", &b))
            goto out;
        if (!b) {
            if (string(c, topo, p2, "reason", 0, NULL))
                goto out;
        } else {
            json_t *g, *n, *sh;
            if (string(c, topo, p2, "hwloc_version", 0, NULL) ||
                integer(c, topo, p2, "packages", 0, 1 << 20, &ll) ||
                integer(c, topo, p2, "cores", 0, 1 << 24, &ll) ||
                integer(c, topo, p2, "pus", 1, 1 << 24, &ll) ||
                integer(c, topo, p2, "numa_nodes", 0, 1 << 20, &ll) ||
                !(g = array(c, topo, p2, "gpus", 0)) || !(n = array(c, topo, p2, "nics", 0)) ||
                !(sh = array(c, topo, p2, "shared_pcie_bridges", 0)))
                goto out;
            json_array_foreach(g, j, x) {
                if (element_object(c, g, j, p2, "gpus", p3, sizeof p3, &x) ||
                    check_device(c, x, p3, 0))
                    goto out;
            }
            json_array_foreach(n, j, x) {
                if (element_object(c, n, j, p2, "nics", p3, sizeof p3, &x) ||
                    check_device(c, x, p3, 1))
                    goto out;
            }
            json_array_foreach(sh, j, x) {
                if (element_object(c, sh, j, p2, "shared_pcie_bridges", p3, sizeof p3, &x) ||
                    string(c, x, p3, "pcie_bridge", 0, NULL) || !array(c, x, p3, "devices", 2))
                    goto out;
            }
        }
    }
    for (long long r = 0; r < np; r++)
        if (node_of[r] < 0) {
            fail(c, "nodes: expected every rank 0..%lld on one node, found rank %lld on none",
                 np - 1, r);
            goto out;
        }

    /* ranks */
    if (!(ranks = array(c, doc, "", "ranks", (size_t)np)))
        goto out;
    if ((long long)json_array_size(ranks) != np) {
        fail(c, "ranks: expected %lld entries (mpi.world_size), found %zu", np,
             json_array_size(ranks));
        goto out;
    }
    json_array_foreach(ranks, i, e) {
        long long r, node;
        if (element_object(c, ranks, i, "", "ranks", path, sizeof path, &e) ||
            integer(c, e, path, "rank", (long long)i, (long long)i, &r) ||
            string(c, e, path, "hostname", 0, NULL) ||
            integer(c, e, path, "node", node_of[i], node_of[i], &node) ||
            string(c, e, path, "cpu_binding", 0, NULL))
            goto out;
    }

    /* ceiling */
    {
        double memc, factor;
        if (!(ceiling = object(c, doc, "", "ceiling", 0)) ||
            num(c, ceiling, "ceiling", "memcpy_bytes_per_s", 0, 1, 0, &memc) ||
            num(c, ceiling, "ceiling", "nic_bytes_per_s", 0, 1, 1, &nic) ||
            num(c, ceiling, "ceiling", "factor", 1, 0, 0, &factor) ||
            string(c, ceiling, "ceiling", "source", 0, NULL))
            goto out;
        if (!close_to(memc, ceil_memcpy, 1e-9)) {
            fail(c, "ceiling.memcpy_bytes_per_s: expected the slowest node's "
                    "memcpy_bytes_per_s %.10g, found %.10g", ceil_memcpy, memc);
            goto out;
        }
        if (factor != SLO_COMM_PROFILE_CEILING_FACTOR) {
            fail(c, "ceiling.factor: expected %g, found %g", SLO_COMM_PROFILE_CEILING_FACTOR,
                 factor);
            goto out;
        }
    }

    /* point_to_point */
    if (!(pp = object(c, doc, "", "point_to_point", 0)) ||
        !(sizes = array(c, pp, "point_to_point", "sizes_bytes", 1)) ||
        integer(c, pp, "point_to_point", "window", 1, 1 << 20, &ll) ||
        string(c, pp, "point_to_point", "method", 0, NULL) ||
        string(c, pp, "point_to_point", "direction", 0, NULL) ||
        !(pairs = array(c, pp, "point_to_point", "pairs", 0)))
        goto out;
    n_sizes = json_array_size(sizes);
    for (i = 0; i < n_sizes; i++) {
        json_t *x = json_array_get(sizes, i);
        if (!json_is_integer(x) || json_integer_value(x) < 1 ||
            (i && json_integer_value(x) <= json_integer_value(json_array_get(sizes, i - 1)))) {
            char found[96];
            fail(c, "point_to_point.sizes_bytes[%zu]: expected an integer >= 1, larger than the "
                    "one before, found %s", i, describe(x, found, sizeof found));
            goto out;
        }
    }
    n_pairs = (size_t)(np * (np - 1) / 2);
    if (json_array_size(pairs) != n_pairs) {
        fail(c, "point_to_point.pairs: expected %zu pairs (every pair of %lld ranks), found %zu",
             n_pairs, np, json_array_size(pairs));
        goto out;
    }
    {
        long long a = 0, bb = 0;
        double mn_bw = INFINITY, mx_bw = 0, mn_lat = INFINITY, mx_lat = 0, v;
        long long n_suspect = 0, got_suspect, n_suspect_pairs = 0;
        json_t *sum;
        for (i = 0; i < n_pairs; i++) {
            json_t *pr, *bw, *lat, *x;
            long long ra, rb;
            int same;
            double ceil_pair, large, small;
            /* pairs in order (0,1), (0,2), ..., (1,2), ... */
            if (++bb >= np)
                a++, bb = a + 1;
            if (i == 0)
                a = 0, bb = 1;
            if (element_object(c, pairs, i, "point_to_point", "pairs", path, sizeof path, &pr) ||
                integer(c, pr, path, "rank_a", a, a, &ra) ||
                integer(c, pr, path, "rank_b", bb, bb, &rb) ||
                boolean(c, pr, path, "same_node", &same) ||
                !(bw = array(c, pr, path, "bandwidth", n_sizes)) ||
                !(lat = array(c, pr, path, "latency", n_sizes)) ||
                num(c, pr, path, "large_message_bandwidth_bytes_per_s", 0, 1, 0, &large) ||
                num(c, pr, path, "small_message_latency_s", 0, 1, 0, &small))
                goto out;
            if (same != (node_of[a] == node_of[bb])) {
                fail(c, "%s.same_node: expected %s (nodes[].ranks), found %s", path,
                     same ? "false" : "true", same ? "true" : "false");
                goto out;
            }
            if (json_object_get(pr, "suspect")) { /* the pair's transport (optional) */
                int ps;
                const char *why;
                if (boolean(c, pr, path, "suspect", &ps) ||
                    (ps && string(c, pr, path, "suspect_reason", 0, &why)))
                    goto out;
                if (ps && !*why) {
                    fail(c, "%s.suspect_reason: expected a reason, found \"\"", path);
                    goto out;
                }
                n_suspect_pairs += ps;
                if (!ps && same && cma_blocked(doc, json_array_get(nodes, (size_t)node_of[a]))) {
                    fail(c, "%s.suspect: expected true (nodes[%d].cross_memory_attach.usable "
                            "is false while mpi.transport may use it: single copy cma or "
                            "unknown, pml ob1, btl vader), found false", path, node_of[a]);
                    goto out;
                }
            } else if (same && cma_blocked(doc, json_array_get(nodes, (size_t)node_of[a]))) {
                fail(c, "%s.suspect: expected true (nodes[%d].cross_memory_attach.usable is "
                        "false while mpi.transport may use it: single copy cma or unknown, "
                        "pml ob1, btl vader), found it missing", path, node_of[a]);
                goto out;
            }
            if (json_array_size(bw) != n_sizes || json_array_size(lat) != n_sizes) {
                fail(c, "%s: expected %zu bandwidth and latency entries (one per "
                        "point_to_point.sizes_bytes), found %zu and %zu", path, n_sizes,
                     json_array_size(bw), json_array_size(lat));
                goto out;
            }
            ceil_pair = fmin(node_memcpy(nodes, node_of[a]), node_memcpy(nodes, node_of[bb]));
            if (!same && isfinite(nic) && nic < ceil_pair)
                ceil_pair = nic;
            for (j = 0; j < n_sizes; j++) {
                long long sz = json_integer_value(json_array_get(sizes, j)), it;
                int s;
                if (element_object(c, bw, j, path, "bandwidth", p2, sizeof p2, &x) ||
                    integer(c, x, p2, "size_bytes", sz, sz, &ll) ||
                    num(c, x, p2, "bandwidth_bytes_per_s", 0, 1, 0, &v) ||
                    integer(c, x, p2, "iterations", 1, 1LL << 40, &it) ||
                    integer(c, x, p2, "window", 1, 1 << 20, &it) ||
                    check_flag(c, x, p2, v, ceil_pair, "bandwidth_bytes_per_s") ||
                    boolean(c, x, p2, "suspect", &s))
                    goto out;
                n_suspect += s;
                if (j == n_sizes - 1 && !close_to(v, large, 1e-12)) {
                    fail(c, "%s.large_message_bandwidth_bytes_per_s: expected the bandwidth "
                            "at the largest size %.10g, found %.10g", path, v, large);
                    goto out;
                }
                if (element_object(c, lat, j, path, "latency", p2, sizeof p2, &x) ||
                    integer(c, x, p2, "size_bytes", sz, sz, &ll) ||
                    num(c, x, p2, "latency_s", 0, 1, 0, &v) ||
                    integer(c, x, p2, "iterations", 1, 1LL << 40, &it))
                    goto out;
                if (j == 0 && !close_to(v, small, 1e-12)) {
                    fail(c, "%s.small_message_latency_s: expected the latency at the smallest "
                            "size %.10g, found %.10g", path, v, small);
                    goto out;
                }
            }
            mn_bw = fmin(mn_bw, large), mx_bw = fmax(mx_bw, large);
            mn_lat = fmin(mn_lat, small), mx_lat = fmax(mx_lat, small);
        }
        if (!(sum = object(c, pp, "point_to_point", "summary", 0)))
            goto out;
        {
            const char *keys[4] = {"min_large_message_bandwidth_bytes_per_s",
                                   "max_large_message_bandwidth_bytes_per_s",
                                   "min_small_message_latency_s", "max_small_message_latency_s"};
            double want[4] = {mn_bw, mx_bw, mn_lat, mx_lat};
            for (int q = 0; q < 4; q++) {
                if (num(c, sum, "point_to_point.summary", keys[q], 0, 1, 1, &v))
                    goto out;
                if (n_pairs ? !close_to(v, want[q], 1e-12) : !isnan(v)) {
                    fail(c, "point_to_point.summary.%s: expected %.10g (over the pairs), "
                            "found %.10g", keys[q], n_pairs ? want[q] : NAN, v);
                    goto out;
                }
            }
            if (integer(c, sum, "point_to_point.summary", "suspect_figures", 0, 1LL << 40,
                        &got_suspect))
                goto out;
            if (got_suspect != n_suspect) {
                fail(c, "point_to_point.summary.suspect_figures: expected %lld (flags in the "
                        "pairs), found %lld", n_suspect, got_suspect);
                goto out;
            }
            if (json_object_get(sum, "suspect_pairs") || n_suspect_pairs) {
                if (integer(c, sum, "point_to_point.summary", "suspect_pairs", 0, 1LL << 40,
                            &got_suspect))
                    goto out;
                if (got_suspect != n_suspect_pairs) {
                    fail(c, "point_to_point.summary.suspect_pairs: expected %lld (pairs "
                            "flagged suspect), found %lld", n_suspect_pairs, got_suspect);
                    goto out;
                }
            }
        }
    }

    /* allreduce */
    if (!(ar = object(c, doc, "", "allreduce", 0)) ||
        string(c, ar, "allreduce", "method", 0, NULL) ||
        string(c, ar, "allreduce", "datatype", 0, NULL) ||
        boolean(c, ar, "allreduce", "verified", &b) ||
        !(pts = array(c, ar, "allreduce", "points", 2)) ||
        !(fit = object(c, ar, "allreduce", "fit", 1)) ||
        !(ring = object(c, ar, "allreduce", "ring_model", 1)))
        goto out;
    if ((np >= 2) != json_is_object(fit) || (np >= 2) != json_is_object(ring)) {
        fail(c, "allreduce.%s: expected %s for %lld rank%s, found %s",
             (np >= 2) != json_is_object(fit) ? "fit" : "ring_model",
             np >= 2 ? "an object" : "null", np, np > 1 ? "s" : "",
             np >= 2 ? "null" : "an object");
        goto out;
    }
    {
        double alpha = 0, beta = 0, rms = 0, maxrel = 0, v, mn, med, algbw, busbw, x2, ft;
        long long prev = 0, sz, reps;
        int verified_all = 1, vv, cons, fit_min = 0;
        const char *stat = NULL;
        if (np >= 2 &&
            (num(c, fit, "allreduce.fit", "alpha_s", 0, 0, 0, &alpha) ||
             num(c, fit, "allreduce.fit", "beta_s_per_byte", 0, 0, 0, &beta) ||
             num(c, fit, "allreduce.fit", "unconstrained_alpha_s", -INFINITY, 0, 0, &v) ||
             num(c, fit, "allreduce.fit", "unconstrained_beta_s_per_byte", -INFINITY, 0, 0, &v) ||
             boolean(c, fit, "allreduce.fit", "constrained", &cons) ||
             string(c, fit, "allreduce.fit", "model", 0, NULL) ||
             string(c, fit, "allreduce.fit", "method", 0, NULL) ||
             string(c, fit, "allreduce.fit", "statistic", 0, &stat) ||
             num(c, fit, "allreduce.fit", "rms_residual_s", 0, 0, 0, &rms) ||
             num(c, fit, "allreduce.fit", "max_relative_residual", 0, 0, 0, &maxrel) ||
             integer(c, fit, "allreduce.fit", "points", (long long)json_array_size(pts),
                     (long long)json_array_size(pts), &ll)))
            goto out;
        /* the fit is to the minimum (slo-mpiprof since the trial: robust to
         * a loaded machine) or, in older profiles, the median time */
        if (np >= 2) {
            if (!strcmp(stat, "min_time_s")) {
                fit_min = 1;
            } else if (strcmp(stat, "median_time_s") != 0) {
                fail(c, "allreduce.fit.statistic: expected \"min_time_s\" or "
                        "\"median_time_s\", found \"%s\"", stat);
                goto out;
            }
        }
        double sse = 0, mrel = 0, tmax = 0;
        for (i = 0; i < json_array_size(pts); i++) {
            json_t *x;
            if (element_object(c, pts, i, "allreduce", "points", path, sizeof path, &x) ||
                integer(c, x, path, "size_bytes", prev + 1, 1LL << 40, &sz) ||
                integer(c, x, path, "repetitions", 1, 1LL << 40, &reps) ||
                num(c, x, path, "min_time_s", 0, 1, 0, &mn) ||
                num(c, x, path, "median_time_s", mn, 0, 0, &med) ||
                num(c, x, path, "algorithm_bandwidth_bytes_per_s", 0, 1, 0, &algbw) ||
                num(c, x, path, "bus_bandwidth_bytes_per_s", 0, 1, np < 2, &busbw) ||
                boolean(c, x, path, "verified", &vv))
                goto out;
            prev = sz;
            verified_all &= vv;
            tmax = fmax(tmax, med);
            if (!close_to(algbw, (double)sz / med, 1e-8)) {
                fail(c, "%s.algorithm_bandwidth_bytes_per_s: expected size_bytes / "
                        "median_time_s = %.10g, found %.10g", path, (double)sz / med, algbw);
                goto out;
            }
            if (np >= 2) {
                double f, rr;
                if (!close_to(busbw, algbw * 2.0 * (double)(np - 1) / (double)np, 1e-8)) {
                    fail(c, "%s.bus_bandwidth_bytes_per_s: expected algorithm bandwidth x "
                            "2(p-1)/p = %.10g, found %.10g", path,
                         algbw * 2.0 * (double)(np - 1) / (double)np, busbw);
                    goto out;
                }
                if (check_flag(c, x, path, busbw, ceil_memcpy, "bus_bandwidth_bytes_per_s") ||
                    num(c, x, path, "fit_time_s", -INFINITY, 0, 0, &f) ||
                    num(c, x, path, "relative_residual", -INFINITY, 0, 0, &rr))
                    goto out;
                x2 = alpha + beta * (double)sz;
                ft = fit_min ? mn : med;
                if (!close_to(f, x2, 1e-8) || fabs(rr - (x2 - ft) / ft) > 1e-6) {
                    fail(c, "%s.fit_time_s: expected alpha_s + beta_s_per_byte * size_bytes = "
                            "%.10g (relative residual %.6g), found %.10g (%.6g)", path, x2,
                         (x2 - ft) / ft, f, rr);
                    goto out;
                }
                sse += (x2 - ft) * (x2 - ft);
                mrel = fmax(mrel, fabs(x2 - ft) / ft);
            }
        }
        if (verified_all != b) {
            fail(c, "allreduce.verified: expected %s (all points verified?), found %s",
                 verified_all ? "true" : "false", b ? "true" : "false");
            goto out;
        }
        if (np >= 2) {
            double ra, rb, want_a, want_b;
            /* residuals recomputed from the points */
            sse = sqrt(sse / (double)json_array_size(pts));
            if (!close_to(rms, sse, 1e-6) && fabs(rms - sse) > 1e-9 * tmax) {
                fail(c, "allreduce.fit.rms_residual_s: expected %.10g (from the points), found "
                        "%.10g", sse, rms);
                goto out;
            }
            if (fabs(maxrel - mrel) > 1e-6) {
                fail(c, "allreduce.fit.max_relative_residual: expected %.10g (from the points), "
                        "found %.10g", mrel, maxrel);
                goto out;
            }
            if (integer(c, ring, "allreduce.ring_model", "workers", np, np, &ll) ||
                string(c, ring, "allreduce.ring_model", "model", 0, NULL) ||
                num(c, ring, "allreduce.ring_model", "alpha_s", 0, 0, 0, &ra) ||
                num(c, ring, "allreduce.ring_model", "link_bandwidth_bytes_per_s", 0, 1, 1, &rb))
                goto out;
            want_a = slo_comm_ring_latency_from_fit(alpha, (int)np);
            if (!close_to(ra, want_a, 1e-8)) {
                fail(c, "allreduce.ring_model.alpha_s: expected allreduce.fit.alpha_s / (2(p-1)) "
                        "= %.10g, found %.10g", want_a, ra);
                goto out;
            }
            want_b = beta > 0 ? slo_comm_ring_bandwidth_from_fit(beta, (int)np) : NAN;
            if (isnan(want_b) != isnan(rb) || (!isnan(rb) && !close_to(rb, want_b, 1e-8))) {
                fail(c, "allreduce.ring_model.link_bandwidth_bytes_per_s: expected 2(p-1) / (p "
                        "beta_s_per_byte) = %.10g, found %.10g", want_b, rb);
                goto out;
            }
            if (check_flag(c, ring, "allreduce.ring_model", rb, ceil_memcpy,
                           "link_bandwidth_bytes_per_s"))
                goto out;
        }
    }
    *world_size = np;
out:
    free(node_of);
    return c->rc;
}


int slo_comm_profile_check(const char *text, const char *source, int *world_size,
                           slo_error_t *err)
{
    struct ctx c = {source ? source : "profile", err, SLO_OK};
    json_t *root = NULL;
    long long np = 0;
    int rc;
    if (!text)
        return slo__fail(err, SLO_ERR_INVALID, c.source, "expected a profile text, found NULL");
    if ((rc = open_profile(&c, text, 1, &root)))
        return rc;
    rc = check_document(&c, root, &np);
    json_decref(root);
    if (!rc && world_size)
        *world_size = (int)np;
    return rc;
}

int slo_comm_profile_check_load(const char *path, int *world_size, slo_error_t *err)
{
    char *text;
    int rc = slo__read_file(path, &text, err);
    if (rc)
        return rc;
    rc = slo_comm_profile_check(text, path, world_size, err);
    free(text);
    return rc;
}

/* ------------------------------------------------------------------ */
/* spotDNN's B_ps                                                      */
/* ------------------------------------------------------------------ */

int slo_profile_ps_bandwidth(const char *text, const char *source, double *b_ps_mbps,
                             slo_error_t *err)
{
    struct ctx c = {source ? source : "profile", err, SLO_OK};
    json_t *root = NULL, *p2p, *pairs, *v;
    char found[96];
    double best = INFINITY;
    int rc, n_cross = 0;
    size_t i;

    if ((rc = open_profile(&c, text, 0, &root)))
        return rc;
    if (transport_verdict(&c, root) || !(p2p = object(&c, root, "", "point_to_point", 0)))
        goto out;
    pairs = json_object_get(p2p, "pairs");
    if (!pairs || !json_is_array(pairs)) {
        fail(&c, "point_to_point.pairs: expected an array, found %s",
             describe(pairs, found, sizeof found));
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
            fail(&c, "%s: expected an object with integers rank_a, rank_b and a boolean "
                     "same_node, found %s", path, describe(v, found, sizeof found));
            goto out;
        }
        if (json_is_true(same) || (json_integer_value(a) != 0 && json_integer_value(b) != 0))
            continue;
        if (number(&c, v, path, "large_message_bandwidth_bytes_per_s", DBL_MIN, DBL_MAX,
                   "a number > 0", &x))
            goto out;
        /* the largest size's entry carries the profiler's verdict */
        last = json_is_array(bw) ? json_array_get(bw, json_array_size(bw) - 1) : NULL;
        if (last && json_is_true(json_object_get(last, "suspect"))) {
            fail(&c, "%s: expected a bandwidth the profiler stands by, found it flagged "
                     "suspect (above its memcpy ceiling)", path);
            goto out;
        }
        n_cross++;
        if (x < best)
            best = x;
    }
    if (n_cross == 0) {
        fail(&c, "point_to_point.pairs: expected a pair of rank 0 (the PS) with a rank on "
                 "another node, found every pair sharing a node: its bandwidth is a memory "
                 "copy, not a NIC (run slo-mpiprof with ranks on two nodes)");
        goto out;
    }
    *b_ps_mbps = best / 1e6;
out:
    json_decref(root);
    return c.rc;
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
