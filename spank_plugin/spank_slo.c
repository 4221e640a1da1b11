/*
 * spank_slo.c - the SPANK entry points of spank_slo.so: one small dispatcher
 * per hook on spank_context() (pattern of NVIDIA/pyxis pyxis_dispatch.c).
 * Hook/context matrix: shared/research/slurm-mpi-feasibility.md 3.1.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdlib.h>
#include <string.h>

#include "spank_slo.h"

/* plugin_name "slo": options travel as _SLURM_SPANK_OPTION_slo_slo_loss. */
SPANK_PLUGIN(slo, 1)

static struct sslo_state state;

struct sslo_state *sslo_state(void)
{
    return &state;
}

/*
 * Every context, first hook: parse the plugstack arguments av[ac] (strict
 * key=value, args.h) and register the --slo-* options (allocator, local,
 * remote). Returns -1 on a bad plugstack line in the allocator, local and
 * slurmd contexts (so a `required` plugin stops sbatch/srun/slurmd with the
 * message), 0 otherwise and always in slurmstepd and prolog/epilog.
 */
int slurm_spank_init(spank_t sp, int ac, char **av)
{
    char msg[SSLO_MSG_LENGTH];
    spank_context_t ctx = spank_context();
    int rv = 0;

    memset(&state, 0, sizeof state);
    /* Plugstack arguments are the admin's: a mistake fails at load time
     * (slurmd start, sbatch), naming the argument. The options
     * are registered all the same, so that with an `optional` plugin a job
     * script using --slo-* still goes through (unplanned). */
    if (sslo_config_parse(&state.cfg, ac, av, msg, sizeof msg)) {
        slurm_error("%s: %s", SSLO_LOG_PREFIX, msg);
        rv = -1;
    } else {
        state.cfg_ok = 1;
    }
    switch (ctx) {
    case S_CTX_ALLOCATOR:
    case S_CTX_LOCAL:
        /* sbatch/salloc inside a job: not re-planned from what the job
         * passes down (before Slurm applies environment options). */
        if (ctx == S_CTX_ALLOCATOR && getenv("SLURM_JOB_ID")) {
            int n = sslo_submit_forget_inherited();
            if (n)
                slurm_verbose("%s: inside job %s: %d inherited --slo-*/SLO_* variables not "
                              "passed on (give --slo-* to plan this submission)",
                              SSLO_LOG_PREFIX, getenv("SLURM_JOB_ID"), n);
        }
        /* Where plans are made: workloads= must be a readable directory
         * (a mistake names the argument here, once, not per job). */
        if (state.cfg_ok && sslo_config_check_workloads(&state.cfg, msg, sizeof msg)) {
            slurm_error("%s: %s", SSLO_LOG_PREFIX, msg);
            rv = -1;
        }
        if (sslo_options_register(sp))
            rv = -1;
        return rv;
    case S_CTX_SLURMD:
        /* A bad plugstack line stops slurmd at start, before any job. */
        return rv;
    case S_CTX_REMOTE:
        /* Logged; a step never fails (no node drains) because of this plugin. */
        sslo_options_register(sp);
        return 0;
    default:
        /* Prolog/epilog (job_script): logged only, for the same reason. */
        return 0;
    }
}

/* After the options: plan and record in allocator/local context
 * (ctx_submit.c); nothing elsewhere. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    switch (spank_context()) {
    case S_CTX_ALLOCATOR:
    case S_CTX_LOCAL:
        return sslo_submit_post_opt(sp, &state);
    default:
        return 0;
    }
}

/* Remote context, before the tasks start: SLO_* into the job (ctx_remote.c). */
int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (spank_context() == S_CTX_REMOTE)
        return sslo_remote_user_init(sp, &state);
    return 0;
}

/* Remote context, each task: its tenant's MPS share of a serving plan
 * (ctx_serve.c). */
int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (spank_context() == S_CTX_REMOTE)
        return sslo_serve_task_init(sp, &state);
    return 0;
}

/* Every context, last hook: forget the state. */
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    (void)sp;
    (void)ac;
    (void)av;
    memset(&state, 0, sizeof state);
    return 0;
}
