/*
 * forge_spank.c - test-only SPANK plugin: forges an SLO plan without spank_slo.so.
 *
 * The integration tests (tests/slurm_submit.sh) must show that job_submit.lua
 * rejects a plan that was not made by spank_slo.so: the plan travels to
 * slurmctld as job_desc.spank_job_env, which any user can fill with their own
 * plugstack.conf (doc/slurm.md, "job_submit.lua": the plan is user-controlled;
 * shared/research/slurm-mpi-feasibility.md 3.3 A, caveat 5). This plugin is
 * that user's plugin: in allocator and local context (sbatch, salloc, srun)
 * it records every NAME=VALUE word of the environment variable
 * SLO_TEST_FORGE with spank_job_control_setenv, exactly as spank_slo.so
 * records its plan. Words are separated by spaces; a word without '=' is
 * ignored. It is built only for `make check` (check_LTLIBRARIES, never
 * installed) and, like every SPANK plugin, is not linked with -lslurm: the
 * spank_* symbols come from the process that loads it.
 */
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

SPANK_PLUGIN(slo_test_forge, 1)

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av);

/* slurm_spank_init_post_opt: record SLO_TEST_FORGE's words (allocator/local
 * context only). Returns 0, or -1 when spank_job_control_setenv fails. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    spank_context_t ctx = spank_context();
    if (ctx != S_CTX_ALLOCATOR && ctx != S_CTX_LOCAL)
        return 0;
    const char *forge = getenv("SLO_TEST_FORGE");
    if (forge == NULL)
        return 0;
    char *copy = strdup(forge);
    if (copy == NULL)
        return -1;
    int rv = 0;
    char *save = NULL;
    for (char *w = strtok_r(copy, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(w, '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        if (spank_job_control_setenv(sp, w, eq + 1, 1) != ESPANK_SUCCESS) {
            slurm_error("slo_test_forge: spank_job_control_setenv %s failed", w);
            rv = -1;
            break;
        }
    }
    free(copy);
    return rv;
}
