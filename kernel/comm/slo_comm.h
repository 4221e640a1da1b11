/*
 * slo_comm.h - gradient communication scheduling in libslo: the Prophet
 * block planner, our alpha-beta optimal block planner, the published
 * baselines, a discrete-event simulator and the perfect-overlap lower bound
 * (included by slo.h; can also be included on its own).
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Sources. "notes N" = section N of shared/research/prophet.md (the
 * project's research notes; the Prophet paper's full text was not
 * available, so its algorithm is cited as the notes read it from the
 * authors' code, icloud-ecnu/Prophet commit 3826821, "v27 auto B").
 *   Prophet: Z. Zhang, H. Qi, R. Shang, L. Chen, F. Xu, "Prophet: Speeding up
 *     Distributed DNN Training with Predictable Communication Scheduling",
 *     ICPP 2021 (notes 1.3-1.6, 1.9).
 *   P3: A. Jayarajan et al., MLSys 2019 (notes 2.3). ByteScheduler: Y. Peng et
 *     al., SOSP 2019 (notes 2.4). Horovod tensor fusion (notes 2.6). PyTorch
 *     DDP buckets (notes 2.7). FIFO / wait-free backprop (notes 2.1).
 *   Event model: notes 3.2. Lower bound, rho, overlap efficiency: notes 5.
 *
 * Model (doc/comm.md has the full derivation). A model is a list of layers
 * in forward order j = 0..n-1 with forward time f_j, backward time b_j and
 * gradient bytes s_j (0 for parameter-free layers, which still count in the
 * time sums). All gradients lie in one flat buffer in forward order; layer j
 * owns bytes [o_j, o_j + s_j). Times are relative to the start of the
 * backward pass. Backward runs from layer n-1 down, so layer j's gradient is
 * ready at r_j = sum_{m>=j} b_m (notes 3.2 step 1, shifted by F).
 * A message is a contiguous byte range of the flat buffer. Link (notes 3.1):
 * a message of s bytes occupies the bottleneck link for w s / B seconds and
 * completes A seconds after its bytes left, where
 *   ring allreduce: w = 2(p-1)/p, A = 2(p-1) alpha   (alone: c(s) = A + w s/B)
 *   PS push+pull:   w = 1 per direction, pull pipelined behind push on the
 *                   other direction of a full-duplex NIC, A = 2 alpha.
 * At most max_in_flight messages are started and not yet complete
 * (1 = serialized collectives: every message pays A + w s/B of link time;
 * 0 = unlimited: latency hidden behind the next message). Messages are
 * started in the order they are posted (one FIFO transport queue, identical
 * on all workers); policies decide what to post and when.
 * Next iteration (notes 3.2 step 3): per-layer dependencies (FIFO, PRIO, P3,
 * ByteScheduler, Prophet, optimal): layer j's forward starts at
 * max(end of layer j-1's forward, done_j); barrier (Horovod, DDP): the
 * forward starts when every gradient is done. Because each policy's
 * decisions are time-invariant relative to the backward start and an
 * iteration's forward cannot finish before all its gradients are done, one
 * simulated iteration gives the steady-state period exactly:
 *   T = max(Bw + F, max_j (done_j + sum_{m>=j} f_m))       per-layer
 *   T = max(Bw, max_j done_j) + F                          barrier
 *
 * Conventions are those of slo.h: no globals, no printing, no exit; int
 * status (enum slo_code) and a caller-owned slo_error_t. Units are in the
 * names: _s seconds, _bytes bytes, _bytes_per_s bytes per second.
 */
#ifndef SLO_COMM_H
#define SLO_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "slo_core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SLO_COMM_NAME_LENGTH 64

/* ------------------------------------------------------------------ */
/* Limits (doc/comm.md, "Limits")                                      */
/* ------------------------------------------------------------------ */

/* Inputs beyond these are rejected (SLO_ERR_INVALID) by the parsers, with
 * file and line, and by slo_comm_model_check / slo_comm_link_check for
 * models and links built in memory. They keep every number the simulator
 * forms finite and exact enough, and every policy's message count bounded
 * (at most total bytes / chunk + layers; see SLO_COMM_MAX_MESSAGES). */
#define SLO_COMM_MAX_LAYERS 100000          /* layers (rows) of a model */
#define SLO_COMM_MAX_LAYER_BYTES 1e11       /* gradient bytes of one layer; the
                                               largest real tensors are a few GB */
#define SLO_COMM_MAX_TOTAL_BYTES 1e11       /* all gradient bytes of a model
                                               (25e9 fp32 gradients) */
#define SLO_COMM_MAX_TIME_S 1e5             /* any layer time, ready time, F and
                                               Bw: 1e8 ms, about 28 hours */
#define SLO_COMM_MIN_BANDWIDTH_BYTES_PER_S 1.0  /* 8 bit/s */
#define SLO_COMM_MAX_BANDWIDTH_BYTES_PER_S 1e14 /* 800 Tbit/s */
#define SLO_COMM_MAX_LATENCY_S 1.0          /* alpha per step */
#define SLO_COMM_MAX_WORKERS 1000000
#define SLO_COMM_MAX_IN_FLIGHT 1000000
/* Messages one simulation may post: slo_comm_simulate rejects chunk sizes
 * (p3_slice_bytes, bs_partition_bytes, prophet_partition_bytes) that would
 * cut the model into more pieces (source names the parameter). With the
 * default parameters every model within the limits above stays below it
 * (P3: 1e11 / 160,000 + 1e5 = 725,000). */
#define SLO_COMM_MAX_MESSAGES 10000000.0

/* ------------------------------------------------------------------ */
/* Models                                                              */
/* ------------------------------------------------------------------ */

struct slo_comm_layer {
    char name[SLO_COMM_NAME_LENGTH]; /* layer type from the CSV ("Conv2d"), or "" */
    double forward_s;                /* f_j >= 0 */
    double backward_s;               /* b_j >= 0 */
    double grad_bytes;               /* s_j >= 0; 0 for parameter-free layers */
};

struct slo_comm_model {
    char name[SLO_COMM_NAME_LENGTH];
    size_t n_layers;
    struct slo_comm_layer *layers; /* [n_layers] in forward order; owned when
                                      made by the functions below */
};

/*
 * Parse a per-layer CSV in the format of shared/data/prophet/pipedream_MODEL_layers.csv
 * (doc/comm.md, "Per-layer CSV"): a header row, then one row per layer in
 * forward order. Required columns: forward_ms, backward_ms and param_bytes
 * (or grad_bytes, not both). Instead of backward_ms a column ready_ms may give
 * measured gradient ready times (ms from the start of the backward pass,
 * not increasing down the rows); backward times are then r_j - r_{j+1}.
 * Optional: layer_type (rows whose layer_type is "Input"
 * are dropped: that node's time is data loading, shared/data/prophet/
 * README.md section 1), topo_index (must then increase). Fields may be
 * double-quoted (RFC 4180). Other columns are ignored. A leading UTF-8
 * byte order mark is skipped; header names are compared without the spaces
 * and tabs around them.
 * A header with grad_index and no forward_ms is a gradient ready-time file:
 * it is read by slo_comm_model_parse_gradients (below) with the default
 * forward time, and its errors are that function's.
 * source names the text in messages; name becomes model->name.
 * Errors (SLO_ERR_INVALID, err->source = "SOURCE:LINE", text "column X:
 * expected ..., found ..."): empty text, a missing column, both backward_ms
 * and ready_ms, a row with a different number of fields than the header,
 * an unterminated quote, a field that is not a finite number >= 0, a
 * column given twice, both param_bytes and grad_bytes, bytes that are not
 * a whole number, a value beyond the limits (SLO_COMM_MAX_LAYER_BYTES,
 * _TOTAL_BYTES, _LAYERS, _TIME_S: each time and the sums F and Bw), ready
 * times that increase down the rows, no layer rows, no layer with
 * param_bytes > 0; SLO_ERR_NOMEM. On failure *model is left empty.
 */
int slo_comm_model_parse_csv(const char *text, const char *source, const char *name,
                             struct slo_comm_model *model, slo_error_t *err);
/* As slo_comm_model_parse_csv, reading the file at path (SLO_ERR_IO). A
 * gradient ready-time file (header with grad_index and no forward_ms) is
 * read by slo_comm_model_parse_gradients with the default forward time. */
int slo_comm_model_load_csv(const char *path, struct slo_comm_model *model,
                            slo_error_t *err);

/* Default forward/backward time ratio for gradient ready-time files, which
 * carry no forward times: PipeDream's ResNet-50 totals, forward 182.5 ms /
 * backward 260.9 ms (shared/data/prophet/README.md section 1, notes 3.3). */
#define SLO_COMM_FORWARD_PER_BACKWARD (182.5 / 260.9)

/*
 * Parse a gradient ready-time file: one row per gradient tensor i (= one
 * layer of the model, forward order), e.g. shared/data/prophet/
 * resnet50_v2_mxnet_prophet_gradients.csv (README section 2). Header
 * columns: grad_index (required; rows must be 0, 1, 2, ... in order),
 * bytes_fp32 (or grad_bytes, param_bytes; bytes >= 0, some > 0), and the
 * ready times, either
 *   ready_ms: measured time gradient i is ready, ms from the start of the
 *     backward pass (not increasing down the rows), or
 *   prophet_step + step_interval_ms_bs64 (or step_interval_ms): Prophet's
 *     arrival-order step k of the gradient (0 = the highest indices, first
 *     to arrive; a step is a range of consecutive indices, k falls by one
 *     from step to step, the last row is step 0) and the idle gap Delta_k
 *     after the step, ms, the same on every row of the step (notes 1.3).
 *     The staircase: every gradient of step k is ready at
 *     a_k = sum_{m<k} Delta_m (a_0 = 0: time 0 is the first step's arrival;
 *     compute before it is not in the file); the last step's interval is
 *     not used (Prophet never uses it either, notes 1.3 step 4).
 * mxnet_arg_name (or name), optional, becomes the layer name (truncated to
 * 63 bytes). Other columns are ignored. Times are as in the file (the
 * Prophet file's intervals are at batch 64; no batch scaling).
 * Model built: layer i has grad_bytes s_i, backward b_i = r_i - r_{i+1}
 * (r_n = 0; so r_0 = Bw), and forward time from forward_s (seconds, total
 * F of the forward pass; < 0 = default SLO_COMM_FORWARD_PER_BACKWARD x Bw):
 * a group of gradients ready at the same time (a step) gets F x (backward
 * time that produced it) / Bw, spread evenly over the group (F / n each if
 * Bw = 0).
 * Errors (SLO_ERR_INVALID, err->source "SOURCE:LINE", "column X: expected
 * ..., found ..."): empty text, a missing column (grad_index, the bytes,
 * ready_ms or prophet_step + interval), both ready_ms and prophet_step, a
 * row with a different number of fields, an index out of order, a field
 * that is not a finite number >= 0, a column given twice (or two of
 * bytes_fp32 / grad_bytes / param_bytes, of the two interval names, of
 * the two name columns), bytes that are not a whole number, a value beyond
 * the limits (as for slo_comm_model_parse_csv; ready times built from the
 * intervals count), a step that is not an integer or skips
 * (or a last row not in step 0), an interval that differs within a step,
 * ready times that increase down the rows, no rows, no bytes; forward_s
 * NaN, infinite or above SLO_COMM_MAX_TIME_S (source "forward");
 * SLO_ERR_NOMEM. On failure *model is
 * left empty.
 */
int slo_comm_model_parse_gradients(const char *text, const char *source, const char *name,
                                   double forward_s, struct slo_comm_model *model,
                                   slo_error_t *err);
/*
 * Parse either format, chosen by the header: a per-layer CSV (has
 * forward_ms; slo_comm_model_parse_csv) or a gradient ready-time file (has
 * grad_index and no forward_ms; slo_comm_model_parse_gradients with
 * forward_s). forward_s (seconds, < 0 = default) applies only to the
 * latter: forward_s >= 0 with a per-layer CSV is SLO_ERR_INVALID ("a
 * forward time was given, expected a gradient ready-time file ...").
 * Other errors: as the two parsers.
 */
int slo_comm_model_parse(const char *text, const char *source, const char *name,
                         double forward_s, struct slo_comm_model *model, slo_error_t *err);
/* As slo_comm_model_parse, reading the file at path (SLO_ERR_IO); the model
 * is named after the file's base name. */
int slo_comm_model_load(const char *path, double forward_s, struct slo_comm_model *model,
                        slo_error_t *err);
/* A built-in model: "resnet50" or "vgg16" (PipeDream profiles, batch 128,
 * embedded from etc/slo/models/). SLO_ERR_NOT_FOUND names the known ones. */
int slo_comm_model_builtin(const char *name, struct slo_comm_model *model,
                           slo_error_t *err);
/*
 * Open a model the way every front end names one (after slo_catalog_open): a
 * FILE path - an argument with a '/', ending in .json or .csv, or naming an
 * existing file - read by slo_comm_model_load with forward_s; else a built-in
 * NAME (slo_comm_model_names()). forward_s (s, or < 0 for none) applies to
 * gradient ready-time files only. opt names the argument in messages
 * ("--model"; NULL: "model"). Errors: those of slo_comm_model_load (a
 * per-layer CSV given with forward_s >= 0: SLO_ERR_INVALID "OPT_FORWARD:
 * expected a gradient ready-time file ..."), SLO_ERR_INVALID for a built-in
 * model with forward_s >= 0 (it has its own forward times), SLO_ERR_NOT_FOUND
 * naming the built-in models. forward_opt names the forward time in messages
 * ("--forward-ms"; NULL: "forward_s").
 */
int slo_comm_model_open(const char *name_or_path, double forward_s, const char *opt,
                        const char *forward_opt, struct slo_comm_model *model,
                        slo_error_t *err);
/* NULL-terminated list of built-in model names. */
const char *const *slo_comm_model_names(void);
/* CSV text of a built-in per-layer table by name (etc/slo/models/, compiled in
 * by build-aux/embed-files.sh), or NULL when unknown; the NULL-terminated
 * list of their names (the same as slo_comm_model_names). */
const char *slo_embedded_comm_model(const char *name);
const char *const *slo_embedded_comm_model_names(void);
/* Allocate n zeroed layers (for callers building a model in memory). */
int slo_comm_model_alloc(struct slo_comm_model *model, size_t n, slo_error_t *err);
/* Release a model's layers and empty it (NULL and empty models are fine). */
void slo_comm_model_free(struct slo_comm_model *model);
/* Check a model: n >= 1, finite times and sizes >= 0, some bytes > 0, and
 * the limits: n <= SLO_COMM_MAX_LAYERS, each size <= _MAX_LAYER_BYTES, all
 * bytes <= _MAX_TOTAL_BYTES, F and Bw (hence every time) <= _MAX_TIME_S. */
int slo_comm_model_check(const struct slo_comm_model *model, slo_error_t *err);

/* ------------------------------------------------------------------ */
/* Link                                                                */
/* ------------------------------------------------------------------ */

enum slo_comm_collective { SLO_COMM_RING = 0, SLO_COMM_PS = 1 };

struct slo_comm_link {
    double bandwidth_bytes_per_s; /* B, per worker bottleneck link, > 0 */
    double latency_s;             /* alpha, per ring step / per PS direction, >= 0 */
    int workers;                  /* p >= 2 */
    enum slo_comm_collective collective;
    int max_in_flight;            /* >= 0; 0 = unlimited, 1 = serialized */
};

/*
 * Parse a bandwidth as people write it: a number and a unit, no spaces.
 * Bits: "bit", "bit/s", "bits/s", "b/s", "bps", with prefix K/M/G/T
 * (decimal; "10Gbit", "10Gb/s", "10Gbps", "100Mbit/s"). Bytes: "B/s" only
 * (not "B" or "Bps", one letter's case away from bits), with K/M/G/T
 * (decimal) or Ki/Mi/Gi/Ti (binary): "1.25GB/s", "1250MB/s", "1GiB/s". The
 * prefix letter is case-insensitive; "b" is bits and "B" bytes.
 * out: bytes per second, in SLO_COMM_MIN_BANDWIDTH_BYTES_PER_S ..
 * _MAX_ (8 bit/s .. 800 Tbit/s). Errors: SLO_ERR_INVALID naming the
 * accepted forms and the text found (no unit, unknown unit, a space, zero,
 * negative, out of range: the message gives the range).
 */
int slo_comm_parse_bandwidth(const char *text, double *bytes_per_s, slo_error_t *err);
/* Parse a latency: a number and one of s, ms, us (or "µs"), ns, no spaces;
 * "20us". out: seconds, 0 .. SLO_COMM_MAX_LATENCY_S (1 s). Errors:
 * SLO_ERR_INVALID as above. */
int slo_comm_parse_latency(const char *text, double *s, slo_error_t *err);
/* Check a link, limits included (bandwidth, latency, workers <=
 * SLO_COMM_MAX_WORKERS, max_in_flight <= SLO_COMM_MAX_IN_FLIGHT); err->source
 * names the field ("bandwidth", "workers", ...). */
int slo_comm_link_check(const struct slo_comm_link *link, slo_error_t *err);
/* w of the header comment: link seconds per byte is w / B. */
double slo_comm_bytes_factor(const struct slo_comm_link *link);
/* A of the header comment, seconds per message. */
double slo_comm_message_latency_s(const struct slo_comm_link *link);
/* "ring" or "ps". */
const char *slo_comm_collective_name(enum slo_comm_collective c);

/*
 * Measured link: the alpha-beta (Hockney) fit t(s) = alpha + beta s of
 * collective times and its ring reading, the one implementation that
 * slo-mpiprof, the profile reader and slo-train-demo share
 * (kernel/comm/comm_link_fit.c; doc/mpiprof.md).
 */
struct slo_comm_alpha_beta {
    double alpha_s;                       /* >= 0, seconds per collective */
    double beta_s_per_byte;               /* >= 0, seconds per byte */
    double unconstrained_alpha_s;         /* the free least-squares fit */
    double unconstrained_beta_s_per_byte;
    int constrained;                      /* 1: the free fit had a negative coefficient,
                                             alpha or beta was set to 0 (NNLS face) */
    double rms_residual_s;                /* of the returned fit, seconds */
    double max_relative_residual;         /* max |fit - t| / t */
};

/*
 * Fit t = alpha + beta s to n points (bytes[n] >= 0, time_s[n] > 0, seconds)
 * by least squares on relative residuals (LAPACKE_dgels, rows scaled by 1/t),
 * bounded to alpha, beta >= 0 (the better NNLS face when the free fit has a
 * negative coefficient). Source: Hockney's model; research notes 6.1.
 * Arrays: bytes[n] and time_s[n], n >= 2 points with at least 2 different
 * sizes. Errors (source "alpha-beta fit"): SLO_ERR_INVALID (NULL arrays,
 * n < 2, a non-finite or non-positive time, a negative or non-finite size -
 * text names the point -, every size equal: no line through the points),
 * SLO_ERR_NUMERIC (dgels failed), SLO_ERR_NOMEM. On failure *fit is
 * unchanged.
 */
int slo_comm_fit_alpha_beta(const double *bytes, const double *time_s, size_t n,
                            struct slo_comm_alpha_beta *fit, slo_error_t *err);
/* Ring reading of a fit for p = workers (slo_comm.h, Transport): per-step
 * latency alpha / (2(p-1)) in s, and bandwidth 2(p-1) / (p beta) in bytes/s
 * (INFINITY when beta = 0). NAN for workers < 2 or beta < 0. */
double slo_comm_ring_latency_from_fit(double alpha_s, int workers);
double slo_comm_ring_bandwidth_from_fit(double beta_s_per_byte, int workers);
/* A ring link from a fit: the two readings above, clamped to
 * SLO_COMM_MAX_LATENCY_S and SLO_COMM_MAX_BANDWIDTH_BYTES_PER_S;
 * max_in_flight = 0 (unlimited). Errors: SLO_ERR_INVALID (workers outside
 * 2 .. SLO_COMM_MAX_WORKERS, a negative or non-finite coefficient). */
int slo_comm_ring_link_from_fit(double alpha_s, double beta_s_per_byte, int workers,
                                struct slo_comm_link *link, slo_error_t *err);

/* ------------------------------------------------------------------ */
/* Policies                                                            */
/* ------------------------------------------------------------------ */

enum slo_comm_policy {
    SLO_COMM_FIFO = 0,      /* wait-free backprop: each gradient when ready, ready order */
    SLO_COMM_PRIO,          /* TicTac-style: whole gradients, lowest index first when
                               the link can take a message (notes 2.2) */
    SLO_COMM_P3,            /* slices of p3_slice_bytes, lowest index first (notes 2.3) */
    SLO_COMM_BYTESCHEDULER, /* partitions + priority queue + byte credit (notes 2.4) */
    SLO_COMM_HOROVOD,       /* fusion buffer + cycle time, ready order, barrier (2.6) */
    SLO_COMM_DDP,           /* static buckets in reverse order, barrier (notes 2.7) */
    SLO_COMM_PROPHET,       /* stepwise blocks sized from bandwidth x gap (notes 1.9) */
    SLO_COMM_OPTIMAL,       /* ours: deadline-sized blocks, tail by exact DP (see
                               "The optimal planner" below) */
    SLO_COMM_N_POLICIES
};

/* Short stable name ("fifo", "prio", "p3", "bytescheduler", "horovod", "ddp",
 * "prophet", "optimal"), or NULL for an unknown value. */
const char *slo_comm_policy_name(int policy);
/* One-line description, or NULL. */
const char *slo_comm_policy_summary(int policy);
/* Policy by name, or -1. */
int slo_comm_policy_find(const char *name);
/* 1 when the policy's next forward waits for all gradients (Horovod, DDP). */
int slo_comm_policy_barrier(int policy);

/* Tunables of the baselines, with the published defaults. */
struct slo_comm_params {
    double p3_slice_bytes;          /* 160,000 (40,000 fp32 params, notes 2.3) */
    double bs_partition_bytes;      /* 4,000,000 (1,000,000 params, notes 2.4) */
    double bs_credit_bytes;         /* 16,000,000 (4,000,000 params, notes 2.4) */
    double hvd_fusion_bytes;        /* 134,217,728 (128 MiB, Horovod >= 0.21) */
    double hvd_cycle_s;             /* 0.001 (1 ms, Horovod >= 0.21) */
    double ddp_bucket_bytes;        /* 26,214,400 (25 MiB) */
    double ddp_first_bucket_bytes;  /* 1,048,576 (1 MiB) */
    double prophet_partition_bytes; /* 4,096,000 (BYTEPS_PARTITION_BYTES) */
    double prophet_credit_bytes;    /* 16,384,000 (4 partitions; Z_CREDIT has no
                                       default in the code, notes 1.7) */
    double prophet_slack_s;         /* 0.001: Q_k = B (Delta_k + 1 ms), notes 1.5 */
};
void slo_comm_params_default(struct slo_comm_params *params);
/* Check every field is finite and > 0 (slack >= 0); err->source names the
 * field. */
int slo_comm_params_check(const struct slo_comm_params *params, slo_error_t *err);

/* ------------------------------------------------------------------ */
/* Lower bound                                                         */
/* ------------------------------------------------------------------ */

/*
 * Perfect-overlap lower bound (notes 5, fluid relaxation: link divisible
 * and preemptible, zero per-message latency, no optimizer update U):
 *   T_LB = max(F + Bw, max_k [ sum_{m>=k} (f_m + b_m) + sum_{j<=k} c_j ]),
 *   c_j = w s_j / B.
 * Also returns (may be NULL) T_seq = F + Bw + sum_j c_j (no overlap) and
 * compute_s = F + Bw. Errors: those of slo_comm_model_check/link_check.
 */
int slo_comm_lower_bound(const struct slo_comm_model *model, const struct slo_comm_link *link,
                         double *lower_bound_s, double *sequential_s, double *compute_s,
                         slo_error_t *err);

/* ------------------------------------------------------------------ */
/* Simulated messages                                                  */
/* ------------------------------------------------------------------ */

/* One contiguous byte range of a collective, as the simulator sees it
 * (doubles: a policy may cut a gradient into fractional parts). A collective
 * ("block") may gather several ranges (packed into one buffer, or laid out
 * contiguously by a runtime that follows the static plan): its ranges are
 * consecutive entries with the same block number and share post, start and
 * done times; the latency A is paid once per block. */
struct slo_comm_message {
    size_t block;          /* collective number, 0, 1, ... in post order */
    double offset_bytes;   /* first byte in the flat forward-order buffer */
    double bytes;          /* > 0 */
    size_t first_layer;    /* lowest layer index with bytes in the message */
    size_t last_layer;     /* highest */
    double post_s;         /* handed to the transport */
    double start_s;        /* first byte on the link */
    double end_s;          /* last byte left the link (push direction for PS) */
    double done_s;         /* complete on every worker: end (+ pull) + A */
};

/* ------------------------------------------------------------------ */
/* Plans: the one static block plan of libslo                          */
/* ------------------------------------------------------------------ */

/*
 * A static block plan: blocks (collectives) are issued in index order
 * 0..n_blocks-1 on every worker, each as soon as its bytes are ready (and,
 * for a runtime that follows the policy's post times, not before post_s).
 * Byte offsets are integers at element granularity in the flat
 * forward-order gradient buffer (layer j owns [o_j, o_j + s_j)).
 *
 * Rounding rule (slo_comm_solve, from the simulator's double ranges): every
 * range boundary x becomes elem_bytes x round(x / elem_bytes) (half away
 * from zero) and the end of the buffer elem_bytes x round(sum s_j /
 * elem_bytes) = total_bytes; neighbouring ranges share their boundary (the
 * ranges are cut in offset order, each ending where the next begins), so
 * the ranges tile [0, total_bytes) exactly, none overlapping, none missing:
 * sum of size_bytes = total_bytes. A range that rounds to 0 bytes is
 * dropped, and a block left without ranges too (blocks are renumbered, the
 * order kept). When every s_j is a whole number of elements (fp32
 * gradients of 4 bytes) and the policy cut at element boundaries, nothing
 * is rounded. first_layer / last_layer are the layers with bytes in the
 * range, from the rounded layer boundaries elem x round(o_j / elem).
 */
struct slo_comm_plan_range {
    size_t block;           /* block index, 0..n_blocks-1, non-decreasing */
    size_t first_layer;     /* lowest layer with bytes in the range */
    size_t last_layer;      /* highest */
    uint64_t offset_bytes;  /* first byte, a multiple of elem_bytes */
    uint64_t size_bytes;    /* > 0, a multiple of elem_bytes */
};

struct slo_comm_plan_block {
    size_t first_layer;     /* lowest layer of its ranges */
    size_t last_layer;      /* highest */
    uint64_t size_bytes;    /* sum of its ranges' size_bytes */
    size_t first_range;     /* its ranges: ranges[first_range .. first_range + n_ranges) */
    size_t n_ranges;        /* >= 1, in post order, not necessarily by offset */
    double post_s;          /* expected times (the simulator's for this plan, s from
                               the start of the backward pass); NAN when the plan */
    double start_s;         /* was read from a document without them */
    double end_s;
    double done_s;
    size_t hold_layer;      /* Prophet's step hold: the block is not issued before
                               every layer j >= hold_layer is ready (a runtime that
                               follows the plan waits for them, not only for its own
                               layers; notes 1.6 step 1); n_layers = no hold.
                               slo_comm_solve sets it for SLO_COMM_PROPHET
                               (slo_comm_plan_hold_at_post), n_layers otherwise */
};

struct slo_comm_plan {
    char policy[SLO_COMM_NAME_LENGTH]; /* "fifo", ..., "optimal" (informative) */
    char model[SLO_COMM_NAME_LENGTH];  /* name of the model planned for */
    size_t elem_bytes;         /* element size, bytes (4 = fp32) */
    size_t n_layers;           /* layers of the model planned for */
    uint64_t total_bytes;      /* = sum of ranges[].size_bytes (rounding rule) */
    double iteration_s;        /* expected period T, s (NAN when unknown) */
    size_t n_blocks;
    struct slo_comm_plan_block *blocks; /* [n_blocks], owned */
    size_t n_ranges;
    struct slo_comm_plan_range *ranges; /* [n_ranges], owned, grouped by block */
};
/* Release a plan and empty it (NULL is fine). */
void slo_comm_plan_free(struct slo_comm_plan *plan);

/* The plan's rounding rule, once: elem_bytes x round(bytes / elem_bytes),
 * half away from zero, for bytes >= 0 below 2^53 (0 for bytes < elem_bytes /
 * 2 or not a number). Every boundary of a plan, its end (total_bytes) and the
 * runtime's plan space use it. */
uint64_t slo_comm_round_to_elements(double bytes, size_t elem_bytes);

/*
 * Check a plan: elem_bytes >= 1; every range > 0 bytes, offset and size
 * multiples of elem_bytes, first_layer <= last_layer < n_layers; blocks
 * numbered 0.. without gaps, each with >= 1 range whose sizes sum to its
 * size_bytes and a hold_layer <= n_layers; the ranges tile [0, total_bytes)
 * exactly. Errors:
 * SLO_ERR_INVALID, source "plan", text naming the block and range
 * ("blocks[3].ranges[0]: expected bytes 4096.. in no other block, found
 * bytes 4096..8192 in two blocks"); SLO_ERR_NOMEM.
 */
int slo_comm_plan_check(const struct slo_comm_plan *plan, slo_error_t *err);

/*
 * Prophet's step hold (notes 1.6 step 1: a step is released only when all of
 * it has arrived), from the blocks' planned post times: block b gets
 *   hold_layer = min(first_layer_b, lowest j with r_j <= post_s_b + eps)
 * (r_j = sum_{m>=j} b_m, the ready time of layer j of model, s; eps = 1e-9 x
 * max(1 s, r_0)), raised past layers without bytes (always ready),
 * so that a runtime following the plan never issues a block earlier in the
 * backward pass than the policy posted it. model: the model the plan was
 * made for (n_layers layers). slo_comm_solve applies it to Prophet's plans.
 * Errors: SLO_ERR_INVALID (source "plan"): a model with another layer count
 * ("model: expected 5 layers (the plan's), found 4"), a block without a
 * finite post_s ("blocks[3].post_s: expected a number >= 0 (the block's
 * hold), found it missing"); on failure the plan is unchanged.
 */
int slo_comm_plan_hold_at_post(struct slo_comm_plan *plan, const struct slo_comm_model *model,
                               slo_error_t *err);

/*
 * The plan as JSON (doc/comm.md, "Plan JSON"): one object
 *   {"policy", "model": {"name", "layers", "bytes"}, "elem_bytes",
 *    "iteration_s", "n_blocks", "blocks": [{"first_layer", "last_layer",
 *    "bytes", "post_s", "start_s", "end_s", "done_s", "hold_layer",
 *    "ranges": [{"offset_bytes", "bytes"}]}]}
 * with every byte count an integer and times at 17 significant digits
 * (omitted when NAN); "hold_layer" (an integer layer index) only for a block
 * with a hold (hold_layer < n_layers). *text is malloc'd (the caller frees). `slo comm
 * --json` embeds its "blocks" and "elem_bytes" in each policy entry.
 * Errors: SLO_ERR_INVALID (a plan that fails slo_comm_plan_check),
 * SLO_ERR_NOMEM.
 */
int slo_comm_plan_to_json(const struct slo_comm_plan *plan, char **text, slo_error_t *err);

/*
 * Read a plan: text is either a plan object written by slo_comm_plan_to_json
 * or a whole `slo comm --json` document (then "policies" must hold the
 * policy named `policy`, or, for policy NULL, exactly one policy; its
 * "blocks" are read, "model" gives n_layers and total_bytes). Strict:
 * duplicate keys, unknown keys, a byte count or layer number that is not a
 * non-negative integer, a size that is not a multiple of the element size,
 * ranges that overlap or leave a gap, a block whose "bytes" is not the sum
 * of its ranges are SLO_ERR_INVALID with err->source = source and a text
 * naming the JSON path ("policies[1].blocks[3].ranges[0].bytes: expected a
 * number > 0, found -1"; "expected byte ranges that cover every gradient
 * byte once, found bytes 0..8 in no block"). Times (post_s, ...) are
 * optional (NAN when missing); so is a block's "hold_layer" (an integer
 * 0..model.layers; missing = n_layers, no hold: documents of an slo comm
 * without holds read as before). elem_bytes: the element size expected
 * (>= 1); a document's "elem_bytes", when present, must equal it.
 * model.bytes (a number) gives total_bytes by the rounding rule.
 * On failure *plan is left empty. Also SLO_ERR_NOMEM.
 */
int slo_comm_plan_parse(const char *text, const char *source, const char *policy,
                        size_t elem_bytes, struct slo_comm_plan *plan, slo_error_t *err);
/* As slo_comm_plan_parse, reading the file at path (the kernel's one file
 * reader: SLO_ERR_IO naming the path when it cannot be read, SLO_ERR_INVALID
 * for more than 64 MiB or a NUL byte); source is the path. */
int slo_comm_plan_load(const char *path, const char *policy, size_t elem_bytes,
                       struct slo_comm_plan *plan, slo_error_t *err);
/*
 * The policy names of a `slo comm --json` document, in order (of a plan
 * object: its "policy"): names [max] of SLO_COMM_NAME_LENGTH bytes each; *n
 * gets how many (at most max). Errors: SLO_ERR_INVALID (not JSON, duplicate
 * keys, no "policies" list, an entry without a string "name", a name given
 * twice), source as above.
 */
int slo_comm_plan_policies(const char *text, const char *source,
                           char (*names)[SLO_COMM_NAME_LENGTH], size_t max, size_t *n,
                           slo_error_t *err);

/* ------------------------------------------------------------------ */
/* Simulation and solve                                                */
/* ------------------------------------------------------------------ */

struct slo_comm_result {
    /* slo_comm_solve only (slo_comm_simulate leaves them zero / empty) */
    enum slo_status status;      /* SLO_STATUS_OPTIMAL when iteration_s <= lower_bound_s
                                    (1 + 1e-12): the plan meets the proven lower bound;
                                    else SLO_STATUS_FEASIBLE_UNPROVEN (a plan always
                                    exists; no proof that none is faster) */
    char reason[SLO_REASON_LENGTH]; /* "" when optimal, else why not proven */
    struct slo_comm_plan plan;   /* the plan at element granularity (rounding rule) */
    /* the simulated timeline and metrics (slo_comm_simulate and slo_comm_solve) */
    int policy;
    double iteration_s;          /* steady-state period T */
    double lower_bound_s;        /* T_LB */
    double sequential_s;         /* T_seq */
    double rho;                  /* T / T_LB >= 1 */
    double overlap_efficiency;   /* (T_seq - T) / (T_seq - T_LB); < 0 when
                                    per-message latency makes T worse than no
                                    overlap. When T_seq == T_LB (nothing to
                                    overlap: no compute): 1 if T == T_LB, else
                                    (T_seq - T) / T_seq = 1 - rho < 0 */
    double backward_s;           /* Bw; the next forward starts at or after it */
    size_t n_layers;
    double *done_s;              /* [n_layers] gradient complete (ready time for
                                    parameter-free layers) */
    double *forward_start_s;     /* [n_layers] next iteration's forward start */
    size_t n_messages;                 /* byte ranges */
    size_t n_blocks;                   /* collectives (messages[].block < n_blocks) */
    struct slo_comm_message *messages; /* [n_messages] in post order */
};

/*
 * Simulate one steady-state iteration of model on link under policy
 * (params NULL = defaults): the timeline fields of *result. On success
 * *result owns its arrays (release with slo_comm_result_free); on failure
 * it is left empty. Embedders plan with slo_comm_solve, which also gives
 * the plan and the status.
 * Errors: SLO_ERR_INVALID for a bad model, link, params or policy (source
 * names the field), or a chunk size of the policy (p3_slice_bytes,
 * bs_partition_bytes, prophet_partition_bytes) that cuts the model into
 * more than SLO_COMM_MAX_MESSAGES pieces; SLO_ERR_NOMEM; SLO_ERR_NUMERIC if a policy stalls
 * (a bug: never expected).
 */
int slo_comm_simulate(const struct slo_comm_model *model, const struct slo_comm_link *link,
                      const struct slo_comm_params *params, int policy,
                      struct slo_comm_result *result, slo_error_t *err);
/* Release a result's arrays and plan and empty it (NULL is fine). */
void slo_comm_result_free(struct slo_comm_result *result);

/* What to plan: a model on a link (both borrowed, checked by the solve). */
struct slo_comm_problem {
    const struct slo_comm_model *model;
    const struct slo_comm_link *link;
};

struct slo_comm_options {
    int policy;                  /* enum slo_comm_policy; default SLO_COMM_OPTIMAL */
    const char *policy_name;     /* when not NULL, the policy by name ("prophet"),
                                    overriding policy */
    struct slo_comm_params params; /* the baselines' tunables (slo_comm_params_default) */
    size_t elem_bytes;           /* element size of the plan, bytes; default 4 (fp32) */
};
/* Defaults: policy SLO_COMM_OPTIMAL, policy_name NULL, params
 * slo_comm_params_default, elem_bytes 4. */
void slo_comm_options_init(struct slo_comm_options *options);

/*
 * The comm planner's one call. For the policy of options (the optimal
 * planner or a published baseline), simulate one steady-state iteration
 * (as slo_comm_simulate with options->params), compute the lower bound
 * T_LB (slo_comm_lower_bound) and round the schedule to a plan at element
 * granularity (rounding rule above, options->elem_bytes); set status and
 * reason. The optimal planner (doc/comm.md, "Optimal blocks"; derivation in
 * kernel/comm/comm_optimal.c): for a target period T* every gradient i has
 * the deadline d_i = T* - Fs_i (Fs_i = forward time of its layer and all
 * later ones). During backward, whenever the link can take a block, the
 * pending bytes are sent lowest offset first in one block as large as the
 * deadlines allow (a prefix-minimum test, O(1) per block); once every
 * gradient is ready the rest is grouped by the exact dynamic program over
 * the forward order
 *   h(u) = min_{v>u} [ A1 + bocc D(u,v) + max(A2 + Fs(u), h(v)) ],  h(end) = -inf
 * ((A1, A2) = (A, 0) for serialized collectives, (0, A) otherwise; bocc =
 * w/B, 2w/B for serialized PS), solved in O(U) with a monotone deque. T* is
 * scanned from T_LB upward (about 30 targets) and the plan with the least
 * simulated period is kept. Every published policy's schedule, replayed as
 * a static plan (never slower than the policy itself), is a candidate too,
 * so the plan is never worse than any baseline on the same model and link.
 * Planning cost, ring, serialized (bench/bench_comm): ResNet-50 (107
 * gradients) 52 us at 3 Gbit/s, 106 us at 100 Gbit/s; 1000 gradients
 * 0.55 ms and 1.29 ms.
 * Status: SLO_STATUS_OPTIMAL when T <= T_LB (1 + 1e-12) (the plan meets the
 * proven lower bound of notes 5), else SLO_STATUS_FEASIBLE_UNPROVEN with a
 * reason giving T, T_LB and rho (the optimal planner is a heuristic over
 * the exact DP tail: no proof that a faster plan does not exist).
 * On success *result owns its arrays (slo_comm_result_free); on failure it
 * is left empty. options NULL = slo_comm_options_init's defaults.
 * Errors: those of slo_comm_simulate; SLO_ERR_INVALID for a NULL problem,
 * model or link (source "problem"), an unknown policy_name (source
 * "policy", naming the known ones) or elem_bytes 0 (source "elem_bytes").
 */
int slo_comm_solve(const struct slo_comm_problem *problem, const struct slo_comm_options *options,
                   struct slo_comm_result *result, slo_error_t *err);

/* ------------------------------------------------------------------ */
/* Framework knobs closest to the best plan (comm_recommend.c)         */
/* ------------------------------------------------------------------ */

enum slo_comm_framework {
    SLO_COMM_FRAMEWORK_DDP = 0,     /* PyTorch DistributedDataParallel */
    SLO_COMM_FRAMEWORK_HOROVOD,     /* Horovod tensor fusion */
    SLO_COMM_FRAMEWORK_DEEPSPEED,   /* DeepSpeed ZeRO stage 1/2, overlap_comm */
    SLO_COMM_N_FRAMEWORKS
};
/* "ddp", "horovod", "deepspeed", or NULL; by name, or -1. */
const char *slo_comm_framework_name(int framework);
int slo_comm_framework_find(const char *name);

/* The knobs, in each framework's own units. */
struct slo_comm_knobs {
    double ddp_bucket_cap_mb;          /* DDP(bucket_cap_mb=), MiB (2^20 bytes); 25 */
    double ddp_first_bucket_mb;        /* torch.distributed._DEFAULT_FIRST_BUCKET_BYTES
                                          / 2^20 (private, set before DDP()); 1 */
    double hvd_fusion_threshold_bytes; /* HOROVOD_FUSION_THRESHOLD, bytes; 134217728 */
    double hvd_cycle_time_ms;          /* HOROVOD_CYCLE_TIME, ms; 1 */
    double ds_reduce_bucket_size;      /* zero_optimization.reduce_bucket_size, elements; 5e8 */
    double ds_allgather_bucket_size;   /* zero_optimization.allgather_bucket_size, elements;
                                          5e8 (not modelled: reported at its default) */
};
/* The frameworks' defaults (above; Horovod >= 0.21, PyTorch >= 1.8). */
void slo_comm_knobs_default(struct slo_comm_knobs *knobs);

struct slo_comm_recommendation {
    enum slo_status status;   /* SLO_STATUS_OPTIMAL when the knobs meet the lower bound
                                 (T <= T_LB (1 + 1e-12)); else FEASIBLE_UNPROVEN */
    char reason[SLO_REASON_LENGTH]; /* "" when optimal, else the grid searched and T/T_LB */
    int framework;                  /* enum slo_comm_framework */
    struct slo_comm_knobs defaults; /* slo_comm_knobs_default */
    struct slo_comm_knobs knobs;    /* recommended (the framework's fields; others default) */
    double default_iteration_s;     /* simulated T with the defaults, s */
    double iteration_s;             /* simulated T with the recommended knobs, s */
    double optimal_iteration_s;     /* T of slo_comm_solve's optimal plan, s */
    double lower_bound_s;           /* T_LB, s */
    size_t n_evaluated;             /* knob settings simulated */
};

/*
 * The framework's knobs that come closest to the best plan under the same
 * simulator: each framework's bucketing is the simulator's policy for it
 * (DDP: SLO_COMM_DDP with bucket_cap_mb and the first-bucket size;
 * Horovod: SLO_COMM_HOROVOD with the fusion threshold and cycle time;
 * DeepSpeed ZeRO 1/2 with overlap_comm: SLO_COMM_DDP with first bucket =
 * bucket = reduce_bucket_size x elem_bytes, optimistic by at most one
 * layer's backward per bucket, see comm_recommend.c), simulated
 * (slo_comm_simulate) over a grid of the values people set (sizes 0.25 ..
 * 1024 MiB up to the first one past the model's bytes, first bucket <=
 * bucket; cycle 0.1 .. 20 ms; reduce_bucket_size 1e5 x 2^i elements); the
 * least period wins, the default on ties. Sources: PyTorch
 * docs/source/notes/ddp.rst (notes 2.7), Horovod tensor-fusion.rst
 * (notes 2.6), DeepSpeed stage_1_and_2.py; doc/comm.md "--recommend".
 * problem: model and link as for slo_comm_solve; elem_bytes: element size
 * of the gradients (4 = fp32; DeepSpeed's bucket is in elements).
 * *out: the knobs and the periods (recommended, default, optimal plan,
 * lower bound, seconds).
 * Errors: SLO_ERR_INVALID (NULL problem, model, link or out: source
 * "problem"; a framework outside the enum: "framework"; elem_bytes 0:
 * "elem_bytes"), those of slo_comm_solve and slo_comm_simulate;
 * SLO_ERR_NOMEM. On failure *out is unchanged.
 */
int slo_comm_recommend(const struct slo_comm_problem *problem, int framework, size_t elem_bytes,
                       struct slo_comm_recommendation *out, slo_error_t *err);

/* ------------------------------------------------------------------ */
/* Prophet's steps                                                     */
/* ------------------------------------------------------------------ */

/* Prophet's step table (notes 1.3): detected on the ready times of the
 * gradients (layers with bytes > 0), indexed i = 0..G-1 in forward order. */
struct slo_comm_steps {
    size_t n_grads;        /* G */
    size_t n_steps;        /* K >= 1 */
    size_t *step_lo;       /* [K] lowest gradient index of step j (forward order: step
                              0 holds gradient 0, step K-1 arrives first) */
    double *gap_s;         /* [K] idle gap before the next-arriving step (gap_s[0] unused:
                              step 0 arrives last); Delta_k of the notes is
                              gap_s[K-1-k] */
    double threshold_s;    /* theta = 2 x mean gap */
};
/*
 * Detect steps from ready times t_i (seconds, any origin, i in forward
 * order, non-increasing in i as backward produces high indices first):
 * d_i = |t_i - t_{i-1}|, theta = 2 mean(d), a step ends below every i with
 * d_i > theta (notes 1.3 steps 2-4). ready_s: [n], n >= 1.
 * On success *steps owns its arrays (slo_comm_steps_free). Errors:
 * SLO_ERR_INVALID for n = 0 or a time that is not finite (source "ready
 * times"); SLO_ERR_NOMEM. On failure *steps is left empty.
 */
int slo_comm_detect_steps(const double *ready_s, size_t n, struct slo_comm_steps *steps,
                          slo_error_t *err);
/* Release a step table and empty it (NULL is fine). */
void slo_comm_steps_free(struct slo_comm_steps *steps);

/* ------------------------------------------------------------------ */
/* Measured link: slo-mpiprof profiles (doc/mpiprof.md)                */
/* ------------------------------------------------------------------ */

/* schema_version of the slo-mpiprof documents this reader accepts. */
#define SLO_COMM_PROFILE_SCHEMA_VERSION 1
/* A bandwidth above this factor x its physical ceiling (the memcpy
 * bandwidth of the node, bytes/s, or the NIC speed when known) must be
 * flagged "suspect" by the profiler (doc/mpiprof.md "ceiling"). */
#define SLO_COMM_PROFILE_CEILING_FACTOR 1.05

/* What a profile says besides the link (for front ends that report it). */
struct slo_comm_profile_info {
    int world_size;                   /* mpi.world_size: ranks measured */
    double memcpy_bytes_per_s;        /* ceiling.memcpy_bytes_per_s: the slowest
                                         node's single-core memcpy, bytes/s */
    double fit_alpha_s;               /* allreduce.fit.alpha_s: whole allreduce, s */
    double fit_beta_s_per_byte;       /* allreduce.fit.beta_s_per_byte */
    double fit_rms_residual_s;        /* allreduce.fit.rms_residual_s */
    double fit_max_relative_residual; /* allreduce.fit.max_relative_residual */
    int bandwidth_suspect;            /* allreduce.ring_model.suspect: the link
                                         bandwidth is above 1.05 x memcpy (or
                                         infinite): not a fact, see reason */
    char suspect_reason[SLO_ERROR_TEXT_LENGTH]; /* "" unless suspect */
};

/*
 * Read the link of a ring allreduce from a slo-mpiprof profile (JSON,
 * schema doc/mpiprof.md, schema_version SLO_COMM_PROFILE_SCHEMA_VERSION).
 * The profiler measured allreduce times t(s) over message sizes s (bytes)
 * and fitted t = alpha + beta s (LAPACKE dgels); under the ring model of
 * this header, t = 2(p-1) alpha_step + 2(p-1)/p s / B, so
 *   link->latency_s             = alpha / (2(p-1))       (ring_model.alpha_s)
 *   link->bandwidth_bytes_per_s = 2(p-1) / (p beta)      (ring_model.link_bandwidth_bytes_per_s)
 *   link->workers               = p                      (mpi.world_size)
 * and link->collective = SLO_COMM_RING, link->max_in_flight = 1 (an MPI
 * allreduce at a time, as measured). The reader takes the profiler's
 * ring_model figures as written and checks they agree with the fit and
 * world size (relative 1e-6). info (may be NULL) receives the rest.
 * A bandwidth the profiler flagged suspect is returned with
 * info->bandwidth_suspect = 1: the caller decides (slo comm refuses it
 * unless --bandwidth overrides it).
 * Errors: SLO_ERR_INVALID with source = source (the file) and a text naming
 * the field, what was expected and what was found: malformed JSON, a
 * missing field ("allreduce.ring_model.alpha_s: expected a number in [0,
 * 1], found it missing"), a wrong type, a schema_version other than 1, a
 * field in another unit ("... found link_bandwidth_mbps instead: this
 * reader takes bytes per second"), fewer than 2 ranks, a value beyond the
 * link limits of this header, ring figures that disagree with the fit;
 * a profile measured on a failing transport (issue 15), whatever its
 * figures: a pair flagged suspect by slo-mpiprof's transport check
 * ("point_to_point.pairs[0] (ranks 0-1): expected a working transport,
 * found the pair flagged suspect by slo-mpiprof: REASON; profile not
 * used"), or a node with cross_memory_attach.usable false in a run where
 * Open MPI may use it (mpi.transport: single copy cma or unknown, pml ob1
 * or unknown, btl allowing vader);
 * SLO_ERR_NOMEM. On failure *link and *info are unchanged.
 */
int slo_comm_profile_parse(const char *text, const char *source, struct slo_comm_link *link,
                           struct slo_comm_profile_info *info, slo_error_t *err);
/* As slo_comm_profile_parse, reading the file at path (SLO_ERR_IO when it
 * cannot be read; source is the path). */
int slo_comm_profile_load(const char *path, struct slo_comm_link *link,
                          struct slo_comm_profile_info *info, slo_error_t *err);

/*
 * Read the link of a ring allreduce from nccl-tests all_reduce_perf output
 * (NVIDIA/nccl-tests; text as the tool prints it, format of release 2.19.6,
 * doc/comm.md "nccl-tests profiles"): the "#  Rank N ..." device lines give
 * p (the world size), the "# size count type redop root time algbw busbw
 * #wrong ..." header names the columns (the first time/algbw/busbw are the
 * out-of-place placement, used here), each row is one size in bytes and its
 * time in us. The times t(s) are fitted by slo_comm_fit_alpha_beta and read
 * under the ring model (slo_comm_ring_link_from_fit): link->latency_s =
 * alpha / (2(p-1)), link->bandwidth_bytes_per_s = 2(p-1) / (p beta),
 * link->workers = p, SLO_COMM_RING, max_in_flight 1 (one allreduce at a
 * time, as measured). info (may be NULL): world_size, the fit (alpha_s,
 * beta_s_per_byte, residuals), memcpy_bytes_per_s NAN (not measured),
 * bandwidth_suspect 0. NCCL INFO/WARN lines between the rows are ignored.
 * Errors: SLO_ERR_INVALID, err->source "SOURCE:LINE" (or SOURCE), text
 * "column X: expected ..., found ...": no header or a header without one
 * of size, count, type, time, algbw, busbw ("column busbw: expected the
 * all_reduce_perf header (...), found it missing"), cputime instead of
 * time (-C 1), another collective's output ("Collective test starting:"
 * not all_reduce_perf), a row with fewer fields than the header, a field
 * that is not a number (size a whole number of bytes, time > 0), a
 * non-zero #wrong, two data types, an algbw other than size / time or a
 * busbw other than algbw x 2(p-1)/p (beyond the print rounding), fewer
 * than 2 ranks or 2 rows, a fit without a bandwidth term (beta = 0);
 * those of slo_comm_fit_alpha_beta; SLO_ERR_NOMEM. On failure *link and
 * *info are unchanged. slo_comm_profile_parse hands a text that
 * slo_comm_nccl_detect recognizes to this reader, so `slo comm --profile`
 * takes either format.
 */
int slo_comm_nccl_parse(const char *text, const char *source, struct slo_comm_link *link,
                        struct slo_comm_profile_info *info, slo_error_t *err);
/* 1 when text looks like nccl-tests output: a comment line "# nccl-tests
 * ...", "# Collective test starting: ..." or a column header "# size ...";
 * else 0 (NULL too). */
int slo_comm_nccl_detect(const char *text);
/* As slo_comm_nccl_parse, reading the file at path (SLO_ERR_IO). */
int slo_comm_nccl_load(const char *path, struct slo_comm_link *link,
                       struct slo_comm_profile_info *info, slo_error_t *err);

/*
 * Validate a whole slo-mpiprof document (text: JSON, schema doc/mpiprof.md,
 * schema_version SLO_COMM_PROFILE_SCHEMA_VERSION): what `slo-mpiprof
 * --check` and the profiler's self-check run. Every field's presence, type,
 * unit (units are in the field names: bytes, s, bytes/s, s/byte) and range,
 * and the schema's consistency rules: every rank on one node and every pair
 * (0,1), (0,2), ..., (1,2), ... in order with one bandwidth and latency entry
 * per point_to_point.sizes_bytes; summaries equal to the pair figures; the
 * ceiling the slowest node's memcpy; every bandwidth above
 * SLO_COMM_PROFILE_CEILING_FACTOR x its ceiling (memcpy of the pair's nodes,
 * the NIC across nodes) flagged suspect with a reason; allreduce bandwidths
 * equal to size / median time (bus: x 2(p-1)/p); the fit's residuals
 * recomputed from the points (relative 1e-6); the ring figures derived from
 * the fit as slo_comm_profile_parse reads them (relative 1e-8); where
 * present (optional), nodes[].cross_memory_attach and pairs[].suspect /
 * suspect_reason well-formed, a same-node pair flagged when its node's
 * cross-memory attach is not usable in a run that may use it, and
 * point_to_point.summary.suspect_pairs equal to the flagged pairs. A 1-rank
 * document (fit and ring_model null) is valid; slo_comm_profile_parse is
 * what says whether a document gives a link. *world_size (may be NULL)
 * receives mpi.world_size on success.
 * Errors: SLO_ERR_INVALID, source = source (NULL: "profile"), text
 * "FIELD: expected ..., found ..." for the first rule broken ("not a JSON
 * document: line L, column C: malformed JSON: ..." for text that is not
 * JSON); SLO_ERR_NOMEM.
 */
int slo_comm_profile_check(const char *text, const char *source, int *world_size,
                           slo_error_t *err);
/* As slo_comm_profile_check, reading the file at path with libslo's one
 * file reader (SLO_ERR_IO "cannot open: ..." / "read error: ...";
 * SLO_ERR_INVALID for a NUL byte or more than 64 MiB). */
int slo_comm_profile_check_load(const char *path, int *world_size, slo_error_t *err);

/*
 * spotDNN's B_ps (the parameter server's NIC bandwidth, MB/s; spotDNN
 * Eq. 8's budget shared by the workers) from a slo-mpiprof profile whose
 * job step placed the PS at rank 0 and workers on other nodes: the least
 * large-message point-to-point bandwidth over the pairs (0, k) that cross
 * nodes (point_to_point.pairs[].same_node false), in MB/s (bytes/s / 1e6).
 * One stream between two nodes is what a NIC carries; a pair inside a node
 * measures a memory copy, not a NIC, and is not used. B_pcie has no source
 * in a profile (the profiler moves host memory only; doc/mpiprof.md).
 * Errors (SLO_ERR_INVALID, source = the profile): schema_version other than
 * the profiler's, point_to_point.pairs missing or malformed (field named,
 * expected vs found), no cross-node pair with rank 0 ("every pair shares a
 * node: ..."), the largest message's bandwidth of such a pair flagged
 * suspect by the profiler; a failing transport, as slo_comm_profile_parse
 * refuses it (a pair flagged suspect, a node with cross-memory attach
 * blocked under single copy cma).
 */
int slo_profile_ps_bandwidth(const char *text, const char *source, double *b_ps_mbps,
                             slo_error_t *err);
/* As slo_profile_ps_bandwidth, reading the file at path (SLO_ERR_IO). */
int slo_profile_ps_bandwidth_load(const char *path, double *b_ps_mbps, slo_error_t *err);

#ifdef __cplusplus
}
#endif

#endif /* SLO_COMM_H */
