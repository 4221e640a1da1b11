/*
 * plan.h - node inventory -> catalog quotas, the libslo training planner,
 * and the plan as the SLO_* records of the contract (pure code: no spank.h,
 * no Slurm calls; tests/test_spank_plan.c links it directly).
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Contract: doc/slurm.md, "The recorded plan" (instance types and nodes,
 * records). The plan itself is libslo's: one slo_train_solve call (exact
 * search, max_workers = the site's max_nodes), the call `slo train`
 * (cli/cmd_train.c) makes, so `slo train --exact --max-nodes N` gives the
 * same plan; no formula is re-derived here.
 */
#ifndef SSLO_PLAN_H
#define SSLO_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "slo.h"

/* One node of the live inventory (slurm_load_node's node_info_t, reduced). */
struct sslo_node {
    const char *name;       /* NULL for a hidden node (CLOUD without PrivateData=cloud) */
    const char *features;   /* available features, comma-separated; may be NULL */
    const char *partitions; /* partitions holding the node, comma-separated (filled by
                               slurm_populate_node_partitions); NULL: in none */
    uint32_t state;         /* node_state: enum node_states | NODE_STATE_* flags */
};

/*
 * 1 when a node in state (slurm.h node_state) can run a planned job now or
 * after a power-up, else 0. Not usable: base state DOWN or FUTURE; base
 * state UNKNOWN (slurmd has not registered since slurmctld started) or the
 * NO_RESPOND flag (`idle*`: slurmd does not answer), unless the node is
 * POWERED_DOWN or POWERING_UP (a node being resumed does not answer until its
 * slurmd registers); the DRAIN, FAIL or INVALID_REG flags. CLOUD and
 * POWERED_DOWN / POWERING_UP nodes otherwise count as available (cloud
 * capacity that the ResumeProgram starts). Source: slurm.h node_states and
 * NODE_STATE_* flags (Slurm 22.05), scontrol(1) NODE STATE suffixes.
 */
int sslo_node_usable(uint32_t state);

/* 1 when the comma-separated list features holds feature exactly. */
int sslo_features_have(const char *features, const char *feature);

/*
 * usable[k] (array of cat->n_types) = usable named nodes whose features hold
 * the name of catalog type k and that belong to a partition a plan holding
 * type k may be sent to (see sslo_plan): cfg->onprem_partition or
 * cfg->burst_partition for on-prem types; cfg->spot_partition (spot pricing)
 * or cfg->ondemand_partition (on-demand pricing) or cfg->burst_partition for
 * cloud types. For cloud types a node counts under spot pricing unless its
 * features hold "ondemand" only, and under on-demand pricing unless they hold
 * "spot" only (a node with neither counts for both). Nodes with a NULL name
 * are skipped.
 */
void sslo_inventory_count(const struct sslo_config *cfg, const struct slo_catalog *cat,
                          const struct sslo_node *nodes, size_t n_nodes,
                          enum slo_pricing pricing, int *usable);

/* Lower every catalog quota to min(catalog quota, usable[k], max_nodes):
 * types with no usable node get quota 0. */
void sslo_apply_inventory(struct slo_catalog *cat, const int *usable, int max_nodes);

/*
 * sslo_inventory_count then sslo_apply_inventory(cat, usable, cfg->max_nodes)
 * with usable allocated here: *usable is [cat->n_types] (at least one
 * element, also for a catalog without types), caller frees it.
 * Returns 0, or -1 (out of memory, *usable NULL).
 */
int sslo_inventory_quotas(const struct sslo_config *cfg, struct slo_catalog *cat,
                          const struct sslo_node *nodes, size_t n_nodes,
                          enum slo_pricing pricing, int **usable);

/*
 * Refuse a catalog with spot pools (entries TYPE@ZONE, doc/formats.md "Spot
 * pools"): the plugin counts usable nodes by the Slurm feature of an
 * instance type and asks Slurm for nodes by that feature, and a node's
 * feature says nothing of its pool, so a pool's quota would be counted as
 * zero (a plan that silently leaves out the pools) or, if counted by type,
 * shared among the type's pools (a plan that needs more nodes than there
 * are). cat is the loaded catalog, path its file (for the message).
 * Returns 0 (no pool), or -1 with msg (size len) naming the file, the first
 * pool entry, what was expected and what was found.
 */
int sslo_catalog_check_pools(const struct slo_catalog *cat, const char *path, char *msg,
                             size_t len);

/* What the user asked for. */
struct sslo_plan_request {
    const char *workload;  /* name, for the records */
    double loss;           /* L_obj */
    double deadline_s;     /* T_obj, s */
    double budget_usd;     /* <= 0: none */
    enum slo_pricing pricing;
    enum sslo_mode mode;
    double confidence;     /* --slo-confidence in (0, 1); 0: none (issue 13 item 4) */
    /* Re-planning a requeued job (slo-requeue; 0 for a fresh plan), as
     * slo_train_problem's fields of the same names: */
    double loss_now;       /* loss reached so far; <= 0: fresh start */
    double elapsed_s;      /* s since the first start; the plan gets deadline_s - elapsed_s */
    double overhead_s;     /* restart overhead added to the plan's time, s, >= 0 */
};

#define SSLO_N_RECORDS 17
/* Longest record value + 1; a plan whose SLO_INSTANCES or SLO_CONSTRAINT does
 * not fit is refused (sslo_plan), never cut short. */
#define SSLO_VALUE_LENGTH 512
/* Longest numeric record (SLO_COST_USD, SLO_LOSS, ...): job_submit.lua
 * rejects informative values longer than 64 characters. */
#define SSLO_NUMBER_LENGTH 64
#define SSLO_TABLE_LENGTH 4096

/* NULL-terminated names of the records, in the order they are written. */
extern const char *const sslo_record_names[SSLO_N_RECORDS + 1];

struct sslo_plan_result {
    int feasible;                          /* 1: records and table hold the plan */
    char reason[SSLO_MSG_LENGTH];          /* infeasible: why, and the closest point */
    char values[SSLO_N_RECORDS][SSLO_VALUE_LENGTH]; /* of sslo_record_names[i] */
    char table[SSLO_TABLE_LENGTH];         /* the plan for people, '\n'-separated lines */
    int nodes;                             /* total nodes of the plan */
    /* --slo-confidence (issue 13 item 4): */
    int on_demand_pick;                    /* 1: the risk-aware plan is the plan at
                                              on-demand prices; nothing is formatted:
                                              plan again with pricing on-demand on
                                              the nodes usable for it */
    double p_meet;                         /* the plan's P(deadline met), -1 unknown */
    /* SLO_BUDGET_USD (SSLO_BUDGET_RECORD): req->budget_usd in fixed point, 6
     * decimals, no trailing zeros; "" when the request has no budget. Not one
     * of sslo_record_names: written only when given (ctx_submit.c), read back
     * by slo-requeue to re-plan within the submission's budget. */
    char budget[SSLO_NUMBER_LENGTH + 1];
};

#define SSLO_BUDGET_RECORD "SLO_BUDGET_USD"

/*
 * Plan: slo_train_solve of cat (quotas already lowered by
 * sslo_apply_inventory) and wl under req->pricing, exact search only, with at
 * most cfg->max_nodes nodes in total (slo_train_options.max_workers: one
 * worker per node), and format the plan as
 * records (values[i] for sslo_record_names[i]: SLO_PARTITION from the sites of
 * the types in the plan: on-prem only -> cfg->onprem_partition, cloud only ->
 * spot or on-demand partition by pricing, both -> cfg->burst_partition) and a
 * table. Numeric records are fixed-point decimals without exponent or
 * trailing zeros (job_submit.lua's ^%d+%.?%d*$): SLO_COST_USD 6 decimals,
 * SLO_COST_USD_PER_H 4, SLO_TIME_S 2, SLO_DEADLINE_S and SLO_ITERATIONS 0,
 * SLO_LOSS 10 significant digits (5e-05 -> "0.00005", 1e10 -> "10000000000").
 * usable ([cat->n_types], may be NULL) is shown in the table.
 * Returns SLO_OK with out->feasible = 1; SLO_ERR_INFEASIBLE (no plan of at
 * most cfg->max_nodes nodes meets deadline and budget with the usable nodes)
 * or SLO_ERR_UNREACHABLE (the loss model cannot reach req->loss) with
 * out->feasible = 0 and out->reason naming the closest feasible point (the
 * cheapest plan without the budget, else the fastest plan and its time, both
 * within max_nodes); SLO_ERR_INVALID with err->source the record name when a
 * record does not fit (SLO_INSTANCES or SLO_CONSTRAINT longer than
 * SSLO_VALUE_LENGTH - 1 characters: many or long type names; a number longer
 * than SSLO_NUMBER_LENGTH characters in fixed point); other codes
 * (SLO_ERR_INVALID: the workload profiles no type of the catalog;
 * SLO_ERR_NOMEM) with err filled.
 * With req->confidence in (0, 1) and spot pricing, the plan is
 * slo_risk_plan's (the cheapest in expected cost whose P(deadline met) >=
 * confidence, at the catalog's interruption_rate and restart_overhead_s,
 * default 30 s: the plan of `slo train --slo-confidence P --exact
 * --max-nodes N` on the same catalog), its P and expected cost in the table;
 * SLO_ERR_INVALID (err source "--slo-confidence") when a spot type the
 * plan may use has no interruption_rate; SLO_ERR_INFEASIBLE with the most
 * likely plan's probability in out->reason when none reaches it; SLO_OK with
 * out->on_demand_pick = 1 (feasible 0) when the pick is the on-demand plan.
 */
int sslo_plan(const struct sslo_config *cfg, const struct slo_catalog *cat, const int *usable,
              const struct slo_workload *wl, const struct sslo_plan_request *req,
              struct sslo_plan_result *out, slo_error_t *err);

/*
 * The budget left for a re-plan of a requeued job (slo-requeue, doc/slurm.md
 * "Re-planning on requeue"): *spent_usd = spent_before_usd + rate_usd_per_h *
 * run_s / 3600 and *left_usd = budget_usd - *spent_usd (USD; <= 0: the budget
 * is spent). budget_usd: the submission's --slo-budget (SLO_BUDGET_USD), USD,
 * > 0; spent_before_usd: USD spent by the runs before the last (0 at the first
 * re-plan; the re-plan mark's spent_usd after); rate_usd_per_h: USD/h of the
 * plan the last run ran (its SLO_COST_USD_PER_H); run_s: s the last run held
 * its nodes (at most since it started; an upper bound of the billed time).
 * The cost model is the plan's own (spotDNN Eq. 8: cost = sum of the type
 * prices x time). Returns 0, or -1 (outputs untouched) when budget_usd is not
 * > 0 or another input is negative or not finite.
 */
int sslo_replan_budget(double budget_usd, double spent_before_usd, double rate_usd_per_h,
                       double run_s, double *spent_usd, double *left_usd);

/* values[] entry of record name, or NULL. */
const char *sslo_plan_value(const struct sslo_plan_result *r, const char *name);

/*
 * The value of field name in a re-plan mark (the AdminComment slo-requeue
 * writes, doc/slurm.md "Re-planning on requeue": "slo-replan:K NAME=value
 * NAME=value ...", values without spaces): mark, the whole mark (a
 * NUL-terminated string); name, the field name without "=" (e.g.
 * "SLO_PARTITION", "first_start"). Writes the value (the characters after
 * " NAME=" up to the next space or the end) into v[len], NUL-terminated;
 * v[0] = '\0' when the mark has no such field or the value needs len or more
 * characters. Only a field preceded by a space counts (the mark's head
 * "slo-replan:K" is no field). Used by slo-requeue (power/requeue.c, the
 * budget bookkeeping of the previous re-plan) and the SPANK plugin
 * (ctx_remote.c, the re-planned job's records).
 */
void sslo_mark_value(const char *mark, const char *name, char *v, size_t len);

#endif /* SSLO_PLAN_H */
