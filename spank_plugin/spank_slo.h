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

#include <stdint.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "args.h"
#include "serve.h"

#define SSLO_LOG_PREFIX "spank_slo"

/* The plugin's one context per process (sbatch, salloc, srun, slurmstepd). */
struct sslo_state {
    struct sslo_config cfg; /* plugstack arguments */
    int cfg_ok;             /* 1 when cfg parsed */
    struct sslo_options opt;/* --slo-* values */
    int step_note;          /* srun in an allocation got --slo-* on its command line */
    /* remote context, --slo-serve: the verified serving plan (ctx_serve.c) */
    int serve_ok;           /* 1: slurmctld's job record shows the plan applied */
    int serve_n;            /* tenants in serve[] */
    int serve_gpus;         /* GPUs of the job (SLO_SERVE_GPUS) */
    struct sslo_serve_tenant serve[SSLO_SERVE_MAX_TENANTS];
};

/* Helpers shared by the context files. */

/* getenv(name): the sslo_options_apply_env lookup of the submitting
 * process (ctx_submit.c). */
const char *sslo_env_get(const char *name);

/* Log a '\n'-separated text one line per slurm_info message
 * ("sbatch: spank_slo: ...") (ctx_submit.c). */
void sslo_info_lines(const char *text);

/* Record name=value for slurmctld (spank_job_control_setenv) and, in the
 * local context (srun's own allocation), SLURM_SPANK_<name> in srun's
 * environment, which its tasks inherit. 0, or -1 after slurm_error naming
 * the record (ctx_submit.c). */
int sslo_record_one(spank_t sp, const char *name, const char *value);

/* The submission found no plan (sslo_plan / sslo_serve_plan
 * SLO_ERR_INFEASIBLE or SLO_ERR_UNREACHABLE, reason its text): under
 * --slo-mode=enforce two slurm_error lines, the reason and "relax RELAX, or
 * submit with --slo-mode=advise", and -1 (the submission fails); under
 * advise a slurm_info warning that the request is left unchanged and 0
 * (ctx_submit.c). */
int sslo_no_plan(enum sslo_mode mode, const char *reason, const char *relax);

/* The submission's plan was found: its table (res->table, '\n'-separated)
 * logged with sslo_info_lines and, under advise, that the request is left
 * unchanged (ctx_submit.c). */
void sslo_show_plan(enum sslo_mode mode, const char *table);

/* The value of the job's SLURM_SPANK_<name> (spank_getenv) in v[len], or ""
 * when absent or longer (ctx_remote.c). */
void sslo_job_record(spank_t sp, const char *name, char *v, size_t len);

/* slurmctld's record of the job of an enforced plan (remote context): 1 with
 * *msg (slurm_load_job SHOW_DETAIL, at least one record; free with
 * slurm_free_job_info_msg) and *job_id; else 0, *msg NULL, and why[len] says
 * which: SLO_MODE not "enforce", no job id (S_JOB_ID), or slurmctld could
 * not be read (slurm_strerror) (ctx_remote.c). */
int sslo_enforced_job(spank_t sp, uint32_t *job_id, job_info_msg_t **msg, char *why,
                      size_t len);

/* The first two checks of an enforced plan's job record j (job job_id):
 * 1 when its AdminComment is mark (job_submit.lua's mark of the plan it
 * applied, admins only) and its partition is part; else 0 with the reason
 * in why[len] naming what the record has and what the plan says
 * (ctx_remote.c). */
int sslo_job_marked(const slurm_job_info_t *j, uint32_t job_id, const char *mark,
                    const char *part, char *why, size_t len);

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

/*
 * --slo-serve (ctx_serve.c). Allocator/local context, from
 * sslo_submit_post_opt when --slo-serve was given: refuse it next to
 * --slo-loss/--slo-time/--slo-workload/--slo-budget, open the site's GPU
 * profile (plugstack infer_profile=) and catalog, plan (sslo_serve_plan),
 * print the plan and record it (spank_job_control_setenv). Returns 0, or -1
 * when the submission must fail (bad input, no plan in enforce mode).
 */
int sslo_serve_submit(spank_t sp, struct sslo_state *st);

/*
 * Remote context, slurm_spank_user_init of a job whose SLURM_SPANK_SLO_KIND
 * is serve: export the records as plain SLO_* only when slurmctld's job
 * record shows the enforced plan applied (AdminComment
 * "slo-serve:<SLO_SERVE_PLAN>" written by job_submit.lua, partition, one
 * node, TresPerNode gres:<SLO_GRES>, features); otherwise drop them. Sets
 * st->serve_ok and the tenants for sslo_serve_task_init. Always 0.
 */
int sslo_serve_remote_user_init(spank_t sp, struct sslo_state *st);

/*
 * Remote context, slurm_spank_task_init (one task of a step other than the
 * batch script and the extern step): with a verified serving plan, the
 * task's tenant k - SLO_SERVE_TENANT=k in its environment, else
 * task k-1 of a step with as many tasks as tenants - gets
 * CUDA_MPS_ACTIVE_THREAD_PERCENTAGE (its share), SLO_SERVE_TENANT,
 * SLO_SERVE_MODEL, SLO_SERVE_BATCH, SLO_SERVE_RATE_RPS, SLO_SERVE_SLO_MS,
 * SLO_SERVE_GPU and, in a job of several GPUs, CUDA_VISIBLE_DEVICES = its
 * GPU's entry of the step's list. Always 0 (logged, never fails the task).
 */
int sslo_serve_task_init(spank_t sp, struct sslo_state *st);

#endif /* SSLO_SPANK_SLO_H */
