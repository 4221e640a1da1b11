/*
 * serve.h - --slo-serve: a serving job's GPUs and MPS shares from the
 * kernel's iGniter planner, and the plan as SLO_* records (pure code: no
 * spank.h, no Slurm calls; tests/test_spank_serve.c links it directly).
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Contract: doc/slurm.md, "Serving jobs (--slo-serve)". The plan itself is
 * libslo's: one slo_infer_solve call (policy igniter, which rounds the MPS
 * shares once with slo_infer_mps_round and re-verifies them), the call
 * `slo infer` (cli/cmd_infer.c) makes, so `slo infer --profile P --catalog C
 * --workload MODEL:rate=R:slo=MS ...` gives the same GPUs, batches and
 * shares; no formula is re-derived here. Source: iGniter (Xu et al., IEEE
 * TPDS 34(3), 2023; kernel/infer/slo_infer.h), Slurm gres/mps
 * (gres.conf Name=mps Count=100 per GPU).
 */
#ifndef SSLO_SERVE_H
#define SSLO_SERVE_H

#include <stddef.h>

#include "args.h"
#include "plan.h"
#include "slo.h"

/* Records of a serving plan, in the order written (SLO_PLAN_VERSION first,
 * as for training: the remote context looks for it). */
#define SSLO_SERVE_N_RECORDS 13
extern const char *const sslo_serve_record_names[SSLO_SERVE_N_RECORDS + 1];

/* Most tenants (placements) of one serving job: each is one entry of
 * SLO_SERVE_PLAN, and job_submit.lua accepts at most 64. */
#define SSLO_SERVE_MAX_TENANTS 64

/* One tenant of a serving plan: a workload (or part of a split one) on one
 * GPU of the job, as SLO_SERVE_PLAN writes it (doc/slurm.md). */
struct sslo_serve_tenant {
    char model[SLO_NAME_LENGTH];
    int gpu;          /* GPU of the job, 0-based (the plan's GPU order) */
    int batch;        /* requests per batch, 1..SLO_IG_MAX_BATCH */
    int mps_pct;      /* gres/mps units = CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, 1..100 */
    double rate_rps;  /* the part of the workload's rate served here, req/s */
    double slo_ms;    /* the workload's latency SLO, ms */
};

struct sslo_serve_result {
    int feasible;                      /* 1: values and table hold the plan */
    char reason[SSLO_MSG_LENGTH];      /* infeasible: why (the kernel's reason) */
    char values[SSLO_SERVE_N_RECORDS][SSLO_VALUE_LENGTH]; /* of sslo_serve_record_names[i] */
    char table[SSLO_TABLE_LENGTH];     /* the plan for people, '\n'-separated lines */
    int n_gpus;                        /* GPUs of the plan (all on one node) */
    int n_tenants;
};

/*
 * Plan the served workloads specs[n] (n 1..SSLO_MAX_SERVE) on the site's GPU
 * profile prof (slo_ig_profile_open of plugstack infer_profile=; source
 * names it in messages) with one slo_infer_solve call (policy igniter, the
 * profile's own model variant; prices: prof's gpu.usd_per_h, else catalog
 * cat under pricing, slo_infer_price_gpu), and format it as records
 * (values[i] for sslo_serve_record_names[i]) and a table:
 *  - SLO_KIND=serve; SLO_NODES=1 (a serving job is one node);
 *  - SLO_CONSTRAINT: the instance type that prices the profile (a node
 *    feature, doc/slurm.md "The recorded plan"), "" when none;
 *    SLO_PARTITION: cfg->onprem_partition for an on-prem type or none, the
 *    spot or on-demand partition (by pricing) for a cloud type;
 *  - SLO_GRES: mps:S on a plan of one GPU (S = its tenants' gres/mps
 *    counts summed, <= 100: the rest of the GPU stays free for other jobs),
 *    gpu:G for a plan of G > 1 GPUs (whole GPUs of one node; each tenant is
 *    pinned to its GPU and MPS share in the job);
 *  - SLO_SERVE_GPUS=G, SLO_SERVE_TENANTS, SLO_SERVE_PLAN =
 *    MODEL:GPU:BATCH:MPS:RATE:SLO[,...] (GPU 0-based; MPS the placement's
 *    mps_gres_count = mps_active_thread_pct; RATE req/s and SLO ms as
 *    fixed-point decimals), SLO_SERVE_PROFILE=source, SLO_PRICING
 *    (on-prem, spot or on-demand), SLO_COST_USD_PER_H (4 decimals).
 * Returns SLO_OK with out->feasible = 1; SLO_ERR_NOT_FOUND for a model the
 * profile lacks (err->text: "--slo-serve: unknown model "foo"; the profile
 * SOURCE has: a, b, c"); SLO_ERR_INFEASIBLE (out->reason, out->feasible =
 * 0) when no plan meets every SLO (the kernel's reason names the workload);
 * SLO_ERR_INVALID with err->text when the shares do not round to Slurm's
 * gres/mps units (slo_infer_mps_round's reason: a share that rounds to 0,
 * a rounded share that misses the SLO), when the plan needs more GPUs than
 * one node of the priced instance type has (its catalog "gpus"), more than
 * SSLO_SERVE_MAX_TENANTS tenants, or a record longer than SSLO_VALUE_LENGTH
 * - 1 characters; the errors of slo_infer_solve (SLO_ERR_INVALID for an
 * unpriced profile, SLO_ERR_NOT_FOUND for an instance type the catalog
 * lacks, SLO_ERR_NOMEM) with err filled.
 */
int sslo_serve_plan(const struct sslo_config *cfg, const struct slo_catalog *cat,
                    const struct slo_ig_profile *prof, const struct sslo_serve_spec *specs,
                    size_t n, enum slo_pricing pricing, enum sslo_mode mode,
                    struct sslo_serve_result *out, slo_error_t *err);

/* values[] entry of record name, or NULL. */
const char *sslo_serve_value(const struct sslo_serve_result *r, const char *name);

/*
 * Parse SLO_SERVE_PLAN text (the format above) into t[max]: *n tenants.
 * Returns 0, or -1 (malformed: a field missing or out of range, more than
 * max tenants) - the remote context then exports nothing per tenant.
 */
int sslo_serve_parse_plan(const char *text, struct sslo_serve_tenant *t, int max, int *n);

#endif /* SSLO_SERVE_H */
