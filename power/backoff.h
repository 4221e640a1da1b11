/*
 * backoff.h - the failed-pool back-off state of slo-power and slo-requeue
 * (internal, not installed).
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * A pool is one instance type at one capacity (spot or on-demand): the unit
 * in which EC2 reports InsufficientInstanceCapacity /
 * MaxSpotInstanceCountExceeded and in which a spot pool is reclaimed (the
 * availability zone is not a Slurm node feature here, so the pool is the
 * type's, in every zone the launch template may use). When a launch fails
 * for lack of capacity or quota (power_ec2_capacity_error), or a spot node
 * is reclaimed, the pool is written here with an expiry; slo-requeue plans
 * a requeued job without the pools that have not expired (doc/slurm.md,
 * "Re-planning on requeue").
 *
 * File: <StateSaveLocation>/slo-backoff.json (slurmctld's state directory:
 * on the slurmctld host, writable by SlurmUser, which runs both the
 * ResumeProgram and EpilogSlurmctld), or $SLO_BACKOFF_FILE when set:
 *   {"format": "slo-backoff-1",
 *    "pools": [{"type": "g4dn.12xlarge", "capacity": "spot",
 *               "since_unix_s": 1764870000, "until_unix_s": 1764870600,
 *               "code": "InsufficientInstanceCapacity", "node": "c1"}]}
 * Rewritten under an flock of FILE.lock by a temporary file renamed over
 * it; expired entries are dropped at each write.
 * Back-off period: POWER_BACKOFF_DEFAULT_S = 600 s, the
 * insufficient_capacity_timeout default of AWS ParallelCluster's Slurm
 * integration (nodes of a pool that returned ICE are kept out of use for
 * 10 minutes), long enough for a requeued job not to be placed in the same
 * pool at once, short enough for the pool to be tried again within a
 * training deadline.
 */
#ifndef SLO_POWER_BACKOFF_H
#define SLO_POWER_BACKOFF_H

#include <stddef.h>

#include "slo.h"

#define POWER_BACKOFF_DEFAULT_S 600.0
#define POWER_BACKOFF_CODE_LEN 64
#define POWER_BACKOFF_NODE_LEN 128
#define POWER_BACKOFF_MAX 4096 /* entries kept; more is refused as a corrupt file */

struct power_backoff {
    char type[SLO_NAME_LENGTH];      /* instance type (catalog name = node feature) */
    char capacity[16];               /* "spot" or "on-demand" */
    double since_unix_s;             /* when the failure was seen, s since 1970 */
    double until_unix_s;             /* end of the back-off, s since 1970 */
    char code[POWER_BACKOFF_CODE_LEN]; /* EC2 error code, or "spot-reclaim" */
    char node[POWER_BACKOFF_NODE_LEN]; /* the node that failed (for people) */
};

/* The back-off file's path into out[len]: $SLO_BACKOFF_FILE when set and
 * not empty, else slurmctld's StateSaveLocation (slurm_load_ctl_conf) +
 * "/slo-backoff.json". Returns 0, or -1 with err[errlen] saying why
 * (slurmctld not reachable, path too long). */
int power_backoff_path(char *out, size_t len, char *err, size_t errlen);

/* Add (or extend) the back-off of pool (type, capacity) at path: from now
 * (s since 1970) for period_s (s, > 0); code and node say why and where
 * (may be NULL). A pool already backed off keeps the later expiry. Expired
 * entries are dropped. Returns 0, or -1 with err (unreadable or malformed
 * file, cannot write). */
int power_backoff_record(const char *path, const char *type, const char *capacity,
                         const char *code, const char *node, double now, double period_s,
                         char *err, size_t errlen);

/* The entries of path whose until_unix_s > now into *out (malloc'd [*n],
 * NULL when n = 0). A missing file is no entry (0). Returns 0, or -1 with
 * err naming the file and field: not JSON, format not "slo-backoff-1", a
 * pool without a type, capacity spot|on-demand or numeric times. */
int power_backoff_load(const char *path, double now, struct power_backoff **out, size_t *n,
                       char *err, size_t errlen);

/* 1 when entries[0..n-1] holds pool (type, capacity), else 0. */
int power_backoff_has(const struct power_backoff *entries, size_t n, const char *type,
                      const char *capacity);

struct power_ctx;
struct power_node;
/* slo-power's capacity-error branch (ec2 and local resume): for each failed
 * node of nodes[idx[0..n-1]] (idx NULL: nodes[0..n-1]) whose reason says
 * "...: no capacity: CODE..." (power_ec2_assign's text), back off its pool
 * (type, capacity) for POWER_BACKOFF_DEFAULT_S at power_backoff_path; logged
 * (info, or a warning when the file cannot be written: the resume itself
 * goes on). Nothing with --dry-run or without Slurm operations. */
void power_backoff_note_failed(struct power_ctx *ctx, const struct power_node *nodes,
                               const size_t *idx, size_t n);

#endif
