/*
 * slo_infer.h - inference planner of libslo: interference-aware GPU sharing
 * after iGniter (included by slo.h; can also be included on its own).
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Source: F. Xu, J. Xu, J. Chen, L. Chen, R. Shang, Z. Zhou, F. Liu,
 * "iGniter: Interference-Aware GPU Resource Provisioning for Predictable DNN
 * Inference in the Cloud", IEEE TPDS 34(3):812-827, 2023 ("iGniter"). The
 * paper text was not available; equations are cited as in the authors'
 * README ("README eq.") and in their code, i-Gniter/Algorithm/
 * igniter-algorithm.py at commit b1ff2ab ("HEAD predict()", "HEAD
 * algorithm()"); the research notes shared/research/igniter.md number them
 * 1.2.1 .. 1.2.11 ("notes 1.2.N"), which is the numbering used below.
 *
 * Conventions are those of slo.h: no globals, no printing, no exit; int
 * status (enum slo_code) and a caller-owned slo_error_t. Units are in the
 * names: _ms milliseconds, _rps requests per second, _pct percent (of the
 * GPU's SMs for shares, of the L2 peak sector throughput for L2), _w watts,
 * _mhz megahertz, _bytes, _bytes_per_ms; prices: _usd_per_gpu_h US dollars per
 * GPU-hour (one GPU of a type), _usd_per_h US dollars per hour (a whole plan;
 * the catalog's per instance-hour prices).
 */
#ifndef SLO_INFER_H
#define SLO_INFER_H

#include <stddef.h>

#include "slo_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Profiles                                                            */
/* ------------------------------------------------------------------ */

#define SLO_IG_NAME_LENGTH 64
#define SLO_IG_MAX_CONCURRENCY 8 /* entries of hardware.power/frequency/idletime */
/* Largest batch: the profiles measure batches 1, 16 and 32 (TensorRT engines
 * 1..32), so the fitted surface is only trusted up to 32. The planner never
 * chooses more and slo_ig_predict (and `slo infer --predict`) reject more. */
#define SLO_IG_MAX_BATCH 32

/* Raw hardware measurements (upstream "hardware" section; notes 1.3). */
struct slo_ig_hw_raw {
    size_t n_concurrent;                          /* 1..5 VGG-19 instances: 5 */
    double power_w[SLO_IG_MAX_CONCURRENCY];       /* board power with c+1 co-runners */
    double clock_mhz[SLO_IG_MAX_CONCURRENCY];     /* SM clock, same runs */
    double idle_gap_ms[SLO_IG_MAX_CONCURRENCY];   /* per-kernel idle gap, c+1 co-runners */
};

/* Raw per-model measurements (upstream model section; notes 1.3). The solo
 * grid is batch {1, 16, 32} (rows) x share {10, 50, 100} % (columns). */
struct slo_ig_model_raw {
    double gpu_latency_ms[3][3]; /* trtexec computeMs, one batch */
    double power_w[3][3];
    double clock_mhz[3][3];
    double l2_diag_pct[3];       /* L2 at (1,10%), (16,50%), (32,100%) */
    double l2_pct;               /* L2 at b=1, 20% ("l2cache") */
    double active_solo_ms;       /* activetime_1: kernel-busy time, solo, b=1, 20% */
    double active_pair_ms;       /* activetime_2: same with two identical instances */
    double pair_clock_mhz;       /* frequency_2 */
};

/* Model variants (doc/infer.md, "Model variants"): how slo_ig_predict and the
 * planner turn a profile into latencies. igniter-2023 is the paper's model
 * (notes 1.2, exact on the authors' reference outputs; the default);
 * igniter-calibrated keeps its terms and adds what its residuals on measured
 * co-locations show (slo_ig_profile_set_variant; issue 18). */
enum slo_ig_model_variant {
    SLO_IG_VARIANT_IGNITER_2023 = 0,
    SLO_IG_VARIANT_CALIBRATED = 1
};
#define SLO_IG_CALIB_MAX_SHARES 16 /* shares per batch row of a solo latency grid */

/* What igniter-calibrated adds to one model, from the profile's
 * "model_variant" section (doc/infer.md): a measured solo latency grid and
 * pair co-location runs. Filled by slo_ig_profile_parse; zero when absent. */
struct slo_ig_calibration {
    int has_solo;                  /* the solo grid below is valid */
    int n_batches;                 /* rows, batches ascending */
    int batch[SLO_IG_MAX_BATCH];
    int n_shares[SLO_IG_MAX_BATCH];
    double share_pct[SLO_IG_MAX_BATCH][SLO_IG_CALIB_MAX_SHARES]; /* ascending per row */
    double solo_ratio[SLO_IG_MAX_BATCH][SLO_IG_CALIB_MAX_SHARES]; /* measured / fitted
                                      solo active time (1 = the paper's surface) */
    int has_pair;                  /* the two pair terms below are fitted */
    size_t n_pair_runs;            /* co-location latencies of this model they were fitted on */
    double overhead_ms;            /* o: extra GPU time per batch when co-located, ms at F */
    double l2_coupling_per_pct2;   /* kappa: slow-down per (own c) x (co-runners' sum c), 1/%^2 */
};

/* The model of one DNN on one GPU type: the fitted coefficients. */
struct slo_ig_model {
    char name[SLO_IG_NAME_LENGTH]; /* "alexnet" */
    double input_bytes;            /* d_in per request (host -> device) */
    double output_bytes;           /* d_out per request (device -> host) */
    int n_kernels;                 /* kernels per inference */
    double t_sch_solo_ms;          /* solo scheduling delay per inference (idletime_1) */
    double k[5];                   /* notes 1.2.2: t_act0 = (k1 b^2 + k2 b + k3)/(r + k4) + k5, ms */
    double kp_w_per_rps, bp_w;     /* notes 1.2.4: P = kp h0 + bp, W */
    double kc_pct_per_rps, bc_pct; /* notes 1.2.6: c = kc h0 + bc, % of L2 peak */
    double alpha_cache_per_pct;    /* notes 1.2.7: slow-down per % of co-runners' L2 */
    int has_raw;                   /* raw measurements below are valid */
    struct slo_ig_model_raw raw;
    struct slo_ig_calibration calib; /* igniter-calibrated terms (zero: none) */
};

/* One GPU type: hardware constants, fitted GPU coefficients, models. */
struct slo_ig_profile {
    char source[SLO_ERROR_SOURCE_LENGTH];   /* file or "embedded:NAME" */
    char gpu_model[SLO_IG_NAME_LENGTH];     /* "V100"; "" when the profile does not say */
    char instance_type[SLO_IG_NAME_LENGTH]; /* catalog type to price it, "" if unknown */
    double usd_per_gpu_h;        /* price of one GPU of this type per hour (gpu.usd_per_h);
                                    < 0: not set
                                    (the caller prices it, e.g. from a catalog) */
    double idle_power_w;         /* P_idle */
    double max_clock_mhz;        /* F, the locked SM clock */
    double power_cap_w;          /* P_max (TDP) */
    double unit_pct;             /* u: MPS share granularity, % (100 / (SMs/2)) */
    double bandwidth_bytes_per_ms; /* B: PCIe host <-> device */
    double clock_slope_mhz_per_w;  /* a < 0: clock drop per W above the cap (notes 1.2.5) */
    double sched_alpha_ms;       /* Delta_sch(p) = alpha p + beta for p >= 2 (notes 1.2.8), */
    double sched_beta_ms;        /*   ms per kernel */
    int has_raw;
    struct slo_ig_hw_raw raw;
    size_t n_models;
    struct slo_ig_model *models; /* [n_models], owned */
    int model_variant;           /* enum slo_ig_model_variant: the profile's
                                    model_variant.name, or slo_ig_profile_set_variant */
};

/*
 * Parse a GPU profile. Two forms are read (doc/infer.md, "Profiles"); a text
 * that parses as one JSON object (on one line or many) is ours, any other is
 * read as JSON-lines:
 *  - the upstream JSON-lines file (i-Gniter/Algorithm/config): one object per
 *    line, {section: {key: value}}, sections merged key by key, later lines
 *    winning; sections "hardware" and one per model;
 *  - our single JSON document holding the merged sections, with an optional
 *    "gpu" section {"model", "instance_type", "usd_per_h"}, and models or
 *    hardware given either by raw measurements (then fitted here) or by the
 *    fitted coefficients ("coefficients" object; doc/infer.md).
 * Either form may hold a "model_variant" section {name, solo_latency,
 * pair_latency} (doc/infer.md): read into models[].calib and model_variant,
 * the pair terms fitted (slo_ig_profile_set_variant says how); errors name
 * its fields ("model_variant.solo_latency.vgg19.4: expected share keys in
 * (0, 100] %, found "120"") or the model lacking a grid or runs.
 * Raw measurements are fitted with slo_ig_fit_hardware/slo_ig_fit_model.
 * Errors: SLO_ERR_INVALID naming source, line (JSON-lines) and field with
 * what was expected and found (malformed JSON, a missing "hardware" section,
 * a missing or out-of-range key, no model); SLO_ERR_NUMERIC when a fit fails;
 * SLO_ERR_NOMEM. On failure *p is left empty (slo_ig_profile_free is safe).
 */
int slo_ig_profile_parse(const char *text, const char *source, struct slo_ig_profile *p,
                         slo_error_t *err);
/* As slo_ig_profile_parse, reading the file at path (SLO_ERR_IO if unreadable). */
int slo_ig_profile_load(const char *path, struct slo_ig_profile *p, slo_error_t *err);
void slo_ig_profile_free(struct slo_ig_profile *p);
/*
 * Open a GPU profile the way every front end names one (after
 * slo_catalog_open): an embedded NAME (slo_embedded_gpu_profile_names(),
 * parsed with source "embedded profile NAME") or a FILE path - an argument
 * with a '/', ending in .json, or naming an existing file is a path (read
 * with slo_ig_profile_load). opt names the argument in messages
 * ("--profile", "PROFILE"; NULL: "--profile"). Errors: those of
 * slo_ig_profile_load / slo_ig_profile_parse, and SLO_ERR_NOT_FOUND with
 * source opt: "expected an embedded profile (NAMES) or a JSON file path,
 * found "ARG"". On failure *p is left empty.
 */
int slo_ig_profile_open(const char *name_or_path, const char *opt, struct slo_ig_profile *p,
                        slo_error_t *err);
/* Index of the model named name in p, or -1. */
int slo_ig_find_model(const struct slo_ig_profile *p, const char *name);
/* JSON text of the embedded default profile ("v100": the upstream V100
 * profile with a gpu section), or NULL; names: NULL-terminated list. */
const char *slo_embedded_gpu_profile(const char *name);
const char *const *slo_embedded_gpu_profile_names(void);
/* Serialize the fitted coefficients of p as one JSON object (the
 * "coefficients" form slo_ig_profile_parse reads). Caller frees; NULL on
 * allocation failure. */
char *slo_ig_profile_coefficients_json(const struct slo_ig_profile *p);

/* ------------------------------------------------------------------ */
/* Fitting (notes 1.3; HEAD power_frequency/idletime/activetime/...)   */
/* ------------------------------------------------------------------ */

/*
 * GPU coefficients from raw: clock slope a (HEAD power_frequency(): mean
 * power step over un-throttled points, capped points replaced by that linear
 * extrapolation, least squares of (f - F) = a (P - P_max) through the origin;
 * a = 0 when no point is throttled) and scheduling delay alpha, beta (HEAD
 * idletime(): v_c = gap_c f_c / F, least squares of v_c - v_1 = alpha c + beta
 * over c = 2..n). Uses LAPACKE_dgels. Errors: SLO_ERR_INVALID (fewer than 3
 * concurrency levels; with throttled levels, a mean un-throttled power step
 * <= 0 or a fitted a > 0; alpha < 0; concurrency levels not clearly
 * different; coefficients outside their physical ranges, doc/infer.md
 * "What the measurements must determine"), SLO_ERR_NUMERIC.
 */
int slo_ig_fit_hardware(struct slo_ig_profile *p, slo_error_t *err);

/*
 * Model coefficients from m->raw on GPU p:
 *  - k1..k5: Levenberg-Marquardt (analytic Jacobian, damped steps solved with
 *    LAPACKE_dgels, start at all ones as HEAD activetime()/curve_fit) of
 *    notes 1.2.2 to y = gpu_latency (x f/F when throttled) - t_sch_solo over
 *    the 9 grid points;
 *  - kp, bp: least squares of power - P_idle on x = 1000 b/(gpu_latency -
 *    t_sch_solo) over the un-throttled points (f > F - 1), raw latency;
 *  - kc, bc: least squares of l2_diag on x at the three diagonal points;
 *  - alpha_cache = ((active_pair f_2 / F) / active_solo - 1) / l2_pct.
 * Errors: SLO_ERR_NUMERIC (LM did not converge, singular fit), SLO_ERR_INVALID
 * (fewer than 2 un-throttled power points, l2_pct <= 0, the x of a line fit
 * spread by less than 1% of their size (e.g. the same solo capability at
 * every point), a coefficient outside its physical range: kp in [0, 1e4],
 * bp in [-idle, cap], kc in [0, 1e4], bc in [-100, 100], alpha_cache in
 * [0, 1]; doc/infer.md).
 */
int slo_ig_fit_model(const struct slo_ig_profile *p, struct slo_ig_model *m,
                     slo_error_t *err);

/* ------------------------------------------------------------------ */
/* Performance model (notes 1.2; HEAD predict(); README "Model the      */
/* Inference Performance")                                             */
/* ------------------------------------------------------------------ */

/* One co-located workload: model index in the profile, batch, share. */
struct slo_ig_tenant {
    int model;        /* index into profile->models */
    int batch;        /* b >= 1, requests per batch */
    double share_pct; /* r in (0, 100], MPS active thread percentage */
};

/* Prediction for one tenant, with the intermediates of notes 1.2. */
struct slo_ig_prediction {
    double t_load_ms;        /* 1.2.1: d_in b / B */
    double t_feedback_ms;    /* 1.2.1: d_out b / B */
    double t_act_solo_ms;    /* 1.2.2 */
    double solo_capability_rps; /* 1.2.3: h0 = 1000 b / t_act0 */
    double power_w;          /* 1.2.4: kp h0 + bp */
    double l2_pct;           /* 1.2.6: kc h0 + bc */
    double t_act_ms;         /* 1.2.7: t_act0 (1 + alpha_cache sum of others' c) */
    double t_sch_ms;         /* 1.2.8: t_sch0 + n_k Delta_sch(p) */
    double t_gpu_ms;         /* 1.2.9: (t_sch + t_act) F / f */
    double latency_ms;       /* 1.2.10: t_load + t_gpu + t_feedback */
    double throughput_rps;   /* 1.2.11: 1000 b / (t_gpu + t_feedback) */
};

/* GPU-wide intermediates of one prediction. */
struct slo_ig_gpu_state {
    double total_power_w;          /* 1.2.4: P_idle + sum P_i */
    double clock_mhz;              /* 1.2.5: F, or F + a (P - P_max) above the cap */
    double delta_sch_ms_per_kernel; /* 1.2.8: alpha p + beta for p >= 2, else 0 */
};

/*
 * Predict latency and throughput of n co-located tenants on one GPU of
 * profile p (notes 1.2.1-1.2.11). out: [n] (required); gpu may be NULL.
 * Errors: SLO_ERR_INVALID for n = 0, an unknown model index, a batch outside
 * [1, SLO_IG_MAX_BATCH], a share outside (0, 100], or a share at which the fitted solo active time is
 * not positive (text names the tenant). The shares are not required to sum
 * to at most 100 ("what if" questions); planners enforce that.
 */
int slo_ig_predict(const struct slo_ig_profile *p, const struct slo_ig_tenant *t, size_t n,
                   struct slo_ig_prediction *out, struct slo_ig_gpu_state *gpu,
                   slo_error_t *err);

/* notes 1.2.2: solo active time (ms) of model m at batch b, share r %, clock F. */
double slo_ig_active_solo_ms(const struct slo_ig_model *m, int batch, double share_pct);
/* notes 1.2.8: per-kernel scheduling delay increase (ms) with n co-located
 * workloads: alpha n + beta for n >= 2, else 0. */
double slo_ig_delta_sch_ms(const struct slo_ig_profile *p, size_t n_colocated);

/* ------------------------------------------------------------------ */
/* Planner                                                             */
/* ------------------------------------------------------------------ */

/* What a workload asks for. */
struct slo_ig_workload {
    char model[SLO_IG_NAME_LENGTH];
    double rate_rps; /* R > 0, arrival rate */
    double slo_ms;   /* T > 0, latency SLO; every check uses T/2 (notes 5.1.2) */
};

enum slo_ig_policy {
    SLO_IG_POLICY_IGNITER = 0, /* interference-aware greedy (HEAD algorithm(), fixed) */
    SLO_IG_POLICY_FFD = 1,     /* first-fit decreasing on solo shares (HEAD predict.py algorithm2) */
    SLO_IG_POLICY_GSLICE = 2,  /* GSLICE-like: per-workload reactive tuning, then FFD */
    SLO_IG_POLICY_GPULETS = 3  /* gpu-lets-like: at most two partitions per GPU */
};

/*
 * Read a workloads file (doc/infer.md, --workloads): {"workloads": [{"model":
 * "vgg19", "rate_rps": 200, "slo_ms": 60}, ...]} or the bare array. Keys
 * starting with '_' are comments; any other unknown key is an error (as in
 * every input format, doc/formats.md). *w: malloc'd [*n >= 1], caller frees.
 * Errors: SLO_ERR_INVALID naming source and the field ("workloads[2].slo_ms:
 * expected an SLO > 0 ms, found -1"), SLO_ERR_IO and the slo__read_file checks
 * (missing file, directory, NUL byte, over 64 MiB), SLO_ERR_NOMEM. Models are
 * checked against the profiles by slo_ig_plan.
 */
int slo_ig_workloads_parse(const char *text, const char *source, struct slo_ig_workload **w,
                           size_t *n, slo_error_t *err);
int slo_ig_workloads_load(const char *path, struct slo_ig_workload **w, size_t *n,
                          slo_error_t *err);

/* Parse "igniter", "ffd", "gslice", "gpulets"; -1 if unknown. */
int slo_ig_policy_from_name(const char *name);
const char *slo_ig_policy_name(int policy);

/* One workload (or one part of a split workload) placed on a GPU. */
struct slo_ig_placement {
    size_t workload;     /* index into the request's workloads */
    double rate_rps;     /* the part of the workload's rate served here */
    int batch;
    double share_pct;
    double latency_ms;   /* predicted with this GPU's co-runners */
    double throughput_rps;
};

struct slo_ig_plan_gpu {
    size_t type;         /* index into the profiles given to the planner */
    int dedicated;       /* 1: a split workload's dedicated GPU at 100 % */
    double share_pct;    /* sum of the shares */
    double usd_per_gpu_h; /* its type's price per GPU-hour */
    size_t first, count; /* placements [first, first + count) of the plan */
    double power_w, clock_mhz; /* predicted GPU state */
};

struct slo_ig_plan {
    int policy;
    size_t n_gpus;
    struct slo_ig_plan_gpu *gpus;        /* [n_gpus], owned */
    size_t n_placements;
    struct slo_ig_placement *placements; /* [n_placements], owned, grouped by GPU */
    double cost_usd_per_h;
    size_t n_violations;                 /* placements whose predicted latency
                                            exceeds T/2 or throughput < rate
                                            (baselines may have some; igniter: 0) */
};

void slo_ig_plan_free(struct slo_ig_plan *plan);

/*
 * Plan workloads[n] on GPU types profiles[n_types] (each priced by its
 * usd_per_gpu_h, which must be >= 0) with the given policy. This is the
 * planner of slo_infer_solve, which also prices the types from a catalog,
 * checks each placement and reports a status instead of SLO_ERR_INFEASIBLE.
 *
 * igniter (HEAD algorithm(), notes 2.2, with the upstream defects of notes
 * 5.2 fixed): per type, T' = T/2; batch b0 = ceil(T' rho / (1 + d_in rho / B))
 * with rho in req/ms, capped at SLO_IG_MAX_BATCH; each batch b <= b0 has the
 * latency bound L(b) = min(T', t_load(b) + 1000 b / R) (the second term keeps
 * throughput >= R; for b0 uncapped it is T' itself) and r_low(b) = u ceil((gamma/
 * delta - k4)/u) with gamma = k1 b^2 + k2 b + k3, delta = L(b) - t_sch0 -
 * b (d_in + d_out)/B - k5 (at least u); the workload takes b0 unless a smaller
 * batch needs strictly less r_low (then the largest such), so a looser SLO
 * never asks for more share (slo_ig_choose_batch). A workload with r_low > 100
 * (or delta <= 0) gets dedicated GPUs at 100 % with
 * the largest batch b* whose solo latency < T' (capacity ceil(0.9 h(b*)), as
 * upstream) and its residual rate is planned like the others, on a dedicated
 * GPU again if it still needs more than 100 %; then stable sort by r_low
 * descending and greedy placement: try every open GPU in order, add the
 * workload at r_low, raise every tenant whose predicted latency exceeds its
 * L(b) by u until all hold or the GPU exceeds 100 % (if that fails, the
 * smaller batches with the same r_low are tried, largest first: they
 * interfere less); pick the GPU with the smallest share increase (ties:
 * lowest index) and commit all raised shares; otherwise open a new GPU (also
 * checked, shares raised if its solo latency is throttled). Last, shared GPUs
 * are emptied, least loaded first, when all their tenants fit elsewhere by
 * the same rule.
 * With several GPU types: each workload goes to the type where its solo share
 * costs least (usd_per_gpu_h r_low / 100, split workloads by their dedicated-GPU
 * count), iGniter runs per type, and the result is compared with every
 * single-type plan; the cheapest wins (ties: fewer GPUs, then the first).
 *
 * Errors: SLO_ERR_INVALID (n = 0, rate or SLO <= 0 or not finite, no type),
 * SLO_ERR_NOT_FOUND (a model no profile has; text names the workload and the
 * models known), SLO_ERR_INFEASIBLE (a workload that no GPU type can serve even
 * alone at 100 % with batch 1 - text gives T/2 against the PCIe transfer of one
 * request, or against batch 1's latency alone - or whose rate would need more
 * than a million dedicated GPUs), SLO_ERR_NOMEM. On failure *plan is empty.
 * Baseline plans (ffd, gslice, gpulets) are returned even when the model
 * predicts violations; plan->n_violations counts them. An igniter plan never
 * has any: should the model predict one, the call fails with
 * SLO_ERR_INFEASIBLE naming the workload rather than return it.
 */
int slo_ig_plan(const struct slo_ig_profile *profiles, size_t n_types,
                const struct slo_ig_workload *workloads, size_t n, int policy,
                struct slo_ig_plan *plan, slo_error_t *err);

/*
 * The one "meets its SLO" test of the inference planner (notes 5.1.2:
 * iGniter holds latency to half the SLO, the other half being left for the
 * batch to fill): 1 when latency_ms <= slo_ms / 2 and throughput_rps >=
 * rate_rps, each to a relative 1e-12 (floating-point slack), else 0. A bound
 * <= 0 is not checked (slo_ms <= 0: no SLO; rate_rps <= 0: no rate), so
 * `slo infer --predict` checks only what the user gave. Units: ms, req/s.
 */
int slo_ig_meets_slo(double latency_ms, double throughput_rps, double slo_ms, double rate_rps);

/*
 * Independent check of a plan against the model: every GPU at most 100 %
 * (to 1e-9), every placement's latency re-predicted from scratch with its
 * co-runners <= T/2 and throughput >= its rate, and the rates of each
 * workload's placements summing to its rate. Returns SLO_OK, or
 * SLO_ERR_INFEASIBLE naming the first GPU/placement that fails.
 */
int slo_ig_plan_verify(const struct slo_ig_profile *profiles, size_t n_types,
                       const struct slo_ig_workload *workloads, size_t n,
                       const struct slo_ig_plan *plan, slo_error_t *err);

/*
 * Per-type quantities the planner uses for workload w (exposed for tests and
 * embedders): the chosen batch, its latency bound, the solo lower-bound share
 * (may exceed 100; +inf when delta <= 0), and gamma, delta of notes 2.2 step 3.
 */
struct slo_ig_bounds {
    int batch;
    double bound_ms; /* L(b) = min(T', t_load + 1000 b / R): latency that keeps both */
    double gamma;
    double delta_ms;
    double r_low_pct;
};
int slo_ig_workload_bounds(const struct slo_ig_profile *p, const struct slo_ig_workload *w,
                           struct slo_ig_bounds *out, slo_error_t *err);
/* notes 2.2 step 2: iGniter's batch for rate_rps under the halved SLO
 * slo_half_ms (ceil(T' rho B / (B + d_in rho)), rho = rate/1000 req/ms), in
 * [1, SLO_IG_MAX_BATCH]. */
int slo_ig_batch_for(const struct slo_ig_profile *p, const struct slo_ig_model *m,
                     double rate_rps, double slo_half_ms);
/* Latency bound of batch b at rate_rps: min(slo_half_ms, t_load + 1000 b /
 * rate_rps); a latency within it meets T' and gives throughput >= the rate. */
double slo_ig_latency_bound_ms(const struct slo_ig_profile *p, const struct slo_ig_model *m,
                               int batch, double rate_rps, double slo_half_ms);
/* notes 2.2 step 3 at a given batch and latency bound: gamma, delta and r_low
 * (rounded up to the unit, at least one unit; +inf when delta <= 0). */
void slo_ig_bounds_for(const struct slo_ig_profile *p, const struct slo_ig_model *m,
                       int batch, double bound_ms, struct slo_ig_bounds *out);
/* The planner's batch: slo_ig_batch_for's b0 unless a smaller batch needs
 * strictly less r_low at its own bound (then the largest such); the bounds of
 * the chosen batch into out. r_low never grows when slo_half_ms does. */
void slo_ig_choose_batch(const struct slo_ig_profile *p, const struct slo_ig_model *m,
                         double rate_rps, double slo_half_ms, struct slo_ig_bounds *out);

/* ------------------------------------------------------------------ */
/* The solve call: price, plan, check (what `slo infer` does)          */
/* ------------------------------------------------------------------ */

/* A GPU type as priced for the plan. */
struct slo_infer_gpu_type {
    char gpu_model[SLO_IG_NAME_LENGTH];     /* profile's gpu.model, else the catalog
                                               type's gpu_model; "" if neither */
    char instance_type[SLO_IG_NAME_LENGTH]; /* catalog type that prices it (rule 1:
                                               the profile's gpu.instance_type, may
                                               be "") */
    double usd_per_gpu_h;                   /* price of one GPU of this type per hour */
};

/*
 * Price one GPU of profile p (doc/infer.md, "Prices"), first rule that
 * applies:
 *  1. the profile's gpu.usd_per_h (p->usd_per_gpu_h >= 0), as given;
 *  2. the profile's gpu.instance_type, else instance_type (may be NULL):
 *     that catalog type's price under pricing (slo_instance_price, USD per
 *     instance-hour) divided by its GPUs; gpu_model from the catalog type if
 *     the profile names none;
 *  3. the profile's gpu.model: the cheapest per-GPU price among the
 *     catalog's types with that gpu_model (first of equals), which then
 *     names instance_type.
 * cat may be NULL only when rule 1 applies. Errors (source p->source):
 * SLO_ERR_NOT_FOUND "gpu.instance_type: expected an instance type of catalog
 * NAME, found "TYPE""; SLO_ERR_INVALID "gpu: expected a price for this GPU
 * type (gpu.usd_per_h, gpu.instance_type or a gpu.model of catalog NAME),
 * found none|a GPU model the catalog lacks; pass --instance-type TYPE".
 */
int slo_infer_price_gpu(const struct slo_ig_profile *p, const struct slo_catalog *cat,
                        enum slo_pricing pricing, const char *instance_type,
                        struct slo_infer_gpu_type *out, slo_error_t *err);

struct slo_infer_problem {
    const struct slo_ig_profile *profiles; /* [n_types] GPU types (slo_ig_profile_open) */
    size_t n_types;                        /* >= 1 */
    const struct slo_catalog *catalog;     /* prices the profiles without gpu.usd_per_h
                                              (slo_infer_price_gpu); NULL: every profile
                                              must give gpu.usd_per_h */
    enum slo_pricing pricing;              /* on-demand or spot catalog prices */
    const char *const *instance_types;     /* [n_types] catalog type of each profile that
                                              names none (entries may be NULL); NULL: none */
    const struct slo_ig_workload *workloads; /* [n_workloads]: model, rate_rps, slo_ms */
    size_t n_workloads;                    /* >= 1 */
};

struct slo_infer_options {
    int policy; /* enum slo_ig_policy; default SLO_IG_POLICY_IGNITER */
    const char *model_variant; /* "igniter-2023", "igniter-calibrated" (applied to every
                                  profile, slo_ig_profile_set_variant); NULL (default):
                                  each profile's own model_variant.name */
};

/* Defaults: policy igniter. */
void slo_infer_options_init(struct slo_infer_options *opt);

/* One workload (or part of a split workload) on one GPU. */
struct slo_infer_placement {
    size_t workload;       /* index into problem->workloads */
    size_t gpu;            /* index into result->gpus */
    size_t type;           /* index into problem->profiles (and result->types) */
    double rate_rps;       /* the part of the workload's rate served here */
    int batch;             /* requests per batch, 1..SLO_IG_MAX_BATCH */
    double share_pct;      /* MPS share, % of the GPU's SMs (a multiple of the unit) */
    int mps_gres_count;    /* Slurm gres/mps count with Count=100 per GPU: the share
                              rounded by slo_infer_mps_round (up, then lowered until the
                              GPU's counts sum to at most 100) */
    int mps_active_thread_pct; /* CUDA_MPS_ACTIVE_THREAD_PERCENTAGE: equal to
                                  mps_gres_count (what Slurm exports for it) */
    double latency_ms;     /* predicted with this GPU's co-runners (notes 1.2.10) */
    double slo_half_ms;    /* the bound it is held to: the workload's SLO / 2 */
    double throughput_rps; /* predicted (notes 1.2.11) */
    double usd_per_gpu_h;  /* price of the GPU it runs on, per GPU-hour */
    int meets_slo;         /* slo_ig_meets_slo(latency, throughput, SLO, rate) */
    /* Set by slo_infer_mps_round (slo_infer_solve calls it once): */
    double mps_latency_ms;     /* latency re-predicted with every tenant of the GPU at
                                  its rounded share mps_active_thread_pct (ms) */
    double mps_throughput_rps; /* throughput re-predicted the same way (req/s) */
};

/* One GPU of the plan. */
struct slo_infer_gpu {
    size_t type;             /* index into problem->profiles (and result->types) */
    int dedicated;           /* 1: a split workload's dedicated GPU at 100 % */
    double share_pct;        /* sum of its placements' shares, % */
    double usd_per_gpu_h;    /* its price per GPU-hour */
    double power_w;          /* predicted board power demand (notes 1.2.4) */
    double clock_mhz;        /* predicted SM clock (notes 1.2.5) */
    size_t first, count;     /* its placements: result->placements[first, first + count) */
};

struct slo_infer_result {
    enum slo_status status;          /* rule below */
    char reason[SLO_REASON_LENGTH];  /* why not optimal; "" when optimal */
    int policy;                      /* the policy that planned */
    size_t n_types;
    struct slo_infer_gpu_type *types; /* [n_types]: the profiles as priced, owned */
    size_t n_gpus;
    struct slo_infer_gpu *gpus;      /* [n_gpus], owned; 0 GPUs when no plan */
    size_t n_placements;
    struct slo_infer_placement *placements; /* [n_placements], owned, grouped by GPU */
    double cost_usd_per_h;           /* sum of the GPUs' prices, USD per hour */
    double cost_lower_bound_usd_per_h; /* proven lower bound on any plan's cost
                                          (rule below); 0 when no plan */
    size_t n_violations;             /* placements with meets_slo = 0 or on a GPU over
                                        100 % (baselines only; igniter: 0) */
    int mps_verified;                /* 1: slo_infer_mps_round rounded every share to
                                        Slurm's integer gres/mps units and the rounded
                                        plan meets every SLO; 0: mps_reason says why not
                                        (the mps_* fields of the placements are then 0) */
    char mps_reason[SLO_REASON_LENGTH]; /* "" when mps_verified */
    size_t mps_repaired_gpus;        /* GPUs of the planner's plan whose shares failed at
                                        whole gres/mps units and were re-planned at the
                                        1 % unit by slo_infer_solve (0: none) */
    size_t mps_extra_gpus;           /* GPUs those re-plans added: the planner's plan had
                                        n_gpus - mps_extra_gpus GPUs */
};

void slo_infer_result_free(struct slo_infer_result *res);

/*
 * Price the GPU types (slo_infer_price_gpu, profile i with
 * problem->instance_types[i]), plan the workloads with opt->policy
 * (slo_ig_plan; opt NULL: defaults) and check every placement against its
 * SLO (slo_ig_meets_slo). Source: iGniter (HEAD algorithm(), notes 2.2) and
 * the baselines of notes 2.5, as slo_ig_plan.
 *
 * Status (result->status, enum slo_status) and reason:
 *  - SLO_STATUS_OPTIMAL: every placement meets its SLO and the cost equals
 *    the lower bound cost_lower_bound_usd_per_h (to 1e-9 USD/h), reason "".
 *    The bound is the larger of (a) the cheapest GPU type's price (any plan
 *    needs one GPU) and (b), with one GPU type whose interference terms
 *    only add latency (every model's alpha_cache >= 0, kc >= 0 and bc >= 0,
 *    Delta_sch(n) >= 0 for n >= 2, clock slope <= 0) and no workload
 *    needing more than one GPU: price x ceil(sum_i r_min_i / 100), r_min_i
 *    the least solo share (in units u, any batch 1..SLO_IG_MAX_BATCH) at
 *    which workload i meets SLO/2 and its rate alone at the full clock
 *    (notes 2.2 step 3) - no plan placing each workload on one GPU needs
 *    fewer GPUs.
 *  - SLO_STATUS_FEASIBLE_UNPROVEN: every placement meets its SLO, the cost
 *    is above that bound (iGniter is a greedy heuristic); the reason gives
 *    both costs.
 *  - SLO_STATUS_INFEASIBLE: no plan; a workload cannot meet its SLO on any
 *    GPU type even alone on a whole GPU, and the model proves it: on every
 *    type that has its model, either moving one request over PCIe (d_in +
 *    d_out)/B already exceeds SLO/2, or a lower bound on its latency at any
 *    batch and share, alone or co-located, exceeds SLO/2 (solo at 100 %,
 *    the full clock, co-runners' L2 terms at their least). The reason
 *    names the workload ("workload 1 (ssd, 100 req/s, SLO 12 ms): no GPU
 *    type can serve it: ..."), as slo_ig_plan's SLO_ERR_INFEASIBLE text.
 *  - SLO_STATUS_INFEASIBLE_UNPROVEN: no plan meets every SLO and no proof:
 *    a workload whose solo latency fits but that needs more than a million
 *    dedicated GPUs, or a workload the bounds above cannot rule out (no
 *    plan; reason names it), or a baseline plan (ffd, gslice, gpulets) with
 *    violations - that plan is returned (n_gpus > 0, n_violations > 0) and
 *    the reason counts the placements that miss.
 *
 * Errors (return value; the result is then empty, types NULL):
 * SLO_ERR_INVALID (a policy out of range, n_types or n_workloads 0, a
 * rate or SLO <= 0 or not finite, an unpriced profile with no catalog:
 * slo_ig_plan's and slo_infer_price_gpu's texts), SLO_ERR_NOT_FOUND (a model
 * no profile has, an instance type not in the catalog), SLO_ERR_NUMERIC,
 * SLO_ERR_NOMEM. SLO_ERR_INFEASIBLE is never returned: it is a status.
 */
int slo_infer_solve(const struct slo_infer_problem *problem, const struct slo_infer_options *opt,
                    struct slo_infer_result *result, slo_error_t *err);

/* Slurm's gres/mps units per GPU the plans are written for (gres.conf
 * "Name=mps Count=100" per GPU: one unit = 1 % of the GPU's SMs). */
#define SLO_MPS_COUNT_PER_GPU 100

/*
 * Round the MPS shares of a plan to Slurm's integer gres/mps units (Count
 * SLO_MPS_COUNT_PER_GPU per GPU) and re-verify the rounded plan; the one
 * place where shares are rounded (slo_infer_solve calls it; `slo infer`
 * prints and --emit writes what it sets). profiles[n_types] and
 * workloads[n] are those the plan was made with (the variant applied,
 * slo_ig_profile_set_variant). For every GPU of res:
 *  - each tenant's count N = ceil(share_pct) (so it keeps at least its
 *    planned SMs); while the GPU's counts sum above 100, one tenant rounded
 *    up is lowered by one unit: of those, by smallest fractional share first
 *    (the least lost; ties by placement order), the first whose lowering
 *    keeps every tenant of the GPU within its SLO (re-predicted), else the
 *    first (the check below then refuses it);
 *  - mps_gres_count = mps_active_thread_pct = N (what Slurm exports for
 *    --gres=mps:N with Count=100, so the gres and the environment agree);
 *  - the GPU's tenants are re-predicted together at shares N (notes
 *    1.2.1-1.2.11, slo_ig_predict) into mps_latency_ms, mps_throughput_rps,
 *    and each must meet its SLO (slo_ig_meets_slo against SLO/2 and its rate).
 * On success res->mps_verified = 1. Errors (res->mps_verified = 0, every
 * placement's mps_* fields 0, res->mps_reason and err hold the text):
 * SLO_ERR_INVALID "GPU J, workload K (MODEL): MPS share S % rounds to 0 of
 * the 100 gres/mps units of a GPU (its T tenants' shares sum to X %)";
 * SLO_ERR_INFEASIBLE "GPU J, workload K (MODEL): at the rounded MPS share N %
 * (planned S %) the model predicts L ms against SLO/2 H ms" (or throughput
 * against the rate); SLO_ERR_INVALID for a result without a plan or a
 * placement naming a workload or type out of range; SLO_ERR_NOMEM.
 * slo_infer_solve calls it on its plan; when a GPU fails with
 * SLO_ERR_INFEASIBLE, solve re-plans that GPU's tenants alone at the 1 %
 * unit, puts the result in its place (mps_repaired_gpus, mps_extra_gpus)
 * and calls this again on the whole plan; a share rounding to 0 is not
 * repaired (refused as above).
 * Source: Slurm gres/mps (gres.conf Count, CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
 * = N x 100 / Count), iGniter's model (notes 1.2) for the re-check.
 */
int slo_infer_mps_round(const struct slo_ig_profile *profiles, size_t n_types,
                        const struct slo_ig_workload *workloads, size_t n,
                        struct slo_infer_result *res, slo_error_t *err);

/* ------------------------------------------------------------------ */
/* Re-placement as rates change (issue 19, item 4; `slo infer --current`) */
/* ------------------------------------------------------------------ */

/* One deployed workload: where it runs and how. */
struct slo_infer_current_placement {
    size_t workload;  /* index into problem->workloads */
    size_t gpu;       /* index of its GPU in the current placement */
    int batch;        /* requests per batch, 1..SLO_IG_MAX_BATCH */
    double share_pct; /* MPS share, % of the GPU's SMs */
};

/* A deployed placement: GPUs (each of a problem's GPU types) and tenants. */
struct slo_infer_current {
    size_t n_gpus;
    size_t *gpu_type; /* [n_gpus] index into problem->profiles, owned */
    size_t n_placements;
    struct slo_infer_current_placement *placements; /* [n_placements], owned */
};

/*
 * Read a deployed placement: the `slo infer --json` output of an earlier plan
 * (doc/infer.md, "Re-placement"): gpus[j].gpu_type (matched to the profiles'
 * gpu.model, "GPU" for a profile naming none; with gpus[j].instance_type the
 * profile of that instance type first), gpus[j].workloads[k] with "workload"
 * (1-based number in the workloads file of problem), "model" (must be that
 * workload's model), "batch" and "share_pct"; other members are ignored (they
 * are the old plan's predictions). Workloads of problem missing from the file
 * are new ones (placed like movers). Errors: SLO_ERR_INVALID naming source
 * and field ("gpus[0].workloads[2].workload: expected a workload number 1..3
 * of the workloads file, found 7"; the model differing from the workloads
 * file's; a workload on two GPUs (split workloads are not re-placed); a batch
 * outside 1..SLO_IG_MAX_BATCH; a share outside (0, 100] or shares of a GPU
 * summing above 100; a GPU type no profile has; malformed JSON),
 * SLO_ERR_IO (load), SLO_ERR_NOMEM. On failure *cur is empty.
 */
int slo_infer_current_parse(const char *text, const char *source,
                            const struct slo_infer_problem *problem, struct slo_infer_current *cur,
                            slo_error_t *err);
int slo_infer_current_load(const char *path, const struct slo_infer_problem *problem,
                           struct slo_infer_current *cur, slo_error_t *err);
void slo_infer_current_free(struct slo_infer_current *cur);

/* One move, made as iGniter's shadow instance: start the new instance at
 * to_gpu/to_batch/to_share_pct while the old one still runs, shift the
 * traffic, stop the old one. */
struct slo_infer_move {
    size_t workload;        /* index into problem->workloads */
    size_t from_gpu;        /* GPU index (current placement); SIZE_MAX: a new workload */
    int from_batch;         /* 0 for a new workload */
    double from_share_pct;  /* % (0 for a new workload) */
    size_t to_gpu;          /* GPU index of the result (current GPUs keep their index,
                               opened ones follow) */
    int to_batch;
    double to_share_pct;    /* % of the GPU's SMs */
    double shadow_latency_ms; /* the new instance's predicted latency while both copies
                                 hold resources (notes 1.2.10), ms */
    double latency_ms;      /* its predicted latency once the old copy is stopped, ms */
};

struct slo_infer_replace_result {
    enum slo_status status;         /* FEASIBLE_UNPROVEN with a plan and its moves;
                                       INFEASIBLE_UNPROVEN: no re-placement (reason) */
    char reason[SLO_REASON_LENGTH]; /* the figures, or why there is no re-placement */
    size_t n_gpus;                  /* GPUs indexed (current ones, then opened ones;
                                       some may be empty) */
    size_t *gpu_type;               /* [n_gpus] index into problem->profiles, owned */
    size_t n_gpus_used;             /* GPUs with a tenant after the moves */
    double cost_usd_per_h;          /* their prices summed, USD per hour */
    size_t n_placements;
    struct slo_infer_current_placement *placements; /* [n_placements] the new placement */
    size_t n_moves;
    struct slo_infer_move *moves;   /* [n_moves] in the order to make them, owned */
    size_t n_states_verified;       /* intermediate states re-predicted on every GPU
                                       (2 per move: shadow and after) */
    size_t n_missing_now;           /* deployed workloads missing their SLO at the new
                                       rates where they are */
    size_t n_new;                   /* workloads not in the current placement */
    enum slo_status fresh_status;   /* slo_infer_solve's plan of the same problem */
    size_t fresh_n_gpus;
    double fresh_cost_usd_per_h;
    size_t fresh_moves;             /* its moves (rule below) */
    size_t n_workloads_moved;       /* distinct workloads among the moves */
    size_t n_round_trips;           /* moves taking a workload back to a GPU it left
                                       earlier in the moves (through another GPU): kept
                                       only when the single move in place fails a state
                                       (rule 5 below) */
};

void slo_infer_replace_result_free(struct slo_infer_replace_result *res);

/*
 * Re-place the workloads of problem (new rates) from the deployed placement
 * cur (slo_infer_current_parse). Each GPU is held to what slo_infer_solve
 * holds a plan to: shares summing to at most 100 % and every tenant meeting
 * SLO/2 and its rate under the model (slo_ig_predict, slo_ig_meets_slo).
 *  1. A deployed workload that misses its SLO where it is, at its new rate
 *     with its co-runners, moves, then each workload not deployed is placed,
 *     each group by solo share descending (type 0's r_low; ties by index);
 *     the others stay. Each move is made at once, as iGniter's shadow
 *     instance: the new instance (iGniter's batch and solo share at the new
 *     rate, slo_ig_choose_batch, raised by the unit until its GPU holds) goes
 *     on the open GPU, its own included, left with the least free share
 *     (best fit; ties: lowest index) while the old instance still holds its
 *     share and interferes, else on a new GPU of the type where its share
 *     costs least; the state with both instances is checked on every GPU,
 *     the old instance is stopped and the state checked on every GPU again.
 *  2. While it uses more than the fresh plan's GPUs plus one - or more than
 *     the fresh plan's GPUs and all moves so far stay fewer than the fresh
 *     plan's - the GPU with the fewest tenants (ties: least share) whose
 *     tenants all move by step 1's rule to other open GPUs is emptied (of
 *     the first 8 GPUs in that order whose tenants' solo shares fit in the
 *     others' free share; a bound on the time);
 *     when none can be and it uses more than the fresh plan's GPUs plus one,
 *     the tenant holding the most share above its solo share at its new
 *     rate (a rate that fell) is shrunk by a shadow move (once per
 *     workload) and emptying is tried again.
 *  3. Re-packing, when steps 1-2 miss the bound below or cost more than the
 *     fresh plan: for each of three orders of the deployed GPUs (fewest
 *     tenants meeting their SLO first, then least share they need at their
 *     new rates; or that share first, then the tenants; or most share freed
 *     per tenant moved first) and k = 0, 1, ...,
 *     a target placement keeps all GPUs but the first k: on a kept GPU every
 *     tenant meeting its SLO stays; every other workload is placed in the
 *     placing order on the kept GPUs by step 1's best fit, else in a fresh
 *     plan of those left alone (slo_infer_solve), whose GPUs are matched to
 *     the GPUs not kept by most workloads unchanged (exact matching) and
 *     realized there, the others on GPUs bound during the moves. The
 *     targets within the bound are tried cheapest first (then fewest
 *     moves; at most 8; the best reached kept): each pending workload moves
 *     by a shadow move into
 *     its target when both states hold (its target GPU re-predicted with
 *     both instances, then its old GPU without the old one); a target GPU
 *     not bound yet is an emptied GPU of its type, else, when nothing else
 *     moves, a new one (a spare: the one draining the deployed GPUs most);
 *     when no move holds, the pending workload holding the most share on a
 *     GPU another move targets is parked alone on a spare at its target
 *     batch and share (a second move later takes it to its target).
 *  4. The result is the cheapest of steps 1-2 and 3 within the bound (then
 *     fewest moves); the bound: at most the fresh plan's GPUs plus one, and
 *     fewer moves than the fresh plan - or no more than the workloads any
 *     re-placement must move (those missing their SLO where they are and
 *     the new ones) when the fresh plan moves only those. None: refused.
 *     Held to the rule in every state: every workload that meets its SLO in
 *     the deployed placement (and every new instance from its start); a
 *     workload that misses it there is exempt only until its traffic shifts
 *     to its new instance. A workload may move twice (placed in step 1, its
 *     GPU emptied in step 2; or parked in step 3): n_moves counts steps.
 *     A transition always exists for a target whose GPUs each hold every
 *     subset of their final tenants (true when the model's interference
 *     only adds latency as tenants are added): with spares every workload
 *     can be parked, then moved into its target GPU, whose state is then a
 *     subset of its final one; re-placement is impossible only for a
 *     workload that fits on no single GPU at its new rate (r_low > 100 %),
 *     refused with the reason.
 *  5. Round trips cancelled: a workload's move from GPU A and its next move
 *     back to A become one move (in either's place; none when it returns
 *     to its batch and share) when the whole sequence, replayed from the
 *     deployed placement, still holds in every state; else both are kept
 *     and counted (n_round_trips).
 * Moves of the fresh plan (res->fresh_moves, for comparison): every workload
 * whose GPU, share or batch differs, fresh GPUs matched one-to-one to
 * current GPUs of the same type by most workloads unchanged (the maximum,
 * by the Hungarian method on each connected part of the overlaps); split
 * workloads always move.
 * Source: iGniter's placement (notes 2.2) and shadow instance (notes 2.3:
 * the authors start a second Triton instance and switch traffic to it);
 * model notes 1.2. Status: SLO_STATUS_FEASIBLE_UNPROVEN (the fewest moves
 * and the cheapest cost are not proven; reason compares with the fresh
 * plan) or SLO_STATUS_INFEASIBLE_UNPROVEN (a workload that fits on no
 * single GPU at its new rate, or no result within the bound; reason says
 * which and the figures; nothing else set).
 * Errors (return value): those of slo_infer_solve; SLO_ERR_INVALID
 * ("--current: ...") for a placement naming a workload, GPU or type out of
 * range or that the model cannot predict; SLO_ERR_NOMEM.
 */
int slo_infer_replace(const struct slo_infer_problem *problem, const struct slo_infer_options *opt,
                      const struct slo_infer_current *cur, struct slo_infer_replace_result *res,
                      slo_error_t *err);

/* ------------------------------------------------------------------ */
/* Accuracy against measured co-locations                              */
/* ------------------------------------------------------------------ */

/* Absolute percentage errors of the model on pair measurements in the
 * upstream interference format: JSON-lines with section "interference",
 * key "latency" = rows [m1, m2, b1, b2, r1, lat1_ms, lat2_ms] (m2 at 100 - r1).
 * *ape: malloc'd [2 * rows] errors in percent (|measured - predicted| /
 * measured x 100), in row order (m1 then m2). Errors name the file and row. */
int slo_ig_colocation_errors(const struct slo_ig_profile *p, const char *text,
                             const char *source, double **ape, size_t *n,
                             slo_error_t *err);

/* Mean, median (numpy.median: mean of the two middle values for even n),
 * p90 (the sorted value at index floor(0.9 n), as the research notes and
 * golden_vectors.json compute it) and max of v[n]; v is sorted in place. */
void slo_ig_error_summary(double *v, size_t n, double *mean, double *median, double *p90,
                          double *max);

/* ------------------------------------------------------------------ */
/* Model variants (issue 18; doc/infer.md "Model variants")            */
/* ------------------------------------------------------------------ */

/* "igniter-2023" or "igniter-calibrated"; NULL for another value. */
const char *slo_ig_variant_name(int variant);
/* enum slo_ig_model_variant of name, or -1 when it names none. */
int slo_ig_variant_from_name(const char *name);

/*
 * Select the model variant name for every prediction and plan made with p
 * (it overrides the profile's model_variant.name). igniter-calibrated
 * (doc/infer.md) keeps every term of notes 1.2 and changes three:
 *  - solo active time: t_act0 (notes 1.2.2) x rho(b, r), rho = (L - t_load -
 *    t_fb - t_sch0) / t_act0 at the points of the model's measured solo
 *    latency grid L (trtexec latencyMs, ms), bilinear in (b, r) between them
 *    and held at the edge value outside;
 *  - L2 interference: t_act = t_act0 rho (1 + kappa c_i sum_{j != i} c_j)
 *    instead of (1 + alpha_cache sum c_j), c from notes 1.2.6;
 *  - co-location overhead: o ms of GPU time per batch when n >= 2;
 * so t_gpu = (t_sch + t_act + o) F / f. kappa and o are fitted per model on
 * the profile's pair runs (least absolute relative error, IRLS with
 * LAPACKE_dgels); power, L2 demand and clock use the paper's t_act0.
 * Errors: SLO_ERR_INVALID (source p->source) for an unknown name ("expected
 * igniter-2023 or igniter-calibrated, found "X"") and for a profile lacking
 * what the variant needs, naming it ("model variant igniter-calibrated needs
 * model_variant.solo_latency and model_variant.pair_latency (doc/infer.md);
 * found no model_variant section", or the model without a grid or runs).
 */
int slo_ig_profile_set_variant(struct slo_ig_profile *p, const char *name, slo_error_t *err);

/*
 * Leave-one-pair-out errors of variant on the pair measurements text (the
 * slo_ig_colocation_errors format): for each unordered model pair {A, B} of
 * the rows, the variant's pair terms (kappa, o) are fitted on the rows of
 * every other pair of text only and the rows of {A, B} predicted with them,
 * so no row is predicted by terms fitted on it. The solo grid comes from p.
 * igniter-2023 fits nothing on pair runs: its errors are those of
 * slo_ig_colocation_errors. *ape: malloc'd [2 * rows] errors in percent, in
 * row order. Errors: those of slo_ig_colocation_errors and
 * slo_ig_profile_set_variant; SLO_ERR_INVALID when a held-out pair leaves a
 * model with fewer than 3 training runs (the text names the pair and model).
 */
int slo_ig_colocation_errors_lopo(const struct slo_ig_profile *p, int variant, const char *text,
                                  const char *source, double **ape, size_t *n,
                                  slo_error_t *err);

/* ------------------------------------------------------------------ */
/* Converters: profiling tools' CSV outputs (issue 19; `slo convert`)  */
/* ------------------------------------------------------------------ */

/*
 * The tools' CSV texts read into the figures of an inference profile
 * (doc/infer.md "Profiling your GPU": one run per grid point, batch b x MPS
 * share r). Each reads text with libslo's CSV reader (RFC 4180: quoted
 * fields, "" escapes, CRLF or LF; a UTF-8 byte order mark skipped; fields
 * trimmed of spaces and tabs): the header is the first line containing the
 * tool's first column name (lines before it - ncu's "==PROF==" banners - are
 * skipped), a column is matched by its name or by its name followed by
 * " [unit]" (nvidia-smi's "power.draw [W]"), blank rows are skipped, a
 * number may carry thousands separators ("1,024.5") and, for nvidia-smi,
 * its unit ("80.25 W", "1380 MHz"). source names the text in errors (NULL:
 * the tool's name). The _load forms read the file path (source = path).
 * Errors: SLO_ERR_INVALID with err->source "source:line" and the column:
 * a header lacking a column ("expected perf_analyzer -f CSV columns
 * "Concurrency" and "Server Compute Infer" (Triton 2.x), found no "Server
 * Compute Infer" column (header: Concurrency, Inferences/Second, ...)", at
 * the header line), a row with another field count than the header or an
 * open quote, a value out of range ("column power.draw: expected a power > 0
 * W, found "n/a""); no header or no data row (source alone);
 * SLO_ERR_IO/SLO_ERR_INVALID from reading the file (not found, a NUL byte,
 * over 64 MiB); SLO_ERR_NOMEM. On error the outputs are unchanged.
 */

/* Triton perf_analyzer -f CSV (Triton 2.x): the GPU time of one batch, ms:
 * "Server Compute Infer" (us per request, a request being one batch of the
 * run's batch size) of the row with the lowest "Concurrency" (>= 1), / 1000
 * -> the profile's gpulatency[b][r] (notes 1.1: the solo GPU time grid). */
int slo_ig_convert_perf_analyzer(const char *text, const char *source, double *gpu_ms,
                                 slo_error_t *err);
int slo_ig_convert_perf_analyzer_load(const char *path, double *gpu_ms, slo_error_t *err);

/* nvidia-smi --query-gpu=...,power.draw,clocks.sm --format=csv[,nounits]
 * samples during a run (of one GPU, -i N: rows whose index, uuid or
 * pci.bus_id column changes are SLO_ERR_INVALID at the first such row): the
 * means of power.draw (W, > 0) and clocks.sm
 * (MHz, > 0) over the samples -> power[b][r], frequency[b][r] (a model's
 * run), power_2/frequency_2 (two instances) or hardware power[c] and
 * frequency[c] (c co-running VGG-19), idlepower (notes 1.2.4-1.2.5). */
int slo_ig_convert_nvidia_smi(const char *text, const char *source, double *power_w,
                              double *clock_mhz, slo_error_t *err);
int slo_ig_convert_nvidia_smi_load(const char *path, double *power_w, double *clock_mhz,
                                   slo_error_t *err);

/* One Nsight Compute --csv run (rows "ID", "Metric Name", "Metric Unit",
 * "Metric Value", grouped by kernel ID): every kernel needs
 * gpu__time_duration.sum (nsecond, usecond, msecond or second) and
 * lts__t_sectors.avg.pct_of_peak_sustained_elapsed (% in [0, 100]); a
 * kernel lacking one is SLO_ERR_INVALID naming its ID. */
struct slo_ig_ncu_summary {
    double l2_pct;  /* duration-weighted mean L2 throughput, % of peak -> l2cache(s) */
    size_t kernels; /* kernels profiled (per inference: / the inferences run) */
    double busy_ms; /* their durations summed, ms -> activetime_1 (per inference) */
};
int slo_ig_convert_ncu(const char *text, const char *source, struct slo_ig_ncu_summary *out,
                       slo_error_t *err);
int slo_ig_convert_ncu_load(const char *path, struct slo_ig_ncu_summary *out, slo_error_t *err);

#ifdef __cplusplus
}
#endif
#endif /* SLO_INFER_H */
