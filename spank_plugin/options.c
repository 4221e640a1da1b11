/*
 * options.c - the --slo-* options: registration and callbacks.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Slurm may run a callback more than once for one command (srun in a job
 * re-parses the options from SLURM_SPANK__SLURM_SPANK_OPTION_slo_*; the
 * remote context gets them again), so a callback only validates and stores:
 * the last value wins. In the remote context (slurmstepd) it never fails:
 * the value was checked at submission, and a step must not fail on it.
 */
#include <stdlib.h>

#include "spank_slo.h"

static int option_cb(int val, const char *optarg, int remote)
{
    struct sslo_state *st = sslo_state();
    struct sslo_options tmp = st->opt;
    char msg[SSLO_MSG_LENGTH], path[SSLO_PATH_LENGTH];

    if (remote) {
        if (sslo_option_parse(&tmp, val, optarg, msg, sizeof msg) == 0)
            st->opt = tmp;
        return 0;
    }
    if (sslo_option_parse(&tmp, val, optarg, msg, sizeof msg)) {
        slurm_error("%s: %s", SSLO_LOG_PREFIX, msg);
        return -1;
    }
    /* The profile must exist where the plan is made; inside an allocation
     * srun does not plan (ctx_submit.c), so it does not look there. A site
     * mistake (no or bad plugstack arguments) is reported by the hooks, whose
     * failure an `optional` plugin ignores; a callback's would fail sbatch. */
    if (val == SSLO_OPT_WORKLOAD && st->cfg_ok && st->cfg.workloads[0] &&
        !getenv("SLURM_JOB_ID") &&
        sslo_workload_path(&st->cfg, tmp.workload, path, sizeof path, msg, sizeof msg)) {
        slurm_error("%s: %s", SSLO_LOG_PREFIX, msg);
        return -1;
    }
    st->opt = tmp;
    return 0;
}

static struct spank_option options[] = {
    {"slo-loss", "LOSS",
     "SLO: target training loss (a number > 0); with --slo-time, the allocation is sized "
     "by the slo-kernel planner (spank_slo(8))",
     1, SSLO_OPT_LOSS, option_cb},
    {"slo-time", "TIME",
     "SLO: time to reach --slo-loss, in sbatch --time forms (MM, MM:SS, HH:MM:SS, D-HH, "
     "D-HH:MM, D-HH:MM:SS) or 2400s, 40m, 2h",
     1, SSLO_OPT_TIME, option_cb},
    {"slo-workload", "NAME", "SLO: training workload profile NAME (site workloads directory)",
     1, SSLO_OPT_WORKLOAD, option_cb},
    {"slo-budget", "USD", "SLO: reject plans that cost more than USD", 1, SSLO_OPT_BUDGET,
     option_cb},
    {"slo-pricing", "spot|on-demand", "SLO: price cloud nodes as spot (default) or on-demand",
     1, SSLO_OPT_PRICING, option_cb},
    {"slo-mode", "advise|enforce",
     "SLO: enforce (size the allocation) or advise (print the plan, change nothing)", 1,
     SSLO_OPT_MODE, option_cb},
};

int sslo_options_register(spank_t sp)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        spank_err_t rc = spank_option_register(sp, &options[i]);
        if (rc != ESPANK_SUCCESS) {
            slurm_error("%s: cannot register --%s: %s", SSLO_LOG_PREFIX, options[i].name,
                        spank_strerror(rc));
            return -1;
        }
    }
    return 0;
}
