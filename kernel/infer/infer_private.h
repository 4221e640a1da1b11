/*
 * infer_private.h - helpers shared by the files of kernel/infer/; not
 * installed, not exported (slo__ prefix).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_INFER_PRIVATE_H
#define SLO_INFER_PRIVATE_H

#include <stddef.h>

#include "slo_infer.h"

#define SLO__IG_SCAN 0x100 /* or'ed into slo__ig_plan_detail's policy */

/*
 * slo_ig_plan, also saying which workload an SLO_ERR_INFEASIBLE names:
 * *failed is the index of the workload that no GPU type can serve (the one
 * err->text names), or SIZE_MAX when the call succeeded or failed for any
 * other reason (invalid input, memory, an igniter plan the model says
 * misses an SLO). Used by slo_infer_solve to tell a proven infeasibility
 * from an unproven one. policy | SLO__IG_SCAN plans with the full scan of
 * every open GPU instead of the GPU index (the test oracle of issue 19: the
 * plans must be identical).
 */
int slo__ig_plan_detail(const struct slo_ig_profile *profiles, size_t n_types,
                        const struct slo_ig_workload *workloads, size_t n, int policy,
                        struct slo_ig_plan *plan, size_t *failed, slo_error_t *err);

/*
 * Physical ranges of the fitted coefficients (issue 15), shared by the fits
 * (slo_ig_fit_hardware, slo_ig_fit_model) and the reader of the
 * "coefficients" form, so a fit's own output always reads back: clock slope
 * in [-1e6, 0] MHz/W, sched_alpha_ms in [0, 1e3], sched_beta_ms in [-1e3,
 * 1e3]; k finite, kp in [0, 1e4] W per req/s, bp in [-idlepower, maxGPUpower]
 * W, kc in [0, 1e4] % per req/s, bc in [-100, 100] %, alpha_cache in [0, 1]
 * per %. path names the section in the text ("hardware.coefficients",
 * "alexnet (fitted)"). Returns SLO_OK or SLO_ERR_INVALID ("PATH.KEY: expected
 * a number in [lo, hi] UNIT, found V", source p->source).
 */
int slo__ig_check_hardware_coefficients(const struct slo_ig_profile *p, const char *path,
                                        slo_error_t *err);
int slo__ig_check_model_coefficients(const struct slo_ig_profile *p,
                                     const struct slo_ig_model *m, const char *path,
                                     slo_error_t *err);

/* igniter_model.c, shared by both model variants: workload i of t[]
 * checked (model index, batch, share) with its solo state (t_act_solo_ms,
 * capability, power, L2; notes 1.2.2-1.2.6) into *o; the clock at a total
 * power (1.2.5), refused when not > 0. SLO_OK or SLO_ERR_INVALID. */
int slo__ig_tenant_solo(const struct slo_ig_profile *p, const struct slo_ig_tenant *t, size_t i,
                        struct slo_ig_prediction *o, slo_error_t *err);
int slo__ig_clock_mhz(const struct slo_ig_profile *p, double total_power_w, double *clock_mhz,
                      slo_error_t *err);

/* igniter_variant.c: the igniter-calibrated model variant (issue 18;
 * slo_ig_profile_set_variant documents it). */
#include <jansson.h>
/* Read the profile's "model_variant" section of root (may be absent) into
 * p->models[].calib and p->model_variant, fitting the pair terms. */
int slo__ig_variant_parse(const json_t *root, const char *src, struct slo_ig_profile *p,
                          slo_error_t *err);
/* slo_ig_predict for p->model_variant != SLO_IG_VARIANT_IGNITER_2023. */
int slo__ig_predict_variant(const struct slo_ig_profile *p, const struct slo_ig_tenant *t,
                            size_t n, struct slo_ig_prediction *out,
                            struct slo_ig_gpu_state *gpu, slo_error_t *err);
/* rho(b, r): measured / fitted solo active time (1 without a grid). */
double slo__ig_solo_ratio(const struct slo_ig_calibration *c, int batch, double share_pct);
/* The variant's t_act (+ the overhead when n >= 2), ms at clock F, from the
 * paper's t_act0 and L2 terms the planner caches. */
double slo__ig_variant_active_ms(const struct slo_ig_model *m, int batch, double share_pct,
                                 double t_act0_ms, double own_l2_pct, double others_l2_pct,
                                 size_t n);
/* slo_ig_bounds_for's r_low under the variant: least multiple of u whose
 * solo latency at the full clock meets bound_ms (+inf if none <= 100). */
void slo__ig_bounds_variant(const struct slo_ig_profile *p, const struct slo_ig_model *m,
                            int batch, double bound_ms, struct slo_ig_bounds *out);
/* Row i of a pair-run array (label names it): tenants and measured ms. */
int slo__ig_pair_row(const struct slo_ig_profile *p, const json_t *r, const char *src,
                     const char *label, size_t i, struct slo_ig_tenant t[2], double meas[2],
                     slo_error_t *err);
/* Fit every model's (o, kappa) on rows, leaving out the rows of the model
 * pair {skip_a, skip_b} (both -1: none). Needs every solo grid. */
int slo__ig_fit_pair_terms(struct slo_ig_profile *p, const json_t *rows, const char *src,
                           const char *label, int skip_a, int skip_b, slo_error_t *err);

/* infer_mps.c: repair a plan whose shares do not hold at Slurm's whole
 * gres/mps units (issue 19 item 2, slo_infer_solve): every GPU whose tenants
 * fail slo_infer_mps_round's rounding is re-planned alone with the planner
 * at the 1 % unit (igniter policy); when that plan has no violation and
 * every GPU of it rounds and verifies, it replaces the GPU (its first GPU
 * keeps the GPU's number, further GPUs are appended). GPUs that verify are
 * kept as they are. Sets res->mps_repaired_gpus and mps_extra_gpus and the
 * cost; the caller re-verifies the whole plan with slo_infer_mps_round.
 * SLO_OK (also when a GPU cannot be repaired: the re-check names it),
 * SLO_ERR_INVALID (a malformed plan), SLO_ERR_NOMEM. */
int slo__infer_mps_repair(const struct slo_ig_profile *profiles, size_t n_types,
                          const struct slo_ig_workload *workloads, size_t n,
                          struct slo_infer_result *res, slo_error_t *err);

/* slo_infer_solve, with repair 0: the planner's plan as it is, its MPS
 * rounding checked but never repaired (slo__infer_mps_repair) - what the
 * re-placement (infer_replace.c) plans and compares with. */
int slo__infer_solve(const struct slo_infer_problem *pb, const struct slo_infer_options *opt,
                     int repair, struct slo_infer_result *res, slo_error_t *err);

/* *q = the result's form of the planner's placement p: workload (index into
 * the problem's workloads), gpu (index into the result's GPUs), type (index
 * into the profiles), price (USD/h per GPU), w the workload (its SLO, ms,
 * sets slo_half_ms and meets_slo); the mps_* fields zero. Shared by
 * slo_infer_solve's copy of the plan and the MPS repair (infer_mps.c). */
void slo__infer_set_placement(struct slo_infer_placement *q, const struct slo_ig_placement *p,
                              size_t workload, size_t gpu, size_t type, double price,
                              const struct slo_ig_workload *w);

#endif
