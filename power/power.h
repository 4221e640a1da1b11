/*
 * power.h - slo-power, the Slurm ResumeProgram / SuspendProgram /
 * ResumeFailProgram of slo-kernel: internal interfaces (not installed).
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Source for the Slurm side: Slurm 22.05 power saving
 * (doc/html/power_save.shtml, elastic_computing.shtml) as recorded in
 * shared/research/slurm-mpi-feasibility.md sections 2.6 and 5; for the EC2
 * side: the EC2 API reference of CreateFleet, DescribeInstances, CreateTags
 * and TerminateInstances.
 *
 * Conventions: functions return 0 on success and -1 on failure; a failure
 * writes one line into a caller-owned `char *err` of `errlen` bytes that
 * names what failed, what was expected and what was found. Nothing here
 * prints except power_log() and the dry-run printers, which say so.
 */
#ifndef SLO_POWER_H
#define SLO_POWER_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "slo.h"

#if defined(__GNUC__)
#define POWER_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define POWER_PRINTF(a, b)
#endif

/* Default config file: SYSCONFDIR/slo/power.conf (configure --sysconfdir,
 * default /usr/local/etc), where `make install` puts the catalogs too. */
#ifndef POWER_SYSCONFDIR
#define POWER_SYSCONFDIR "/usr/local/etc"
#endif
#define POWER_DEFAULT_CONF POWER_SYSCONFDIR "/slo/power.conf"

#define POWER_ERR_LEN 512
#define POWER_NAME_LEN 128      /* node names, instance ids, regions */
#define POWER_VALUE_LEN 256     /* launch templates, subnets, addresses */
#define POWER_MAX_SUBNETS 16
#define POWER_MAX_TYPE_TEMPLATES 64

enum power_provider { POWER_PROVIDER_NONE = 0, POWER_PROVIDER_EC2, POWER_PROVIDER_LOCAL };
enum power_action { POWER_RESUME = 0, POWER_SUSPEND, POWER_RESUME_FAIL };
enum power_capacity { POWER_SPOT = 0, POWER_ON_DEMAND = 1 };

/* A launch template for one instance type: `launch_template[TYPE]=NAME|ID`. */
struct power_type_template {
    char type[SLO_NAME_LENGTH];
    char template_ref[POWER_VALUE_LEN];
    int line;                     /* line of the config file that sets it */
};

/*
 * The configuration file (key=value lines, '#' comments; doc/man/slo-power.8
 * lists the keys). Paths are absolute or relative to the working directory.
 */
struct power_config {
    char path[PATH_MAX];               /* file it was read from */
    enum power_provider provider;
    char catalog[PATH_MAX];            /* "" when not set */
    char log[PATH_MAX];                /* "" when not set: stderr only */
    /* ec2 */
    char region[POWER_NAME_LEN];
    char cluster[POWER_NAME_LEN];      /* tag value slo-power:cluster */
    char launch_template[POWER_VALUE_LEN];        /* default for every type */
    char launch_template_version[POWER_NAME_LEN]; /* default "$Latest" */
    size_t n_type_templates;
    struct power_type_template type_templates[POWER_MAX_TYPE_TEMPLATES];
    size_t n_subnets;
    char subnets[POWER_MAX_SUBNETS][POWER_NAME_LEN];
    double max_spot_price_usd_per_h;   /* 0: not set (EC2 caps at on-demand) */
    char aws[PATH_MAX];                /* aws CLI; "" = search PATH */
    int all_or_nothing;                /* MinTargetCapacity = nodes of the group */
    double aws_timeout_s;              /* limit per aws command, s (then TERM, KILL) */
    int aws_retries;                   /* extra tries of a throttled aws command (0..10) */
    double aws_retry_base_s;           /* first back-off step, s */
    double aws_retry_max_s;            /* largest back-off step, s */
    /* local */
    char slurmd[PATH_MAX];             /* "" = search PATH, /usr/sbin, /usr/local/sbin */
    double boot_delay_s;               /* simulated boot before slurmd starts */
    char state_dir[PATH_MAX];          /* pid files NODE.pid, slurmd output NODE.out */
    double stop_timeout_s;             /* TERM -> KILL grace, s */
    /* slo-spot-watch (any provider: the file is read on the cloud nodes) */
    int spot_signal;                   /* signal for the job's steps, default SIGUSR1 */
    double spot_grace_s;               /* signal -> requeue, s (default 90) */
    int spot_rebalance;                /* 1: signal on a rebalance recommendation too */
    char imds_endpoint[POWER_VALUE_LEN]; /* default http://169.254.169.254 */
};

/*
 * Read and validate the config file at path (strict: an unknown key, a key of
 * the other provider, a repeated key, a malformed value or a missing required
 * key is an error "FILE:LINE: ..." naming the key). Defaults: log none,
 * launch_template_version $Latest, cluster "slo", all_or_nothing yes,
 * aws_timeout_s POWER_RUN_TIMEOUT_S (range 1..3600), aws_retries 4 (0..10),
 * aws_retry_base_s 1 (0.01..60), aws_retry_max_s 16 (0.01..600, at least
 * the base), boot_delay_s 0, stop_timeout_s 10, spot_signal USR1 (a name
 * as in kill -l, with or without SIG), spot_grace_s 90 (0..3600),
 * spot_rebalance no, imds_endpoint http://169.254.169.254 (http://HOST[:PORT]). Required: provider; ec2: region and a
 * launch_template (default or per type); local: state_dir.
 */
int power_config_load(const char *path, struct power_config *cfg, char *err, size_t errlen);
/* Every launch_template[TYPE] must name an instance type of the catalog cat
 * (slo_catalog_find): else -1 and "FILE:LINE: launch_template[TYPE]: expected
 * an instance type of catalog NAME, found 'TYPE'" (trial P7). */
int power_config_check_catalog(const struct power_config *cfg, const struct slo_catalog *cat,
                               char *err, size_t errlen);
/* As power_config_load, from text already in memory (source names it). */
int power_config_parse(const char *text, const char *source, struct power_config *cfg,
                       char *err, size_t errlen);
/* Config path by precedence: option (may be NULL), $SLO_POWER_CONF,
 * slo-power.conf beside $SLURM_CONF when that file exists, POWER_DEFAULT_CONF.
 * Writes into out (len bytes); -1 when it does not fit. */
int power_config_locate(const char *option, char *out, size_t len);
const char *power_provider_name(enum power_provider p);
const char *power_action_name(enum power_action a);
const char *power_capacity_name(enum power_capacity c); /* "spot", "on-demand" */

/* vsnprintf into buf (messages may be cut at len - 1 bytes, never overrun). */
void power_fmt(char *buf, size_t len, const char *fmt, ...) POWER_PRINTF(3, 4);
/* The error path of the config, node and ec2 modules: the message into
 * err[errlen] (may be NULL), returns -1. */
int power_fail(char *err, size_t errlen, const char *fmt, ...) POWER_PRINTF(3, 4);

/* ------------------------------------------------------------------ */
/* Logging: one line per event to the log file (if any) and stderr.    */
/* ------------------------------------------------------------------ */

struct power_log {
    FILE *file;          /* NULL: stderr only */
    int quiet_stderr;    /* 1: do not copy to stderr */
    enum power_action action;
    const char *provider; /* name, "-" before the config is read */
};

/* The current UTC time as "2026-11-29T18:50:00Z" in buf[len] (the logs'
 * stamp; slo-power and slo-spot-watch). */
void power_utc_stamp(char *buf, size_t len);

/* 1 when code (an AWS error code, may be NULL: 0) is one of codes[n], else 0
 * (power_aws_code_throttled, power_ec2_capacity_error). */
int power_code_in(const char *code, const char *const *codes, size_t n);

/* "2026-11-29T18:50:00Z slo-power[PID] ACTION provider=P node=N: level: text"
 * to the log file, and without the time to stderr (unless quiet_stderr);
 * errors and warnings go to syslog (LOG_DAEMON) when there is no log file.
 * node may be NULL ("-"); level is "error", "warning" or "info". */
void power_log(struct power_log *lg, const char *level, const char *node, const char *fmt,
               ...) POWER_PRINTF(4, 5);

/* ------------------------------------------------------------------ */
/* Nodes: names, features, instance types.                             */
/* ------------------------------------------------------------------ */

/* What slurmctld says about one node (slurm_load_node), or a fake list. */
struct power_node_info {
    char name[POWER_NAME_LEN];
    char features[1024];        /* comma-separated, as in slurm.conf Features= */
};

/* One node of the request and what happened to it. */
struct power_node {
    char name[POWER_NAME_LEN];
    char type[SLO_NAME_LENGTH];      /* instance type ("" when unmapped) */
    enum power_capacity capacity;
    int failed;                      /* 1: node failed; reason says why */
    char reason[POWER_ERR_LEN];
    char instance_id[POWER_NAME_LEN];
    char addr[POWER_VALUE_LEN];      /* private IP */
    char hostname[POWER_VALUE_LEN];  /* short private DNS name */
};

/* Expand a Slurm hostlist ("c[1-2],d1") with slurm_hostlist_*; *out is
 * malloc'd [*n]. Errors: empty or malformed list, more than 100000 names. */
int power_hostlist_expand(const char *hostlist, struct power_node **out, size_t *n, char *err,
                          size_t errlen);
/* Ranged string of the names of nodes[idx[0..n-1]] ("c[1-2]") into buf. */
int power_hostlist_ranged(const struct power_node *nodes, const size_t *idx, size_t n,
                          char *buf, size_t len);

/*
 * Map each node to its instance type and capacity from its features
 * (contract: doc/slurm.md, "The recorded plan"): exactly one
 * feature names a catalog type, and exactly one of `spot` / `ondemand`
 * (require_capacity 1; with 0 a missing one means on-demand). A node absent
 * from info, or with zero or two of either, is marked failed with the reason
 * (its features quoted; an absent node "node N is not in TABLE", TABLE the
 * node table's name, NULL for "slurmctld's node table"). Returns the number
 * of nodes mapped.
 */
size_t power_map_nodes(const struct slo_catalog *cat, const struct power_node_info *info,
                       size_t n_info, struct power_node *nodes, size_t n,
                       int require_capacity, const char *table);

/* Groups of non-failed nodes with the same (type, capacity), in order of
 * first appearance: group g holds idx[start[g] .. start[g+1]-1]. */
struct power_groups {
    size_t n_groups;
    size_t *start;   /* [n_groups + 1] */
    size_t *idx;     /* [nodes mapped] indices into the node array */
};
int power_group_nodes(const struct power_node *nodes, size_t n, struct power_groups *g);
void power_groups_free(struct power_groups *g);

/* Parse Slurm's SLURM_RESUME_FILE JSON: Slurm 22.05 {"jobs":[{"job_id":N,
 * "nodes":"c[1-2]"}],"all_nodes":"..."}, newer Slurm {"jobs":[{"job_id":N,
 * "nodes_alloc":"c[1-4]","nodes_resume":"c[1-2]",...}],"all_nodes_resume":
 * "..."}: job ids whose node lists include `node`, as "6,7" into buf
 * ("" when none). Errors: unreadable file or neither shape. */
int power_resume_file_jobs(const json_t *resume, const char *node, char *buf, size_t len);
int power_resume_file_load(const char *path, json_t **out, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Slurm operations, behind pointers so tests can record them.         */
/* ------------------------------------------------------------------ */

struct power_slurm_ops {
    /* scontrol update nodename=N nodeaddr=A nodehostname=H */
    int (*set_addr)(void *arg, const char *node, const char *addr, const char *hostname,
                    char *err, size_t errlen);
    /* scontrol update nodename=N state=POWER_DOWN_FORCE reason=R */
    int (*power_down)(void *arg, const char *node, const char *reason, char *err,
                      size_t errlen);
    void *arg;
};

/* libslurm implementations (power/slurm.c): slurm_update_node with
 * NODE_STATE_POWER_DOWN|NODE_STATE_POWERED_DOWN for POWER_DOWN_FORCE, as
 * scontrol does. power_slurm_load_nodes calls slurm_load_node (SHOW_ALL, so
 * powered-down CLOUD nodes are listed); *out is malloc'd [*n]. */
extern const struct power_slurm_ops power_slurm_real;
int power_slurm_load_nodes(struct power_node_info **out, size_t *n, char *err, size_t errlen);
/* Read a fake node table: lines "NAME FEATURES" ('#' comments); NAME may be a
 * Slurm hostlist ("g[001-002]", slurm_hostlist_*), one entry per node.
 * Errors "FILE:LINE: ..." for a malformed line or hostlist, a node listed
 * twice, more than 100000 nodes. */
int power_node_info_file(const char *path, struct power_node_info **out, size_t *n, char *err,
                         size_t errlen);

/* ------------------------------------------------------------------ */
/* Running commands.                                                   */
/* ------------------------------------------------------------------ */

/* Find an executable: name with a '/' is taken as is; otherwise search $PATH
 * (or "/usr/local/bin:/usr/bin:/bin" when unset) then extra (':'-list, may be
 * NULL). Returns 0 and the path in out, -1 when not found. */
int power_find_program(const char *name, const char *extra, char *out, size_t len);

#define POWER_RUN_TIMEOUT_S 120.0   /* default limit of one external command, s */
#define POWER_RUN_GRACE_S 5.0       /* TERM -> KILL, and KILL -> give up, s */
#define POWER_RUN_MAX_OUTPUT ((size_t)64 << 20) /* bytes of stdout kept */

/* Limits of one command; a NULL pointer means the defaults above. */
struct power_run_limits {
    double timeout_s;   /* wall-clock limit from fork to exit and EOF, s */
    double grace_s;     /* after TERM, wait this long before KILL, s */
    size_t max_output;  /* more stdout than this (bytes) kills the command */
};

/* Run argv (argv[0] a path) in its own process group with stdin /dev/null,
 * stdout and stderr on close-on-exec pipes and no other descriptor
 * (everything above 2 is closed in the child), default signal dispositions
 * and an empty signal mask. stdout goes into *out (malloc'd, NUL-terminated),
 * the first non-empty line of stderr into errline. Never blocks for longer
 * than timeout_s + 2 grace_s: on timeout or when stdout exceeds max_output
 * the group gets TERM, then KILL after grace_s (errline: "ARGV0 timed out
 * after T s (killed by TERM|KILL)" / "ARGV0 printed more than N bytes
 * (killed)"). Returns the exit status (0..255), or -1 when it could not run,
 * was killed, or died by a signal (errline says why). */
int power_run(char *const argv[], const struct power_run_limits *lim, char **out,
              char *errline, size_t errlen);

/* In a child after fork, before exec: an empty signal mask and the default
 * disposition of every signal, so the command does not inherit what the
 * parent (slurmctld's resume/suspend program) blocked or ignored. */
void power_child_default_signals(void);

/* ------------------------------------------------------------------ */
/* Providers.                                                          */
/* ------------------------------------------------------------------ */

struct power_ctx {
    const struct power_config *cfg;
    struct power_log *log;
    const struct power_slurm_ops *slurm;  /* NULL with --dry-run */
    int dry_run;                          /* print requests, run nothing */
    FILE *out;                            /* where dry-run prints (stdout) */
    const json_t *resume_file;            /* SLURM_RESUME_FILE content or NULL */
};

/*
 * EC2 CreateFleet request (API_CreateFleet: Type instant) for the nodes
 * idx[0..n-1] of one group (same instance type and capacity): TotalTargetCapacity n,
 * DefaultTargetCapacityType spot|on-demand, SpotOptions or OnDemandOptions
 * (SingleInstanceType, SingleAvailabilityZone, MinTargetCapacity n when
 * all_or_nothing else 1), one LaunchTemplateConfig whose Overrides list one
 * entry per subnet (MaxPrice for spot when max_spot_price is set), and
 * TagSpecifications on the instances: slo-power:cluster, slo-power:nodes
 * (ranged hostlist, power_ec2_nodes_tags), slo-power:jobs (when known). The
 * launch tags let suspend / resume-fail find instances whose resume died
 * before their per-node tag (CreateFleet tags every instance of a request
 * alike; slo-power:node is set per instance by CreateTags right after).
 * NULL with err on failure.
 */
json_t *power_ec2_fleet_request(const struct power_config *cfg, const struct power_node *nodes,
                                const size_t *idx, size_t n, const char *jobs, char *err,
                                size_t errlen);

/* Append to tags (json array) the launch tags naming the nodes idx[0..n-1]:
 * slo-power:nodes = their ranged hostlist, split into slo-power:nodes:2, :3, ...
 * when it is longer than an EC2 tag value (256 characters). Errors: more
 * than 32 such tags needed, a node name longer than a tag value. */
int power_ec2_nodes_tags(const struct power_node *nodes, const size_t *idx, size_t n,
                         json_t *tags, char *err, size_t errlen);

/* 1 when an EC2 error code means "no capacity now" (the node should be powered
 * down so its job requeues): InsufficientInstanceCapacity,
 * InsufficientCapacity, MaxSpotInstanceCountExceeded, SpotMaxPriceTooLow,
 * UnfulfillableCapacity, InstanceLimitExceeded, VcpuLimitExceeded,
 * InsufficientFreeAddressesInSubnet, InsufficientHostCapacity. */
int power_ec2_capacity_error(const char *code);

/*
 * Assign the instances of a CreateFleet response to nodes idx[0..n-1] in
 * order (fills instance_id). Nodes left without an instance are marked failed
 * with the response's first error ("ec2 CreateFleet TYPE CAPACITY:
 * CODE: message", "capacity" when power_ec2_capacity_error). Instance ids
 * beyond n are returned in *extra (malloc'd json array, to terminate).
 * Returns the number of nodes assigned, -1 when the response is malformed.
 */
int power_ec2_assign(const json_t *response, struct power_node *nodes, const size_t *idx,
                     size_t n, json_t **extra, char *err, size_t errlen);

/* Provider entry points: act on nodes[0..n-1]; nodes that fail are marked
 * (failed, reason) and logged; on resume they are powered down (unless
 * dry-run). Return 0 when every node succeeded, 1 otherwise.
 * power_ec2_terminate (suspend, resume-fail) describes the cluster's live
 * instances (filter slo-power:cluster and state, one call whatever the node
 * count) and terminates, in calls of at most 1000 ids, those tagged
 * slo-power:node=NODE of the request, and those without slo-power:node whose
 * slo-power:nodes hostlist names a node of the request (a resume that died
 * between CreateFleet and CreateTags). */
int power_ec2_resume(struct power_ctx *ctx, struct power_node *nodes, size_t n);
int power_ec2_terminate(struct power_ctx *ctx, struct power_node *nodes, size_t n);
int power_local_resume(struct power_ctx *ctx, struct power_node *nodes, size_t n);
int power_local_stop(struct power_ctx *ctx, struct power_node *nodes, size_t n);

/* ------------------------------------------------------------------ */
/* Throttling (power/retry.c).                                         */
/* ------------------------------------------------------------------ */

/* The CODE of an aws CLI error line "An error occurred (CODE) when calling
 * the OP operation...: message" into code[len]; -1 when line has no code. */
int power_aws_error_code(const char *line, char *code, size_t len);
/* 1 when that code means throttling (RequestLimitExceeded, Throttling,
 * ThrottlingException, RequestThrottled, EC2ThrottledException,
 * TooManyRequestsException, SlowDown, PriorRequestNotComplete, ...): the
 * request was refused for its rate, not executed, and is safe to retry. */
int power_aws_throttled(const char *line);
/* The same test on a bare error code (a CreateFleet response's
 * Errors[].ErrorCode); NULL is no throttling. */
int power_aws_code_throttled(const char *code);
/* Wait before retry number attempt (0 = the first retry), s: equal jitter,
 * d/2 + U(0, d/2) with d = min(aws_retry_max_s, aws_retry_base_s * 2^attempt)
 * (Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog 2015);
 * seed is rand_r's state. */
double power_retry_delay_s(const struct power_config *cfg, int attempt, unsigned *seed);

/* Parse a signal name (USR1, SIGUSR1, TERM, ...) or number 1..64: the
 * number, or -1. */
int power_signal_parse(const char *s);
/* 1 when v is http://HOST[:PORT] (HOST of [A-Za-z0-9.-], PORT 1..65535,
 * an optional trailing '/'), the form of imds_endpoint. */
int power_endpoint_valid(const char *v);

#endif
