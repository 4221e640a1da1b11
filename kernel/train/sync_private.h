/*
 * sync_private.h - the synchronous data-parallel model's private entry
 * points (issue 17): profile parsing and serialization for workload.c, the
 * planner for train_solve.c.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_SYNC_PRIVATE_H
#define SLO_SYNC_PRIVATE_H

#include "slo_private.h"

/* Parse the sync-allreduce fields of root (a profile whose "mode" is
 * "sync-allreduce") into wl (mode, sync, instances, name). Errors as
 * slo_workload_parse, naming the field; wl is freed on failure. */
int slo__sync_parse(const json_t *root, const char *source, struct slo_workload *wl,
                    int loss_optional, int *has_loss, slo_error_t *err);

/* A sync-allreduce profile's fields (doc/formats.md) into root, all but
 * "instances", and its instance objects appended to insts (slo_workload_to_json
 * adds the array last and dumps): 0, or nonzero on no memory. */
int slo__sync_to_json(const struct slo_workload *wl, json_t *root, json_t *insts);

/* slo_train_solve for a sync-allreduce workload (same result shape). */
int slo__sync_solve(const struct slo_train_problem *pb, const struct slo_train_options *opt,
                    struct slo_train_result *res, slo_error_t *err);

/* *to = *from with its own counts[s->n_types] (malloc'd; free with
 * slo_train_plan_free): 0, or -1 out of memory (to->counts NULL). Shared by
 * both modes' solvers (train_solve.c). */
int slo__train_plan_copy(const struct slo_train_setup *s, const struct slo_train_plan *from,
                         struct slo_train_plan *to);

/* Both modes' solvers' request for the rest of the run: res->remaining_s =
 * deadline - elapsed (s), res->overhead_s, and the request of the problem's
 * target loss, remaining time, budget (USD), current loss, overhead, the
 * existing cluster res->existing[setup types] and opt's node and worker
 * limits. Defined in train_solve.c. */
struct slo_train_request slo__train_request(const struct slo_train_problem *pb,
                                            const struct slo_train_options *opt,
                                            struct slo_train_result *res);

/* Both modes' solvers adopt the exact search's plan: res->method EXACT,
 * res->plan a copy of res->exact, res->status OPTIMAL when proven, else
 * FEASIBLE_UNPROVEN with res->reason saying the node limit stopped it.
 * 0, or SLO_ERR_NOMEM "out of memory". Defined in train_solve.c. */
int slo__train_adopt_exact(const struct slo_train_setup *s, struct slo_train_result *res,
                           slo_error_t *err);

/* The setup's common start for both modes' slo_*_setup_init: *s zeroed,
 * s->wl = *wl without its instance table, s->pricing, and s->types[] and
 * s->skipped[] calloc'd for cat->n_types entries (at least one). 0, or
 * SLO_ERR_NOMEM "out of memory" with *s freed (slo_train_setup_free).
 * Defined in spotdnn_model.c. */
int slo__train_setup_begin(struct slo_train_setup *s, const struct slo_catalog *cat,
                           const struct slo_workload *wl, enum slo_pricing pricing,
                           slo_error_t *err);

/* Both modes' slo_*_setup_init step for catalog type c (index into
 * cat->types) with found = whether the workload's profile has an entry for
 * its profile name (slo_instance_profile): found 0, c is appended to
 * s->skipped[] and NULL returned; else s->types[s->n_types] gets the
 * catalog's side of the type - catalog_index c, name and site (borrowed),
 * gpus, usd_per_h (USD/h under s->pricing, slo_instance_price), quota - and
 * is returned, its model fields (batch, t_comp_s, t_pcie_s, b_req_mbps)
 * left to the caller, who counts it (s->n_types++) once they are valid.
 * s from slo__train_setup_begin with the same cat. Defined in
 * spotdnn_model.c. */
struct slo_train_type *slo__train_setup_type(struct slo_train_setup *s,
                                             const struct slo_catalog *cat, size_t c, int found);

/* The fits' same-model check (train_fit.c): every log's "# model:" and
 * "# parameter_bytes:" agree with the first log that has them and with
 * opt->parameter_bytes (--model-bytes, 0: none). *bytes: the parameter
 * bytes (option, else the logs'); *model: the logs' model or NULL.
 * SLO_ERR_INVALID naming the log and line, also when no bytes are known. */
int slo__train_check_models(const struct slo_train_log *logs, size_t n_logs,
                            const struct slo_train_fit_options *opt, double *bytes,
                            const char **model, slo_error_t *err);

#endif
