/*
 * mpiprof.h - modules of slo-mpiprof, the in-job-step MPI link profiler
 * (doc/mpiprof.md). Not installed. The profiler uses only libslo's public
 * API (slo_comm.h): the alpha-beta fit and its ring reading
 * (slo_comm_fit_alpha_beta, slo_comm_ring_*_from_fit) and the one validator
 * of its document (slo_comm_profile_check, slo_comm_profile_parse).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_MPIPROF_H
#define SLO_MPIPROF_H

#include <jansson.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#include "slo_comm.h"

#define MPIPROF_NAME "slo-mpiprof"
#define MPIPROF_SCHEMA_VERSION SLO_COMM_PROFILE_SCHEMA_VERSION
/* A figure above this factor x the physical ceiling (memcpy bandwidth of
 * the node, or the NIC speed when known) is flagged "suspect". */
#define MPIPROF_CEILING_FACTOR SLO_COMM_PROFILE_CEILING_FACTOR
#define MPIPROF_MAX_SIZES 64
#define MPIPROF_MAX_MESSAGE_BYTES (256u << 20)
#define MPIPROF_HOST_LEN 256
#define MPIPROF_BIND_LEN 128

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

/* ---- mpiprof_options.c (pure: no MPI) ---- */
struct mpiprof_options {
    struct mpiprof_params p;
    const char *output, *check;
    int help;
};
/* --help text */
void mpiprof_usage(FILE *f);
/* Parse argv (every rank parses the same); 0, or -1 with the message in
 * msg ("--sizes: expected ..."). */
int mpiprof_parse_options(int argc, char **argv, struct mpiprof_options *o, char *msg,
                          size_t len);

/* ---- mpiprof_measure.c: the run's ranks, errors, measurement phases ---- */
struct mpiprof_progress {
    int on, tty, step, total;
};
struct mpiprof_allreduce_point {
    size_t bytes;
    int reps;
    double min_s, median_s; /* the slowest rank's time per repetition: min, median */
    int verified;
};
/* What the phases share; the per-rank arrays and JSON only on rank 0. */
struct mpiprof_run {
    const struct mpiprof_params *p;
    const char *launched;       /* "mpirun", "pmix" or NULL (singleton) */
    int rank, np, node_rank;
    MPI_Comm node_comm;         /* the ranks of this node */
    double t_start;             /* MPI_Wtime at the start, s */
    size_t n_pairs;
    struct mpiprof_progress pr; /* rank 0 */
    char host[MPIPROF_HOST_LEN];
    double memcpy_bytes_per_s;  /* node leaders: the first pass */
    int cma_errno;              /* mpiprof_cma_probe: MPIPROF_CMA_*, or the errno */
    char *hosts, *binds;        /* rank 0: [np] x HOST_LEN / BIND_LEN */
    int *leaders;               /* rank 0: [np] node leader of each rank */
    json_t *nodes, *pairs;      /* rank 0: nodes[], point_to_point.pairs[] (no flags yet) */
    struct mpiprof_allreduce_point *ap; /* rank 0: [p->n_allreduce_sizes] */
};

/* This process's rank in MPI_COMM_WORLD, for the error paths below. */
extern int mpiprof_rank;
/* Test-only fault injection (--enable-test-hooks; always 0 without):
 * 1 if SLO_MPIPROF_TEST_FAULT is "KIND:R" and R is this rank. */
int mpiprof_test_fault(const char *kind);
/* An error every rank has: rank 0 prints it, MPI_Abort(code); the other
 * ranks wait for that abort. */
void mpiprof_die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
/* An error of this rank only: printed with its rank, MPI_Abort(code). */
void mpiprof_die_local(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
/* 64-byte aligned allocation; out of memory ends the job (die_local). */
void *mpiprof_xalloc(size_t n);
/* A JSON real, null when x is not finite. */
json_t *mpiprof_num(double x);
double mpiprof_now_s(void);

/* The phases, in order; every rank calls each. */
void mpiprof_nodes_setup(struct mpiprof_run *r);      /* node_comm, hosts, bindings */
void mpiprof_memcpy_phase(struct mpiprof_run *r);     /* memcpy on node leaders */
void mpiprof_node_documents(struct mpiprof_run *r);   /* leaders -> rank 0: nodes[] */
void mpiprof_point_to_point(struct mpiprof_run *r);   /* every pair: pairs[] */
void mpiprof_allreduce_phase(struct mpiprof_run *r);  /* allreduce over sizes: ap[] */
void mpiprof_memcpy_again(struct mpiprof_run *r);     /* the better of two memcpy passes */

/* ---- mpiprof_cma.c ---- */
#define MPIPROF_CMA_UNTESTED (-1) /* one rank on the node */
#define MPIPROF_CMA_WRONG 100000  /* read, but not the bytes the leader holds */
/* Every rank (collective on node_comm): the other ranks of the node read
 * the node leader's memory with process_vm_readv; r->cma_errno on every
 * rank of the node: 0 usable, the largest errno seen (EPERM = 1 when
 * blocked), MPIPROF_CMA_WRONG, or MPIPROF_CMA_UNTESTED. */
void mpiprof_cma_probe(struct mpiprof_run *r);
/* nodes[].cross_memory_attach (doc/mpiprof.md) for a verdict of
 * mpiprof_cma_probe, with /proc/sys/kernel/yama/ptrace_scope. New
 * reference. */
json_t *mpiprof_cma_json(int cma_errno);

/* ---- mpiprof_transport.c ---- */
/* mpi.{library_version, mpi_version, transport} from MPI_T (new reference). */
json_t *mpiprof_transport(void);

/* ---- mpiprof_doc.c (rank 0) ---- */
/* The document (doc/mpiprof.md) from the phases' results: ceilings, flags,
 * summaries, the alpha-beta fit and its ring reading. New reference. */
json_t *mpiprof_document(struct mpiprof_run *r);
/* The document must pass --check and the link reader before it is written:
 * on failure rank 0 says so and aborts (exit 1). Returns the number of
 * pairs flagged suspect for their transport (point_to_point.summary
 * .suspect_pairs): such a document is not checked against the link reader,
 * which refuses it; it is written and the run exits 1. */
int mpiprof_self_check(json_t *doc, int np);

/* ---- mpiprof_output.c ---- */
#define MPIPROF_PATH_LEN 4096
/* Rank 0 (collective: every rank calls it): check --output before any
 * measurement (a temp file made and removed); a bad path ends the job. */
void mpiprof_output_probe(const struct mpiprof_options *o, int rank);
/* Rank 0: write the document to --output (temp file + rename) or stdout;
 * a failure aborts the job. */
void mpiprof_output_write(const struct mpiprof_options *o, json_t *doc);

/* ---- mpiprof_topo.c ---- */
/* The hwloc view of this node as a JSON object (doc/mpiprof.md "nodes[]
 * .topology"); {"available": false, "reason": ...} without hwloc. New
 * reference, NULL on allocation failure. */
json_t *mpiprof_topology(void);
/* This rank's CPU binding as a list string ("0", "0-1"), or "unknown". */
void mpiprof_binding(char *buf, size_t len);

/* ---- mpiprof_check.c ---- */
/* Validate the document in path (slo_comm_profile_check, then the link
 * reader); print the result (stdout on success, stderr on failure) and
 * return the exit status: 0 valid, 2 invalid or unreadable. */
int mpiprof_check_file(const char *path);

#endif
