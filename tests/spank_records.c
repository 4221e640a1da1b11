/*
 * spank_records.c - print spank_slo.so's own SLO_* records (sslo_plan() of
 * spank_plugin/plan.c, the code the plugin records with
 * spank_job_control_setenv) for several plans, for tests/slurm_lua.sh to
 * run through etc/slurm/job_submit.lua (review finding 11c: no test fed the
 * plugin's real records to the Lua script; finding 2: SLO_LOSS=5e-05 was
 * rejected by its ^%d+%.?%d*$).
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Output, one block per plan:
 *   case NAME
 *   site-type TYPE onprem|cloud     (every type of the catalog: the harness
 *                                    adds them to job_submit.lua's SITE)
 *   record NAME=VALUE               (the 17 records, in the plugin's order,
 *                                    then SLO_BUDGET_USD when the plan has a budget)
 *   end
 * Exit 0, or 1 with a message on stderr when a plan fails.
 * Cases: the test cluster's plans (tests/slurm/, loose and tight SLO,
 * on-demand), a tiny loss (5e-05, 1.5e-07) and a huge one (1e10), a 63-character
 * type name, and 8 types with 55-character names all in one plan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "spank_synth.h"

static int failed;

static void print_case(const char *name, const struct sslo_config *cfg,
                       const struct slo_catalog *cat, const struct slo_workload *wl,
                       const struct sslo_plan_request *req)
{
    struct sslo_plan_result *r = calloc(1, sizeof *r);
    slo_error_t err = {0};
    int rv;

    if (!r) {
        fprintf(stderr, "spank_records: out of memory\n");
        exit(1);
    }
    rv = sslo_plan(cfg, cat, NULL, wl, req, r, &err);
    if (rv != SLO_OK) {
        fprintf(stderr, "spank_records: case %s: sslo_plan returned %s: %s %s %s\n", name,
                slo_code_name(rv), r->reason, err.source, err.text);
        failed = 1;
        free(r);
        return;
    }
    printf("case %s\n", name);
    for (size_t k = 0; k < cat->n_types; k++)
        printf("site-type %s %s\n", cat->types[k].name,
               cat->types[k].site == SLO_SITE_ONPREM ? "onprem" : "cloud");
    for (int i = 0; i < SSLO_N_RECORDS; i++)
        printf("record %s=%s\n", sslo_record_names[i], r->values[i]);
    if (r->budget[0]) /* --slo-budget: written only when given (ctx_submit.c) */
        printf("record %s=%s\n", SSLO_BUDGET_RECORD, r->budget);
    printf("end\n");
    free(r);
}

/* The catalog is named "records" too (the records name the workload). */
static void records_init(struct synth *s, size_t n, const char *const *names,
                         const enum slo_site *sites, double g3, double g5)
{
    synth_init(s, n, names, sites, "records", g3, g5);
    snprintf(s->cat.name, sizeof s->cat.name, "records");
}

int main(void)
{
    const char *src = getenv("SLO_SRCDIR");
    char path[1024];
    struct slo_catalog cat = {0};
    struct slo_workload wl = {0};
    struct sslo_config cfg;
    slo_error_t err = {0};
    struct sslo_plan_request req = {.workload = "testnet", .loss = 0.8, .deadline_s = 2400,
                                    .pricing = SLO_PRICING_SPOT, .mode = SSLO_MODE_ENFORCE};

    if (sslo_config_parse(&cfg, 0, NULL, NULL, 0)) {
        fprintf(stderr, "spank_records: default plugstack configuration refused\n");
        return 1;
    }
    /* The test cluster (quotas as its nodes: n1 a100, n2 t4, c1/c2 g4dn). */
    snprintf(path, sizeof path, "%s/tests/slurm/catalog.json", src ? src : ".");
    if (slo_catalog_load(path, &cat, &err) != SLO_OK) {
        fprintf(stderr, "spank_records: %s: %s\n", path, err.text);
        return 1;
    }
    snprintf(path, sizeof path, "%s/tests/slurm/workloads/testnet.json", src ? src : ".");
    if (slo_workload_load(path, &wl, &err) != SLO_OK) {
        fprintf(stderr, "spank_records: %s: %s\n", path, err.text);
        slo_catalog_free(&cat);
        return 1;
    }
    sslo_apply_inventory(&cat, (int[]){1, 1, 2}, cfg.max_nodes);
    print_case("test-cluster-onprem-40min", &cfg, &cat, &wl, &req);
    req.deadline_s = 1380;
    print_case("test-cluster-burst-23min", &cfg, &cat, &wl, &req);
    req.mode = SSLO_MODE_ADVISE;
    print_case("test-cluster-burst-advise", &cfg, &cat, &wl, &req);
    req.mode = SSLO_MODE_ENFORCE;
    req.deadline_s = 2400;
    req.budget_usd = 10;
    sslo_apply_inventory(&cat, (int[]){0, 0, 2}, cfg.max_nodes);
    print_case("test-cluster-cloud-spot", &cfg, &cat, &wl, &req);
    req.pricing = SLO_PRICING_ON_DEMAND;
    req.budget_usd = 5.0000004; /* SLO_BUDGET_USD 6 decimals: "5" */
    print_case("test-cluster-cloud-on-demand", &cfg, &cat, &wl, &req);
    slo_catalog_free(&cat);
    slo_workload_free(&wl);

    struct synth *s = calloc(1, sizeof *s);
    if (!s)
        return 1;
    static const char *const short_name[] = {"g4dn.12xlarge"};
    static const enum slo_site cloud8[8] = {SLO_SITE_CLOUD, SLO_SITE_CLOUD, SLO_SITE_CLOUD,
                                            SLO_SITE_CLOUD, SLO_SITE_CLOUD, SLO_SITE_CLOUD,
                                            SLO_SITE_CLOUD, SLO_SITE_CLOUD};
    req = (struct sslo_plan_request){.workload = "records", .pricing = SLO_PRICING_SPOT,
                                     .mode = SSLO_MODE_ENFORCE};
    /* Tiny losses: g5 = 0, g3 = 0.002: j = 0.002 / 5e-05 = 40 iterations. */
    records_init(s, 1, short_name, cloud8, 0.002, 0);
    req.loss = 5e-05;
    req.deadline_s = 3600;
    print_case("loss-5e-05", &cfg, &s->cat, &s->wl, &req);
    req.loss = 1.5e-07; /* j = 13334 iterations, 5689 s */
    req.deadline_s = 86400;
    print_case("loss-1.5e-07", &cfg, &s->cat, &s->wl, &req);
    /* A huge loss: met in one iteration. */
    records_init(s, 1, short_name, cloud8, 2000, 0.5);
    req.loss = 1e10;
    req.deadline_s = 60;
    print_case("loss-1e10", &cfg, &s->cat, &s->wl, &req);

    /* The longest type name a catalog holds (63 characters). */
    static const char *const long_name[] = {
        "gpu-node-with-a-very-long-instance-type-name-for-slurm-features"};
    records_init(s, 1, long_name, cloud8, 2000, 0.5);
    req.loss = 0.8;
    req.deadline_s = 7200;
    print_case("type-name-63-characters", &cfg, &s->cat, &s->wl, &req);

    /* 8 types with 55-character names, one node each, identical: with a
     * deadline between the 7- and 8-worker times (j = 2000 sqrt(n) / 0.3
     * rounded up; 8 workers: 18857 x 0.426667 / 8 = 1005.7 s; 7: 17639 x
     * 0.426667 / 7 = 1075.1 s) only all 8 meet it. */
    char names8[8][64];
    const char *np[8];
    for (int k = 0; k < 8; k++) {
        snprintf(names8[k], sizeof names8[k], "cloud-gpu-node-type-%c-%s", (char)('0' + k),
                 "with-a-long-name-for-features-xx");
        np[k] = names8[k];
    }
    records_init(s, 8, np, cloud8, 2000, 0.5);
    req.loss = 0.8;
    req.deadline_s = 1040;
    print_case("eight-types-55-characters", &cfg, &s->cat, &s->wl, &req);
    /* Half on-prem: a mixed (burst) plan (other names: the harness keeps one
     * site per type name). */
    for (int k = 0; k < 8; k++)
        snprintf(names8[k], sizeof names8[k], "burst-gpu-node-type-%c-%s", (char)('0' + k),
                 "with-a-long-name-for-features-xx");
    static const enum slo_site mixed8[8] = {SLO_SITE_ONPREM, SLO_SITE_ONPREM, SLO_SITE_ONPREM,
                                            SLO_SITE_ONPREM, SLO_SITE_CLOUD,  SLO_SITE_CLOUD,
                                            SLO_SITE_CLOUD,  SLO_SITE_CLOUD};
    records_init(s, 8, np, mixed8, 2000, 0.5);
    print_case("eight-types-mixed-burst", &cfg, &s->cat, &s->wl, &req);
    free(s);
    return failed;
}
