/*
 * ctx_serve.c - --slo-serve in every context: plan and record at submission
 * (allocator/local), verify and export in the job (remote: user_init for
 * the job-wide records, task_init for each tenant's share).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Same flow as training (ctx_submit.c, ctx_remote.c; doc/slurm.md
 * "Serving jobs"): the plugin records, job_submit.lua applies and marks the
 * job record (AdminComment slo-serve:...), the remote context exports only
 * what that record shows applied. Nothing in the remote context fails a
 * step or a task.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "spank_slo.h"

#define SSLO_REMOTE_VALUE_LENGTH 4096

/* spank_job_control_setenv every record (and, for srun's own allocation,
 * SLURM_SPANK_<NAME> in srun's environment, as ctx_submit.c record()). */
static int record(spank_t sp, const struct sslo_serve_result *res)
{
    for (int i = 0; i < SSLO_SERVE_N_RECORDS; i++)
        if (sslo_record_one(sp, sslo_serve_record_names[i], res->values[i]))
            return -1;
    return 0;
}

int sslo_serve_submit(spank_t sp, struct sslo_state *st)
{
    struct sslo_options o = st->opt;
    struct slo_ig_profile prof = {0};
    struct slo_catalog cat = {0};
    struct sslo_serve_result *res = NULL;
    slo_error_t err = {0};
    char msg[SSLO_MSG_LENGTH];
    enum sslo_mode mode;
    enum slo_pricing pricing;
    int rv = -1, prc, have_cat = 0;

    if (o.have_loss || o.have_time || o.have_workload || o.have_budget || o.have_confidence) {
        slurm_error("%s: --slo-serve: expected alone (a serving job), found %s with it; "
                    "--slo-loss/--slo-time size a training job: submit them as another job",
                    SSLO_LOG_PREFIX,
                    o.have_loss     ? "--slo-loss"
                    : o.have_time   ? "--slo-time"
                    : o.have_workload ? "--slo-workload"
                    : o.have_budget ? "--slo-budget"
                                    : "--slo-confidence");
        return -1;
    }
    /* only --slo-mode and --slo-pricing apply; their environment fallbacks */
    {
        struct sslo_options e = o;
        if (sslo_options_apply_env(&e, sslo_env_get, msg, sizeof msg)) {
            slurm_error("%s: %s", SSLO_LOG_PREFIX, msg);
            return -1;
        }
        o.have_mode = e.have_mode;
        o.mode = e.mode;
        o.have_pricing = e.have_pricing;
        o.pricing = e.pricing;
    }
    mode = sslo_effective_mode(&o, &st->cfg);
    pricing = sslo_effective_pricing(&o);
    if (!st->cfg.infer_profile[0]) {
        slurm_error("%s: --slo-serve: expected an infer_profile=NAME|PATH argument in "
                    "plugstack.conf (the site's GPU profile), found none (ask the site admin)",
                    SSLO_LOG_PREFIX);
        return -1;
    }
    if (slo_ig_profile_open(st->cfg.infer_profile, "plugstack.conf infer_profile", &prof,
                            &err) != SLO_OK) {
        slurm_error("%s: GPU profile %s: %s%s%s", SSLO_LOG_PREFIX, st->cfg.infer_profile,
                    err.source, err.source[0] ? ": " : "", err.text);
        goto out;
    }
    /* prices: the site's catalog=, else the kernel's default catalog (as
     * `slo infer` without --catalog); a profile with gpu.usd_per_h needs none */
    /* `slo infer`'s default (cli/cmd_infer.c): the embedded aws-table3 */
    const char *catalog = st->cfg.catalog[0] ? st->cfg.catalog : "aws-table3";
    if (slo_catalog_open(catalog, "plugstack.conf catalog", &cat, &err) != SLO_OK) {
        slurm_error("%s: instance catalog %s: %s", SSLO_LOG_PREFIX, catalog, err.text);
        goto out;
    }
    have_cat = 1;
    res = calloc(1, sizeof *res);
    if (!res) {
        slurm_error("%s: out of memory", SSLO_LOG_PREFIX);
        goto out;
    }
    prc = sslo_serve_plan(&st->cfg, &cat, &prof, o.serve, (size_t)o.n_serve, pricing, mode, res,
                          &err);
    if (prc == SLO_ERR_INFEASIBLE) {
        rv = sslo_no_plan(mode, res->reason, "--slo-serve's rate= or slo=");
        goto out;
    }
    if (prc != SLO_OK) {
        /* bad input (unknown model, a share that rounds to 0, too many GPUs):
         * refused in either mode */
        if (strcmp(err.source, "--slo-serve") == 0)
            slurm_error("%s: --slo-serve: %s", SSLO_LOG_PREFIX, err.text);
        else
            slurm_error("%s: --slo-serve with profile %s: %s%s%s", SSLO_LOG_PREFIX,
                        st->cfg.infer_profile, err.source, err.source[0] ? ": " : "", err.text);
        goto out;
    }
    sslo_show_plan(mode, res->table);
    if (record(sp, res))
        goto out;
    rv = 0;
out:
    free(res);
    if (have_cat)
        slo_catalog_free(&cat);
    slo_ig_profile_free(&prof);
    return rv;
}

/* ------------------------------------------------------------------ remote */

/* 1 when slurmctld's record of this job shows the enforced serving plan
 * applied (see sslo_serve_remote_user_init); else 0 with why. */
static int serve_applied(spank_t sp, const char *plan, char *why, size_t len)
{
    char part[SSLO_VALUE_LENGTH], nodes[32], cons[SSLO_VALUE_LENGTH];
    char gres[SSLO_VALUE_LENGTH], mark[SSLO_VALUE_LENGTH + 16], tres[SSLO_VALUE_LENGTH + 8];
    uint32_t job_id = 0;
    job_info_msg_t *msg = NULL;
    int ok = 0;

    sslo_job_record(sp, "SLO_PARTITION", part, sizeof part);
    sslo_job_record(sp, "SLO_NODES", nodes, sizeof nodes);
    sslo_job_record(sp, "SLO_CONSTRAINT", cons, sizeof cons);
    sslo_job_record(sp, "SLO_GRES", gres, sizeof gres);
    snprintf(mark, sizeof mark, "slo-serve:%s", plan);
    snprintf(tres, sizeof tres, "gres:%s", gres);
    if (!sslo_enforced_job(sp, &job_id, &msg, why, len))
        return 0;
    const slurm_job_info_t *j = &msg->job_array[0];
    if (sslo_job_marked(j, job_id, mark, part, why, len)) {
        if (strcmp(nodes, "1") != 0 || j->num_nodes != 1)
            snprintf(why, len, "job %u has %u nodes, a serving plan has 1", job_id, j->num_nodes);
        else if (!j->tres_per_node || strcmp(j->tres_per_node, tres) != 0)
            snprintf(why, len, "job %u has TresPerNode %s, the plan says %s", job_id,
                     j->tres_per_node ? j->tres_per_node : "(none)", tres);
        else if (cons[0] && (!j->features || strcmp(j->features, cons) != 0))
            snprintf(why, len, "job %u has features %s, the plan says %s", job_id,
                     j->features ? j->features : "(none)", cons);
        else
            ok = 1;
    }
    slurm_free_job_info_msg(msg);
    return ok;
}

int sslo_serve_remote_user_init(spank_t sp, struct sslo_state *st)
{
    char plan[SSLO_VALUE_LENGTH], gpus[16], name[64], value[SSLO_REMOTE_VALUE_LENGTH];
    char why[SSLO_MSG_LENGTH];
    int n = 0;

    st->serve_ok = 0;
    why[0] = '\0';
    sslo_job_record(sp, "SLO_SERVE_PLAN", plan, sizeof plan);
    sslo_job_record(sp, "SLO_SERVE_GPUS", gpus, sizeof gpus);
    int applied = serve_applied(sp, plan, why, sizeof why);
    if (applied && (sslo_serve_parse_plan(plan, st->serve, SSLO_SERVE_MAX_TENANTS, &n) ||
                    atoi(gpus) < 1)) {
        snprintf(why, sizeof why, "SLO_SERVE_PLAN or SLO_SERVE_GPUS malformed");
        applied = 0;
    }
    if (!applied) {
        char mode[16];
        sslo_job_record(sp, "SLO_MODE", mode, sizeof mode);
        if (strcmp(mode, "advise") == 0)
            return 0; /* advice: never exported as SLO_* */
        slurm_info("%s: SLURM_SPANK_SLO_* of the serving plan not exported as SLO_*: %s",
                   SSLO_LOG_PREFIX, why);
        for (int i = 0; i < SSLO_SERVE_N_RECORDS; i++) {
            snprintf(name, sizeof name, "SLURM_SPANK_%s", sslo_serve_record_names[i]);
            spank_unsetenv(sp, name);
        }
        return 0;
    }
    st->serve_n = n;
    st->serve_gpus = atoi(gpus);
    st->serve_ok = 1;
    for (int i = 0; i < SSLO_SERVE_N_RECORDS; i++) {
        snprintf(name, sizeof name, "SLURM_SPANK_%s", sslo_serve_record_names[i]);
        if (spank_getenv(sp, name, value, sizeof value) != ESPANK_SUCCESS)
            continue;
        if (spank_setenv(sp, sslo_serve_record_names[i], value, 1) != ESPANK_SUCCESS)
            slurm_info("%s: cannot set %s", SSLO_LOG_PREFIX, sslo_serve_record_names[i]);
    }
    return 0;
}

/* Entry k (0-based) of the comma-separated list in v, into out[len]; -1 when
 * the list has not exactly want entries. */
static int list_entry(const char *v, int k, int want, char *out, size_t len)
{
    int count = 0;
    const char *p = v;
    out[0] = '\0';
    while (*p) {
        size_t l = strcspn(p, ",");
        if (count == k && l < len) {
            memcpy(out, p, l);
            out[l] = '\0';
        }
        count++;
        p += l;
        if (*p == ',')
            p++;
    }
    return count == want && out[0] ? 0 : -1;
}

int sslo_serve_task_init(spank_t sp, struct sslo_state *st)
{
    char v[64], dev[SSLO_REMOTE_VALUE_LENGTH], one[64];
    uint32_t ntasks = 0, rank = 0;
    int k = 0;
    const struct sslo_serve_tenant *t;

    uint32_t step = 0;

    if (!st->serve_ok || st->serve_n < 1)
        return 0;
    /* the batch script (and the extern step) starts tenants, it is none:
     * a tenant's variables there would be inherited by every step */
    if (spank_get_item(sp, S_JOB_STEPID, &step) != ESPANK_SUCCESS || step == SLURM_BATCH_SCRIPT ||
        step == SLURM_EXTERN_CONT)
        return 0;
    if (spank_getenv(sp, "SLO_SERVE_TENANT", v, sizeof v) == ESPANK_SUCCESS && v[0]) {
        char *end;
        long x = strtol(v, &end, 10);
        if (*end || x < 1 || x > st->serve_n) {
            slurm_info("%s: SLO_SERVE_TENANT=%s: expected a tenant 1..%d of the serving plan; "
                       "no per-tenant share set", SSLO_LOG_PREFIX, v, st->serve_n);
            return 0;
        }
        k = (int)x;
    } else if (spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &ntasks) == ESPANK_SUCCESS &&
               spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) == ESPANK_SUCCESS &&
               (int)ntasks == st->serve_n && rank < ntasks) {
        k = (int)rank + 1;
    } else {
        return 0; /* a step that is not one task per tenant: job-wide records only */
    }
    t = &st->serve[k - 1];
#define SET(name, ...)                                                                 \
    do {                                                                               \
        snprintf(v, sizeof v, __VA_ARGS__);                                            \
        if (spank_setenv(sp, name, v, 1) != ESPANK_SUCCESS)                            \
            slurm_info("%s: cannot set %s for tenant %d", SSLO_LOG_PREFIX, name, k);   \
    } while (0)
    SET("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "%d", t->mps_pct);
    SET("SLO_SERVE_TENANT", "%d", k);
    SET("SLO_SERVE_MODEL", "%s", t->model);
    SET("SLO_SERVE_BATCH", "%d", t->batch);
    SET("SLO_SERVE_RATE_RPS", "%.6g", t->rate_rps);
    SET("SLO_SERVE_SLO_MS", "%.6g", t->slo_ms);
    SET("SLO_SERVE_GPU", "%d", t->gpu);
#undef SET
    /* whole GPUs (gpu:G): the tenant sees its own GPU only */
    if (st->serve_gpus > 1) {
        if (spank_getenv(sp, "CUDA_VISIBLE_DEVICES", dev, sizeof dev) == ESPANK_SUCCESS &&
            list_entry(dev, t->gpu, st->serve_gpus, one, sizeof one) == 0) {
            if (spank_setenv(sp, "CUDA_VISIBLE_DEVICES", one, 1) != ESPANK_SUCCESS)
                slurm_info("%s: cannot set CUDA_VISIBLE_DEVICES for tenant %d", SSLO_LOG_PREFIX,
                           k);
        } else {
            slurm_info("%s: tenant %d: CUDA_VISIBLE_DEVICES does not list the job's %d GPUs; "
                       "left as it is", SSLO_LOG_PREFIX, k, st->serve_gpus);
        }
    }
    return 0;
}
