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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spank_slo.h"

/*
 * srun inside an allocation (local context with SLURM_JOB_ID set): 1 when
 * the user gave option val on srun's own command line, 0 when srun re-read it
 * from the job's environment, where sbatch/salloc's options travel as
 * SLURM_SPANK__SLURM_SPANK_OPTION_slo_<name, '-' as '_'> (Slurm 22.05
 * spank.c spank_process_env_options) with the value given at submission.
 * A user value equal to the inherited one counts as inherited (nothing is
 * lost by not mentioning it).
 */
static int step_option_given(int val, const char *optarg)
{
    char var[96];
    const char *inherited;
    int n;

    if (spank_context() != S_CTX_LOCAL || !getenv("SLURM_JOB_ID"))
        return 0;
    if (strncmp(sslo_option_name(val), "--", 2) != 0)
        return 0;
    n = snprintf(var, sizeof var, "SLURM_SPANK__SLURM_SPANK_OPTION_slo_%s",
                 sslo_option_name(val) + 2);
    if (n < 0 || (size_t)n >= sizeof var)
        return 1;
    for (char *c = var; *c; c++)
        if (*c == '-')
            *c = '_';
    inherited = getenv(var);
    return !inherited || strcmp(inherited, optarg ? optarg : "") != 0;
}

static int option_cb(int val, const char *optarg, int remote)
{
    struct sslo_state *st = sslo_state();
    struct sslo_options tmp = st->opt;
    char msg[SSLO_MSG_LENGTH];

    if (remote) {
        if (sslo_option_parse(&tmp, val, optarg, msg, sizeof msg) == 0)
            st->opt = tmp;
        return 0;
    }
    if (sslo_option_parse(&tmp, val, optarg, msg, sizeof msg)) {
        slurm_error("%s: %s", SSLO_LOG_PREFIX, msg);
        return -1;
    }
    /* Only the syntax here (trial S4): a callback's failure fails sbatch
     * even with an `optional` plugin, so the profile file is looked up in
     * init_post_opt (ctx_submit.c), whose failure `optional` ignores. */
    if (step_option_given(val, optarg))
        st->step_note = 1;
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
    {"slo-confidence", "P",
     "SLO: the cheapest plan in expected cost that meets --slo-time with probability >= P, "
     "in (0, 1), under the catalog's spot interruption rates (spank_slo(8))",
     1, SSLO_OPT_CONFIDENCE, option_cb},
    /* --slo-serve: a serving job (serve.h, ctx_serve.c) */
    {"slo-serve", "MODEL:rate=R:slo=MS[,...]",
     "SLO: serve MODEL (a model of the site's GPU profile) at R req/s within MS ms "
     "latency; repeatable; sizes the job's GPUs and MPS shares (spank_slo(8))",
     1, SSLO_OPT_SERVE, option_cb},
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
