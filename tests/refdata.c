/*
 * refdata.c - reference CSV reading for the tests.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "refdata.h"
#include "slo.h"

const char *refdata_path(const char *rel)
{
    static char path[4096];
    const char *dir = getenv("SLO_REFERENCE_DATA");
    if (!dir || !*dir || strcmp(dir, "no") == 0) {
        fprintf(stderr, "SKIP: reference data not configured (configure "
                        "--with-reference-data=DIR, the shared/data directory)\n");
        exit(77);
    }
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    return path;
}

static void die(const char *what, const char *path)
{
    fprintf(stderr, "refdata: %s: %s\n", path, what);
    exit(99);
}

char *refdata_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    long n;
    char *text;
    if (!f)
        die("cannot open", path);
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        die("cannot seek", path);
    if (!(text = malloc((size_t)n + 1)))
        die("out of memory", path);
    if (fread(text, 1, (size_t)n, f) != (size_t)n)
        die("short read", path);
    text[n] = '\0';
    fclose(f);
    return text;
}

static char **split(char *line, size_t *n)
{
    size_t cap = 8, k = 0;
    char **out = malloc(cap * sizeof *out);
    char *p = line;
    line[strcspn(line, "\r\n")] = '\0';
    for (;;) {
        char *comma = strchr(p, ',');
        if (k == cap)
            out = realloc(out, (cap *= 2) * sizeof *out);
        if (comma)
            *comma = '\0';
        out[k++] = strdup(p);
        if (!comma)
            break;
        p = comma + 1;
    }
    *n = k;
    return out;
}

void csv_read(const char *path, struct csv *c)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    size_t cap = 16;

    memset(c, 0, sizeof *c);
    if (!f)
        die("cannot open", path);
    if (!fgets(line, sizeof line, f))
        die("empty file", path);
    c->header = split(line, &c->n_cols);
    c->cells = malloc(cap * sizeof *c->cells);
    while (fgets(line, sizeof line, f)) {
        size_t n;
        if (line[0] == '\n' || line[0] == '\0')
            continue;
        if (c->n_rows == cap)
            c->cells = realloc(c->cells, (cap *= 2) * sizeof *c->cells);
        c->cells[c->n_rows] = split(line, &n);
        if (n != c->n_cols)
            die("row with a different number of columns than the header", path);
        c->n_rows++;
    }
    fclose(f);
}

void csv_free(struct csv *c)
{
    for (size_t r = 0; r < c->n_rows; r++) {
        for (size_t k = 0; k < c->n_cols; k++)
            free(c->cells[r][k]);
        free(c->cells[r]);
    }
    for (size_t k = 0; k < c->n_cols; k++)
        free(c->header[k]);
    free(c->header);
    free(c->cells);
    memset(c, 0, sizeof *c);
}

size_t csv_col(const struct csv *c, const char *name)
{
    for (size_t k = 0; k < c->n_cols; k++)
        if (strcmp(c->header[k], name) == 0)
            return k;
    fprintf(stderr, "refdata: no column %s\n", name);
    exit(99);
}

const char *csv_str(const struct csv *c, size_t row, const char *name)
{
    return c->cells[row][csv_col(c, name)];
}

double csv_num(const struct csv *c, size_t row, const char *name)
{
    const char *s = csv_str(c, row, name);
    return *s ? strtod(s, NULL) : NAN;
}

void load_embedded(const char *catalog, const char *workload, struct slo_catalog *cat,
                   struct slo_workload *wl)
{
    slo_error_t err = {0};
    if (slo_catalog_parse(slo_embedded_catalog(catalog), catalog, cat, &err) ||
        slo_workload_parse(slo_embedded_workload(workload), workload, wl, &err)) {
        fprintf(stderr, "embedded defaults: %s: %s\n", err.source, err.text);
        exit(99);
    }
}

void refdata_seeded_workloads(struct slo_ig_workload *w, size_t n, uint64_t seed)
{
    static const char *const names[4] = {"alexnet", "resnet50", "vgg19", "ssd"};
    static const double min_slo[4] = {8, 20, 30, 30};
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        int m;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        m = (int)((s >> 33) % 4);
        memset(&w[i], 0, sizeof w[i]);
        snprintf(w[i].model, sizeof w[i].model, "%s", names[m]);
        w[i].slo_ms = min_slo[m] + (double)((s >> 20) % 80);
        w[i].rate_rps = 10.0 + (double)((s >> 40) % 400);
    }
}

struct slo_ig_workload *refdata_ig_case(const json_t *gcase, size_t *n)
{
    const json_t *in = json_object_get(gcase, "input");
    size_t m = json_array_size(in);
    struct slo_ig_workload *w = calloc(m ? m : 1, sizeof *w);
    if (!w) {
        fprintf(stderr, "refdata_ig_case: out of memory\n");
        exit(99);
    }
    for (size_t i = 0; i < m; i++) {
        const json_t *o = json_array_get(in, i);
        snprintf(w[i].model, sizeof w[i].model, "%s",
                 json_string_value(json_object_get(o, "model")));
        w[i].slo_ms = json_number_value(json_object_get(o, "slo_ms"));
        w[i].rate_rps = json_number_value(json_object_get(o, "rate_req_per_s"));
    }
    *n = m;
    return w;
}

int refdata_ig_golden_cases(refdata_ig_check check, int first_policy, int last_policy)
{
    const char *dir = getenv("SLO_REFERENCE_DATA");
    char path[4200];
    json_error_t jerr;
    struct slo_ig_profile p;
    slo_error_t err;
    if (!dir || !*dir || !strcmp(dir, "no"))
        return -1;
    snprintf(path, sizeof path, "%s/igniter/derived/golden_vectors.json", dir);
    json_t *gv = json_load_file(path, 0, &jerr);
    if (!gv) {
        fprintf(stderr, "refdata: %s: %s\n", path, jerr.text);
        exit(99);
    }
    if (slo_ig_profile_open("v100", NULL, &p, &err) != SLO_OK) {
        fprintf(stderr, "refdata: profile v100: %s\n", err.text);
        exit(99);
    }
    p.usd_per_gpu_h = 3.06;
    const json_t *cases = json_object_get(gv, "algorithm_cases");
    if (json_array_size(cases) < 3) {
        fprintf(stderr, "refdata: %s: expected at least 3 algorithm_cases, found %zu\n", path,
                json_array_size(cases));
        exit(99);
    }
    for (size_t c = 0; c < json_array_size(cases); c++) {
        size_t n;
        struct slo_ig_workload *w = refdata_ig_case(json_array_get(cases, c), &n);
        char label[64];
        snprintf(label, sizeof label, "algorithm case %zu", c);
        for (int pol = first_policy; pol <= last_policy; pol++)
            check(&p, 1, w, n, pol, label);
        free(w);
    }
    slo_ig_profile_free(&p);
    json_decref(gv);
    return 0;
}
