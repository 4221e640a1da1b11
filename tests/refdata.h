/*
 * refdata.h - read the reference CSV files of shared/data for the tests.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_TESTS_REFDATA_H
#define SLO_TESTS_REFDATA_H

#include <stddef.h>
#include <stdint.h>

struct csv {
    size_t n_cols, n_rows;
    char **header;  /* [n_cols] */
    char ***cells;  /* [n_rows][n_cols] */
};

/* Path of a reference file: $SLO_REFERENCE_DATA/rel. Exits 77 (skip) with a
 * message when SLO_REFERENCE_DATA is unset, "no" or empty. */
const char *refdata_path(const char *rel);
/* Read a plain CSV (no quoting needed by our reference files); aborts the
 * test program with a message on any error. */
void csv_read(const char *path, struct csv *c);
void csv_free(struct csv *c);
/* Column index by name; aborts when absent. */
size_t csv_col(const struct csv *c, const char *name);
/* Cell as number; NAN for an empty cell. */
double csv_num(const struct csv *c, size_t row, const char *name);
const char *csv_str(const struct csv *c, size_t row, const char *name);

/* The whole file at path as a NUL-terminated string (free it); exits 99
 * with a message when it cannot be read. */
char *refdata_read_file(const char *path);

/* Load an embedded catalog/workload or abort. */
struct slo_catalog;
struct slo_workload;
void load_embedded(const char *catalog, const char *workload, struct slo_catalog *cat,
                   struct slo_workload *wl);

/* n seeded inference workloads [n], the one list bench_infer and the
 * iGniter tests draw (same seed, same list): model alexnet, resnet50, vgg19
 * or ssd; SLO its minimum (8, 20, 30, 30 ms) + [0, 80) ms; rate 10 + [0, 400)
 * req/s; a 64-bit LCG (Knuth's MMIX constants). */
struct slo_ig_workload;
void refdata_seeded_workloads(struct slo_ig_workload *w, size_t n, uint64_t seed);

/* The workloads [*n] of one case of the authors' golden vectors
 * (igniter/derived/golden_vectors.json "algorithm_cases"[k]: its "input"
 * objects' model, slo_ms, rate_req_per_s); calloc'd (free it), at least one
 * entry; exits 99 with a message out of memory. */
struct json_t;
struct slo_ig_workload *refdata_ig_case(const struct json_t *gcase, size_t *n);

/* A comparison of the iGniter tests: plan w[n] on the types p[n_types]
 * with policy (enum slo_ig_policy), failing the test on a difference;
 * label names the case in its message. */
struct slo_ig_profile;
typedef void (*refdata_ig_check)(const struct slo_ig_profile *p, size_t n_types,
                                 const struct slo_ig_workload *w, size_t n, int policy,
                                 const char *label);

/* check(v100, 1, w, n, policy, "algorithm case K") for every algorithm case
 * K of the authors' golden vectors ($SLO_REFERENCE_DATA/igniter/derived/
 * golden_vectors.json, at least 3 cases; workloads as refdata_ig_case) and
 * every policy first_policy..last_policy, on the embedded V100 profile at
 * 3.06 USD/h per GPU. 0, or -1 when SLO_REFERENCE_DATA is unset, empty or
 * "no" (the caller skips); exits 99 with a message when the file or the
 * profile cannot be read or holds fewer than 3 cases. */
int refdata_ig_golden_cases(refdata_ig_check check, int first_policy, int last_policy);

#endif
