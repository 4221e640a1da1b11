/*
 * args.h - plugstack.conf arguments and --slo-* option values of spank_slo.so.
 * Pure code: no spank.h, no Slurm calls, so the unit tests link it directly
 * (tests/test_spank_args.c).
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Cross-file names of the plugin start with sslo_ ("SPANK slo"); every
 * function fills a caller-owned message buffer with one line that names the
 * argument or option, what was expected and what was found (the plugin logs
 * it with slurm_error).  Contract: spank_slo(8), "PLUGSTACK
 * ARGUMENTS"; layout after NVIDIA/pyxis config.c/args.c (shared/STYLE.md 2).
 */
#ifndef SSLO_ARGS_H
#define SSLO_ARGS_H

#include <stddef.h>

#include "slo.h"

#define SSLO_PATH_LENGTH 1024
#define SSLO_PARTITION_LENGTH 64
#define SSLO_MSG_LENGTH 1024
/* Upper bound of max_nodes= (and so of any plan's node count). */
#define SSLO_MAX_NODES_LIMIT 100000

enum sslo_mode { SSLO_MODE_ENFORCE = 0, SSLO_MODE_ADVISE = 1 };

/* Site configuration from plugstack.conf (admin's), see spank_slo(8). */
struct sslo_config {
    char catalog[SSLO_PATH_LENGTH];   /* absolute path, "" when not given */
    char workloads[SSLO_PATH_LENGTH]; /* absolute directory, "" when not given */
    char workload[SLO_NAME_LENGTH];   /* default workload name, "" for none */
    char onprem_partition[SSLO_PARTITION_LENGTH];
    char spot_partition[SSLO_PARTITION_LENGTH];
    char ondemand_partition[SSLO_PARTITION_LENGTH];
    char burst_partition[SSLO_PARTITION_LENGTH];
    int max_nodes;                    /* 1..SSLO_MAX_NODES_LIMIT */
    enum sslo_mode mode;              /* default mode */
    /* --slo-serve (serve.h): the site's iGniter GPU profile, an embedded
     * name (slo_embedded_gpu_profile_names: "v100") or an absolute path of a
     * profile file (doc/infer.md "Profiles"); "" when not given */
    char infer_profile[SSLO_PATH_LENGTH];
};

/*
 * Reset cfg to the defaults (partitions onprem, cloud-spot, cloud-ondemand,
 * burst; max_nodes 64; mode enforce; no catalog, workloads or workload), then
 * apply the plugstack arguments av[ac], each "key=value" with key one of
 * catalog, workloads, workload, onprem_partition, spot_partition,
 * ondemand_partition, burst_partition, max_nodes, mode, infer_profile
 * (an embedded profile name from [A-Za-z0-9._-] or an absolute path).
 * Returns 0, or -1 with msg naming the argument: an unknown key (msg lists
 * the known ones), a repeated key, a token without '=', an empty value, a
 * relative or over-long path, a partition or workload name outside
 * [A-Za-z0-9._-], max_nodes not an integer 1..100000, mode not advise or
 * enforce.
 */
int sslo_config_parse(struct sslo_config *cfg, int ac, char **av, char *msg, size_t len);

/* The --slo-* options, in the order of spank_slo(8). */
enum sslo_option_id {
    SSLO_OPT_LOSS = 1,
    SSLO_OPT_TIME,
    SSLO_OPT_WORKLOAD,
    SSLO_OPT_BUDGET,
    SSLO_OPT_PRICING,
    SSLO_OPT_MODE,
    /* --slo-serve (serving jobs, serve.h); kept as its own block */
    SSLO_OPT_SERVE = 32
};

/* --slo-serve: one served model. */
#define SSLO_MAX_SERVE 16      /* workloads of one serving job */
#define SSLO_SERVE_TEXT_LENGTH 1024 /* distinct --slo-serve texts remembered */
struct sslo_serve_spec {
    char model[SLO_NAME_LENGTH]; /* [A-Za-z0-9._-]+, a model of the site's profile */
    double rate_rps;             /* arrival rate, req/s, finite, > 0 */
    double slo_ms;               /* latency SLO, ms, finite, > 0 */
};

/* Values given by the user; have_* says whether each was given. */
struct sslo_options {
    int have_loss, have_time, have_workload, have_budget, have_pricing, have_mode;
    double loss;                     /* target training loss, finite, > 0 */
    double time_s;                   /* deadline T_obj, s */
    char time_text[64];              /* as given, for messages */
    char workload[SLO_NAME_LENGTH];  /* [A-Za-z0-9._-]+ */
    double budget_usd;               /* > 0 */
    enum slo_pricing pricing;
    enum sslo_mode mode;
    /* --slo-confidence (issue 13 item 4): */
    int have_confidence;
    double confidence;               /* P(deadline met) asked for, in (0, 1) */
    /* --slo-serve, in the order given (every value of a repeated option;
     * an identical text given again counts once) */
    int n_serve;
    struct sslo_serve_spec serve[SSLO_MAX_SERVE];
    char serve_texts[SSLO_SERVE_TEXT_LENGTH]; /* the texts taken, '\n'-separated */
};

/* --slo-confidence=P (issue 13 item 4): the cheapest plan in expected cost
 * that meets the deadline with probability >= P, in (0, 1) (slo_risk_plan,
 * as `slo train --slo-confidence P`). Outside sslo_option_id's sequence so
 * that other options can be added there. */
#define SSLO_OPT_CONFIDENCE 40

/* "--slo-loss" etc. for an id; "?" for an unknown one. */
const char *sslo_option_name(int id);

/*
 * Validate text as the value of option id and store it in o (the last value
 * wins, so a callback that Slurm runs twice with the same text is harmless).
 * --slo-loss: a finite number > 0; --slo-time: sbatch --time forms via
 * slo_parse_duration (kernel/slo.h); --slo-workload: [A-Za-z0-9._-]+ of at most
 * 63 characters (the file is checked by sslo_workload_path); --slo-budget: a
 * finite number of USD > 0; --slo-pricing: spot or on-demand; --slo-mode:
 * advise or enforce; --slo-confidence: a plain decimal in (0, 1); --slo-serve: a comma-separated list of
 * MODEL:rate=R:slo=MS (R req/s and MS ms finite numbers > 0, keys once each,
 * in any order, MODEL from [A-Za-z0-9._-]), appended to o->serve (not
 * replacing: the option may be repeated; a text equal to one already taken
 * is ignored, so a callback run twice adds nothing), at most SSLO_MAX_SERVE
 * in all. The model is checked against the profile by sslo_serve_plan.
 * Returns 0, or -1 with msg "--slo-loss: expected ..., found \"...\"" and o
 * unchanged.
 */
int sslo_option_parse(struct sslo_options *o, int id, const char *text, char *msg, size_t len);

/*
 * The profile file of workload name: "<workloads>/<name>.json" into path.
 * Returns 0 when the file is readable; -1 with msg when the plugstack gives
 * no workloads= directory, the name is invalid or the file cannot be read
 * (msg names the file and strerror).
 */
int sslo_workload_path(const struct sslo_config *cfg, const char *name, char *path,
                       size_t path_len, char *msg, size_t len);

/*
 * The plugstack argument workloads=DIR, checked when the plugin is loaded in
 * sbatch/salloc/srun (trial S4): DIR must be an existing directory the
 * submitting user can read and search. Returns 0 (also when workloads= is
 * not given), or -1 with msg "plugstack.conf workloads=DIR: expected a
 * readable directory of workload profiles, found <strerror or 'a file that
 * is not a directory'>".
 */
int sslo_config_check_workloads(const struct sslo_config *cfg, char *msg, size_t len);

/*
 * Environment fallbacks, applied only to options the user did not give
 * (command line > environment > plugstack): SLO_SPANK_WORKLOAD,
 * SLO_SPANK_BUDGET, SLO_SPANK_PRICING, SLO_SPANK_MODE, read through
 * get(name) (getenv in the plugin; NULL or "" = unset). Each value is
 * validated as its option. Returns 0, or -1 with msg naming the variable.
 */
int sslo_options_apply_env(struct sslo_options *o, const char *(*get)(const char *name),
                           char *msg, size_t len);

/* Effective mode, workload ("" when none) and pricing: option (or its
 * environment fallback) first, then the plugstack default. */
enum sslo_mode sslo_effective_mode(const struct sslo_options *o, const struct sslo_config *cfg);
const char *sslo_effective_workload(const struct sslo_options *o, const struct sslo_config *cfg);
enum slo_pricing sslo_effective_pricing(const struct sslo_options *o);

const char *sslo_mode_name(enum sslo_mode mode);
const char *sslo_pricing_name(enum slo_pricing pricing);

#endif /* SSLO_ARGS_H */
