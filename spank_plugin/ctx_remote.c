/*
 * ctx_remote.c - remote context (slurmstepd): export the plan recorded at
 * submission into the job as plain SLO_* variables.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * sbatch/salloc/srun put the job-control environment into the job as
 * SLURM_SPANK_<NAME> (shared/research/slurm-mpi-feasibility.md 3.1); here
 * SLURM_SPANK_SLO_X becomes SLO_X, and SLO_INSTANCES also SLO_PLAN. Nothing
 * here fails the step: problems are logged (slurmd log), never returned.
 */
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "spank_slo.h"

/* Longest value exported + 1: the plugin records at most SSLO_VALUE_LENGTH - 1
 * characters, job_submit.lua accepts SLO_INSTANCES up to 1024. A longer
 * value is not exported (spank_getenv: ESPANK_NOSPACE), never cut short. */
#define SSLO_REMOTE_VALUE_LENGTH 4096

static void export_one(spank_t sp, const char *from, const char *to)
{
    char value[SSLO_REMOTE_VALUE_LENGTH];
    spank_err_t rc = spank_getenv(sp, from, value, sizeof value);

    if (rc == ESPANK_ENV_NOEXIST)
        return;
    if (rc == ESPANK_NOSPACE) {
        slurm_info("%s: %s not exported as %s: longer than %d characters", SSLO_LOG_PREFIX,
                   from, to, SSLO_REMOTE_VALUE_LENGTH - 1);
        return;
    }
    if (rc != ESPANK_SUCCESS) {
        slurm_info("%s: %s not exported: %s", SSLO_LOG_PREFIX, from, spank_strerror(rc));
        return;
    }
    rc = spank_setenv(sp, to, value, 1);
    if (rc != ESPANK_SUCCESS)
        slurm_info("%s: cannot set %s: %s", SSLO_LOG_PREFIX, to, spank_strerror(rc));
}

int sslo_remote_user_init(spank_t sp, struct sslo_state *st)
{
    char name[64], version[16];

    (void)st;
    /* Only a job submitted with a plan: SLO_PLAN_VERSION is written first. */
    if (spank_getenv(sp, "SLURM_SPANK_SLO_PLAN_VERSION", version, sizeof version) !=
        ESPANK_SUCCESS)
        return 0;
    for (int i = 0; i < SSLO_N_RECORDS; i++) {
        snprintf(name, sizeof name, "SLURM_SPANK_%s", sslo_record_names[i]);
        export_one(sp, name, sslo_record_names[i]);
    }
    export_one(sp, "SLURM_SPANK_SLO_INSTANCES", "SLO_PLAN");
    return 0;
}
