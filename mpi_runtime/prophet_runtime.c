/*
 * prophet_runtime.c - the MPI half of the Prophet allreduce runtime
 * (slo_prophet.h): one MPI_Iallreduce per plan block on a duplicated
 * communicator, issued in plan order, progress by polling.
 * Source: shared/research/prophet.md section 6 (MPI mapping).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h" /* SLO_TEST_HOOKS (configure --enable-test-hooks) */

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prophet_private.h"
#include "slo_prophet.h"

#define NO_STAGING ((size_t)-1)

struct slo_prophet {
    MPI_Comm comm; /* our duplicate */
    int rank, size, thread_level, flags;
    MPI_Datatype datatype;
    size_t elem;
    /* registered gradients */
    size_t n_grads, cap_grads;
    unsigned char **buf; /* [n_grads] */
    size_t *bytes;       /* [n_grads] */
    /* installed plan */
    int have_plan, begun, max_in_flight, in_flight;
    struct slo__prophet_schedule plan;
    struct slo__prophet_sched sched;
    MPI_Request *req;       /* [n_blocks] */
    unsigned char *done;    /* [n_blocks] complete in this pass */
    size_t *stage_off;      /* [n_blocks] offset in staging, or NO_STAGING */
    unsigned char **direct; /* [n_blocks] in-place buffer of a contiguous block */
    unsigned char *staging;
    size_t staging_bytes;
    int *indices;           /* [n_blocks] for MPI_Testsome */
    MPI_Status *statuses;   /* [n_blocks] for MPI_Testsome: which block failed */
    size_t lo;              /* lowest block not complete */
    /* issued sequence */
    struct slo_prophet_issue *log;
    size_t n_log, cap_log;
    uint64_t hash;
    /* test-only (SLO_PROPHET_TEST_FAULT=swap:RANK): this block and the next
     * are handed to MPI in swapped order, the log keeps the plan order */
    size_t test_swap;
};


static int mpi_fail(slo_error_t *err, int mpi_rc, const char *call)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0, flag = 0, *last = NULL;
    /* MPI_Error_string of a code that is not one (Open MPI 4.1 leaves its
     * internal -1 in the status of a failed nonblocking collective) raises
     * MPI_ERR_ARG on MPI_COMM_WORLD, fatal by default: ask only for codes
     * between MPI_SUCCESS and MPI_LASTUSEDCODE */
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
    if (mpi_rc <= MPI_SUCCESS || (flag && last && mpi_rc > *last) ||
        MPI_Error_string(mpi_rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "MPI error code %d (not an MPI error class: an internal "
                 "error of the MPI library)", mpi_rc);
    return slo_error_set(err, SLO_ERR_IO, call, "%s", msg);
}

static uint64_t fnv(uint64_t h, uint64_t word)
{
    for (int i = 0; i < 8; i++) {
        h ^= (word >> (8 * i)) & 0xff;
        h *= 1099511628211ULL;
    }
    return h;
}

/* Test-only fault injection (tests/runtime_mpi.sh, doc/runtime.md "Error
 * behaviour"), compiled only with configure --enable-test-hooks (never in
 * an installed runtime: a stray environment variable must not change what
 * a job sends): 1 if SLO_PROPHET_TEST_FAULT is "KIND:R" and R is this rank
 * of the runtime's communicator. Kinds: nomem (set_plan's allocations fail
 * on that rank), drain (set_plan's wait for the previous plan's collectives
 * fails there, as an MPI error would), swap (after the agreement that rank
 * hands two blocks of different sizes to MPI in swapped order while its
 * own log keeps the plan order: a defect only a PMPI observer sees).
 * Without the hooks: always 0, the variable is not read. */
#ifdef SLO_TEST_HOOKS
static int test_fault(const struct slo_prophet *rt, const char *kind)
{
    const char *v = getenv("SLO_PROPHET_TEST_FAULT");
    size_t n = strlen(kind);
    char *end;
    long r;
    if (!v || strncmp(v, kind, n) != 0 || v[n] != ':' || !v[n + 1])
        return 0;
    r = strtol(v + n + 1, &end, 10);
    return !*end && r == rt->rank;
}
#else
static int test_fault(const struct slo_prophet *rt, const char *kind)
{
    (void)rt;
    (void)kind;
    return 0;
}
#endif

/* MINLOC/MAXLOC pair types: predefined, but MPI_SUM is not defined on them */
static int pair_type(MPI_Datatype t)
{
    return t == MPI_FLOAT_INT || t == MPI_DOUBLE_INT || t == MPI_LONG_INT || t == MPI_2INT ||
           t == MPI_SHORT_INT || t == MPI_LONG_DOUBLE_INT;
}

int slo_prophet_create(MPI_Comm comm, MPI_Datatype datatype, int flags,
                       struct slo_prophet **out, slo_error_t *err)
{
    MPI_Aint lb = 0, extent = 0;
    int n_ints = 0, n_addrs = 0, n_types = 0, combiner = 0;
    struct slo_prophet *rt;
    int init = 0, tsize = 0, rc;
    *out = NULL;
    if (MPI_Initialized(&init) != MPI_SUCCESS || !init)
        return slo_error_set(err, SLO_ERR_INVALID, "create", "expected MPI to be initialized "
                    "(MPI_Init or MPI_Init_thread), found it not");
    if (flags & ~SLO_PROPHET_AVERAGE)
        return slo_error_set(err, SLO_ERR_INVALID, "create", "flags: expected 0 or "
                    "SLO_PROPHET_AVERAGE, found %d", flags);
    if ((rc = MPI_Type_size(datatype, &tsize)) != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Type_size");
    if (tsize <= 0)
        return slo_error_set(err, SLO_ERR_INVALID, "create",
                     "datatype: expected a type of size > 0, "
                    "found size %d", tsize);
    /* counts are bytes / MPI_Type_size, but MPI steps through the buffer by
     * the extent: only a predefined type whose extent is its size (lower
     * bound 0) keeps MPI_Iallreduce inside the gradients; MPI_SUM is defined
     * on predefined types only, and not on the MINLOC/MAXLOC pairs */
    if ((rc = MPI_Type_get_envelope(datatype, &n_ints, &n_addrs, &n_types, &combiner)) !=
        MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Type_get_envelope");
    if (combiner != MPI_COMBINER_NAMED)
        return slo_error_set(err, SLO_ERR_INVALID, "create", "datatype: expected a predefined type "
                    "(MPI_FLOAT, MPI_DOUBLE, ...; MPI_Type_get_envelope combiner "
                    "MPI_COMBINER_NAMED), found a derived type (combiner %d)", combiner);
    if (pair_type(datatype))
        return slo_error_set(err, SLO_ERR_INVALID, "create", "datatype: expected a type MPI_SUM "
                    "accepts, found a MINLOC/MAXLOC pair type (MPI_2INT, MPI_FLOAT_INT, ...)");
    if ((rc = MPI_Type_get_extent(datatype, &lb, &extent)) != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Type_get_extent");
    if (lb != 0 || extent != (MPI_Aint)tsize)
        return slo_error_set(err, SLO_ERR_INVALID, "create", "datatype: expected extent = size and "
                    "lower bound 0 (contiguous elements), found size %d, extent %ld, lower "
                    "bound %ld", tsize, (long)extent, (long)lb);
    if ((flags & SLO_PROPHET_AVERAGE) && datatype != MPI_FLOAT && datatype != MPI_DOUBLE)
        return slo_error_set(err, SLO_ERR_INVALID, "create",
                     "SLO_PROPHET_AVERAGE: expected MPI_FLOAT "
                    "or MPI_DOUBLE, found another datatype");
    if (!(rt = calloc(1, sizeof *rt)))
        return slo_error_set(err, SLO_ERR_NOMEM, "create", "out of memory");
    rt->datatype = datatype;
    rt->elem = (size_t)tsize;
    rt->flags = flags;
    rt->hash = 14695981039346656037ULL;
    rt->test_swap = NO_STAGING;
    if ((rc = MPI_Comm_dup(comm, &rt->comm)) != MPI_SUCCESS) {
        free(rt);
        return mpi_fail(err, rc, "MPI_Comm_dup");
    }
    MPI_Comm_set_errhandler(rt->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(rt->comm, &rt->rank);
    MPI_Comm_size(rt->comm, &rt->size);
    MPI_Query_thread(&rt->thread_level);
    *out = rt;
    return SLO_OK;
}

int slo_prophet_register(struct slo_prophet *rt, void *buf, size_t bytes, slo_error_t *err)
{
    if (rt->have_plan || rt->plan.n_grads)
        return slo_error_set(err, SLO_ERR_INVALID, "register", "gradient %zu: expected registration "
                    "before the first set_plan, found a plan installed", rt->n_grads);
    if (bytes % rt->elem)
        return slo_error_set(err, SLO_ERR_INVALID, "register",
                     "gradient %zu: expected a multiple of "
                    "the %zu-byte element, found %zu bytes", rt->n_grads, rt->elem, bytes);
    if (bytes && !buf)
        return slo_error_set(err, SLO_ERR_INVALID, "register", "gradient %zu: expected a buffer for "
                    "%zu bytes, found NULL", rt->n_grads, bytes);
    if (rt->n_grads == rt->cap_grads) {
        size_t nc = rt->cap_grads ? 2 * rt->cap_grads : 64;
        void *b = realloc(rt->buf, nc * sizeof *rt->buf), *s;
        if (!b)
            return slo_error_set(err, SLO_ERR_NOMEM, "register", "out of memory");
        rt->buf = b;
        if (!(s = realloc(rt->bytes, nc * sizeof *rt->bytes)))
            return slo_error_set(err, SLO_ERR_NOMEM, "register", "out of memory");
        rt->bytes = s;
        rt->cap_grads = nc;
    }
    rt->buf[rt->n_grads] = buf;
    rt->bytes[rt->n_grads++] = bytes;
    return SLO_OK;
}

/* ------------------------------------------------------------------ */
/* Blocks: issue, complete, progress                                   */
/* ------------------------------------------------------------------ */

static unsigned char *piece_ptr(const struct slo_prophet *rt, const struct slo__prophet_piece *p)
{
    return rt->buf[p->grad] + p->offset_bytes;
}

static int issue(struct slo_prophet *rt, size_t b, slo_error_t *err)
{
    const struct slo__prophet_schedule *pl = &rt->plan;
    unsigned char *data;
    size_t m = b; /* the block handed to MPI: b, except under the test swap */
    int rc;
    if (rt->test_swap != NO_STAGING && (b == rt->test_swap || b == rt->test_swap + 1))
        m = b == rt->test_swap ? b + 1 : rt->test_swap;
    if (rt->stage_off[m] == NO_STAGING) {
        data = rt->direct[m];
    } else {
        data = rt->staging + rt->stage_off[m];
        for (size_t k = pl->block_start[m], at = 0; k < pl->block_start[m + 1]; k++) {
            memcpy(data + at, piece_ptr(rt, &pl->pieces[k]), pl->pieces[k].bytes);
            at += pl->pieces[k].bytes;
        }
    }
    rc = MPI_Iallreduce(MPI_IN_PLACE, data, (int)(pl->block_bytes[m] / rt->elem), rt->datatype,
                        MPI_SUM, rt->comm, &rt->req[b]);
    if (rc != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Iallreduce");
    rt->in_flight++;
    if (rt->n_log == rt->cap_log) {
        size_t nc = rt->cap_log ? 2 * rt->cap_log : 1024;
        void *q = realloc(rt->log, nc * sizeof *rt->log);
        if (!q)
            return slo_error_set(err, SLO_ERR_NOMEM, "progress", "out of memory");
        rt->log = q;
        rt->cap_log = nc;
    }
    rt->log[rt->n_log++] = (struct slo_prophet_issue){b, pl->block_bytes[b]};
    rt->hash = fnv(fnv(rt->hash, b), pl->block_bytes[b]);
    return SLO_OK;
}

static void complete(struct slo_prophet *rt, size_t b)
{
    const struct slo__prophet_schedule *pl = &rt->plan;
    unsigned char *data =
        rt->stage_off[b] == NO_STAGING ? rt->direct[b] : rt->staging + rt->stage_off[b];
    size_t count = pl->block_bytes[b] / rt->elem;
    if (rt->flags & SLO_PROPHET_AVERAGE) {
        /* divide, not multiply by 1/p: the correctly rounded quotient */
        if (rt->datatype == MPI_FLOAT) {
            float *x = (float *)(void *)data;
            for (size_t i = 0; i < count; i++)
                x[i] /= (float)rt->size;
        } else {
            double *x = (double *)(void *)data;
            for (size_t i = 0; i < count; i++)
                x[i] /= (double)rt->size;
        }
    }
    if (rt->stage_off[b] != NO_STAGING)
        for (size_t k = pl->block_start[b], at = 0; k < pl->block_start[b + 1]; k++) {
            memcpy(piece_ptr(rt, &pl->pieces[k]), data + at, pl->pieces[k].bytes);
            at += pl->pieces[k].bytes;
        }
    rt->done[b] = 1;
    rt->in_flight--;
}

/* MPI_Testsome over the in-flight window with MPI_ERRORS_RETURN in force.
 * rt->comm has that handler (create), but Open MPI 4.1 raises the error of
 * a failed nonblocking collective at its completion on MPI_COMM_WORLD
 * (libnbc requests carry no communicator: "An error occurred in
 * MPI_Testsome ... on communicator MPI_COMM_WORLD ... MPI_ERRORS_ARE_FATAL",
 * exit 15 for MPI_ERR_TRUNCATE, issue 15), so for the call MPI_COMM_WORLD's
 * handler is MPI_ERRORS_RETURN too and restored right after. No other MPI
 * call can run meanwhile below MPI_THREAD_MULTIPLE; under MULTIPLE another
 * thread could, so there the world handler is left alone (an error then
 * follows that handler, as Open MPI does; doc/runtime.md). Returns the MPI
 * code: MPI_ERR_IN_STATUS with rt->statuses[i].MPI_ERROR set for the failed
 * block(s) among the *outcount completed. */
static int testsome_returning(struct slo_prophet *rt, int n, int *outcount)
{
    MPI_Errhandler old = MPI_ERRHANDLER_NULL;
    int swap = rt->thread_level != MPI_THREAD_MULTIPLE, rc;
    if (swap && MPI_Comm_get_errhandler(MPI_COMM_WORLD, &old) == MPI_SUCCESS)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    else
        swap = 0;
    for (int i = 0; i < n; i++)
        rt->statuses[i].MPI_ERROR = MPI_SUCCESS;
    rc = MPI_Testsome(n, rt->req + rt->lo, outcount, rt->indices, rt->statuses);
    if (swap) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, old);
        MPI_Errhandler_free(&old);
    }
    return rc;
}

static int poll(struct slo_prophet *rt, slo_error_t *err)
{
    int rc;
    if (rt->in_flight > 0) {
        int outcount = 0;
        size_t n = rt->sched.next - rt->lo;
        rc = testsome_returning(rt, (int)n, &outcount);
        if (rc == MPI_ERR_IN_STATUS)
            for (int i = 0; outcount != MPI_UNDEFINED && i < outcount; i++)
                if (rt->statuses[i].MPI_ERROR != MPI_SUCCESS) {
                    char call[64];
                    snprintf(call, sizeof call, "MPI_Testsome (block %zu)",
                             rt->lo + (size_t)rt->indices[i]);
                    return mpi_fail(err, rt->statuses[i].MPI_ERROR, call);
                }
        if (rc != MPI_SUCCESS)
            return mpi_fail(err, rc, "MPI_Testsome");
        for (int i = 0; outcount != MPI_UNDEFINED && i < outcount; i++)
            complete(rt, rt->lo + (size_t)rt->indices[i]);
        while (rt->lo < rt->sched.next && rt->done[rt->lo])
            rt->lo++;
    }
    while (slo__prophet_sched_ready(&rt->sched) &&
           (rt->max_in_flight == 0 || rt->in_flight < rt->max_in_flight))
        if ((rc = issue(rt, slo__prophet_sched_issue(&rt->sched), err)))
            return rc;
    return SLO_OK;
}

int slo_prophet_progress(struct slo_prophet *rt, slo_error_t *err)
{
    if (!rt->have_plan || !rt->begun)
        return SLO_OK;
    return poll(rt, err);
}

static int wait_block(struct slo_prophet *rt, size_t b, const char *what, size_t k,
                      slo_error_t *err)
{
    int rc;
    while (!rt->done[b]) {
        if ((rc = poll(rt, err)))
            return rc;
        if (b >= rt->sched.next && !slo__prophet_sched_ready(&rt->sched)) {
            size_t g = slo__prophet_sched_waiting_for(&rt->sched);
            char src[64];
            snprintf(src, sizeof src, "%s %zu", what, k);
            return slo_error_set(err, SLO_ERR_INVALID, src, "block %zu (of %zu; next to issue: %zu) "
                        "waits for gradient %zu, which was not marked ready in this "
                        "backward pass", b, rt->plan.n_blocks, rt->sched.next, g);
        }
    }
    return SLO_OK;
}

/* Wait for every issued block (not for blocks never issued). */
static int drain(struct slo_prophet *rt, slo_error_t *err)
{
    int rc;
    while (rt->lo < rt->sched.next)
        if ((rc = poll(rt, err)))
            return rc;
    return SLO_OK;
}

int slo_prophet_wait_layer(struct slo_prophet *rt, size_t k, slo_error_t *err)
{
    const size_t *blocks;
    size_t n;
    int rc;
    if (!rt->have_plan)
        return slo_error_set(err, SLO_ERR_INVALID, "wait_layer", "expected a plan (set_plan), found "
                    "none");
    if (k >= rt->n_grads)
        return slo_error_set(err, SLO_ERR_INVALID, "wait_layer", "gradient %zu: expected an index "
                    "below %zu", k, rt->n_grads);
    if (!rt->begun)
        return SLO_OK;
    slo__prophet_sched_blocks_of(&rt->sched, k, &blocks, &n);
    for (size_t i = 0; i < n; i++)
        if ((rc = wait_block(rt, blocks[i], "wait_layer", k, err)))
            return rc;
    return SLO_OK;
}

int slo_prophet_wait_all(struct slo_prophet *rt, slo_error_t *err)
{
    int rc;
    if (!rt->have_plan)
        return slo_error_set(err, SLO_ERR_INVALID, "wait_all", "expected a plan (set_plan), found "
                    "none");
    if (!rt->begun)
        return SLO_OK;
    for (size_t b = 0; b < rt->plan.n_blocks; b++)
        if ((rc = wait_block(rt, b, "wait_all block", b, err)))
            return rc;
    return SLO_OK;
}

int slo_prophet_begin(struct slo_prophet *rt, slo_error_t *err)
{
    int rc;
    if (!rt->have_plan)
        return slo_error_set(err, SLO_ERR_INVALID, "begin",
                     "expected a plan (set_plan), found none");
    if ((rc = drain(rt, err)))
        return rc;
    slo__prophet_sched_reset(&rt->sched);
    for (size_t b = 0; b < rt->plan.n_blocks; b++) {
        rt->done[b] = 0;
        rt->req[b] = MPI_REQUEST_NULL;
    }
    rt->lo = 0;
    rt->begun = 1;
    return SLO_OK;
}

int slo_prophet_mark_ready(struct slo_prophet *rt, size_t g, slo_error_t *err)
{
    int rc;
    if (!rt->have_plan || !rt->begun)
        return slo_error_set(err, SLO_ERR_INVALID, "mark_ready", "gradient %zu: expected a backward "
                    "pass started with slo_prophet_begin, found none", g);
    if ((rc = slo__prophet_sched_mark(&rt->sched, g, err)))
        return rc;
    return poll(rt, err);
}

/* ------------------------------------------------------------------ */
/* Plans                                                               */
/* ------------------------------------------------------------------ */

static void drop_plan(struct slo_prophet *rt)
{
    slo__prophet_sched_free(&rt->sched);
    slo__prophet_schedule_free(&rt->plan);
    free(rt->req);
    free(rt->done);
    free(rt->stage_off);
    free(rt->direct);
    free(rt->staging);
    free(rt->indices);
    free(rt->statuses);
    rt->req = NULL;
    rt->done = NULL;
    rt->stage_off = NULL;
    rt->direct = NULL;
    rt->staging = NULL;
    rt->indices = NULL;
    rt->statuses = NULL;
    rt->staging_bytes = 0;
    rt->have_plan = rt->begun = 0;
    rt->in_flight = 0;
    rt->lo = 0;
    rt->test_swap = NO_STAGING;
}

/* Local part of set_plan: 0 or a reason code (below), err filled. */
enum { BAD_NONE = 0, BAD_GRADS = 1, BAD_PLAN = 2, BAD_NOMEM = 3, BAD_COUNT = 4, BAD_ARG = 5,
       BAD_IO = 6 };


/* The local checks of set_plan (slo_prophet_check_plan), mapping the plan
 * into *out: 0 or a reason code, err filled. */
static int map_local(const struct slo_prophet *rt, const struct slo_comm_plan *plan,
                     const struct slo_comm_model *planned_for, struct slo__prophet_schedule *out,
                     slo_error_t *err)
{
    memset(out, 0, sizeof *out);
    if (!plan) {
        slo_error_set(err, SLO_ERR_INVALID, "set_plan", "expected a plan, found NULL");
        return BAD_PLAN;
    }
    if (slo__prophet_plan_fits(plan, planned_for, rt->bytes, rt->n_grads, rt->elem, err))
        return BAD_GRADS;
    if (slo__prophet_schedule_map(plan, planned_for, rt->bytes, rt->n_grads, rt->elem, out, err))
        return err && err->code == SLO_ERR_NOMEM ? BAD_NOMEM : BAD_PLAN;
    for (size_t b = 0; b < out->n_blocks; b++)
        if (out->block_bytes[b] / rt->elem > (size_t)INT32_MAX) {
            slo_error_set(err, SLO_ERR_INVALID, "set_plan",
                         "block %zu: expected at most %d elements "
                 "(an MPI int count), found %zu", b, INT32_MAX, out->block_bytes[b] / rt->elem);
            slo__prophet_schedule_free(out);
            return BAD_COUNT;
        }
    return BAD_NONE;
}

int slo_prophet_check_plan(const struct slo_prophet *rt, const struct slo_comm_plan *plan,
                           const struct slo_comm_model *planned_for, slo_error_t *err)
{
    struct slo__prophet_schedule s;
    slo_error_t local = {0};
    int bad = map_local(rt, plan, planned_for, &s, &local);
    slo__prophet_schedule_free(&s);
    if (bad == BAD_NONE)
        return SLO_OK;
    if (err) {
        *err = local;
        snprintf(err->source, sizeof err->source, "plan");
    }
    return local.code ? local.code : SLO_ERR_INVALID;
}

static int install_local(struct slo_prophet *rt, const struct slo_comm_plan *plan,
                         const struct slo_comm_model *planned_for, slo_error_t *err)
{
    const struct slo__prophet_schedule *p;
    int bad;
    if (test_fault(rt, "nomem"))
        goto nomem;
    if ((bad = map_local(rt, plan, planned_for, &rt->plan, err)) != BAD_NONE) {
        if (err)
            snprintf(err->source, sizeof err->source, "set_plan");
        return bad;
    }
    p = &rt->plan;
    if (slo__prophet_sched_init(&rt->sched, p, err))
        return err && err->code == SLO_ERR_NOMEM ? BAD_NOMEM : BAD_PLAN;
    rt->req = malloc((p->n_blocks + 1) * sizeof *rt->req);
    rt->done = calloc(p->n_blocks + 1, 1);
    rt->stage_off = malloc((p->n_blocks + 1) * sizeof *rt->stage_off);
    rt->direct = calloc(p->n_blocks + 1, sizeof *rt->direct);
    rt->indices = malloc((p->n_blocks + 1) * sizeof *rt->indices);
    rt->statuses = malloc((p->n_blocks + 1) * sizeof *rt->statuses);
    if (!rt->req || !rt->done || !rt->stage_off || !rt->direct || !rt->indices ||
        !rt->statuses)
        goto nomem;
    /* in place when the pieces are back to back in memory */
    for (size_t b = 0; b < p->n_blocks; b++) {
        int contiguous = 1;
        rt->req[b] = MPI_REQUEST_NULL;
        for (size_t k = p->block_start[b]; k + 1 < p->block_start[b + 1]; k++)
            if ((uintptr_t)piece_ptr(rt, &p->pieces[k]) + p->pieces[k].bytes !=
                (uintptr_t)piece_ptr(rt, &p->pieces[k + 1]))
                contiguous = 0;
        if (contiguous) {
            rt->stage_off[b] = NO_STAGING;
            rt->direct[b] = piece_ptr(rt, &p->pieces[p->block_start[b]]);
        } else {
            rt->stage_off[b] = rt->staging_bytes;
            /* keep every block's staging aligned for any element type */
            rt->staging_bytes += (p->block_bytes[b] + 63) / 64 * 64;
        }
    }
    if (rt->staging_bytes && !(rt->staging = malloc(rt->staging_bytes)))
        goto nomem;
    return BAD_NONE;
nomem:
    slo_error_set(err, SLO_ERR_NOMEM, "set_plan", "out of memory");
    return BAD_NOMEM;
}

static const char *bad_text(uint64_t code)
{
    switch (code) {
    case BAD_GRADS: return "the plan is not for its registered gradient list";
    case BAD_PLAN: return "the plan is inconsistent";
    case BAD_NOMEM: return "out of memory";
    case BAD_COUNT: return "a block exceeds an MPI int count";
    case BAD_ARG: return "max_in_flight < 0";
    case BAD_IO: return "an MPI error while waiting for the previous plan's collectives";
    default: return "failed";
    }
}

enum { I_BAD, I_GRADS, I_BYTES, I_GSUM, I_PSUM, I_BLOCKS, I_N };

/* The lowest rank of rt->comm for which `mine` (this rank's flag) is set,
 * INT32_MAX if none: one MPI_Allreduce(MIN) of one int, which every rank
 * enters. 0 or the MPI error code. */
static int first_rank(const struct slo_prophet *rt, int mine, int *first)
{
    int me = mine ? rt->rank : INT32_MAX;
    return MPI_Allreduce(&me, first, 1, MPI_INT, MPI_MIN, rt->comm);
}

/* The first block with a different size from the next one (test swap). */
static size_t swap_pair(const struct slo__prophet_schedule *p)
{
    for (size_t b = 0; b + 1 < p->n_blocks; b++)
        if (p->block_bytes[b] != p->block_bytes[b + 1])
            return b;
    return NO_STAGING;
}

int slo_prophet_set_plan(struct slo_prophet *rt, const struct slo_comm_plan *plan,
                         const struct slo_comm_model *planned_for, int max_in_flight,
                         slo_error_t *err)
{
    uint64_t mine[I_N] = {0}, other[I_N];
    slo_error_t local = {0};
    int rc, status = BAD_NONE, first = INT32_MAX;
    size_t regd = 0;

    /* Every local failure becomes a status, and every rank always enters
     * the same fixed-size collectives (no allocation on the way): status
     * first, then the data (notes 6.2 pitfall 1; doc/runtime.md). */
    if (max_in_flight < 0) {
        slo_error_set(&local, SLO_ERR_INVALID, "set_plan", "max_in_flight: expected >= 0 (0 = "
             "unlimited), found %d", max_in_flight);
        status = BAD_ARG;
    } else if (rt->have_plan) {
        slo_error_t d = {0};
        if ((rc = drain(rt, &d)) == SLO_OK && test_fault(rt, "drain"))
            rc = slo_error_set(&d, SLO_ERR_IO, "SLO_PROPHET_TEST_FAULT", "injected MPI error");
        if (rc) {
            slo_error_set(&local, SLO_ERR_IO, "set_plan", "waiting for the previous plan's "
                 "collectives: %s: %s", d.source, d.text);
            status = BAD_IO;
        }
    }
    drop_plan(rt);
    rt->n_log = 0;
    rt->hash = 14695981039346656037ULL;
    for (size_t g = 0; g < rt->n_grads; g++)
        regd += rt->bytes[g];
    if (status == BAD_NONE)
        status = install_local(rt, plan, planned_for, &local);
    mine[I_BAD] = (uint64_t)status;
    mine[I_GRADS] = rt->n_grads;
    mine[I_BYTES] = regd;
    mine[I_GSUM] = slo__prophet_grads_checksum(rt->bytes, rt->n_grads, rt->elem);
    mine[I_PSUM] = status ? 0 : slo__prophet_schedule_checksum(&rt->plan);
    mine[I_BLOCKS] = status ? 0 : rt->plan.n_blocks;

    /* 1. status: the first rank that failed locally, then its data */
    if ((rc = first_rank(rt, status != BAD_NONE, &first)) != MPI_SUCCESS)
        goto mpi_error_allreduce;
    if (first != INT32_MAX) {
        memcpy(other, mine, sizeof other);
        if ((rc = MPI_Bcast(other, I_N, MPI_UINT64_T, first, rt->comm)) != MPI_SUCCESS)
            goto mpi_error_bcast;
        drop_plan(rt);
        if (first == rt->rank) {
            if (err)
                *err = local;
            return local.code ? local.code : SLO_ERR_INVALID;
        }
        return slo_error_set(err, other[I_BAD] == BAD_NOMEM ? SLO_ERR_NOMEM
                         : other[I_BAD] == BAD_IO  ? SLO_ERR_IO
                                                   : SLO_ERR_INVALID,
                    "set_plan", "rank %d: %s (rank %d has %llu gradients, %llu bytes)", first,
                    bad_text(other[I_BAD]), first, (unsigned long long)other[I_GRADS],
                    (unsigned long long)other[I_BYTES]);
    }
    /* 2. data: rank 0's, then the first rank that differs from it, and its */
    memcpy(other, mine, sizeof other);
    if ((rc = MPI_Bcast(other, I_N, MPI_UINT64_T, 0, rt->comm)) != MPI_SUCCESS)
        goto mpi_error_bcast;
    {
        uint64_t zero[I_N];
        memcpy(zero, other, sizeof zero);
        if ((rc = first_rank(rt, mine[I_GSUM] != zero[I_GSUM] || mine[I_GRADS] != zero[I_GRADS] ||
                                     mine[I_PSUM] != zero[I_PSUM],
                             &first)) != MPI_SUCCESS)
            goto mpi_error_allreduce;
        if (first != INT32_MAX) {
            const uint64_t *o = other;
            memcpy(other, mine, sizeof other);
            if ((rc = MPI_Bcast(other, I_N, MPI_UINT64_T, first, rt->comm)) != MPI_SUCCESS)
                goto mpi_error_bcast;
            drop_plan(rt);
            if (o[I_GSUM] != zero[I_GSUM] || o[I_GRADS] != zero[I_GRADS])
                return slo_error_set(err, SLO_ERR_INVALID, "set_plan",
                            "gradient lists differ between ranks: rank 0 has %llu gradients, "
                            "%llu bytes (checksum %016llx); rank %d has %llu gradients, %llu "
                            "bytes (checksum %016llx)",
                            (unsigned long long)zero[I_GRADS], (unsigned long long)zero[I_BYTES],
                            (unsigned long long)zero[I_GSUM], first,
                            (unsigned long long)o[I_GRADS], (unsigned long long)o[I_BYTES],
                            (unsigned long long)o[I_GSUM]);
            return slo_error_set(err, SLO_ERR_INVALID, "set_plan",
                        "plans differ between ranks: rank 0's has %llu blocks (checksum "
                        "%016llx), rank %d's has %llu blocks (checksum %016llx)",
                        (unsigned long long)zero[I_BLOCKS], (unsigned long long)zero[I_PSUM],
                        first, (unsigned long long)o[I_BLOCKS], (unsigned long long)o[I_PSUM]);
        }
    }
    rt->max_in_flight = max_in_flight;
    rt->have_plan = 1;
    if (test_fault(rt, "swap"))
        rt->test_swap = swap_pair(&rt->plan);
    return SLO_OK;

mpi_error_allreduce:
    drop_plan(rt);
    return mpi_fail(err, rc, "MPI_Allreduce");
mpi_error_bcast:
    drop_plan(rt);
    return mpi_fail(err, rc, "MPI_Bcast");
}

/* ------------------------------------------------------------------ */
/* Sequence, accessors, release                                        */
/* ------------------------------------------------------------------ */

size_t slo_prophet_sequence(const struct slo_prophet *rt, const struct slo_prophet_issue **log)
{
    *log = rt->log;
    return rt->n_log;
}

uint64_t slo_prophet_sequence_checksum(const struct slo_prophet *rt)
{
    return rt->hash;
}

int slo_prophet_check_sequence(struct slo_prophet *rt, slo_error_t *err)
{
    /* fixed-size collectives every rank enters: rank 0's (count, checksum),
     * the first rank that differs, its pair */
    uint64_t mine[2] = {rt->n_log, rt->hash}, zero[2], o[2];
    int rc, first = INT32_MAX;
    memcpy(zero, mine, sizeof zero);
    if ((rc = MPI_Bcast(zero, 2, MPI_UINT64_T, 0, rt->comm)) != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Bcast");
    if ((rc = first_rank(rt, mine[0] != zero[0] || mine[1] != zero[1], &first)) != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Allreduce");
    if (first == INT32_MAX)
        return SLO_OK;
    memcpy(o, mine, sizeof o);
    if ((rc = MPI_Bcast(o, 2, MPI_UINT64_T, first, rt->comm)) != MPI_SUCCESS)
        return mpi_fail(err, rc, "MPI_Bcast");
    return slo_error_set(err, SLO_ERR_INVALID, "check_sequence",
                "collective sequences differ: rank 0 issued %llu collectives (checksum "
                "%016llx), rank %d issued %llu (checksum %016llx)",
                (unsigned long long)zero[0], (unsigned long long)zero[1], first,
                (unsigned long long)o[0], (unsigned long long)o[1]);
}

int slo_prophet_thread_level(const struct slo_prophet *rt)
{
    return rt->thread_level;
}

size_t slo_prophet_n_grads(const struct slo_prophet *rt)
{
    return rt->n_grads;
}

size_t slo_prophet_n_blocks(const struct slo_prophet *rt)
{
    return rt->have_plan ? rt->plan.n_blocks : 0;
}

size_t slo_prophet_staging_bytes(const struct slo_prophet *rt)
{
    return rt->staging_bytes;
}

void slo_prophet_free(struct slo_prophet *rt)
{
    if (!rt)
        return;
    if (rt->have_plan)
        drain(rt, NULL);
    drop_plan(rt);
    MPI_Comm_free(&rt->comm);
    free(rt->buf);
    free(rt->bytes);
    free(rt->log);
    free(rt);
}
