/*
 * slo_prophet_plan.h - the MPI-free half of the Prophet allreduce runtime:
 * libslo's block plans (struct slo_comm_plan, from slo_comm_solve or read by
 * the kernel's slo_comm_plan_parse from `slo comm --json` output) mapped
 * onto a registered gradient list as per-gradient pieces with holds
 * (struct slo_prophet_plan: what the runtime executes), their validation,
 * the gradient -> block mapping and the issue rule. The MPI half is
 * slo_prophet.h (which includes this header). doc/runtime.md has the whole
 * picture.
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
#ifndef SLO_PROPHET_PLAN_H
#define SLO_PROPHET_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "slo.h"
#include "slo_comm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One contiguous byte range of a block, inside one gradient. */
struct slo_prophet_piece {
    size_t grad;         /* gradient index g (forward order) */
    size_t offset_bytes; /* first byte within gradient g */
    size_t bytes;        /* > 0, a multiple of the plan's elem_bytes */
};

/* A block plan over a gradient list: blocks are issued in index order
 * 0..n_blocks-1 on every rank. */
struct slo_prophet_plan {
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
    struct slo_prophet_piece *pieces; /* [n_pieces] in block order, within a
                                         block in flat-offset order */
};

/* Release a plan's arrays and empty it (NULL and empty plans are fine). */
void slo_prophet_plan_free(struct slo_prophet_plan *plan);

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
int slo_prophet_plan_check(const struct slo_prophet_plan *plan, slo_error_t *err);

/* How to derive block holds from the planned post times (see
 * slo_prophet_plan_from_messages). */
enum slo_prophet_hold {
    SLO_PROPHET_HOLD_NONE = 0, /* a block waits only for its own gradients */
    SLO_PROPHET_HOLD_POST = 1  /* also for every gradient the policy had seen
                                  ready when it posted the block */
};

/*
 * Build a plan from libslo's messages (struct slo_comm_message, as in
 * slo_comm_result.messages or slo_comm_plan.ranges; byte ranges of the flat
 * buffer of `model`, in post order, grouped by .block) and map it onto the
 * registered gradient list grad_bytes.
 *   model: the model the messages were planned for ("plan space": its
 *     grad_bytes s_j, flat offsets o_j, and backward times for the holds).
 *   grad_bytes: [model->n_layers] registered sizes S_g, bytes, multiples of
 *     elem_bytes; NULL = the model's own sizes (then each must be a whole
 *     number of elements).
 *   hold: SLO_PROPHET_HOLD_POST sets block_hold[b] to the lowest layer j
 *     with ready time r_j = sum_{m>=j} b_m <= post_s of the block (doc/comm.md,
 *     "Model of an iteration"), so the runtime does not issue a block
 *     earlier in the backward pass than the policy posted it (Prophet's
 *     step hold, notes 1.6 step 1).
 * Validation in plan space, tolerance tol = max(1e-3, 1e-9 x total) bytes
 * (for messages of slo_comm_simulate, which are doubles; the kernel's
 * plans, struct slo_comm_plan, are whole elements and map exactly): every range finite, > 0 bytes; block numbers start
 * at 0 and never skip; the ranges tile [0, sum s_j) exactly (none missing,
 * none overlapping); each range lies in its claimed layers
 * first_layer..last_layer. Mapping: a boundary x inside layer j at
 * fraction phi = (x - o_j) / s_j maps to O_g + round(phi S_g / elem) elem
 * (g = j; the identity when the sizes agree and x is a whole element);
 * ranges that map to no bytes are dropped, then blocks left empty (the
 * same on every rank, so the collective order stays identical).
 * Errors: SLO_ERR_INVALID (source "plan", or the caller's source for the
 * message index; text with expected and found), SLO_ERR_NOMEM. On failure
 * *plan is left empty.
 */
int slo_prophet_plan_from_messages(const struct slo_comm_message *messages, size_t n_messages,
                                   const struct slo_comm_model *model, const size_t *grad_bytes,
                                   size_t elem_bytes, enum slo_prophet_hold hold,
                                   const char *policy, struct slo_prophet_plan *plan,
                                   slo_error_t *err);

/*
 * Plan a policy with libslo and map it: slo_comm_solve (options: the policy,
 * params for the baselines (NULL = defaults; the optimal planner always
 * takes the defaults), element size elem_bytes), then the kernel's plan
 * (struct slo_comm_plan, integer ranges at element granularity) mapped by
 * slo_prophet_plan_from_messages with hold SLO_PROPHET_HOLD_POST for
 * SLO_COMM_PROPHET and SLO_PROPHET_HOLD_NONE otherwise (FIFO, DDP and the
 * optimal plan post a block as soon as its bytes are ready and the
 * previous one was posted, which is the runtime's own rule).
 * predicted_s (may be NULL): the simulator's period T for this plan, s.
 * Errors: those of slo_comm_solve and of slo_prophet_plan_from_messages.
 */
int slo_prophet_plan_policy(const struct slo_comm_model *model, const struct slo_comm_link *link,
                            const struct slo_comm_params *params, int policy,
                            const size_t *grad_bytes, size_t elem_bytes,
                            struct slo_prophet_plan *plan, double *predicted_s,
                            slo_error_t *err);

/*
 * Read one policy's plan from `slo comm --json` output (or a plan object of
 * slo_comm_plan_to_json) with the kernel's reader, slo_comm_plan_parse
 * (strict: integer byte counts at element granularity elem_bytes, no
 * unknown or duplicate keys, no gaps or overlaps; doc/comm.md "Plan
 * JSON"), then check it was made for the plan-space model (model.layers ==
 * model->n_layers, model.bytes == sum s_j rounded to elements) and map it
 * as slo_prophet_plan_from_messages does (hold: as there; the blocks'
 * post_s are required when hold is SLO_PROPHET_HOLD_POST). policy: the
 * policy's name (NULL: the document must hold exactly one). source names
 * the text in messages (the file name). Errors: SLO_ERR_INVALID with
 * err->source "SOURCE" and a text naming the JSON path
 * ("policies[1].blocks[3].ranges[0].bytes: expected a number > 0, found
 * -1"; "model.layers: expected 176 (the registered gradient list), found
 * 40: a plan for another gradient list"); SLO_ERR_NOMEM. On failure *plan
 * is left empty.
 */
int slo_prophet_plan_parse_json(const char *text, const char *source, const char *policy,
                                const struct slo_comm_model *model, const size_t *grad_bytes,
                                size_t elem_bytes, enum slo_prophet_hold hold,
                                struct slo_prophet_plan *plan, slo_error_t *err);

/* The policy names of a `slo comm --json` document: slo_comm_plan_policies
 * (kernel), kept under the runtime's name. */
int slo_prophet_plan_json_policies(const char *text, const char *source,
                                   char (*names)[SLO_COMM_NAME_LENGTH], size_t max, size_t *n,
                                   slo_error_t *err);

/* 64-bit FNV-1a checksums, for comparing ranks: of a gradient list
 * (elem_bytes, G, S_g) and of a whole plan (its gradient list, blocks,
 * pieces and holds; not its policy name). */
uint64_t slo_prophet_grads_checksum(const size_t *grad_bytes, size_t n_grads,
                                    size_t elem_bytes);
uint64_t slo_prophet_plan_checksum(const struct slo_prophet_plan *plan);

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
struct slo_prophet_sched {
    const struct slo_prophet_plan *plan; /* not owned; must outlive the state */
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

/* Build the state for a plan (checked with slo_prophet_plan_check first).
 * Errors: those of the check; SLO_ERR_NOMEM. On failure *s is left empty. */
int slo_prophet_sched_init(struct slo_prophet_sched *s, const struct slo_prophet_plan *plan,
                           slo_error_t *err);
/* Start a new backward pass: no gradient ready, no block issued. */
void slo_prophet_sched_reset(struct slo_prophet_sched *s);
/* Mark gradient g ready. Errors: SLO_ERR_INVALID for g >= G ("gradient 9:
 * expected an index below 8") or a gradient marked twice in one pass. */
int slo_prophet_sched_mark(struct slo_prophet_sched *s, size_t g, slo_error_t *err);
/* 1 when block s->next exists and may be issued by the rule above. */
int slo_prophet_sched_ready(const struct slo_prophet_sched *s);
/* Take the next block (call only when slo_prophet_sched_ready): returns its
 * index and advances. */
size_t slo_prophet_sched_issue(struct slo_prophet_sched *s);
/* The blocks holding gradient g's bytes, ascending: *blocks points into the
 * state, *n of them (0 for a gradient with no bytes or g >= G). */
void slo_prophet_sched_blocks_of(const struct slo_prophet_sched *s, size_t g,
                                 const size_t **blocks, size_t *n);
/* Why block s->next cannot be issued: the lowest gradient g it (or its
 * hold) still waits for, or G if it is not waiting for a gradient (or all
 * blocks are issued). */
size_t slo_prophet_sched_waiting_for(const struct slo_prophet_sched *s);
/* Release the state's arrays and empty it (NULL is fine). */
void slo_prophet_sched_free(struct slo_prophet_sched *s);

#ifdef __cplusplus
}
#endif

#endif /* SLO_PROPHET_PLAN_H */
