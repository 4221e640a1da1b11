/*
 * slo_prophet.h - the Prophet allreduce runtime: executes libslo's comm plan
 * (struct slo_comm_plan of slo_comm.h: from slo_comm_solve, or read by
 * slo_comm_plan_parse / slo_comm_plan_load from `slo comm --json` output)
 * with one MPI_Iallreduce per block, in the same order on every rank,
 * overlapped with the backward pass, and lets the forward pass wait only
 * for the blocks it needs. The plan is the only plan type: the runtime maps
 * it onto the registered gradient buffers internally. doc/runtime.md has
 * the API walk-through, progress model, thread level, ordering guarantee
 * and error behaviour.
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Source: the MPI mapping of shared/research/prophet.md section 6 (6.1
 * design: flat forward-order layout, blocks, plan agreement; 6.2 pitfalls:
 * same collective order on every rank (1), a duplicated communicator (2),
 * progress by polling (3), thread level (4), buffer ownership (5)).
 *
 * Use, on every rank of comm:
 *   slo_prophet_create(comm, MPI_FLOAT, 0, &rt, &err);          collective
 *   for g in forward order: slo_prophet_register(rt, buf_g, bytes_g, &err);
 *   slo_comm_solve(&problem, &options, &result, &err);          plan (libslo)
 *   slo_prophet_set_plan(rt, &result.plan, NULL, max_in_flight, &err);  collective
 *   each iteration:
 *     slo_prophet_begin(rt, &err);       backward pass starts
 *     for g = G-1 .. 0: compute; slo_prophet_mark_ready(rt, g, &err);
 *       (call slo_prophet_progress(rt, &err) often during compute)
 *     for k = 0 .. G-1: slo_prophet_wait_layer(rt, k, &err); forward k
 *   slo_prophet_check_sequence(rt, &err);                         collective
 *   slo_prophet_free(rt);                                         collective
 * Errors: int status (enum slo_code of slo.h) and a caller-owned
 * slo_error_t (may be NULL); nothing is printed, nothing exits or aborts:
 * the caller decides (slo-train-demo prints on rank 0 and calls
 * MPI_Abort). MPI errors on the runtime's communicator are returned
 * (MPI_ERRORS_RETURN) as SLO_ERR_IO with MPI's error string, a block's
 * collective that fails at completion too (source "MPI_Testsome (block
 * B)"): Open MPI 4.1 raises that one on MPI_COMM_WORLD, so below
 * MPI_THREAD_MULTIPLE the runtime holds MPI_ERRORS_RETURN on MPI_COMM_WORLD
 * for its own MPI_Testsome call and restores the caller's handler right
 * after (doc/runtime.md "Error behaviour"). After SLO_ERR_IO the runtime is
 * unusable and the other ranks' collectives cannot complete: abort.
 */
#ifndef SLO_PROPHET_H
#define SLO_PROPHET_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "slo.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opaque runtime: one per gradient list and communicator. */
struct slo_prophet;

/* Flags of slo_prophet_create. */
enum {
    /* After MPI_SUM, divide each reduced element by the number of ranks
     * (the data-parallel average); only for MPI_FLOAT and MPI_DOUBLE.
     * Without it the blocks hold the plain sum. */
    SLO_PROPHET_AVERAGE = 1
};

/* One issued collective: block index in the plan and its size. */
struct slo_prophet_issue {
    size_t block;
    size_t bytes;
};

/*
 * Create a runtime on a duplicate of comm (MPI_Comm_dup, so the gradient
 * collectives can never interleave with the application's own; notes 6.2
 * pitfall 2), with MPI_ERRORS_RETURN on the duplicate. Collective over
 * comm. datatype: the gradients' element type, a predefined type that
 * MPI_SUM accepts (MPI_FLOAT for fp32 gradients); its size is the plan's
 * elem_bytes. flags: 0 or SLO_PROPHET_AVERAGE. The thread level MPI gives
 * (MPI_Query_thread) is recorded: slo_prophet_thread_level.
 * Errors: SLO_ERR_INVALID (MPI not initialized, a datatype of size 0, a
 * derived datatype (MPI_Type_get_envelope combiner not MPI_COMBINER_NAMED:
 * "datatype: expected a predefined type ..., found a derived type"), an
 * extent other than the size or a lower bound other than 0 (MPI steps
 * through the buffer by the extent, the runtime counts by the size), a
 * MINLOC/MAXLOC pair type (MPI_2INT, MPI_FLOAT_INT, ...: no MPI_SUM),
 * SLO_PROPHET_AVERAGE with another type than MPI_FLOAT/MPI_DOUBLE, unknown
 * flags), SLO_ERR_IO (MPI_Comm_dup failed), SLO_ERR_NOMEM. *out is NULL on
 * failure. These checks give the same verdict on every rank when every
 * rank passes the same datatype.
 */
int slo_prophet_create(MPI_Comm comm, MPI_Datatype datatype, int flags,
                       struct slo_prophet **out, slo_error_t *err);

/*
 * Register the next gradient in forward order (index = number registered
 * before): buf holds bytes bytes (a multiple of the element size; 0 for a
 * layer without parameters, buf may then be NULL). The buffer belongs to
 * the runtime from mark_ready until the gradient's blocks are complete
 * (wait_layer): do not touch it then (notes 6.2 pitfall 5). Gradients
 * that lie back to back in memory (one flat buffer) let blocks spanning
 * them be reduced in place; see slo_prophet_set_plan. Only before the
 * first set_plan. Local.
 * Errors: SLO_ERR_INVALID (size not a multiple of the element size, NULL
 * buffer with bytes > 0, after set_plan), SLO_ERR_NOMEM.
 */
int slo_prophet_register(struct slo_prophet *rt, void *buf, size_t bytes, slo_error_t *err);

/*
 * Install the kernel's plan (struct slo_comm_plan; the runtime keeps its own
 * mapped copy, the caller may free the plan). Blocks are issued in the
 * plan's order 0..n_blocks-1 on every rank; block b is issued when (1) every
 * registered gradient it has bytes of is ready, (2) every gradient
 * g >= blocks[b].hold_layer is ready (Prophet's step hold, set by
 * slo_comm_solve for SLO_COMM_PROPHET) and (3) blocks 0..b-1 were issued
 * (doc/runtime.md, "Ordering guarantee").
 *   plan: a plan at the element size of the runtime's datatype
 *     (plan->elem_bytes = MPI_Type_size), with plan->n_layers = the
 *     registered gradients (layer j = gradient j).
 *   planned_for: the model whose flat forward-order buffer the plan's byte
 *     offsets refer to ("plan space", its grad_bytes s_j, bytes), or NULL
 *     when the plan was made for the registered sizes themselves (the
 *     identity: offset o_j + x of the plan is byte x of gradient j). The
 *     plan's total_bytes must be those bytes rounded to elements. When the
 *     registered sizes S_j differ from s_j, a plan boundary x inside layer j
 *     at fraction phi = (x - o_j) / s_j maps to byte round(phi S_j / e) e of
 *     gradient j (e the element size, ties away from zero); each boundary is
 *     mapped once, so the mapped blocks tile the gradients exactly, and a
 *     range (a block) that maps to no bytes is dropped, the same on every
 *     rank (slo_prophet_n_blocks gives the blocks installed).
 * Collective over the communicator; waits for any collective still in
 * flight first, and clears the recorded sequence. Checks, in this order:
 *  1. locally (slo_prophet_check_plan): the plan is consistent
 *     (slo_comm_plan_check), for the registered gradient list (element
 *     size, layer count, bytes: "model.layers: expected 176 (the registered
 *     gradient list, model "resnet50"), found 40: a plan for another
 *     gradient list (model "vgg16")") and its mapped blocks fit an int
 *     count of elements;
 *  2. collectively, before anything is issued, with fixed-size collectives
 *     every rank always enters and that allocate nothing (a rank that
 *     failed in 1., or in its wait for the previous plan's collectives,
 *     still joins them with its failure status): the first rank whose
 *     status is a failure (MPI_Allreduce MIN) and its (status, gradient
 *     count, total bytes) (MPI_Bcast); then rank 0's (gradient-list
 *     checksum, mapped-plan checksum, block count), the first rank that
 *     differs and its values; so that every rank returns the same verdict
 *     and nobody is left waiting in a collective the others never start
 *     (notes 6.2 pitfall 1).
 * Staging: a block whose pieces are contiguous in memory is reduced in
 * place (MPI_IN_PLACE on the gradient buffer); any other block is packed
 * into a staging buffer of the runtime before MPI_Iallreduce and unpacked
 * when it completes (one memcpy each way; a derived datatype would avoid
 * the copy but MPI implementations reduce derived types through a packed
 * copy anyway). max_in_flight: collectives started and not complete at
 * once, >= 0 (0 = unlimited, 1 = serialized as the kernel's default link,
 * doc/comm.md "Transport").
 * Errors, the same code on every rank (agreed): SLO_ERR_INVALID with the
 * reason (on the failing rank its own text; on every other rank "rank R:
 * ..." naming the first rank that differs or failed and what it has:
 * "gradient lists differ between ranks: rank 0 has 176 gradients,
 * 102228128 bytes; rank 1 has 175 gradients, 102224032 bytes"; a negative
 * max_in_flight: "max_in_flight: expected >= 0 ..."), SLO_ERR_NOMEM ("rank
 * R: out of memory" on the others), SLO_ERR_IO for an MPI error in the
 * wait for the previous plan's collectives ("rank R: an MPI error while
 * waiting ..."); err->source is "set_plan" for all of them. Not agreed: an
 * MPI error of the agreement's own collectives, SLO_ERR_IO with
 * err->source "MPI_Allreduce" or "MPI_Bcast", on that rank only: the
 * caller should MPI_Abort (the other ranks may wait in the collective).
 * After any error no plan is installed.
 */
int slo_prophet_set_plan(struct slo_prophet *rt, const struct slo_comm_plan *plan,
                         const struct slo_comm_model *planned_for, int max_in_flight,
                         slo_error_t *err);

/*
 * The local checks of slo_prophet_set_plan (1. above), without installing
 * anything and without MPI: for a front end that reports a bad plan file
 * before the collective (slo-train-demo --plan). Local.
 * Errors: SLO_ERR_INVALID with err->source "plan" and the text set_plan
 * gives on this rank; SLO_ERR_NOMEM.
 */
int slo_prophet_check_plan(const struct slo_prophet *rt, const struct slo_comm_plan *plan,
                           const struct slo_comm_model *planned_for, slo_error_t *err);

/*
 * Start a backward pass: waits until every collective of the previous pass
 * is complete (their data unpacked), then no gradient is ready and no block
 * issued. Local (but it may wait on collectives, which needs the other
 * ranks to make progress too). Errors: SLO_ERR_INVALID without a plan,
 * SLO_ERR_IO for MPI errors.
 */
int slo_prophet_begin(struct slo_prophet *rt, slo_error_t *err);

/*
 * Gradient g is computed (its buffer holds this pass's values). Issues,
 * in plan order, every block that has become ready (the issue rule of
 * slo_prophet_set_plan) while fewer than max_in_flight are in flight, then polls
 * completions (as slo_prophet_progress). A gradient without bytes is
 * accepted and ignored. Errors: SLO_ERR_INVALID (g out of range, marked
 * twice in one pass, no begin), SLO_ERR_IO for MPI errors.
 */
int slo_prophet_mark_ready(struct slo_prophet *rt, size_t g, slo_error_t *err);

/*
 * Drive progress (polling model, doc/runtime.md): MPI_Testsome on the
 * collectives in flight (Open MPI advances nonblocking collectives only
 * inside MPI calls, notes 6.2 pitfall 3), unpack/average completed blocks,
 * issue blocks that became ready or got a free slot. Call it often during
 * compute (every 50-100 us in slo-train-demo). Errors: SLO_ERR_IO.
 */
int slo_prophet_progress(struct slo_prophet *rt, slo_error_t *err);

/*
 * Wait until every block holding bytes of gradient k is complete, driving
 * progress meanwhile; then gradient k's buffer holds the reduced values.
 * Returns at once for a gradient without bytes or before the first begin.
 * Never waits for something that cannot happen: if a needed block is not
 * issued and waits for a gradient not marked ready, it fails
 * (SLO_ERR_INVALID "wait_layer 3: block 7 waits for gradient 5, which was
 * not marked ready in this backward pass"). Errors: also SLO_ERR_IO.
 */
int slo_prophet_wait_layer(struct slo_prophet *rt, size_t k, slo_error_t *err);

/* Wait for every issued block (as slo_prophet_wait_layer for all
 * gradients; blocks not issued are an error as there). */
int slo_prophet_wait_all(struct slo_prophet *rt, slo_error_t *err);

/*
 * The collectives issued since set_plan, in issue order: *log points into
 * the runtime (valid until the next set_plan or free); returns the count.
 */
size_t slo_prophet_sequence(const struct slo_prophet *rt, const struct slo_prophet_issue **log);
/* FNV-1a checksum of that sequence (block, bytes per entry). */
uint64_t slo_prophet_sequence_checksum(const struct slo_prophet *rt);

/*
 * Collective: compare every rank's issued sequence (count and checksum:
 * rank 0's by MPI_Bcast, the first rank that differs by MPI_Allreduce MIN,
 * its pair by MPI_Bcast; fixed size, no allocation). Errors, agreed:
 * SLO_ERR_INVALID naming the first rank that differs from rank 0
 * ("collective sequences differ: rank 0 issued 428 collectives (checksum
 * ...), rank 2 issued 427 (...)"); on one rank only: SLO_ERR_IO (source
 * "MPI_Bcast" / "MPI_Allreduce"). This compares the runtime's own record;
 * tests/runtime_mpi.sh observes the real MPI calls (PMPI) as well.
 */
int slo_prophet_check_sequence(struct slo_prophet *rt, slo_error_t *err);

/* The thread level MPI provides (MPI_THREAD_SINGLE .. MULTIPLE), as
 * recorded by create. The runtime makes MPI calls only from the calls
 * above, so any level works if they come from one thread at a time (from
 * the main thread under MPI_THREAD_FUNNELED or SINGLE). */
int slo_prophet_thread_level(const struct slo_prophet *rt);
/* Number of registered gradients; blocks (collectives per backward pass)
 * of the installed plan as mapped onto them (0 without a plan). */
size_t slo_prophet_n_grads(const struct slo_prophet *rt);
size_t slo_prophet_n_blocks(const struct slo_prophet *rt);
/* Staging bytes of the installed plan (blocks not contiguous in memory). */
size_t slo_prophet_staging_bytes(const struct slo_prophet *rt);

/* Release the runtime (collective: MPI_Comm_free). Waits for collectives
 * in flight first (errors ignored). NULL is fine. */
void slo_prophet_free(struct slo_prophet *rt);

#ifdef __cplusplus
}
#endif

#endif /* SLO_PROPHET_H */
