/*
 * spank_risk_plan.c - print spank_slo.so's plan for --slo-confidence
 * (sslo_plan() of spank_plugin/plan.c, the code the plugin plans with), for
 * tests/spank_confidence.sh to compare with `slo train --slo-confidence P
 * --exact --max-nodes N` on the same catalog and workload (issue 13 item 4:
 * the plugin's plan must equal the CLI's).
 *   spank_risk_plan CATALOG WORKLOAD LOSS DEADLINE_S CONFIDENCE MAX_NODES [BUDGET_USD]
 * Output, one line:
 *   plan TYPE:N,... time TIME_S cost COST_USD p P    (the records SLO_INSTANCES,
 *                                                     SLO_TIME_S, SLO_COST_USD)
 *   on-demand-pick                                   (the pick is the plan at
 *                                                     on-demand prices)
 *   refused REASON                                   (SLO_ERR_INFEASIBLE)
 *   error SOURCE: TEXT                               (any other error)
 * The catalog's quotas are taken as the usable nodes (no inventory). Exit 0
 * (every outcome printed), 1 when the inputs cannot be read.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

int main(int argc, char **argv)
{
    struct slo_catalog cat = {0};
    struct slo_workload wl = {0};
    struct sslo_config cfg;
    struct sslo_plan_result *r;
    slo_error_t err = {0};
    char arg[32], *av[1] = {arg};
    int rv;

    if (argc != 7 && argc != 8) {
        fprintf(stderr, "usage: spank_risk_plan CATALOG WORKLOAD LOSS DEADLINE_S CONFIDENCE "
                        "MAX_NODES [BUDGET_USD]\n");
        return 1;
    }
    snprintf(arg, sizeof arg, "max_nodes=%s", argv[6]);
    if (sslo_config_parse(&cfg, 1, av, NULL, 0)) {
        fprintf(stderr, "spank_risk_plan: max_nodes=%s refused\n", argv[6]);
        return 1;
    }
    if (slo_catalog_load(argv[1], &cat, &err) != SLO_OK ||
        slo_workload_load(argv[2], &wl, &err) != SLO_OK) {
        fprintf(stderr, "spank_risk_plan: %s: %s\n", err.source, err.text);
        slo_catalog_free(&cat);
        return 1;
    }
    struct sslo_plan_request req = {.workload = wl.name, .loss = atof(argv[3]),
                                    .deadline_s = atof(argv[4]), .pricing = SLO_PRICING_SPOT,
                                    .mode = SSLO_MODE_ENFORCE, .confidence = atof(argv[5]),
                                    .budget_usd = argc == 8 ? atof(argv[7]) : 0};
    r = calloc(1, sizeof *r);
    if (!r) {
        slo_catalog_free(&cat);
        slo_workload_free(&wl);
        return 1;
    }
    rv = sslo_plan(&cfg, &cat, NULL, &wl, &req, r, &err);
    if (rv == SLO_OK && r->on_demand_pick)
        printf("on-demand-pick\n");
    else if (rv == SLO_OK)
        printf("plan %s time %s cost %s p %.10g\n", sslo_plan_value(r, "SLO_INSTANCES"),
               sslo_plan_value(r, "SLO_TIME_S"), sslo_plan_value(r, "SLO_COST_USD"), r->p_meet);
    else if (rv == SLO_ERR_INFEASIBLE)
        printf("refused %s\n", r->reason);
    else
        printf("error %s: %s\n", err.source, err.text);
    free(r);
    slo_catalog_free(&cat);
    slo_workload_free(&wl);
    return 0;
}
