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

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

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

void sslo_job_record(spank_t sp, const char *name, char *v, size_t len)
{
    char var[64];
    snprintf(var, sizeof var, "SLURM_SPANK_%s", name);
    if (spank_getenv(sp, var, v, (int)len) != ESPANK_SUCCESS)
        v[0] = '\0';
}

int sslo_enforced_job(spank_t sp, uint32_t *job_id_out, job_info_msg_t **msg_out, char *why,
                      size_t len)
{
    char mode[16];
    uint32_t job_id = 0;
    job_info_msg_t *msg = NULL;

    *msg_out = NULL;
    sslo_job_record(sp, "SLO_MODE", mode, sizeof mode);
    if (strcmp(mode, "enforce") != 0) {
        snprintf(why, len, "SLO_MODE is %s, not an enforced plan", mode[0] ? mode : "missing");
        return 0;
    }
    if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS) {
        snprintf(why, len, "no job id (spank_get_item S_JOB_ID)");
        return 0;
    }
    if (slurm_load_job(&msg, job_id, SHOW_DETAIL) != SLURM_SUCCESS || !msg ||
        msg->record_count < 1) {
        snprintf(why, len, "cannot read job %u from slurmctld: %s", job_id,
                 slurm_strerror(slurm_get_errno()));
        if (msg)
            slurm_free_job_info_msg(msg);
        return 0;
    }
    *job_id_out = job_id;
    *msg_out = msg;
    return 1;
}

int sslo_job_marked(const slurm_job_info_t *j, uint32_t job_id, const char *mark,
                    const char *part, char *why, size_t len)
{
    if (!j->admin_comment || strcmp(j->admin_comment, mark) != 0)
        snprintf(why, len, "job %u's AdminComment is %s, not %s (job_submit.lua marks the plans "
                 "it applied)", job_id, j->admin_comment ? j->admin_comment : "(none)", mark);
    else if (!j->partition || strcmp(j->partition, part) != 0)
        snprintf(why, len, "job %u is in partition %s, the plan says %s", job_id,
                 j->partition ? j->partition : "(none)", part);
    else
        return 1;
    return 0;
}

/* AdminComment of a job that slo-requeue re-planned: "slo-replan:K NAME=value
 * NAME=value ..." (power/requeue.c writes it). */
#define SSLO_REPLAN_MARK "slo-replan:"
/* Where the job writes its progress (python/slo/trainlog.py StepLogger's
 * progress file), in the job's working directory: slo-requeue reads it on
 * the slurmctld host (a shared filesystem, doc/slurm.md). %u: job id. */
#define SSLO_PROGRESS_NAME "slo-progress-%u.json"

/* 1 when slurmctld's record of this job shows the enforced plan of the job's
 * SLURM_SPANK_SLO_* applied: AdminComment "slo-plan:<SLO_INSTANCES>" (which
 * job_submit.lua writes when it applies a plan, and which only admins can
 * set or change) and the plan's SLO_PARTITION, SLO_NODES and
 * SLO_CONSTRAINT; else 0 with the reason in why[len]. What the job's
 * environment says is the user's to set (sbatch --export): only the job
 * record is evidence that the plan is real. */
static int plan_applied(spank_t sp, char *why, size_t len, char *replan, size_t replan_len,
                        char *progress, size_t progress_len)
{
    char part[SSLO_VALUE_LENGTH], nodes[32], cons[SSLO_VALUE_LENGTH];
    char inst[SSLO_VALUE_LENGTH], mark[SSLO_VALUE_LENGTH + 16];
    uint32_t job_id = 0;
    job_info_msg_t *msg = NULL;
    int ok = 0;

    sslo_job_record(sp, "SLO_PARTITION", part, sizeof part);
    sslo_job_record(sp, "SLO_NODES", nodes, sizeof nodes);
    sslo_job_record(sp, "SLO_CONSTRAINT", cons, sizeof cons);
    sslo_job_record(sp, "SLO_INSTANCES", inst, sizeof inst);
    snprintf(mark, sizeof mark, "slo-plan:%s", inst);
    if (!sslo_enforced_job(sp, &job_id, &msg, why, len))
        return 0;
    const slurm_job_info_t *j = &msg->job_array[0];
    char n[32];
    snprintf(n, sizeof n, "%u", j->num_nodes);
    replan[0] = progress[0] = '\0';
    /* A re-plan by slo-requeue (SlurmUser, doc/slurm.md "Re-planning on
     * requeue"): the job record's AdminComment carries the new plan's
     * records, which only an admin can write; they replace the
     * submission's partition, nodes and constraint in the checks below. */
    if (j->admin_comment && strncmp(j->admin_comment, SSLO_REPLAN_MARK,
                                    strlen(SSLO_REPLAN_MARK)) == 0 &&
        strlen(j->admin_comment) < replan_len) {
        strcpy(replan, j->admin_comment);
        snprintf(mark, sizeof mark, "%s", j->admin_comment);
        sslo_mark_value(replan, "SLO_PARTITION", part, sizeof part);
        sslo_mark_value(replan, "SLO_NODES", nodes, sizeof nodes);
        sslo_mark_value(replan, "SLO_CONSTRAINT", cons, sizeof cons);
    }
    if (j->work_dir && j->work_dir[0] == '/')
        snprintf(progress, progress_len, "%s/" SSLO_PROGRESS_NAME, j->work_dir, job_id);
    if (sslo_job_marked(j, job_id, mark, part, why, len)) {
        if (strcmp(n, nodes) != 0)
            snprintf(why, len, "job %u has %s nodes, the plan says %s", job_id, n, nodes);
        else if (!j->features || strcmp(j->features, cons) != 0)
            snprintf(why, len, "job %u has features %s, the plan says %s", job_id,
                     j->features ? j->features : "(none)", cons);
        else
            ok = 1;
    }
    slurm_free_job_info_msg(msg);
    return ok;
}

/* Remove the SLURM_SPANK_SLO_* records of an unverified plan from the job. */
static void drop_records(spank_t sp)
{
    char name[64];
    for (int i = 0; i < SSLO_N_RECORDS; i++) {
        snprintf(name, sizeof name, "SLURM_SPANK_%s", sslo_record_names[i]);
        spank_unsetenv(sp, name);
    }
}

int sslo_remote_user_init(spank_t sp, struct sslo_state *st)
{
    char name[64], version[16], why[SSLO_MSG_LENGTH];
    char replan[SSLO_REMOTE_VALUE_LENGTH], progress[SSLO_PATH_LENGTH + 64];

    (void)st;
    /* Only a job submitted with a plan: SLO_PLAN_VERSION is written first. */
    if (spank_getenv(sp, "SLURM_SPANK_SLO_PLAN_VERSION", version, sizeof version) !=
        ESPANK_SUCCESS)
        return 0;
    /* a serving plan (--slo-serve) has its own records and check */
    {
        char kind[16];
        sslo_job_record(sp, "SLO_KIND", kind, sizeof kind);
        if (strcmp(kind, "serve") == 0)
            return sslo_serve_remote_user_init(sp, st);
    }
    if (!plan_applied(sp, why, sizeof why, replan, sizeof replan, progress, sizeof progress)) {
        char mode[16];
        sslo_job_record(sp, "SLO_MODE", mode, sizeof mode);
        if (strcmp(mode, "advise") == 0)
            return 0; /* advice: left as sbatch recorded it, never exported as SLO_* */
        slurm_info("%s: SLURM_SPANK_SLO_* not exported as SLO_*: %s", SSLO_LOG_PREFIX, why);
        drop_records(sp);
        return 0;
    }
    for (int i = 0; i < SSLO_N_RECORDS; i++) {
        snprintf(name, sizeof name, "SLURM_SPANK_%s", sslo_record_names[i]);
        export_one(sp, name, sslo_record_names[i]);
    }
    export_one(sp, "SLURM_SPANK_SLO_INSTANCES", "SLO_PLAN");
    if (replan[0]) {
        /* The re-plan's records replace the submission's (SLO_DEADLINE_S,
         * SLO_LOSS, SLO_WORKLOAD stay: the SLO is the user's). */
        static const char *const extra[] = {"SLO_REPLAN", "SLO_ELAPSED_S", "SLO_LOSS_NOW", NULL};
        char v[SSLO_VALUE_LENGTH];
        for (int i = 0; i < SSLO_N_RECORDS; i++) {
            sslo_mark_value(replan, sslo_record_names[i], v, sizeof v);
            if (v[0] && spank_setenv(sp, sslo_record_names[i], v, 1) != ESPANK_SUCCESS)
                slurm_info("%s: cannot set %s", SSLO_LOG_PREFIX, sslo_record_names[i]);
            if (v[0] && strcmp(sslo_record_names[i], "SLO_INSTANCES") == 0)
                spank_setenv(sp, "SLO_PLAN", v, 1);
        }
        for (int i = 0; extra[i]; i++) {
            sslo_mark_value(replan, extra[i], v, sizeof v);
            if (v[0])
                spank_setenv(sp, extra[i], v, 1);
        }
    }
    if (progress[0] && spank_setenv(sp, "SLO_PROGRESS_FILE", progress, 1) != ESPANK_SUCCESS)
        slurm_info("%s: cannot set SLO_PROGRESS_FILE", SSLO_LOG_PREFIX);
    return 0;
}
