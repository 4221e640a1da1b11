/*
 * prophet_private.h - the runtime's private half, not installed, not
 * exported (libsloprophet exports ^slo_prophet_ only; these names carry the
 * slo__prophet_ prefix): the kernel's plan (struct slo_comm_plan) mapped onto
 * a registered gradient list as per-gradient pieces with holds (struct
 * slo__prophet_schedule: what the runtime executes), its validation, the
 * gradient -> block mapping and the issue rule. prophet_plan.c implements it
 * without MPI, so the unit test (tests/test_runtime_plan.c) links it alone.
 * doc/runtime.md has the whole picture.
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Sources. "notes N" = section N of shared/research/prophet.md. The
 * mapping onto MPI (flat buffer in forward order, one collective per block,
 * identical order on every rank, duplicated communicator, polling progress)
 * is notes 6.1-6.2; the plans are libslo's (kernel/comm/slo_comm.h,
 * doc/comm.md).
 *
 * Terms. Gradients are numbered g = 0..G-1 in forward order (= the layers
 * of a struct slo_comm_model, parameter-free layers included with 0 bytes,
 * so a layer index is a gradient index). Conceptually they lie in one flat
 * buffer in forward order (doc/comm.md); gradient g owns flat bytes
 * [O_g, O_g + S_g). A block is one collective (one MPI_Iallreduce); it
 * gathers one or more byte ranges, stored here as pieces, each inside one
 * gradient. Sizes are whole bytes, multiples of the element size (4 for
 * MPI_FLOAT). Conventions of libslo: int status (enum slo_code), caller-owned
 * slo_error_t (may be NULL), no printing, no exit, no globals.
 */
#ifndef SLO_PROPHET_PRIVATE_H
#define SLO_PROPHET_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "slo.h"

#if defined(__GNUC__)
#define SLO__PROPHET_HIDDEN __attribute__((visibility("hidden")))
#else
#define SLO__PROPHET_HIDDEN
#endif

/* Errors are filled with libslo's public slo_error_set. */

/* One contiguous byte range of a block, inside one gradient. */
struct slo__prophet_piece {
    size_t grad;         /* gradient index g (forward order) */
    size_t offset_bytes; /* first byte within gradient g */
    size_t bytes;        /* > 0, a multiple of the plan's elem_bytes */
};

/* A kernel plan mapped onto a gradient list: blocks are issued in index
 * order 0..n_blocks-1 on every rank. */
struct slo__prophet_schedule {
    char policy[SLO_COMM_NAME_LENGTH]; /* "fifo", "prophet", ... (informative) */
    size_t elem_bytes;    /* element size, bytes (4: MPI_FLOAT) */
    size_t n_grads;       /* G */
    size_t *grad_bytes;   /* [G] S_g, bytes, multiples of elem_bytes, may be 0 */
    size_t n_blocks;
    size_t *block_start;  /* [n_blocks + 1]: block b's pieces are
                             pieces[block_start[b] .. block_start[b+1]) */
    size_t *block_bytes;  /* [n_blocks] sum of the block's pieces, bytes */
    size_t *block_hold;   /* [n_blocks] hold: block b is not issued before
                             every gradient g >= block_hold[b] is ready
                             (G = no hold beyond the block's own gradients) */
    size_t n_pieces;
    struct slo__prophet_piece *pieces; /* [n_pieces] in block order, within a
                                         block in flat-offset order */
};

/* Release a plan's arrays and empty it (NULL and empty plans are fine). */
void slo__prophet_schedule_free(struct slo__prophet_schedule *plan) SLO__PROPHET_HIDDEN;

/*
 * Check a plan for internal consistency: elem_bytes >= 1; every S_g a
 * multiple of elem_bytes; block_start increasing from 0 to n_pieces (no
 * empty block); every piece inside its gradient, > 0 bytes, a multiple of
 * elem_bytes at an offset that is one; block_bytes the sum of its pieces;
 * block_hold <= G; and the pieces tile every gradient's bytes exactly once
 * (no byte missing, none twice).
 * Errors: SLO_ERR_INVALID, err->source "plan", text naming the block,
 * gradient and byte range ("gradient 5: bytes 4096..8192 of 8192 are in no
 * block"); SLO_ERR_NOMEM.
 */
int slo__prophet_schedule_check(const struct slo__prophet_schedule *plan,
                                slo_error_t *err) SLO__PROPHET_HIDDEN;

/*
 * Is the kernel's plan for this gradient list? Its elem_bytes is elem_bytes,
 * its n_layers is n_grads and its total_bytes the bytes of planned_for (a
 * model of n_grads layers, the plan space) or, for planned_for NULL, of
 * grad_bytes [n_grads], rounded to elements. Errors: SLO_ERR_INVALID, source
 * "plan", text ending "a plan for another gradient list".
 */
int slo__prophet_plan_fits(const struct slo_comm_plan *plan,
                           const struct slo_comm_model *planned_for, const size_t *grad_bytes,
                           size_t n_grads, size_t elem_bytes, slo_error_t *err) SLO__PROPHET_HIDDEN;

/*
 * Map the kernel's plan onto the registered gradient list grad_bytes [n_grads]
 * (S_g, bytes, multiples of elem_bytes): what slo_prophet_set_plan installs.
 *   plan: checked with slo_comm_plan_check and slo__prophet_plan_fits;
 *     its blocks' hold_layer become the schedule's holds (normalized past
 *     gradients without bytes).
 *   planned_for: the model whose flat buffer the plan's offsets refer to
 *     ("plan space": its grad_bytes s_j); NULL = the registered list itself.
 *     plan->n_layers must be its layer count (= n_grads) and
 *     plan->total_bytes its bytes rounded to elements ("model.layers:
 *     expected 176 (the registered gradient list, model "resnet50"), found
 *     40: a plan for another gradient list (model "vgg16")"). Sizes that
 *     differ from grad_bytes are mapped proportionally, as
 *     slo__prophet_schedule_from_messages does, within the layers' spans
 *     rounded to whole elements (the plan's own boundaries).
 * Errors: SLO_ERR_INVALID (source "plan"), SLO_ERR_NOMEM. On failure *out is
 * left empty.
 */
int slo__prophet_schedule_map(const struct slo_comm_plan *plan,
                              const struct slo_comm_model *planned_for, const size_t *grad_bytes,
                              size_t n_grads, size_t elem_bytes, struct slo__prophet_schedule *out,
                              slo_error_t *err) SLO__PROPHET_HIDDEN;

/*
 * Build a schedule from libslo's messages (struct slo_comm_message, as in
 * slo_comm_result.messages or slo_comm_plan.ranges; byte ranges of the flat
 * buffer of `model`, in post order, grouped by .block) and map it onto the
 * registered gradient list grad_bytes.
 *   model: the model the messages were planned for ("plan space": its
 *     grad_bytes s_j and flat offsets o_j).
 *   grad_bytes: [model->n_layers] registered sizes S_g, bytes, multiples of
 *     elem_bytes; NULL = the model's own sizes (then each must be a whole
 *     number of elements).
 *   hold: [number of blocks in the messages] each block's hold layer (the
 *     kernel's slo_comm_plan_block.hold_layer: the block waits for every
 *     gradient g >= hold[b]), or NULL for no holds; normalized past
 *     gradients without bytes; a block dropped in the mapping drops its hold.
 * Plan space is the kernel plan's: layer j spans [o_j, o_j+1) with o_j =
 * slo_comm_round_to_elements(s_0 + ... + s_j-1, elem) (a layer of less than
 * half an element may span nothing), so the messages must be whole-element
 * ranges as in struct slo_comm_plan (slo_comm_simulate's raw doubles for a
 * model with fractional sizes end off the rounded total and are refused).
 * Validation in plan space, tolerance tol = max(1e-3, 1e-9 x total) bytes:
 * every range finite, > 0 bytes; block numbers start at 0 and never skip;
 * the ranges tile [0, o_n) exactly (none missing, none overlapping); each
 * range lies in its claimed layers
 * first_layer..last_layer. Mapping: a boundary x inside layer j at
 * fraction phi = (x - o_j) / (o_j+1 - o_j) maps to O_g + round(phi S_g / elem) elem
 * (g = j; the identity when the sizes agree and x is a whole element);
 * ranges that map to no bytes are dropped, then blocks left empty (the
 * same on every rank, so the collective order stays identical).
 * Errors: SLO_ERR_INVALID (source "plan", or the caller's source for the
 * message index; text with expected and found), SLO_ERR_NOMEM. On failure
 * *plan is left empty.
 */
int slo__prophet_schedule_from_messages(const struct slo_comm_message *messages, size_t n_messages,
                                   const struct slo_comm_model *model, const size_t *grad_bytes,
                                   size_t elem_bytes, const size_t *hold,
                                   const char *policy, struct slo__prophet_schedule *plan,
                                   slo_error_t *err) SLO__PROPHET_HIDDEN;

/* 64-bit FNV-1a checksums, for comparing ranks: of a gradient list
 * (elem_bytes, G, S_g) and of a whole plan (its gradient list, blocks,
 * pieces and holds; not its policy name). */
uint64_t slo__prophet_grads_checksum(const size_t *grad_bytes, size_t n_grads,
                                    size_t elem_bytes) SLO__PROPHET_HIDDEN;
uint64_t slo__prophet_schedule_checksum(const struct slo__prophet_schedule *plan)
    SLO__PROPHET_HIDDEN;

/* ------------------------------------------------------------------ */
/* Issue rule and gradient -> block mapping                            */
/* ------------------------------------------------------------------ */

/*
 * State of one backward pass under a plan. The rule (doc/runtime.md,
 * "Ordering guarantee"): block b may be issued when (1) every gradient it
 * has bytes of is ready, (2) every gradient g >= block_hold[b] is ready
 * and (3) blocks 0..b-1 were issued. (3) makes the issue order the plan
 * order on every rank whatever the local timing (notes 6.2 pitfall 1).
 */
struct slo__prophet_sched {
    const struct slo__prophet_schedule *plan; /* not owned; must outlive the state */
    size_t *grad_block_start; /* [G + 1]: gradient g's blocks are
                                 grad_blocks[grad_block_start[g] .. [g+1]) */
    size_t *grad_blocks;      /* distinct blocks per gradient, ascending */
    size_t *block_need;       /* [n_blocks] distinct gradients of the block */
    size_t *block_left;       /* [n_blocks] of them not yet ready */
    unsigned char *ready;     /* [G] */
    size_t n_ready;           /* gradients marked this pass */
    size_t suffix;            /* every gradient g >= suffix is ready */
    size_t next;              /* next block to issue */
};

/* Build the state for a plan (checked with slo__prophet_schedule_check first).
 * Errors: those of the check; SLO_ERR_NOMEM. On failure *s is left empty. */
int slo__prophet_sched_init(struct slo__prophet_sched *s, const struct slo__prophet_schedule *plan,
                           slo_error_t *err) SLO__PROPHET_HIDDEN;
/* Start a new backward pass: no gradient ready, no block issued. */
void slo__prophet_sched_reset(struct slo__prophet_sched *s) SLO__PROPHET_HIDDEN;
/* Mark gradient g ready. Errors: SLO_ERR_INVALID for g >= G ("gradient 9:
 * expected an index below 8") or a gradient marked twice in one pass. */
int slo__prophet_sched_mark(struct slo__prophet_sched *s, size_t g,
                            slo_error_t *err) SLO__PROPHET_HIDDEN;
/* 1 when block s->next exists and may be issued by the rule above. */
int slo__prophet_sched_ready(const struct slo__prophet_sched *s) SLO__PROPHET_HIDDEN;
/* Take the next block (call only when slo__prophet_sched_ready): returns its
 * index and advances. */
size_t slo__prophet_sched_issue(struct slo__prophet_sched *s) SLO__PROPHET_HIDDEN;
/* The blocks holding gradient g's bytes, ascending: *blocks points into the
 * state, *n of them (0 for a gradient with no bytes or g >= G). */
void slo__prophet_sched_blocks_of(const struct slo__prophet_sched *s, size_t g,
                                 const size_t **blocks, size_t *n) SLO__PROPHET_HIDDEN;
/* Why block s->next cannot be issued: the lowest gradient g it (or its
 * hold) still waits for, or G if it is not waiting for a gradient (or all
 * blocks are issued). */
size_t slo__prophet_sched_waiting_for(const struct slo__prophet_sched *s) SLO__PROPHET_HIDDEN;
/* Release the state's arrays and empty it (NULL is fine). */
void slo__prophet_sched_free(struct slo__prophet_sched *s) SLO__PROPHET_HIDDEN;

#endif /* SLO_PROPHET_PRIVATE_H */
