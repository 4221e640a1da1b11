/*
 * mpiprof.h - modules of slo-mpiprof, the in-job-step MPI link profiler
 * (doc/mpiprof.md). Not installed.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_MPIPROF_H
#define SLO_MPIPROF_H

#include <jansson.h>
#include <stddef.h>

#define MPIPROF_NAME "slo-mpiprof"
#define MPIPROF_SCHEMA_VERSION 1
/* A figure above this factor x the physical ceiling (memcpy bandwidth of
 * the node, or the NIC speed when known) is flagged "suspect". */
#define MPIPROF_CEILING_FACTOR 1.05
#define MPIPROF_MAX_SIZES 64
#define MPIPROF_MAX_MESSAGE_BYTES (256u << 20)

/* Run parameters (all ranks hold the same, parsed from the same argv). */
struct mpiprof_params {
    int quick;
    size_t n_sizes;                          /* point-to-point sizes */
    size_t sizes[MPIPROF_MAX_SIZES];         /* bytes, increasing */
    size_t n_allreduce_sizes;
    size_t allreduce_sizes[MPIPROF_MAX_SIZES]; /* bytes, multiples of 8 (doubles) */
    int window;                 /* Isends per bandwidth iteration (OSU: 64) */
    int bw_iters_small, bw_skip_small, bw_iters_large, bw_skip_large;
    int lat_iters_small, lat_skip_small, lat_iters_large, lat_skip_large;
    size_t large_threshold;     /* bytes: above it the "large" counts apply (OSU 8 KiB) */
    int allreduce_reps_small, allreduce_reps_large, allreduce_warmup;
    size_t memcpy_bytes;        /* memcpy buffer, bytes */
    int memcpy_reps;
};

/* ---- mpiprof_fit.c ---- */
struct mpiprof_fit {
    double alpha_s, beta_s_per_byte;          /* t = alpha + beta * bytes */
    double raw_alpha_s, raw_beta_s_per_byte;  /* unconstrained least squares */
    int constrained;                          /* raw had a negative coefficient */
    double rms_residual_s, max_relative_residual;
};
/*
 * Fit t_i = alpha + beta s_i (sizes s [n] bytes, times t [n] seconds > 0,
 * n >= 2) by least squares on relative residuals (rows scaled by 1/t_i),
 * LAPACKE_dgels. A negative coefficient is replaced by the best fit with
 * that coefficient at 0 (the 2-parameter non-negative least squares
 * solution). Residuals are of the returned fit: RMS in seconds and the
 * largest |fit - t| / t. Returns 0, or -1 when dgels fails or n < 2.
 */
int mpiprof_fit_alpha_beta(const double *s, const double *t, size_t n, struct mpiprof_fit *fit);

/* ---- mpiprof_topo.c ---- */
/* The hwloc view of this node as a JSON object (doc/mpiprof.md "nodes[]
 * .topology"); {"available": false, "reason": ...} without hwloc. New
 * reference, NULL on allocation failure. */
json_t *mpiprof_topology(void);
/* This rank's CPU binding as a list string ("0", "0-1"), or "unknown". */
void mpiprof_binding(char *buf, size_t len);

/* ---- mpiprof_check.c ---- */
/* Validate the document in path against the schema; print the result
 * (stdout on success, stderr on failure) and return the exit status: 0
 * valid, 2 invalid or unreadable. */
int mpiprof_check_file(const char *path);
/* Validate a loaded document; on failure write "FIELD: expected ..., found
 * ..." into msg and return -1. */
int mpiprof_check_doc(const json_t *doc, char *msg, size_t len);

#endif
