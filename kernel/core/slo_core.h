/*
 * slo_core.h - what every planner of libslo shares: errors, durations,
 * numbers, the instance catalog and the embedded data (included by slo.h).
 *
 * Copyright (C) 2026 the slo-kernel authors
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Conventions (every function of libslo follows them):
 *  - No global state, no printing, no exit. Every call takes its inputs and
 *    returns an `int` status: SLO_OK (0) or one of `enum slo_code`.
 *  - On failure the caller-owned `slo_error_t *err` (may be NULL) receives the
 *    code, the source (file, field path or option) and a one-line text that
 *    says what was expected and what was found, after jansson's json_error_t.
 *  - A planner's outcome is not an error: every slo_<planner>_solve() returns
 *    SLO_OK when it ran, and says what it found in result.status (enum
 *    slo_status) and result.reason ("" when optimal).
 *  - Every field, parameter and function that carries a quantity names its
 *    unit, and the units are the same across the API:
 *      times      seconds (_s), except iGniter's latencies, in milliseconds
 *                 as the paper measures them (_ms);
 *      sizes      bytes (_bytes), except the fields of spotDNN's MB-based
 *                 workload profile and catalog (_mb megabytes of 1e6 bytes,
 *                 _mbps MB/s); GPU memory in GB (_gb);
 *      bandwidth  of the gradient communication link: bytes/s (_bytes_per_s);
 *      money      USD per instance-hour (_usd_per_h), or per GPU-hour where a
 *                 GPU is priced alone (_usd_per_gpu_h); totals in USD (_usd).
 *    Speeds are training samples per second. File formats (doc/formats.md)
 *    keep the units their sources use; the parsers convert them.
 *  - The caller owns every struct it passes; what the library allocates in
 *    it is released by the matching *_free(), which also takes NULL or a
 *    struct a failed call left empty.
 */
#ifndef SLO_CORE_H
#define SLO_CORE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SLO_VERSION "0.1.0"

/* ------------------------------------------------------------------ */
/* Errors                                                              */
/* ------------------------------------------------------------------ */

enum slo_code {
    SLO_OK = 0,
    SLO_ERR_INVALID = 1,     /* malformed or out-of-range input */
    SLO_ERR_IO = 2,          /* a file could not be read */
    SLO_ERR_NOMEM = 3,       /* allocation failed */
    SLO_ERR_NOT_FOUND = 4,   /* unknown name: instance type, workload, catalog */
    SLO_ERR_UNREACHABLE = 5, /* target loss cannot be reached by the loss model */
    SLO_ERR_INFEASIBLE = 6,  /* no plan meets the SLO (and budget) */
    SLO_ERR_NUMERIC = 7      /* a numerical solver failed */
};

#define SLO_ERROR_SOURCE_LENGTH 256
#define SLO_ERROR_TEXT_LENGTH 512

typedef struct slo_error {
    int code;                              /* enum slo_code */
    char source[SLO_ERROR_SOURCE_LENGTH];  /* file, "file: field" or "--option" */
    char text[SLO_ERROR_TEXT_LENGTH];      /* what was expected, what was found */
} slo_error_t;

/* Short stable name of a code ("invalid", "io", ...). Never NULL. */
const char *slo_code_name(int code);

/* Fill err (when not NULL) with code, source ("" for NULL) and the printf
 * text fmt, cut to the fields' sizes; returns code. For code built on
 * libslo that reports in the same slo_error_t (the Prophet runtime, a
 * front end): `return slo_error_set(err, SLO_ERR_INVALID, "--plan",
 * "expected ..., found %d", n);`. */
int slo_error_set(slo_error_t *err, int code, const char *source, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ------------------------------------------------------------------ */
/* Solve status (what a planner found, apart from whether the call     */
/* worked): every slo_<planner>_solve() returns an enum slo_code for   */
/* invalid input, I/O and memory only, and reports this in its result  */
/* (after the model status of HiGHS's C API, highs_c_api.h).          */
/* ------------------------------------------------------------------ */

enum slo_status {
    SLO_STATUS_OPTIMAL = 0,             /* meets the SLO, proven the cheapest */
    SLO_STATUS_FEASIBLE_UNPROVEN = 1,   /* meets the SLO; a search limit stopped the
                                           proof that none is cheaper */
    SLO_STATUS_INFEASIBLE = 2,          /* proven: no plan meets the SLO */
    SLO_STATUS_INFEASIBLE_UNPROVEN = 3  /* no plan found that meets the SLO, and a
                                           search limit stopped the proof that none
                                           exists */
};

#define SLO_REASON_LENGTH 2048

/* "optimal", "feasible_unproven", "infeasible", "infeasible_unproven";
 * "unknown" for any other value. Never NULL. */
const char *slo_status_name(int status);
/* 1 for SLO_STATUS_OPTIMAL and SLO_STATUS_FEASIBLE_UNPROVEN, else 0. */
int slo_status_feasible(int status);

/* ------------------------------------------------------------------ */
/* Durations (shared by the CLI and the SPANK plugin)                  */
/* ------------------------------------------------------------------ */

/*
 * Parse a deadline as sbatch --time does: "M", "M:S", "H:M:S", "D-H",
 * "D-H:M", "D-H:M:S" (a bare number is MINUTES, as in sbatch), and also a
 * number with a unit suffix: "2400s", "40m", "2h", "1d" (fractions allowed
 * with a suffix, e.g. "1.5h").
 * out_s: the duration in seconds, > 0.
 * Returns SLO_OK, or SLO_ERR_INVALID with err->text naming the expected forms
 * and the text found ("UNLIMITED", empty, negative, zero and more than 366
 * days are rejected).
 * *bare_minutes (may be NULL) is set to 1 when the text was a bare number of
 * minutes, so front ends can say how it was read.
 */
int slo_parse_duration(const char *text, double *out_s, int *bare_minutes, slo_error_t *err);

/*
 * strtod(3) restricted to the decimal numbers people write: an optional
 * sign, digits with an optional point, an optional exponent ("12", "-0.5",
 * ".25", "1e-3"). Hexadecimal ("0x10", "0x1p-3"), "inf", "nan" and leading
 * white space are not numbers here: *end is then set to text and 0 is
 * returned, as strtod does when it converts nothing. Otherwise as strtod
 * (errno = ERANGE on overflow). Every number parser of libslo and the CLI
 * goes through it, so "--bandwidth 0x10Gbit" is an error, not 16 Gbit/s.
 */
double slo_strtod(const char *text, char **end);

/* Format seconds as sbatch's [D-]HH:MM:SS (rounded to the second) into buf. */
void slo_format_duration(double seconds, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Instance catalog                                                    */
/* ------------------------------------------------------------------ */

#define SLO_NAME_LENGTH 64

enum slo_site { SLO_SITE_CLOUD = 0, SLO_SITE_ONPREM = 1 };
enum slo_pricing { SLO_PRICING_SPOT = 0, SLO_PRICING_ON_DEMAND = 1 };

struct slo_instance_type {
    char name[SLO_NAME_LENGTH];      /* "p3.2xlarge" or an on-prem node class */
    char gpu_model[SLO_NAME_LENGTH]; /* "V100" */
    int gpus;                        /* GPUs per instance, >= 1 */
    double gpu_memory_gb;            /* per GPU, GB; 0 when the catalog omits it */
    double on_demand_usd_per_h;      /* cloud: on-demand price; on-prem: its own
                                        (amortized, possibly zero) rate */
    double spot_usd_per_h;           /* cloud: spot price; on-prem: same as above */
    int quota;                       /* instances usable at once, >= 0 */
    enum slo_site site;
    double network_mbps;             /* NIC bandwidth, MB/s; 0 when omitted */
    double pcie_mbps;                /* usable PCIe bandwidth, MB/s; 0: use the
                                        workload's B_pcie */
    /* Spot pools (issue 20): a catalog type with "pools" expands to one entry
     * per (instance type, zone), named TYPE@ZONE, each with its own spot
     * price, quota and (optionally) on-demand price, and the type's GPUs,
     * bandwidths and speed profile. A planner matches the workload profile's
     * instances[].type against `type`, never `name`, and names the entry by
     * `name` in plans. */
    char type[SLO_NAME_LENGTH];      /* instance type whose profile applies:
                                        "p3.2xlarge" for "p3.2xlarge@us-east-1a";
                                        equal to name for a plain entry ("" in
                                        a struct built by hand: name applies;
                                        read it with slo_instance_profile) */
    char zone[SLO_NAME_LENGTH];      /* the pool's availability zone
                                        ("us-east-1a"); "" for a plain entry */
    /* Revocation risk (issue 13 item 4; doc/formats.md "interruption_rate"):
     * the probability in [0, 1] that a running spot instance of this entry
     * is revoked within an hour (Poisson rate -ln(1 - p) per hour), from the
     * catalog's number or Spot Instance Advisor bucket (a pool inherits its
     * type's unless it gives its own). 0 for an on-prem type. */
    double interruption_rate;
    int has_interruption_rate;       /* 0: the catalog gives none (unknown) */
};

struct slo_catalog {
    char name[SLO_NAME_LENGTH];
    size_t n_types;
    struct slo_instance_type *types; /* [n_types], owned */
    /* Pause a spot revocation costs before the replacement computes, s
     * (launch, boot, restore from checkpoint; spotDNN's T_ohd): the
     * catalog's "restart_overhead_s" (issue 13 item 4). */
    double restart_overhead_s;
    int has_restart_overhead;        /* 0: the catalog gives none */
};

/*
 * Parse a catalog from JSON text (format: doc/formats.md, "Instance catalog").
 * source names the text in messages (a file name, or "embedded:NAME").
 * On success *cat owns its memory (release with slo_catalog_free); a type
 * with pools[] becomes one entry per pool, in file order (n_types counts
 * entries). Cost: O(n log n) in the entries (3000 pools: see doc/formats.md).
 * Errors: SLO_ERR_INVALID for malformed JSON ("source:line:col: ...") or a
 * field that is missing, of the wrong type or out of range (text names the
 * field, e.g. "types[0] (a).spot_usd_per_h: expected a number in [0, 1e+06],
 * found -1"),
 * duplicate type names, a zone listed twice in one type's pools ("types[0]
 * (p3.2xlarge).pools[2].zone: expected each zone once per instance type,
 * found \"us-east-1a\" again (first at pools[0])"), a pool with a negative
 * price or quota, or a catalog whose quotas are all zero;
 * SLO_ERR_NOMEM. On failure *cat is left empty.
 */
int slo_catalog_parse(const char *json, const char *source, struct slo_catalog *cat,
                      slo_error_t *err);
/*
 * The hourly interruption rate of an AWS Spot Instance Advisor bucket
 * ("<5%", "5-10%", "10-15%", "15-20%", ">20%": the share of a pool's
 * instances interrupted over the trailing month): the bucket's upper bound f
 * (">20%", which has none, as 25%) over a month of SLO_HOURS_PER_MONTH
 * hours with exponential lifetimes, p = 1 - (1 - f)^(1/730) per hour
 * ("<5%": 7.03e-05, ">20%": 3.94e-04). Returns SLO_OK with *p_revoke_h set,
 * or SLO_ERR_INVALID (nothing set, no error text) for any other string.
 * Source: this project (issue 13 item 4), doc/formats.md "interruption_rate".
 */
#define SLO_HOURS_PER_MONTH 730.0
int slo_interruption_bucket_rate(const char *bucket, double *p_revoke_h);

/* As slo_catalog_parse, reading the file at path (SLO_ERR_IO if unreadable). */
int slo_catalog_load(const char *path, struct slo_catalog *cat, slo_error_t *err);
void slo_catalog_free(struct slo_catalog *cat);
/* Index of the entry named name ("p3.2xlarge", "p3.2xlarge@us-east-1a"), or -1. */
int slo_catalog_find(const struct slo_catalog *cat, const char *name);
/* Index of the first entry (plain type or pool) of instance type `type`
 * (its speed profile), or -1. */
int slo_catalog_find_type(const struct slo_catalog *cat, const char *type);
/*
 * Open a catalog the way every front end names one: a NAME or a FILE path -
 * an argument with a '/', ending in .json, or naming an existing file is a
 * path. A NAME is read from SYSCONFDIR/slo/catalogs/NAME.json when that file
 * exists (the installed copy; environment SLO_SYSCONFDIR in place of the
 * configured sysconfdir, set and empty: not looked at), else it is the
 * embedded catalog NAME (slo_embedded_catalog_names()). opt names the
 * argument in messages ("--catalog"; NULL: "catalog"). Errors: those of
 * slo_catalog_load / slo_catalog_parse, and SLO_ERR_NOT_FOUND with source OPT
 * and text "expected an embedded catalog (NAMES) or a JSON file path, found
 * "ARG"".
 */
int slo_catalog_open(const char *name_or_path, const char *opt, struct slo_catalog *cat,
                     slo_error_t *err);
/* The instance type whose workload profile applies to entry t: t->type,
 * or t->name when t->type is "" (entries built by hand). Never NULL. */
const char *slo_instance_profile(const struct slo_instance_type *t);
/* Price per instance-hour under the pricing model (on-prem: its own rate). */
double slo_instance_price(const struct slo_instance_type *t, enum slo_pricing pricing);

/* ------------------------------------------------------------------ */
/* Embedded defaults (the same JSON ships under etc/slo/)              */
/* ------------------------------------------------------------------ */

/* JSON text of an embedded catalog or workload by name, or NULL. */
const char *slo_embedded_catalog(const char *name);
const char *slo_embedded_workload(const char *name);
/* NULL-terminated list of embedded names. */
const char *const *slo_embedded_catalog_names(void);
const char *const *slo_embedded_workload_names(void);
/* Name of the default catalog for a workload ("spotdnn-resnet110" for resnet110). */
const char *slo_embedded_default_catalog(const char *workload);


#ifdef __cplusplus
}
#endif

#endif /* SLO_CORE_H */
