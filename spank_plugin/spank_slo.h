/*
 * spank_slo.h - shared state of spank_slo.so and the per-context entry points
 * (after NVIDIA/pyxis: a dispatcher per SPANK hook in spank_slo.c, one file
 * per context: ctx_submit.c for allocator/local, ctx_remote.c for remote).
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Messages: "spank_slo: <what>: <detail>" through slurm_error/slurm_info.
 */
#ifndef SSLO_SPANK_SLO_H
#define SSLO_SPANK_SLO_H

#include <slurm/spank.h>

#include "args.h"

#define SSLO_LOG_PREFIX "spank_slo"

/* The plugin's one context per process (sbatch, salloc, srun, slurmstepd). */
struct sslo_state {
    struct sslo_config cfg; /* plugstack arguments */
    int cfg_ok;             /* 1 when cfg parsed */
    struct sslo_options opt;/* --slo-* values */
    int step_note;          /* srun in an allocation got --slo-* on its command line */
};

/* The process-wide state (option callbacks receive no handle). */
struct sslo_state *sslo_state(void);

/* Register the --slo-* options with spank_option_register (allocator, local
 * and remote contexts). Returns 0, or -1 after logging which option failed. */
int sslo_options_register(spank_t sp);

/* Allocator (sbatch, salloc) and local (srun) context, slurm_spank_init_post_opt:
 * plan and record. Returns 0, or -1 when the submission must fail (bad
 * input, infeasible SLO in enforce mode, unreadable catalog). */
int sslo_submit_post_opt(spank_t sp, struct sslo_state *st);

/* Allocator context (sbatch, salloc) inside a job (SLURM_JOB_ID set),
 * slurm_spank_init: remove from this process's environment what the
 * enclosing job passes down - its --slo-* options
 * (SLURM_SPANK__SLURM_SPANK_OPTION_slo_*, which Slurm would apply to the
 * nested submission as if given) and its plan (SLURM_SPANK_SLO_*, SLO_* of
 * sslo_record_names and SLO_PLAN, which the nested job would inherit) - so
 * a nested submission is planned only from --slo-* on its own command line.
 * Returns the number of variables removed. */
int sslo_submit_forget_inherited(void);

/* Remote context (slurmstepd), slurm_spank_user_init: export the recorded
 * plan into the job as plain SLO_* variables, only for an enforced plan that
 * the job's record at slurmctld (slurm_load_job: AdminComment
 * "slo-plan:<SLO_INSTANCES>" written by job_submit.lua, partition, node
 * count, features) shows applied; otherwise the SLURM_SPANK_SLO_* the job got (a
 * user's --export, an inherited copy) are removed from the job and nothing
 * is exported. Always returns 0: a user's mistake must never fail a step or
 * drain a node. */
int sslo_remote_user_init(spank_t sp, struct sslo_state *st);

#endif /* SSLO_SPANK_SLO_H */
