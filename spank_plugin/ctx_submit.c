/*
 * ctx_submit.c - allocator (sbatch, salloc) and local (srun) context:
 * validate, load catalog and workload profile, read the live node inventory,
 * plan with libslo, show the plan, record it for job_submit.lua.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Why here: a SPANK plugin cannot change the request itself; it records the
 * plan with spank_job_control_setenv and slurmctld's job_submit.lua applies
 * it (shared/research/slurm-mpi-feasibility.md 3.2-3.3, mechanism A).
 * slurm_load_node resolves from the host process (sbatch/salloc/srun link
 * libslurmfull), so the module is not linked with -lslurm (notes 1.2, 3.2).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "plan.h"
#include "spank_slo.h"

const char *sslo_env_get(const char *name)
{
    return getenv(name);
}

void sslo_info_lines(const char *text)
{
    while (*text) {
        size_t n = strcspn(text, "\n");
        slurm_info("%s: %.*s", SSLO_LOG_PREFIX, (int)n, text);
        text += n;
        if (*text)
            text++;
    }
}

int sslo_no_plan(enum sslo_mode mode, const char *reason, const char *relax)
{
    if (mode == SSLO_MODE_ENFORCE) {
        slurm_error("%s: %s", SSLO_LOG_PREFIX, reason);
        slurm_error("%s: relax %s, or submit with --slo-mode=advise", SSLO_LOG_PREFIX, relax);
        return -1;
    }
    slurm_info("%s: warning: %s; advise mode: the request is left unchanged", SSLO_LOG_PREFIX,
               reason);
    return 0;
}

void sslo_show_plan(enum sslo_mode mode, const char *table)
{
    sslo_info_lines(table);
    if (mode == SSLO_MODE_ADVISE)
        slurm_info("%s: advise mode: the request is left unchanged", SSLO_LOG_PREFIX);
}

/* The live inventory as sslo_node records (borrowing msg's strings), with
 * each node's partitions (slurm_populate_node_partitions, as scontrol and
 * sinfo do: slurmctld does not send them with the nodes). */
static int load_inventory(node_info_msg_t **msg, struct sslo_node **nodes, size_t *n)
{
    partition_info_msg_t *parts = NULL;

    *msg = NULL;
    if (slurm_load_node((time_t)0, msg, SHOW_ALL) != SLURM_SUCCESS) {
        slurm_error("%s: cannot read the node inventory (slurm_load_node): %s", SSLO_LOG_PREFIX,
                    slurm_strerror(slurm_get_errno()));
        *msg = NULL;
        return -1;
    }
    if (slurm_load_partitions((time_t)0, &parts, SHOW_ALL) != SLURM_SUCCESS) {
        slurm_error("%s: cannot read the partitions (slurm_load_partitions): %s",
                    SSLO_LOG_PREFIX, slurm_strerror(slurm_get_errno()));
        return -1;
    }
    slurm_populate_node_partitions(*msg, parts);
    slurm_free_partition_info_msg(parts);
    *n = (*msg)->record_count;
    *nodes = calloc(*n ? *n : 1, sizeof **nodes);
    if (!*nodes) {
        slurm_error("%s: out of memory reading the node inventory", SSLO_LOG_PREFIX);
        return -1;
    }
    for (size_t i = 0; i < *n; i++) {
        const node_info_t *ni = &(*msg)->node_array[i];
        (*nodes)[i].name = ni->name; /* NULL: hidden CLOUD node, skipped */
        (*nodes)[i].features = ni->features;
        (*nodes)[i].partitions = ni->partitions;
        (*nodes)[i].state = ni->node_state;
    }
    return 0;
}

int sslo_record_one(spank_t sp, const char *name, const char *value)
{
    char var[64];
    spank_err_t rc = spank_job_control_setenv(sp, name, value, 1);
    if (rc != ESPANK_SUCCESS) {
        slurm_error("%s: cannot record %s=%s (spank_job_control_setenv): %s", SSLO_LOG_PREFIX,
                    name, value, spank_strerror(rc));
        return -1;
    }
    snprintf(var, sizeof var, "SLURM_SPANK_%s", name);
    if (spank_context() == S_CTX_LOCAL && setenv(var, value, 1) != 0) {
        slurm_error("%s: cannot set %s in srun's environment", SSLO_LOG_PREFIX, var);
        return -1;
    }
    return 0;
}

/* Record the plan for slurmctld (job_desc.spank_job_env). sbatch and salloc
 * also export it to the job as SLURM_SPANK_<NAME>; srun does not, so in the
 * local context the same names go into srun's own environment, which the
 * tasks inherit (spank(8): setenv() is how local/allocator contexts change
 * the job environment), for ctx_remote.c to find. */
static int record(spank_t sp, const struct sslo_plan_result *res)
{
    for (int i = 0; i < SSLO_N_RECORDS; i++)
        if (sslo_record_one(sp, sslo_record_names[i], res->values[i]))
            return -1;
    /* --slo-budget, only when given: slo-requeue re-plans within it. */
    if (res->budget[0]) {
        spank_err_t rc = spank_job_control_setenv(sp, SSLO_BUDGET_RECORD, res->budget, 1);
        if (rc != ESPANK_SUCCESS) {
            slurm_error("%s: cannot record %s=%s (spank_job_control_setenv): %s",
                        SSLO_LOG_PREFIX, SSLO_BUDGET_RECORD, res->budget, spank_strerror(rc));
            return -1;
        }
    }
    return 0;
}

/* 1 when the environment entry e ("NAME=value") is one the enclosing job
 * passes down (sslo_submit_forget_inherited). */
static int inherited_entry(const char *e)
{
    static const char *const prefixes[] = {"SLURM_SPANK__SLURM_SPANK_OPTION_slo_",
                                           "SLURM_SPANK_SLO_", "SLO_PLAN=",
                                           /* a serving plan's records (serve.h) */
                                           "SLO_SERVE_", "SLO_KIND="};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(e, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    for (int i = 0; i < SSLO_N_RECORDS; i++) {
        size_t n = strlen(sslo_record_names[i]);
        if (strncmp(e, sslo_record_names[i], n) == 0 && e[n] == '=')
            return 1;
    }
    return 0;
}

int sslo_submit_forget_inherited(void)
{
    extern char **environ;
    char name[256];
    int removed = 0;

    for (size_t i = 0; environ && environ[i];) {
        const char *e = environ[i], *eq = strchr(e, '=');
        size_t n = eq ? (size_t)(eq - e) : strlen(e);
        if (!inherited_entry(e) || n >= sizeof name) {
            i++;
            continue;
        }
        memcpy(name, e, n);
        name[n] = '\0';
        if (unsetenv(name) != 0) {
            i++;
            continue;
        }
        removed++; /* environ changed: look at index i again */
    }
    return removed;
}

int sslo_submit_post_opt(spank_t sp, struct sslo_state *st)
{
    struct sslo_options o = st->opt;
    struct slo_catalog cat = {0};
    struct slo_workload wl = {0};
    struct sslo_plan_result *res = NULL;
    struct sslo_node *nodes = NULL;
    node_info_msg_t *node_msg = NULL;
    slo_error_t err = {0};
    char msg[SSLO_MSG_LENGTH], path[SSLO_PATH_LENGTH];
    const char *workload;
    enum sslo_mode mode;
    size_t n_nodes = 0;
    int *usable = NULL, rv = -1, prc;

    /* srun inside an allocation starts a step: the allocation was sized
     * already (and the submission's options come back from the
     * environment). --slo-* on srun's own command line gets one line
     * (trial S9: it was ignored silently). */
    if (spank_context() == S_CTX_LOCAL && getenv("SLURM_JOB_ID")) {
        if (st->step_note)
            slurm_info("%s: inside job %s: --slo-* ignored for a job step (the allocation "
                       "was sized at submission)",
                       SSLO_LOG_PREFIX, getenv("SLURM_JOB_ID"));
        else
            slurm_verbose("%s: inside job %s: no planning for a job step", SSLO_LOG_PREFIX,
                          getenv("SLURM_JOB_ID"));
        return 0;
    }
    /* --slo-serve: a serving job (ctx_serve.c) */
    if (st->cfg_ok && o.n_serve > 0)
        return sslo_serve_submit(sp, st);
    if (!st->cfg_ok || (!o.have_loss && !o.have_time))
        return 0;
    if (o.have_loss != o.have_time) {
        slurm_error("%s: %s: expected --slo-loss and --slo-time together, found %s alone",
                    SSLO_LOG_PREFIX, o.have_loss ? "--slo-time" : "--slo-loss",
                    o.have_loss ? "--slo-loss" : "--slo-time");
        return -1;
    }
    if (sslo_options_apply_env(&o, sslo_env_get, msg, sizeof msg)) {
        slurm_error("%s: %s", SSLO_LOG_PREFIX, msg);
        return -1;
    }
    mode = sslo_effective_mode(&o, &st->cfg);
    workload = sslo_effective_workload(&o, &st->cfg);
    if (!workload[0]) {
        slurm_error("%s: --slo-workload: expected a workload name with --slo-loss/--slo-time "
                    "(the site sets no default workload=), found none",
                    SSLO_LOG_PREFIX);
        return -1;
    }
    if (sslo_workload_path(&st->cfg, workload, path, sizeof path, msg, sizeof msg)) {
        slurm_error("%s: %s", SSLO_LOG_PREFIX, msg);
        return -1;
    }
    if (!st->cfg.catalog[0]) {
        slurm_error("%s: plugstack.conf: expected a catalog=PATH argument for planning, found "
                    "none (ask the site admin)",
                    SSLO_LOG_PREFIX);
        return -1;
    }
    if (slo_catalog_load(st->cfg.catalog, &cat, &err) != SLO_OK) {
        slurm_error("%s: instance catalog %s: %s", SSLO_LOG_PREFIX, st->cfg.catalog, err.text);
        goto out;
    }
    if (sslo_catalog_check_pools(&cat, st->cfg.catalog, msg, sizeof msg)) {
        slurm_error("%s: %s", SSLO_LOG_PREFIX, msg);
        goto out;
    }
    if (slo_workload_load(path, &wl, &err) != SLO_OK) {
        slurm_error("%s: workload profile %s: %s", SSLO_LOG_PREFIX, path, err.text);
        goto out;
    }
    if (load_inventory(&node_msg, &nodes, &n_nodes))
        goto out;
    res = calloc(1, sizeof *res);
    if (!res || sslo_inventory_quotas(&st->cfg, &cat, nodes, n_nodes, sslo_effective_pricing(&o),
                                      &usable)) {
        slurm_error("%s: out of memory", SSLO_LOG_PREFIX);
        goto out;
    }

    struct sslo_plan_request req = {
        .workload = wl.name,
        .loss = o.loss,
        .deadline_s = o.time_s,
        .budget_usd = o.have_budget ? o.budget_usd : 0,
        .pricing = sslo_effective_pricing(&o),
        .mode = mode,
        .confidence = o.have_confidence ? o.confidence : 0,
    };
    prc = sslo_plan(&st->cfg, &cat, usable, &wl, &req, res, &err);
    if (prc == SLO_OK && res->on_demand_pick) {
        /* --slo-confidence: the plan at on-demand prices is the cheapest that
         * reaches it (P = 1); plan it on the nodes usable on demand. */
        slurm_info("%s: --slo-confidence=%g: only the plan at on-demand prices meets the "
                   "deadline with that probability at the least expected cost",
                   SSLO_LOG_PREFIX, req.confidence);
        req.pricing = SLO_PRICING_ON_DEMAND;
        req.confidence = 0;
        slo_catalog_free(&cat);
        free(usable);
        usable = NULL;
        if (slo_catalog_load(st->cfg.catalog, &cat, &err) != SLO_OK) {
            slurm_error("%s: instance catalog %s: %s", SSLO_LOG_PREFIX, st->cfg.catalog,
                        err.text);
            goto out;
        }
        if (sslo_inventory_quotas(&st->cfg, &cat, nodes, n_nodes, req.pricing, &usable)) {
            slurm_error("%s: out of memory", SSLO_LOG_PREFIX);
            goto out;
        }
        prc = sslo_plan(&st->cfg, &cat, usable, &wl, &req, res, &err);
    }
    if (prc == SLO_ERR_INFEASIBLE || prc == SLO_ERR_UNREACHABLE) {
        rv = sslo_no_plan(mode, res->reason, "--slo-loss/--slo-time");
        goto out;
    }
    if (prc != SLO_OK) {
        slurm_error("%s: planning with catalog %s and workload %s failed: %s%s%s",
                    SSLO_LOG_PREFIX, st->cfg.catalog, path, err.source,
                    err.source[0] ? ": " : "", err.text);
        goto out;
    }
    sslo_show_plan(mode, res->table);
    if (record(sp, res))
        goto out;
    rv = 0;
out:
    free(res);
    free(usable);
    free(nodes);
    if (node_msg)
        slurm_free_node_info_msg(node_msg);
    slo_workload_free(&wl);
    slo_catalog_free(&cat);
    return rv;
}
