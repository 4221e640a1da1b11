/*
 * plan.h - node inventory -> catalog quotas, the libslo training planner,
 * and the plan as the SLO_* records of the contract (pure code: no spank.h,
 * no Slurm calls; tests/test_spank_plan.c links it directly).
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Contract: /work/coord/PLAN-CONTRACT.md ("Instance types <-> Slurm nodes",
 * "What the plugin records"). The plan itself is libslo's: the same
 * slo_train_setup_init + slo_plan_exact (recommended plan) and, when nothing
 * meets the SLO, slo_plan_fastest / budget-free slo_plan_exact as `slo train`
 * (cli/cmd_train.c) uses; no formula is re-derived here.
 */
#ifndef SSLO_PLAN_H
#define SSLO_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "slo.h"

/* One node of the live inventory (slurm_load_node's node_info_t, reduced). */
struct sslo_node {
    const char *name;     /* NULL for a hidden node (CLOUD without PrivateData=cloud) */
    const char *features; /* available features, comma-separated; may be NULL */
    uint32_t state;       /* node_state: enum node_states | NODE_STATE_* flags */
};

/*
 * 1 when a node in state (slurm.h node_state) can run a planned job now or
 * after a power-up: not DOWN, FUTURE or UNKNOWN-with-no-response, and without
 * the DRAIN, FAIL, NO_RESPOND (unless powered down) or INVALID_REG flags.
 * CLOUD and POWERED_DOWN / POWERING_UP nodes count as available (cloud
 * capacity that the ResumeProgram starts).
 */
int sslo_node_usable(uint32_t state);

/* 1 when the comma-separated list features holds feature exactly. */
int sslo_features_have(const char *features, const char *feature);

/*
 * usable[k] (array of cat->n_types) = usable named nodes whose features hold
 * the name of catalog type k. For cloud types a node counts under spot
 * pricing unless its features hold "ondemand" only, and under on-demand
 * pricing unless they hold "spot" only (a node with neither counts for both).
 * Nodes with a NULL name are skipped.
 */
void sslo_inventory_count(const struct slo_catalog *cat, const struct sslo_node *nodes,
                          size_t n_nodes, enum slo_pricing pricing, int *usable);

/* Lower every catalog quota to min(catalog quota, usable[k], max_nodes):
 * types with no usable node get quota 0. */
void sslo_apply_inventory(struct slo_catalog *cat, const int *usable, int max_nodes);

/* What the user asked for. */
struct sslo_plan_request {
    const char *workload;  /* name, for the records */
    double loss;           /* L_obj */
    double deadline_s;     /* T_obj, s */
    double budget_usd;     /* <= 0: none */
    enum slo_pricing pricing;
    enum sslo_mode mode;
};

#define SSLO_N_RECORDS 17
#define SSLO_VALUE_LENGTH 512
#define SSLO_TABLE_LENGTH 4096

/* NULL-terminated names of the records, in the order they are written. */
extern const char *const sslo_record_names[SSLO_N_RECORDS + 1];

struct sslo_plan_result {
    int feasible;                          /* 1: records and table hold the plan */
    char reason[SSLO_MSG_LENGTH];          /* infeasible: why, and the closest point */
    char values[SSLO_N_RECORDS][SSLO_VALUE_LENGTH]; /* of sslo_record_names[i] */
    char table[SSLO_TABLE_LENGTH];         /* the plan for people, '\n'-separated lines */
    int nodes;                             /* total nodes of the plan */
};

/*
 * Plan: bind cat (quotas already lowered by sslo_apply_inventory) and wl under
 * req->pricing, run slo_plan_exact, and format the plan as records (values[i]
 * for sslo_record_names[i]: SLO_PARTITION from the sites of the types in the
 * plan: on-prem only -> cfg->onprem_partition, cloud only -> spot or
 * on-demand partition by pricing, both -> cfg->burst_partition) and a table.
 * usable ([cat->n_types], may be NULL) is shown in the table.
 * Returns SLO_OK with out->feasible = 1; SLO_ERR_INFEASIBLE (no plan meets
 * deadline and budget with the usable nodes, or the plan needs more than
 * cfg->max_nodes nodes) or SLO_ERR_UNREACHABLE (the loss model cannot reach
 * req->loss) with out->feasible = 0 and out->reason naming the closest
 * feasible point (the cheapest plan without the budget, else the fastest
 * plan and its time); other codes (SLO_ERR_INVALID: the workload profiles no
 * type of the catalog; SLO_ERR_NOMEM) with err filled.
 */
int sslo_plan(const struct sslo_config *cfg, const struct slo_catalog *cat, const int *usable,
              const struct slo_workload *wl, const struct sslo_plan_request *req,
              struct sslo_plan_result *out, slo_error_t *err);

/* values[] entry of record name, or NULL. */
const char *sslo_plan_value(const struct sslo_plan_result *r, const char *name);

#endif /* SSLO_PLAN_H */
