/*
 * slo_train.h - training planner of libslo: spotDNN's performance and loss
 * models, the planners and the loss fit (included by slo.h).
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Conventions: slo_core.h.
 * Sources: spotDNN = R. Shang et al., "spotDNN: Provisioning Spot Instances
 * for Predictable Distributed DNN Training in the Cloud", IEEE/ACM IWQoS
 * 2023; "draft" = its Oct-2022 version in the authors' repository, whose
 * model the authors' code implements. Equation numbers are the paper's.
 */
#ifndef SLO_TRAIN_H
#define SLO_TRAIN_H

#include <stddef.h>

#include "slo_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Training workload profile                                           */
/* ------------------------------------------------------------------ */

enum slo_loss_form {
    SLO_LOSS_SPOTDNN_2023 = 0, /* paper Eq. 3: (g2 bw + g3) sqrt((R+g4) n)/(j+g1) + g5 */
    SLO_LOSS_SPOTDNN_2022 = 1  /* draft Eq. 3 / code: (g2 bw + g3) sqrt(n)/(j+g1) + g5 */
};

enum slo_compat {
    SLO_COMPAT_PAPER = 0,        /* Eqs. 6-7 as printed; j rounded up to an integer */
    SLO_COMPAT_SPOTDNN_CODE = 1  /* the authors' code: PCIe term folded into T_comp
                                    with its sign flipped, no separate PCIe term,
                                    bw rounded to 0.1, j half-to-even, T to 0.01 s,
                                    cost to 1e-6 USD (research notes 1.2, 1.6-1.10) */
};

struct slo_loss_model {
    enum slo_loss_form form;
    double gamma1; /* normalized iterations, offset in the denominator */
    double gamma2; /* loss per sample of weighted-average batch (normally < 0) */
    double gamma3; /* loss x iterations */
    double gamma4; /* convergence-coefficient offset (spotdnn-2023 only) */
    double gamma5; /* asymptotic loss (>= 0: profiles with a negative one are refused) */
};

struct slo_workload_instance {
    char type[SLO_NAME_LENGTH]; /* instance type name, as in the catalog */
    int batch_per_gpu;          /* b_k, samples per GPU per iteration */
    double speed;               /* profiled speed of one instance training alone,
                                   samples/s (iteration time = g b_k / speed) */
};

/* The training model family of a workload profile ("mode", issue 17). */
enum slo_train_mode {
    SLO_TRAIN_ASYNC_PS = 0,        /* "async-ps": spotDNN's asynchronous parameter server */
    SLO_TRAIN_SYNC_ALLREDUCE = 1   /* "sync-allreduce": synchronous data parallel (DDP,
                                      Horovod): every step waits for the slowest worker
                                      and the gradient allreduce (doc/model.md
                                      "Synchronous data-parallel") */
};

/* One profiled instance type of a sync-allreduce profile (parallel to
 * slo_workload.instances, same order and type names). */
struct slo_sync_instance {
    char type[SLO_NAME_LENGTH];
    double speed;          /* samples/s of one instance (all its GPUs) computing
                              forward + backward alone, no allreduce */
    double gpu_link_mbps;  /* intra-node GPU-to-GPU link (NVLink, PCIe), MB/s;
                              0: not given (then the catalog's pcie_mbps) */
    double network_mbps;   /* inter-node NIC, MB/s; 0: the catalog's network_mbps */
    double step_overhead_s; /* fixed compute time per step, s (Pollux's T_grad =
                              alpha + beta m, OSDI'21 Sec. 3.2): a worker's compute
                              is step_overhead_s + share / per-GPU speed; 0 default */
};

/* The inputs of the synchronous data-parallel model (doc/formats.md
 * "Synchronous data-parallel profile"). */
struct slo_sync_profile {
    double gradient_bytes; /* bytes allreduced per step (the gradients), > 0 */
    double global_batch;   /* fixed global batch B, samples per step; 0: weak
                              scaling, B = GPUs x batch_per_gpu */
    int batch_per_gpu;     /* samples per GPU per step (weak scaling), 0 with
                              global_batch */
    int uneven_batches;    /* 1: the framework splits B in proportion to speed
                              (every worker finishes together); 0: equal shares */
    double latency_s;      /* ring allreduce alpha per step, s (>= 0) */
    double overlap;        /* fraction of the compute time (backward) that hides
                              the allreduce, [0, 1] (0: nothing hidden) */
    double link_mbps;      /* stated or fitted effective ring bandwidth, MB/s; 0:
                              the slowest link of the cluster from catalog/profile */
    double b0;             /* Pollux's reference batch B0, samples */
    double phi;            /* Pollux's gradient noise scale phi, samples (>= 0) */
    /* Loss at B0 after j0 steps: L = gamma3 / (j0 + gamma1) + gamma5 (the loss
     * floor, >= 0) */
    double gamma1, gamma3, gamma5;
    size_t n_instances;
    struct slo_sync_instance *instances; /* [n_instances], owned by the profile */
};

struct slo_workload {
    char name[SLO_NAME_LENGTH];
    double s_parm_mb;          /* S_parm: parameter (= gradient) size, MB */
    double b_req_mbps;         /* B_req: bandwidth one worker draws from the PS alone */
    double b_ps_mbps;          /* B_ps: PS NIC bandwidth */
    double b_pcie_mbps;        /* B_pcie: usable PCIe bandwidth in a worker (default) */
    double alpha1, beta1;      /* Eq. 9: P = alpha1 sqrt(n) + beta1 */
    double contention_margin;  /* added to P (paper Sec. IV-C: 0.01-0.05); 0 default */
    enum slo_compat compat;
    struct slo_loss_model loss;
    size_t n_instances;
    struct slo_workload_instance *instances; /* [n_instances], owned */
    int worker_network_catalog; /* "worker_network": "catalog" (issue 12): a type's
                                   B_req is min(catalog network_mbps, b_req_mbps)
                                   where the catalog gives network_mbps; 0 (default,
                                   "profile"): every type draws b_req_mbps (paper) */
    enum slo_train_mode mode;   /* "mode" (issue 17): async-ps (default, spotDNN) or
                                   sync-allreduce (then sync is set) */
    struct slo_sync_profile *sync; /* [1] the synchronous model's inputs, owned;
                                   NULL for async-ps */
};

/*
 * Parse a training workload profile from JSON (doc/formats.md, "Training
 * workload profile"). Errors as slo_catalog_parse; also SLO_ERR_INVALID for an
 * unknown loss form or compat name, and for loss coefficients that make every
 * target unreachable (gamma3 <= 0 with gamma2 >= 0).
 */
int slo_workload_parse(const char *json, const char *source, struct slo_workload *wl,
                       slo_error_t *err);
int slo_workload_load(const char *path, struct slo_workload *wl, slo_error_t *err);
/* Open a workload as slo_catalog_open opens a catalog: an embedded NAME
 * (slo_embedded_workload_names()) or a FILE path; opt names the argument in
 * messages ("--workload"; NULL: "workload"). */
int slo_workload_open(const char *name_or_path, const char *opt, struct slo_workload *wl,
                      slo_error_t *err);
/* As slo_workload_open for `slo fit train --workload` (issue 12): a profile
 * without "loss_model" (the thing the fit produces) is read too, with
 * *has_loss = 0 and wl->loss zero (form spotdnn-2022); *has_loss = 1 when it
 * has one. Every other field and error as slo_workload_parse. */
int slo_workload_open_for_fit(const char *name_or_path, const char *opt,
                              struct slo_workload *wl, int *has_loss, slo_error_t *err);
void slo_workload_free(struct slo_workload *wl);
/* Serialize wl as JSON text in the format slo_workload_parse reads; the caller
 * frees the returned string. NULL on allocation failure. */
char *slo_workload_to_json(const struct slo_workload *wl);

/* ------------------------------------------------------------------ */
/* spotDNN performance model (paper Eqs. 1-11)                         */
/* ------------------------------------------------------------------ */

/*
 * Eq. 9, clamped: P = min(max(alpha1 sqrt(n) + beta1 + margin, 0), 1), the
 * probability that PS bandwidth is the bottleneck for n workers.
 */
double slo_contention_probability(double alpha1, double beta1, double margin, int n);

/*
 * Eq. 8: bandwidth (MB/s) one worker gets from the PS when n workers share
 * B_ps: B_req when n B_req <= B_ps, else P (B_ps / n) + (1 - P) B_req, where
 * P = slo_contention_probability(...). *p_out (may be NULL) receives P, or -1
 * when there is no contention.
 */
double slo_worker_bandwidth(const struct slo_workload *wl, int n, double *p_out);

/*
 * Eq. 5: convergence coefficient R = sqrt((w_1 - 1)^2 + sum_{i>=2} w_i^2),
 * the distance of the share vector from [1,0,...,0]. speeds: [n] worker speeds
 * v^i in samples/s (any positive unit); w_i = v^i / sum v. Worker 1 is the one
 * with the largest share (the paper does not say; this choice reproduces its
 * Table VI and Fig. 3b, see tests). Returns 0 for n <= 1 and NAN for a
 * non-positive total.
 */
double slo_convergence_coefficient(const double *speeds, size_t n);

/*
 * Eq. 3: predicted loss after j normalized iterations for a cluster of n
 * workers with weighted-average batch bw (samples) and convergence
 * coefficient R (ignored by spotdnn-2022).
 */
double slo_loss_at(const struct slo_loss_model *m, double bw, double R, int n, double j);

/*
 * Inverse of Eq. 3: normalized iterations (real, not rounded) to reach loss
 * target. Returns SLO_ERR_UNREACHABLE when target <= gamma5 (the asymptote),
 * when gamma2 bw + gamma3 <= 0 or R + gamma4 < 0 (no decay), with the reason
 * in err; SLO_OK otherwise (*j_out may be <= 0: the target is already met at
 * j = 0).
 */
int slo_iterations_for_loss(const struct slo_loss_model *m, double bw, double R, int n,
                            double target, double *j_out, slo_error_t *err);

/*
 * The model bound to a catalog, a workload and a pricing model: one entry per
 * catalog type that the workload profiles (others are listed as skipped).
 */
struct slo_train_type {
    int catalog_index;        /* index into the catalog */
    const char *name;         /* catalog's name (borrowed) */
    enum slo_site site;
    int gpus;                 /* g^i */
    double batch;             /* b^i = g^i b_k, samples per iteration */
    double t_comp_s;          /* compute time per iteration (paper: T_prof - 2S/B_req
                                 - 2gS/B_pcie; code compat: T_prof - 2S/B_req
                                 + 2gS/B_pcie) */
    double t_pcie_s;          /* 2 g S / B_pcie (Eq. 7); 0 in code compat */
    double usd_per_h;         /* price under the chosen pricing */
    int quota;
    double b_req_mbps;        /* B_req of this type, MB/s: the workload's b_req_mbps, or
                                 with worker_network "catalog" min(the type's
                                 network_mbps, b_req_mbps) (doc/model.md) */
};

/* A setup type's synchronous-model inputs (slo_sync_setup_init). */
struct slo_sync_type {
    double speed;             /* samples/s of one instance computing alone */
    double gpu_link_mbps;     /* intra-node GPU link, MB/s (0: one GPU, no link) */
    double network_mbps;      /* inter-node NIC, MB/s */
    double t0_s;              /* the profile's step_overhead_s, s */
};

struct slo_train_setup {
    struct slo_workload wl;       /* copy of the scalars (instances not copied) */
    enum slo_pricing pricing;
    size_t n_types;
    struct slo_train_type *types; /* [n_types], owned */
    size_t n_skipped;             /* catalog types with no profile for this workload */
    int *skipped;                 /* [n_skipped] catalog indices, owned */
    struct slo_sync_type *sync_types; /* [n_types] sync-allreduce setups, owned; else NULL */
};

/*
 * Bind catalog and workload. Errors: SLO_ERR_INVALID when the workload
 * profiles no type of the catalog, or when a profiled speed leaves no
 * compute time (T_comp <= 0, text names the type); SLO_ERR_NOMEM.
 */
int slo_train_setup_init(struct slo_train_setup *s, const struct slo_catalog *cat,
                         const struct slo_workload *wl, enum slo_pricing pricing,
                         slo_error_t *err);
void slo_train_setup_free(struct slo_train_setup *s);

/* Eq. 6-7: iteration time (s) of one worker of type k when n workers share the PS. */
double slo_train_iteration_time(const struct slo_train_setup *s, size_t k, int n);

/* Eq. 8 for setup type k: the bandwidth (MB/s) one worker of type k gets when
 * n workers share B_ps, with the type's own B_req (s->types[k].b_req_mbps):
 * B_req when n B_req <= B_ps, else P B_ps / n + (1 - P) B_req. Equal to
 * slo_worker_bandwidth when the workload's worker_network is "profile".
 * *p_out (may be NULL) as there. */
double slo_train_type_bandwidth(const struct slo_train_setup *s, size_t k, int n,
                                double *p_out);

/* What a plan is asked to meet. */
struct slo_train_request {
    double target_loss;   /* L_obj */
    double deadline_s;    /* T_obj: remaining time to the deadline, > 0 */
    double budget_usd;    /* cost cap, <= 0 for none */
    double loss_now;      /* re-planning: loss reached so far; <= 0 for a fresh start */
    double overhead_s;    /* T_ohd added to every candidate time (restart overhead) */
    const int *existing;  /* [n_types] survivors that every plan keeps (each at most
                             its type's quota), or NULL */
    long node_limit;      /* exact searches: branch-and-bound nodes before the search
                             stops with its best plan unproven; <= 0: 2,000,000
                             (about a second) */
    int max_workers;      /* most workers (= instances, one worker each) a plan may
                             hold in total, e.g. a Slurm site's node limit per job;
                             <= 0: no limit. Every search (window, exact, brute
                             force, fastest, homogeneous) considers only plans
                             within it; survivors above it are SLO_ERR_INVALID */
};

struct slo_train_eval {
    int n_workers;
    double p_contention;  /* P, or -1 when n B_req <= B_ps */
    double b_wk_mbps;     /* Eq. 8 */
    double speed;         /* v = sum b^i / T^i, samples/s (Eq. 4 text) */
    double t_exp_s;       /* Eq. 2: 1 / sum (1/T^i) */
    double wa_batch;      /* Eq. 4: b_w = v T_exp */
    double cc;            /* Eq. 5: R */
    double iterations;    /* j to go from loss_now (or the start) to target_loss */
    double time_s;        /* Eq. 1: j T_exp, plus overhead_s */
    double usd_per_h;     /* sum of instance prices */
    double cost_usd;      /* Eq. 11: time_s usd_per_h / 3600 */
    double samples;       /* j b_w: the sample budget to hand to training */
};

/*
 * Evaluate the cluster counts ([n_types] instances per setup type, at least
 * one worker) against req. Returns SLO_OK, SLO_ERR_INVALID (no workers,
 * negative count) or SLO_ERR_UNREACHABLE (the loss model cannot reach
 * req->target_loss with this cluster). Re-planning (req->loss_now > 0)
 * counts the iterations still to go as j(L_obj) - max(j(L_now), 0), both on
 * the new cluster (the paper leaves this open; doc/model.md explains why). A
 * target at or above where this cluster's loss curve starts takes one
 * iteration.
 */
int slo_train_evaluate(const struct slo_train_setup *s, const int *counts,
                       const struct slo_train_request *req, struct slo_train_eval *out,
                       slo_error_t *err);

/* ------------------------------------------------------------------ */
/* spotDNN planner (paper Sec. IV, Algorithm 1) and exact search       */
/* ------------------------------------------------------------------ */

struct slo_train_plan {
    int feasible;             /* 1 when counts meets deadline and budget */
    int *counts;              /* [n_types] of the setup, owned (slo_train_plan_free) */
    struct slo_train_eval eval;
    int proven;               /* 1 when the plan is proven optimal: the exact search
                                 finished within req->node_limit, or brute force */
    long evaluations;         /* cluster evaluations or search nodes visited */
    int n_lower, n_upper;     /* window sizes searched (window method), else 0 */
};

void slo_train_plan_free(struct slo_train_plan *p);

/*
 * Algorithm 1: bounds (Eqs. 15-16) plus sliding windows over the instance
 * list sorted by no-contention iteration time, descending (on-prem instances
 * first), with the existing instances prefixed to every window; window sizes
 * stop at req->max_workers (when Eq. 16 asks for more, the largest allowed).
 * Returns SLO_OK with plan->feasible = 1, or SLO_ERR_INFEASIBLE (text says so,
 * plan->feasible = 0), SLO_ERR_INVALID for a bad request, SLO_ERR_NOMEM.
 */
int slo_plan_window(const struct slo_train_setup *s, const struct slo_train_request *req,
                    struct slo_train_plan *plan, slo_error_t *err);

/*
 * Exact search: the proven cheapest plan under the same model, over every
 * count vector existing <= n_k <= max(quota_k, existing_k) with sum n_k <=
 * req->max_workers (when > 0). Branch and bound
 * per total worker count n over performance classes (catalog entries of the
 * same batch and iteration time, e.g. one type's pools in several zones,
 * filled cheapest first: exact), with bounds from the range of the
 * weighted-average batch, a convergence-coefficient floor, the exact
 * minimum price-per-iteration ratio (Dinkelbach), a time bound that couples
 * the iterations and the iteration rate of one relaxed completion, and a
 * cost bound monotone in n (doc/model.md). Ties keep the first plan found; a
 * plan that costs nothing ends the search. Both answers are proven:
 * SLO_OK with plan->proven = 1 is the cheapest plan, SLO_ERR_INFEASIBLE with
 * plan->proven = 1 is a proof that none meets the request. The node limit is
 * a safety net: when the search visits req->node_limit nodes it stops and
 * returns its best plan with plan->proven = 0 (with none, SLO_ERR_INFEASIBLE
 * says that no plan was found, not that none exists). *plan is always
 * initialized (free it). Returns as slo_plan_window.
 */
int slo_plan_exact(const struct slo_train_setup *s, const struct slo_train_request *req,
                   struct slo_train_plan *plan, slo_error_t *err);

/*
 * The fastest plan regardless of deadline, budget and cost (branch and bound
 * on time, seeded with the fastest single-type and sliding-window clusters):
 * the closest feasible point when nothing meets the SLO. plan->proven as for
 * slo_plan_exact. Returns SLO_OK (plan->feasible says whether it meets the
 * deadline and budget), SLO_ERR_UNREACHABLE when no cluster can reach the
 * target loss at all (with the reason for a single worker).
 */
int slo_plan_fastest(const struct slo_train_setup *s, const struct slo_train_request *req,
                     struct slo_train_plan *plan, slo_error_t *err);

/* The cheapest plan that uses one instance type only (plus the existing
 * instances), for comparison. Returns as slo_plan_window. */
int slo_plan_homogeneous(const struct slo_train_setup *s,
                         const struct slo_train_request *req,
                         struct slo_train_plan *plan, slo_error_t *err);

/*
 * The exact cost-deadline frontier (issue 20): every plan that no other plan
 * beats on both time and cost, i.e. every deadline at which the cheapest
 * plan changes, with that plan. points[0..n-1] by time ascending and cost
 * strictly descending; for a deadline T in [from_s, to_s] the cheapest plan
 * that meets the SLO is the last point with eval.time_s <= T, and no plan
 * meets it when T < points[0].eval.time_s (or n == 0). Computed in one
 * branch and bound (the exact search's bounds, pruning every node whose
 * lower bounds on time and cost a point already beats), not per deadline.
 */
struct slo_train_frontier {
    size_t n;
    struct slo_train_plan *points; /* [n], owned; each proven when proven */
    double from_s, to_s;           /* the range of deadlines asked, s */
    int proven;                    /* 1 when the search finished within req->node_limit */
    long nodes;                    /* branch-and-bound nodes visited */
};

/*
 * The frontier for deadlines from_s to req->deadline_s (T2, s; target loss,
 * budget, survivors, overhead and max_workers as for slo_plan_exact).
 * Errors: SLO_ERR_INVALID when from_s < 0 or from_s >= req->deadline_s
 * (source "--from", "expected a range T1 < T2, found --from T1 s >= --to
 * T2 s") and for a request slo_plan_exact refuses; SLO_ERR_UNREACHABLE as
 * there; SLO_ERR_NOMEM. SLO_OK with n == 0: no plan within to_s. Free with
 * slo_train_frontier_free. Source: spotDNN's model (Eqs. 1-11); the search:
 * slo_plan_exact.
 */
int slo_plan_frontier(const struct slo_train_setup *s, const struct slo_train_request *req,
                      double from_s, struct slo_train_frontier *f, slo_error_t *err);
void slo_train_frontier_free(struct slo_train_frontier *f);

/* ------------------------------------------------------------------ */
/* Cluster lists "TYPE=N,TYPE=N"                                       */
/* ------------------------------------------------------------------ */

#define SLO_CLUSTER_MAX_TYPES 64
#define SLO_CLUSTER_COUNT_TEXT 32

struct slo_cluster_entry {
    char type[SLO_NAME_LENGTH];               /* instance type name */
    long count;                               /* N; -1 when count_text is not a
                                                 decimal integer from 0 to 1e9 */
    char count_text[SLO_CLUSTER_COUNT_TEXT];  /* N as written (spaces removed, cut
                                                 at 31 characters), for messages */
};

struct slo_cluster {
    size_t n;                                             /* entries used */
    struct slo_cluster_entry entry[SLO_CLUSTER_MAX_TYPES]; /* in the order written */
};

/*
 * Parse a cluster list "TYPE=N,TYPE=N,..." (training logs' "# cluster:"
 * comment, `slo train --existing`): spaces and tabs anywhere are ignored;
 * every comma-separated item is TYPE=N with a non-empty TYPE of at most
 * SLO_NAME_LENGTH - 1 characters; each TYPE at most once; at most
 * SLO_CLUSTER_MAX_TYPES items. The count's range is the caller's rule (the
 * entry keeps count = -1 and the text when N is not a number). Errors
 * (SLO_ERR_INVALID, err->source ""): "expected TYPE=N[,TYPE=N...], found
 * "SPEC"" (an empty item), ... found "ITEM"" (no '=' or no type), "expected a
 * type name of at most 63 characters, found "NAME...""; "expected at most 64
 * instance types"; "expected each instance type once, found TYPE again".
 */
int slo_cluster_parse(const char *spec, struct slo_cluster *out, slo_error_t *err);

/* Write the entries with count > 0 as "TYPE<kv>N,..." (kv '=' or ':'), in
 * entry order, into buf[len]. Returns 0, or -1 when the text did not fit
 * (buf then holds what fit, NUL-terminated). */
int slo_cluster_format(const struct slo_cluster *c, char kv, char *buf, size_t len);

/* slo_cluster_format of counts[s->n_types] (a plan's counts) with the setup's
 * type names, in setup order. Returns as slo_cluster_format. */
int slo_train_counts_format(const struct slo_train_setup *s, const int *counts, char kv,
                            char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* The job-level training planner: one solve call                      */
/* ------------------------------------------------------------------ */

/* What to plan: the model's inputs and the SLO. */
struct slo_train_problem {
    const struct slo_catalog *catalog;   /* instance types, prices, quotas (borrowed) */
    const struct slo_workload *workload; /* profiles and loss model (borrowed) */
    enum slo_pricing pricing;            /* prices of cloud types */
    double target_loss;                  /* L_obj (SLO) */
    double deadline_s;                   /* T_obj from the job's start, s, > 0 */
    double budget_usd;                   /* cost cap, USD; <= 0: none */
    /* Re-planning after a revocation (all 0 / NULL for a fresh plan): */
    double loss_now;                     /* loss reached so far; <= 0: fresh start */
    double elapsed_s;                    /* time spent; the plan gets deadline_s -
                                            elapsed_s, s, >= 0 */
    double overhead_s;                   /* T_ohd added to every plan's time, s, >= 0 */
    const struct slo_cluster *existing;  /* survivors every plan keeps, by type name
                                            (counts 0 .. the type's quota), or NULL */
};

enum slo_train_search {
    SLO_TRAIN_SEARCH_BOTH = 0,   /* window and exact; the exact plan is recommended */
    SLO_TRAIN_SEARCH_WINDOW = 1, /* the sliding window only (spotDNN Algorithm 1) */
    SLO_TRAIN_SEARCH_EXACT = 2   /* the exact search only */
};

struct slo_train_options {
    enum slo_train_search search; /* default SLO_TRAIN_SEARCH_BOTH */
    long node_limit;              /* exact searches' branch-and-bound node budget;
                                     <= 0: 2,000,000 (default 0) */
    int max_workers;              /* most instances (one worker each) a plan may hold;
                                     <= 0: no limit (default 0) */
    int comparisons;              /* 1 (default): also the on-demand and homogeneous
                                     comparisons of a feasible result */
};

/* Set the defaults above. */
void slo_train_options_init(struct slo_train_options *opt);

/* When nothing meets the SLO: which closest feasible point result.closest is. */
enum slo_train_closest {
    SLO_TRAIN_CLOSEST_NONE = 0,     /* none (the loss is unreachable) */
    SLO_TRAIN_CLOSEST_CHEAPEST = 1, /* the cheapest plan that meets the deadline without
                                       the budget (the budget binds) */
    SLO_TRAIN_CLOSEST_FASTEST = 2   /* the fastest plan, regardless of deadline and budget */
};

struct slo_train_result {
    enum slo_status status;         /* optimal, feasible_unproven, infeasible,
                                       infeasible_unproven */
    char reason[SLO_REASON_LENGTH]; /* "" when optimal; else `slo train`'s message:
                                       why not proven, or why infeasible with the
                                       closest point */
    struct slo_train_setup setup;   /* the bound model; every counts[] below is
                                       [setup.n_types] in its type order */
    int *existing;                  /* [setup.n_types] survivors kept */
    double remaining_s;             /* deadline_s - elapsed_s, s */
    double overhead_s;              /* the overhead added to every plan, s */
    /* Feasible (status optimal or feasible_unproven): */
    enum slo_train_search method;   /* the search whose plan is recommended:
                                       SLO_TRAIN_SEARCH_WINDOW or _EXACT */
    struct slo_train_plan plan;     /* the recommended plan (copy of window or exact) */
    /* The comparisons, each with a flag saying it was computed (its plan's
     * feasible field says whether it found one): */
    int have_window, have_exact, have_on_demand, have_homogeneous;
    struct slo_train_plan window;      /* sliding window (Algorithm 1) */
    struct slo_train_plan exact;       /* exact search (proven when exact.proven) */
    struct slo_train_plan on_demand;   /* the recommended search with on-demand prices
                                          (spot pricing only; counts index setup) */
    struct slo_train_plan homogeneous; /* cheapest plan of one instance type */
    /* Infeasible (status infeasible or infeasible_unproven): */
    char cause[SLO_REASON_LENGTH];  /* the search's verdict without the closest point
                                       ("no plan meets the SLO: loss 0.6 within 5000
                                       s"); "" when the target loss is unreachable
                                       before any search */
    char unreachable[SLO_REASON_LENGTH]; /* why no cluster reaches the target loss,
                                            else "" */
    enum slo_train_closest closest_kind;
    struct slo_train_plan closest;  /* the closest feasible point: its eval says the
                                       time (s) and cost (USD) it needs; closest.proven
                                       0 when a node limit stopped its search */
};

/* Free what a result owns (safe on a zeroed or freed result). */
void slo_train_result_free(struct slo_train_result *res);

/*
 * Plan the cheapest cluster for problem under opt (NULL: defaults):
 * slo_train_setup_init, then the sliding window (slo_plan_window) and/or the
 * exact search (slo_plan_exact), the comparisons, and when nothing meets the
 * SLO the closest feasible point (the cheapest plan without the budget when
 * there is a budget and such a plan exists, else slo_plan_fastest), every
 * search within opt->max_workers. Status: the exact search finished ->
 * optimal; it stopped at opt->node_limit with a plan, or the window alone ->
 * feasible_unproven; no plan meets the SLO and the exact search finished, or
 * the target loss is unreachable -> infeasible; the exact search stopped with
 * no plan, or the window alone found none -> infeasible_unproven.
 * Returns SLO_OK whatever the status; SLO_ERR_INVALID / SLO_ERR_NOT_FOUND
 * for bad input (as slo_train_setup_init, slo_plan_window and slo_plan_exact
 * report it; an existing type that the setup does not hold: source
 * "--existing", "expected an instance type of the catalog that the workload
 * profiles, found "T""; a count out of 0..quota: "T: expected a count from 0
 * to the catalog's quota Q, found "N""), SLO_ERR_NOMEM. On error res holds
 * no plan (status SLO_STATUS_INFEASIBLE_UNPROVEN; res->existing is set once
 * the catalog and workload were bound, so a caller can tell a binding error
 * from a bad request); free it anyway. Sources: spotDNN Sec. IV (Algorithm 1, Eqs. 1-16); the exact
 * search: slo_plan_exact.
 */
int slo_train_solve(const struct slo_train_problem *problem,
                    const struct slo_train_options *opt, struct slo_train_result *res,
                    slo_error_t *err);

/* ------------------------------------------------------------------ */
/* Fitting the loss model from training logs                           */
/* ------------------------------------------------------------------ */

/* One loss observation of a profiling run. */
struct slo_loss_sample {
    double iterations; /* j: global samples / b_w (normalized iterations) */
    double wa_batch;   /* b_w of the cluster, samples */
    double cc;         /* R of the cluster (used by spotdnn-2023) */
    int n_workers;     /* n */
    double loss;
};

struct slo_fit_report {
    double rmse;        /* root-mean-square loss residual */
    double r2;          /* coefficient of determination */
    size_t n_samples;
    size_t n_clusters;  /* distinct (b_w, R, n) */
    int gamma1_at_limit; /* 1 when gamma1 ended at its search range's end
                            ([1e-3, 1e6]): the logs do not determine it */
    int gamma4_at_limit; /* the same for gamma4 ([0, 10], spotdnn-2023) */
    double condition;    /* condition number of the column-scaled Jacobian of Eq. 3 in
                            (gamma2, gamma3, gamma5, gamma1[, gamma4]) at the fit; at
                            most 1e8 is accepted */
    double gamma2_se, gamma3_se, gamma5_se, gamma1_se; /* asymptotic standard errors,
                            sigma^2 (J^T J)^-1 with sigma^2 = rss / (n - parameters) */
};

/*
 * Least-squares fit of the loss model of form m->form to samples[n]:
 * variable projection (for fixed gamma1 (and gamma4) Eq. 3 is linear in
 * gamma2, gamma3, gamma5, solved with LAPACKE_dgels), with a bracketing scan
 * and golden-section refinement of the nonlinear coefficients (research notes
 * 1.11). On success m holds the coefficients.
 * Errors: SLO_ERR_INVALID with fewer than 8 samples, fewer than 2 distinct
 * clusters (bw cannot be separated from the constant), a non-finite or
 * negative value (text names the sample index); SLO_ERR_INVALID too when the
 * samples do not determine the fit (text says what is missing): a decay
 * term gamma2 b_w + gamma3 <= 0 at a profiled b_w, a Jacobian condition
 * number above 1e8 (e.g. batches b_w that differ by 1e-9), 2 SE(gamma1) >
 * gamma1, 2 SE(gamma2) b_w,max above 10% of that decay term, a loss floor
 * gamma5 < 0 beyond two standard errors,
 * gamma1 at an end of [1e-3, 1e6] or gamma4 at 10 (doc/cli.md "slo fit
 * train"); SLO_ERR_NUMERIC when LAPACK fails; SLO_ERR_NOMEM. m and report are
 * unchanged on failure.
 */
int slo_fit_loss(const struct slo_loss_sample *samples, size_t n, struct slo_loss_model *m,
                 struct slo_fit_report *report, slo_error_t *err);

/*
 * A per-worker training log (CSV; doc/formats.md "Training logs"): lines
 * "# cluster: TYPE=N,TYPE=N" naming the cluster it ran on, a header with at
 * least the columns time_s, global_step, global_samples, loss, then one row
 * per logged step.
 */
struct slo_train_log {
    char source[SLO_ERROR_SOURCE_LENGTH];
    char cluster[256];      /* the "# cluster:" value, normalized */
    size_t n_rows;
    double *time_s, *global_step, *global_samples, *loss; /* [n_rows] each, owned */
    /* Optional, as python/slo/trainlog.py's StepLogger writes them (issue 12): */
    double *step_s;         /* [n_rows] the step's wall time, s (0 without the column) */
    int has_step_s;         /* 1 when the header has step_s */
    double batch;           /* the batch column (samples per step, one value per log),
                               0 without the column */
    char type[SLO_NAME_LENGTH];  /* the type column (one of the cluster's), "" without */
    char model[SLO_NAME_LENGTH]; /* "# model: NAME", "" without */
    double parameter_bytes; /* "# parameter_bytes: N" (bytes of parameters = of one
                               gradient push), 0 without */
    size_t cluster_line, model_line, bytes_line; /* lines of those comments, 0: none */
};

/* Read one log. Errors name the file, line and column: SLO_ERR_IO,
 * SLO_ERR_INVALID (missing cluster line or column, a non-number, a value above
 * its column's bound (time_s 1e11 s, counts 1e15, loss 1e6, step_s 1e6 s),
 * decreasing time_s, global_step or global_samples, global_samples <
 * global_step, a batch or type that changes between rows, a type not in the
 * cluster, a second or late "# model:" / "# parameter_bytes:" comment),
 * SLO_ERR_NOMEM. */
int slo_train_log_load(const char *path, struct slo_train_log *log, slo_error_t *err);
void slo_train_log_free(struct slo_train_log *log);

/*
 * Turn logs[n_logs] into loss samples: logs with the same cluster form one
 * profiling run; its measured b_w is the total samples per update
 * (last global_samples / last global_step over all its workers), n and R
 * come from the cluster spec and the setup's model (R needs the workload's
 * speeds; types unknown to the setup are an error when R is needed).
 * *out is malloc'd [*n_out]. Errors: SLO_ERR_INVALID (a cluster spec that
 * names unknown types, no rows), SLO_ERR_NOMEM.
 */
int slo_train_logs_to_samples(const struct slo_train_log *logs, size_t n_logs,
                              const struct slo_train_setup *s, int need_cc,
                              struct slo_loss_sample **out, size_t *n_out,
                              slo_error_t *err);


/* ------------------------------------------------------------------ */
/* Fitting a complete workload profile from training logs (issue 12)   */
/* ------------------------------------------------------------------ */

struct slo_train_fit_options {
    enum slo_loss_form form;       /* the loss model to fit (default spotdnn-2023) */
    const char *name;              /* profile name; NULL: the logs' "# model:", else
                                      "fitted" */
    double parameter_bytes;        /* bytes of the model's parameters (= of one gradient
                                      push); 0: the logs' "# parameter_bytes:" */
    const struct slo_catalog *catalog; /* types' GPUs, network_mbps, pcie_mbps; NULL:
                                      every type 1 GPU, no network_mbps (borrowed) */
    double b_req_mbps, b_ps_mbps;  /* stated bandwidths, MB/s; 0: from mpiprof_path, else
                                      from ps_type */
    const char *mpiprof_path;      /* slo-mpiprof JSON (doc/mpiprof.md) with the PS as
                                      rank 0, or NULL */
    const char *ps_type;           /* catalog type the PS runs on (its network_mbps is
                                      B_ps, and B_req when nothing else gives it), or
                                      NULL */
    int contention_given;          /* 1: alpha1, beta1 below are stated, not fitted */
    double alpha1, beta1;
};

/* Set the defaults above (all zero / NULL, form spotdnn-2023). */
void slo_train_fit_options_init(struct slo_train_fit_options *opt);

/* What one instance type's runs gave. */
struct slo_train_fit_type {
    char type[SLO_NAME_LENGTH];
    int gpus;                /* from the catalog, else 1 */
    double batch;            /* samples per step of one worker (the logs' batch column) */
    double t_alone_s;        /* median step time alone (cluster TYPE=1), s */
    double t_alone_se_s;     /* its standard error, 1.2533 sd / sqrt(m), s */
    size_t n_steps;          /* steps in the median (every alone log's rows but the
                                first) */
    double b_req_mbps;       /* B_req of the type used in the fit, MB/s */
};

struct slo_train_fit_result {
    size_t n_types;
    struct slo_train_fit_type *types; /* [n_types], owned, in first-seen log order */
    size_t n_runs;                    /* distinct clusters */
    char b_req_source[128], b_ps_source[128]; /* where B_req and B_ps came from */
    /* Contention (Eq. 9), when fitted (contention_fitted = 1): */
    int contention_fitted;
    double alpha1_se, beta1_se;       /* NAN when the fit has no residual freedom */
    size_t contention_used;           /* worker observations in the fit */
    double rms_p;                     /* rms residual of P */
    /* Iteration-time residuals of every worker of a multi-worker run: the
     * model's T^k(n) (Eqs. 6-9 with the fitted coefficients) against its
     * median step_s, relative: */
    size_t n_time_obs;
    double time_rms_rel, time_max_rel;
    struct slo_fit_report loss;       /* the loss fit (slo_fit_loss) */
};

void slo_train_fit_result_free(struct slo_train_fit_result *r);

/*
 * Fit every coefficient of a workload profile (doc/formats.md "Training
 * workload profile") from per-worker logs[n_logs] read by
 * slo_train_log_load with StepLogger's columns step_s, batch and type:
 *  - S_parm = parameter_bytes / 1e6 MB (the gradient a worker pushes and the
 *    parameters it pulls per iteration, Eq. 7);
 *  - per type, speed_samples_per_s = batch / T^k(1), T^k(1) the median
 *    step_s of its runs alone ("# cluster: TYPE=1"), and batch_per_gpu =
 *    batch / gpus;
 *  - B_req, B_ps: stated (opt), else from the slo-mpiprof profile (B_req =
 *    the median over the pairs (0, r) of the point-to-point bandwidth at the
 *    largest size; B_ps = the fastest NIC of rank 0's node when the ranks
 *    span nodes), else the catalog's network_mbps of opt->ps_type; with a
 *    catalog that gives network_mbps the profile gets worker_network
 *    "catalog" (per-type B_req = min(network_mbps, B_req));
 *  - B_pcie: not measurable from the logs: the catalog's pcie_mbps per type
 *    where given, else the paper's 10000 MB/s (b_pcie_mbps);
 *  - alpha1, beta1 (Eq. 9): slo__fit_contention over every worker of the
 *    runs with n >= 2 workers, each against its type's T^k(1) and B_req;
 *  - the loss model (slo_fit_loss) with R (Eq. 5) from the measured speeds
 *    of each run's workers.
 * On success *wl is a complete profile (compat paper; free with
 * slo_workload_free) and *res the fit's figures (free it).
 * Errors (SLO_ERR_INVALID, source the file, text with its line where one
 * line is at fault): logs of different models (a "# model:" or "#
 * parameter_bytes:" that differs from the first log's or from
 * opt->parameter_bytes), no parameter bytes at all, a log without step_s,
 * batch or type, a cluster type not in opt->catalog, a batch that is not a
 * multiple of the type's GPUs or differs between logs of one type, a cluster
 * type no log is of ("expected logs of its workers"), a type
 * with no run alone ("need a run of TYPE alone ..."), no source for B_req or
 * B_ps, a type whose step alone is no longer than its communication time,
 * too few runs for alpha1/beta1 (the cluster sizes needed and found), a
 * fitted alpha1 <= 0; those of slo_fit_loss and of slo_comm_profile_load;
 * SLO_ERR_NOMEM. Sources: spotDNN Sec. III (profiling), Eqs. 3-9.
 */
int slo_fit_train_profile(const struct slo_train_log *logs, size_t n_logs,
                          const struct slo_train_fit_options *opt, struct slo_workload *wl,
                          struct slo_train_fit_result *res, slo_error_t *err);


/* ------------------------------------------------------------------ */
/* Synchronous data-parallel training (issue 17)                       */
/* ------------------------------------------------------------------ */

/*
 * Bind a catalog and a sync-allreduce workload (wl->mode
 * SLO_TRAIN_SYNC_ALLREDUCE): one setup type per catalog type the profile
 * lists, with its price under pricing, quota, GPUs, speed and links
 * (gpu_link_mbps: the profile's, else the catalog's pcie_mbps; network_mbps:
 * the profile's, else the catalog's). s->wl copies wl (wl->sync borrowed: keep
 * wl alive). Errors: SLO_ERR_INVALID when wl is not sync-allreduce, when the
 * profile matches no catalog type, and when link data is missing and
 * allreduce.link_mbps does not replace it: a type with gpus > 1 and no
 * gpu_link_mbps nor pcie_mbps, a type with no network_mbps when the profiled
 * types' quotas allow two or more instances (two types of quota 1 count: a
 * cluster of both allreduces over the NIC; the text names the type and the
 * field); SLO_ERR_NOMEM.
 */
int slo_sync_setup_init(struct slo_train_setup *s, const struct slo_catalog *cat,
                        const struct slo_workload *wl, enum slo_pricing pricing,
                        slo_error_t *err);

/*
 * Iterations (steps) at global batch B (samples) to go from loss_now (<= 0:
 * the start) to target: j0(L) = gamma3 / (L - gamma5) - gamma1 steps at the
 * reference batch B0, scaled by Pollux's statistical efficiency E(B) = (phi +
 * B0) / (phi + B) (Qiao et al., "Pollux", OSDI'21, Sec. 3.1, Eq. 7 with
 * phi the gradient noise scale B_noise of McCandlish et al. 2018):
 * samples(B) = samples(B0) / E(B), so j(B) = j0 B0 (phi + B) / ((phi + B0) B).
 * *j_out is real (not rounded); at least 1 when the target is already met.
 * Errors: SLO_ERR_UNREACHABLE when target <= gamma5 (the loss floor), text
 * with both numbers.
 */
int slo_sync_iterations(const struct slo_sync_profile *p, double batch, double loss_now,
                        double target, double *j_out, slo_error_t *err);

/* The synchronous model's figures for one cluster. */
struct slo_sync_eval {
    int nodes;            /* instances */
    int gpus;             /* N: workers (one per GPU) */
    double batch;         /* B, samples per step */
    double t_comp_s;      /* slowest worker's compute at its share, s: equal shares
                             max_k (t0_k + (B / N) g_k / v_k); uneven max_k t0_k +
                             B / sum_k c_k v_k (t0_k: step_overhead_s) */
    double link_mbps;     /* the ring's bottleneck link, MB/s (0: one GPU) */
    double t_allreduce_s; /* ring allreduce 2 (N-1)/N bytes / link + 2 (N-1) alpha, s */
    double t_exposed_s;   /* max(0, t_allreduce - overlap t_comp), s */
    double step_s;        /* t_comp + t_exposed, s */
    double efficiency;    /* E(B) = (phi + B0) / (phi + B) */
    double iterations;    /* steps to the target, rounded up */
    double time_s;        /* iterations step_s + overhead_s, s */
    double usd_per_h;     /* the cluster's price, USD/h */
    double cost_usd;      /* time_s usd_per_h / 3600, USD */
};

/*
 * Evaluate cluster counts [s->n_types] (instances per setup type) of a sync
 * setup against req (target_loss, loss_now, overhead_s; deadline and budget
 * are not checked here). Fills out and, when plain is not NULL, the
 * async-shaped figures (n_workers = GPUs, speed = B / step, t_exp_s = step,
 * wa_batch = B, cc = 0, p_contention = -1, b_wk_mbps = link, samples =
 * iterations B). Errors: SLO_ERR_INVALID (no instance, a count out of 0..quota,
 * a fixed global batch smaller than the GPUs: "... found B samples for N
 * GPUs", two or more GPUs whose ring link is not a positive MB/s: source
 * "network_mbps"), SLO_ERR_UNREACHABLE as slo_sync_iterations.
 * Sources: doc/model.md "Synchronous data-parallel"; ring allreduce
 * (Patarasuk & Yuan 2009) as slo_comm_bytes_factor / _message_latency_s;
 * Pollux OSDI'21 Eq. 7.
 */
int slo_sync_evaluate(const struct slo_train_setup *s, const int *counts,
                      const struct slo_train_request *req, struct slo_sync_eval *out,
                      struct slo_train_eval *plain, slo_error_t *err);

/*
 * The exact search of a sync setup: the cheapest cluster (counts within
 * quotas, at least req->existing, at most req->max_workers instances) whose
 * time meets req->deadline_s and cost req->budget_usd; ties: the faster, then
 * the first in depth-first order. Depth-first over the types, pruning a
 * branch when its price so far times a lower bound on every cluster's time
 * (j(B_min) B_min / (sum of all speeds) at B_min, the smallest batch) exceeds
 * the best cost or the budget. plan->proven = 1 when the search finished
 * within req->node_limit (default 2,000,000 nodes). fastest != 0: the
 * fastest cluster instead, ignoring deadline and budget (no pruning).
 * Returns SLO_OK with plan->feasible = 1, SLO_ERR_INFEASIBLE (text "no plan
 * meets the SLO: ..."), SLO_ERR_UNREACHABLE, SLO_ERR_NOMEM. Free with
 * slo_train_plan_free.
 */
int slo_sync_plan_exact(const struct slo_train_setup *s, const struct slo_train_request *req,
                        int fastest, struct slo_train_plan *plan, slo_error_t *err);


/* ---- fitting a sync-allreduce profile from DDP logs (issue 17) ---- */

struct slo_sync_fit_options {
    const char *name;              /* profile name; NULL: the logs' "# model:", else
                                      "fitted" */
    double gradient_bytes;         /* bytes allreduced per step; 0: the logs'
                                      "# parameter_bytes:" */
    const struct slo_catalog *catalog; /* the types' GPUs; NULL: 1 GPU per type
                                      (borrowed) */
    double b0;                     /* reference batch B0 of the loss curve, samples; 0:
                                      the smallest global batch of the runs */
};

/* Set the defaults above (all zero / NULL). */
void slo_sync_fit_options_init(struct slo_sync_fit_options *opt);

struct slo_sync_fit_result {
    size_t n_runs, n_types;
    double link_mbps;        /* fitted effective ring bandwidth, MB/s; 0 when the
                                extra step time does not grow with the bytes (then
                                a latency-only fit, and the catalog's links apply) */
    double latency_s;        /* fitted ring alpha, s (0 when the fit gave <= 0) */
    int latency_at_zero;     /* 1: alpha clamped at 0 */
    size_t n_allreduce_runs; /* runs with N >= 2 in that fit */
    size_t n_worker_counts;  /* distinct N >= 2 among them; 1: latency only */
    double phi, b0;          /* Pollux's gradient noise scale and reference batch */
    double gamma1, gamma3, gamma5;
    size_t n_loss_rows;
    double loss_rmse, loss_r2;
    double step_rms_rel, step_max_rel; /* the model's step time against every run's
                                          measured (max over workers of the median
                                          step_s), relative */
};

/*
 * "# mode: sync-allreduce" among the comment lines at the head of the log's
 * file (StepLogger(comment="mode: sync-allreduce")): SLO_TRAIN_SYNC_ALLREDUCE,
 * else SLO_TRAIN_ASYNC_PS (also when the file cannot be read again).
 */
int slo_train_log_mode(const struct slo_train_log *log);

/*
 * Fit a sync-allreduce profile (doc/formats.md) from DDP workers' logs[n_logs]
 * (slo_train_log_load, with step_s, batch and type; one log per worker, every
 * worker of a run): a run is the logs with one cluster and one global batch B =
 * global_samples / global_step. Per type, from its runs on one instance of one
 * GPU alone: with two or more batches, the least-squares line step =
 * step_overhead_s + B / speed (Pollux's T_grad = alpha + beta m; a negative
 * intercept is refitted as 0), with one batch speed = B / median step; the
 * exposed allreduce of each run with N >= 2 workers (its step, the max over its
 * workers of the median step_s after the first row, less its slowest worker's
 * compute at that worker's logged share, equal or not) is fitted by least squares (LAPACKE_dgels) as 2 (N-1)/N bytes / link
 * + 2 (N-1) alpha, giving allreduce.link_mbps and latency_s with overlap 0 (the
 * measured part is the exposed one; when the fitted 1/link is <= 0, a
 * latency-only fit and no link_mbps: the catalog's links apply; likewise with
 * runs at one N >= 2 only, whose bytes and N fix the columns' ratio, so only
 * t_ar(N) = 2 (N-1) latency_s is determined: n_worker_counts 1); the loss rows
 * of each run's first log fit L = gamma3 / (j (phi + B0) B / ((phi + B) B0) +
 * gamma1) + gamma5 (Pollux OSDI'21 Eq. 7 efficiency; gamma3, gamma5 linear, phi
 * and gamma1 + the rows' smallest j0 in [1e-3, 1e6] by a log grid and
 * golden-section refinement: gamma1 < 0 for rows from a late first step).
 * uneven_batches = 1 when a run's workers logged unequal shares. The profile has
 * batch_per_gpu = the per-worker batch (samples) of the run at B0 when runs at
 * two or more worker counts used it at equal shares, else global_batch B0.
 * Errors (SLO_ERR_INVALID, the file and line, or no source): logs of two
 * models ("# model:" or "# parameter_bytes:" differing, or parameter_bytes
 * other than opt->gradient_bytes: the async fit's check, "line 3,
 * parameter_bytes: expected N as --model-bytes says, found M"), a fitted
 * gamma5 < 0, a log without
 * step_s/batch/type or with < 2 rows, a run missing a worker's log, batch
 * shares that do not sum to B ("expected the workers' batch shares to sum to
 * the global batch ..."), no gradient bytes, a type without a run alone, fewer
 * than two worker counts N >= 2, multi-worker runs no slower than their compute
 * (no positive latency either), one global batch only (phi undetermined), phi
 * or gamma1 at its search range's end; SLO_ERR_NUMERIC, SLO_ERR_NOMEM. *wl free
 * with slo_workload_free.
 */
int slo_fit_sync_profile(const struct slo_train_log *logs, size_t n_logs,
                         const struct slo_sync_fit_options *opt, struct slo_workload *wl,
                         struct slo_sync_fit_result *res, slo_error_t *err);


#ifdef __cplusplus
}
#endif

#endif /* SLO_TRAIN_H */
