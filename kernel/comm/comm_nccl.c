/*
 * comm_nccl.c - link profiles from nccl-tests all_reduce_perf output: the
 * standard measurement of a GPU job's collectives (NVIDIA/nccl-tests,
 * read from the print format of release 2.19.6: src/util.cu
 * writeDeviceReport, writeResultHeader and the result rows
 * "%12li  %12li  %8s  %6s  %6s" (size, count, type, redop, root) then per
 * placement (out-of-place, in-place) "  %7s  %6s  %6s  %6g" (time us,
 * algbw GB/s, busbw GB/s, #wrong); src/all_reduce.cu AllReduceGetBw:
 * algbw = bytes / 1e9 / s, busbw = algbw x 2(p-1)/p).
 * The out-of-place times are fitted with the kernel's one alpha-beta fit
 * (slo_comm_fit_alpha_beta, comm_link_fit.c) and read under the ring model
 * (slo_comm_ring_link_from_fit), as slo-mpiprof's allreduce fit is.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "slo_comm.h"
#include "slo_private.h"

#define NCCL_MAX_FIELDS 64
#define NCCL_MAX_ROWS 100000

enum { C_SIZE, C_COUNT, C_TYPE, C_TIME, C_ALGBW, C_BUSBW, C_WRONG, C_N };
static const char *const col_name[C_N] = {"size", "count", "type", "time", "algbw", "busbw",
                                          "#wrong"};

/* split line [p, end) into whitespace-separated fields (pointers into a
 * copy); returns the count, at most NCCL_MAX_FIELDS */
static int split(char *line, char **f)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r", &save); t && n < NCCL_MAX_FIELDS;
         t = strtok_r(NULL, " \t\r", &save))
        f[n++] = t;
    return n;
}

static int number(const char *t, double *v)
{
    char *end;
    errno = 0;
    *v = slo_strtod(t, &end);
    return *t && !*end && !errno && isfinite(*v);
}

int slo_comm_nccl_detect(const char *text)
{
    const char *line = text;
    while (line && *line) {
        const char *p = line + strspn(line, " \t");
        if (*p == '#') {
            p += 1 + strspn(p + 1, " \t");
            if (strncmp(p, "nccl-tests", 10) == 0 || strncmp(p, "Collective test starting:", 25) == 0 ||
                (strncmp(p, "size", 4) == 0 && (p[4] == ' ' || p[4] == '\t')))
                return 1;
        }
        line = strchr(line, '\n');
        line = line ? line + 1 : NULL;
    }
    return 0;
}

int slo_comm_nccl_parse(const char *text, const char *source, struct slo_comm_link *link,
                        struct slo_comm_profile_info *info, slo_error_t *err)
{
    const char *src = source ? source : "nccl-tests";
    char where[SLO_ERROR_SOURCE_LENGTH], *copy = NULL, *line, *next, *f[NCCL_MAX_FIELDS];
    char type0[32] = "", test[64] = "";
    int col[C_N], have_header = 0, ranks = 0, lineno = 0, rc = SLO_OK, nf, need = 0;
    int wrong_in_place = -1; /* the second #wrong column: the in-place run's */
    size_t n = 0, cap = 1;
    double *bytes = NULL, *time_s = NULL, *alg = NULL, *bus = NULL;
    struct slo_comm_alpha_beta fit;
    struct slo_comm_link out;

    if (!text || !link)
        return slo__fail(err, SLO_ERR_INVALID, src, "expected a text and a link, found NULL");
    /* at most one row per line */
    for (const char *q = text; *q; q++)
        cap += *q == '\n';
    if (cap > NCCL_MAX_ROWS)
        cap = NCCL_MAX_ROWS;
    if (!(copy = strdup(text)) || !(bytes = malloc(cap * sizeof *bytes)) ||
        !(time_s = malloc(cap * sizeof *time_s)) || !(alg = malloc(cap * sizeof *alg)) ||
        !(bus = malloc(cap * sizeof *bus))) {
        rc = slo__fail(err, SLO_ERR_NOMEM, src, "out of memory");
        goto out;
    }
#define FAIL(...)                                                                         \
    do {                                                                                  \
        if (lineno)                                                                       \
            snprintf(where, sizeof where, "%s:%d", src, lineno);                          \
        else                                                                              \
            snprintf(where, sizeof where, "%s", src);                                     \
        rc = slo__fail(err, SLO_ERR_INVALID, where, __VA_ARGS__);                        \
        goto out;                                                                         \
    } while (0)
    for (line = copy; line; line = next) {
        char *nl = strchr(line, '\n');
        next = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        lineno++;
        while (*line == ' ' || *line == '\t')
            line++;
        if (*line == '#') {
            nf = split(line + 1, f);
            if (nf >= 2 && strcmp(f[0], "Rank") == 0) {
                ranks++;
            } else if (nf >= 4 && strcmp(f[0], "Collective") == 0 && strcmp(f[1], "test") == 0 &&
                       strcmp(f[2], "starting:") == 0) {
                snprintf(test, sizeof test, "%s", f[3]);
                if (strcmp(test, "all_reduce_perf") != 0)
                    FAIL("expected the output of all_reduce_perf, found %s's", test);
            } else if (nf >= 1 && strcmp(f[0], "size") == 0 && !have_header) {
                /* the column header: the first occurrence of each name is
                 * the out-of-place placement */
                for (int c = 0; c < C_N; c++)
                    col[c] = -1;
                for (int i = 0; i < nf; i++)
                    for (int c = 0; c < C_N; c++)
                        if (col[c] < 0 && strcmp(f[i], col_name[c]) == 0)
                            col[c] = i;
                for (int i = 0; i < nf; i++)
                    if (strcmp(f[i], "cputime") == 0)
                        FAIL("column time: expected the GPU time in us, found cputime (nccl-tests "
                             "-C 1 reports CPU time): measure without -C");
                for (int c = 0; c < C_WRONG; c++)
                    if (col[c] < 0)
                        FAIL("column %s: expected the all_reduce_perf header (size count type "
                             "redop root time algbw busbw #wrong ...), found it missing",
                             col_name[c]);
                for (int c = 0; c < C_N; c++)
                    if (col[c] + 1 > need)
                        need = col[c] + 1;
                for (int i = col[C_WRONG] + 1; col[C_WRONG] >= 0 && i < nf; i++)
                    if (strcmp(f[i], "#wrong") == 0)
                        wrong_in_place = i;
                have_header = 1;
            }
            continue;
        }
        nf = split(line, f);
        /* a row starts with its size, all digits; other lines (blank, and
         * NCCL_DEBUG's "host:pid:tid [dev] NCCL INFO ..." logs, whose host
         * may begin with a digit, e.g. 10-0-3-7) are not rows */
        if (nf == 0 || !isdigit((unsigned char)f[0][0]) || f[0][strspn(f[0], "0123456789")])
            continue;
        if (!have_header)
            FAIL("expected the all_reduce_perf column header (# size count type ...) before "
                 "the first row, found a row first");
        if (nf < need)
            FAIL("expected at least %d fields as the header names, found %d", need, nf);
        if (n == cap)
            FAIL("expected at most %d rows, found more", NCCL_MAX_ROWS);
        {
            double s, t, a, b, w;
            if (!number(f[col[C_SIZE]], &s) || s < 0 || s != floor(s) || s > 1e15)
                FAIL("column size: expected a whole number of bytes, found \"%s\"", f[col[C_SIZE]]);
            if (!number(f[col[C_TIME]], &t) || !(t > 0))
                FAIL("column time: expected a number of us > 0, found \"%s\"", f[col[C_TIME]]);
            if (!number(f[col[C_ALGBW]], &a) || a < 0)
                FAIL("column algbw: expected GB/s >= 0, found \"%s\"", f[col[C_ALGBW]]);
            if (!number(f[col[C_BUSBW]], &b) || b < 0)
                FAIL("column busbw: expected GB/s >= 0, found \"%s\"", f[col[C_BUSBW]]);
            if (col[C_WRONG] >= 0 && strcmp(f[col[C_WRONG]], "N/A") != 0 &&
                (!number(f[col[C_WRONG]], &w) || w != 0))
                FAIL("column #wrong: expected 0 wrong elements, found \"%s\": the collective "
                     "returned corrupted data, its times are not a profile", f[col[C_WRONG]]);
            /* the in-place run of the same row returned corrupted data too
             * (the same collective, the same buffers' size) */
            if (wrong_in_place >= 0 && wrong_in_place < nf &&
                strcmp(f[wrong_in_place], "N/A") != 0 &&
                (!number(f[wrong_in_place], &w) || w != 0))
                FAIL("column #wrong (in-place): expected 0 wrong elements, found \"%s\": the "
                     "collective returned corrupted data, its times are not a profile",
                     f[wrong_in_place]);
            if (!*type0)
                snprintf(type0, sizeof type0, "%s", f[col[C_TYPE]]);
            else if (strcmp(type0, f[col[C_TYPE]]) != 0)
                FAIL("column type: expected one data type (%s), found %s too: run "
                     "all_reduce_perf with one -d", type0, f[col[C_TYPE]]);
            /* algbw = bytes / time (GB/s from us): catches columns read
             * wrongly; the tolerance is the print rounding */
            if (fabs(a - s / (t * 1e3)) > 0.006 + 0.02 * a)
                FAIL("column algbw: expected size / time = %.4g GB/s, found %s", s / (t * 1e3),
                     f[col[C_ALGBW]]);
            bytes[n] = s;
            time_s[n] = t * 1e-6;
            alg[n] = a;
            bus[n] = b;
            n++;
        }
    }
    lineno = 0;
    if (!have_header)
        FAIL("expected nccl-tests all_reduce_perf output (a \"# size count type redop root "
             "time algbw busbw #wrong\" header and rows), found no header");
    if (ranks < 2)
        FAIL("expected the \"#  Rank N ... device\" lines of at least 2 ranks (the world "
             "size), found %d", ranks);
    if (n < 2)
        FAIL("expected rows of at least 2 sizes, found %zu", n);
    for (size_t i = 0; i < n; i++) {
        double want = alg[i] * 2.0 * (ranks - 1) / ranks;
        if (fabs(bus[i] - want) > 0.011 + 0.02 * want)
            FAIL("column busbw: expected algbw x 2(p-1)/p = %.4g GB/s for the %d ranks listed "
                 "(an allreduce), found %.4g at %.0f bytes", want, ranks, bus[i], bytes[i]);
    }
    if ((rc = slo_comm_fit_alpha_beta(bytes, time_s, n, &fit, err)))
        goto out;
    if (!(fit.beta_s_per_byte > 0))
        FAIL("expected times that grow with the size (the bandwidth), found a fit with beta "
             "= 0: the sizes measured (largest %.0f bytes) are too small to give a bandwidth",
             bytes[n - 1]);
    if ((rc = slo_comm_ring_link_from_fit(fit.alpha_s, fit.beta_s_per_byte, ranks, &out, err)))
        goto out;
    out.max_in_flight = 1; /* one allreduce at a time, as measured */
    *link = out;
    if (info) {
        memset(info, 0, sizeof *info);
        info->world_size = ranks;
        info->memcpy_bytes_per_s = NAN; /* nccl-tests measures no ceiling */
        info->fit_alpha_s = fit.alpha_s;
        info->fit_beta_s_per_byte = fit.beta_s_per_byte;
        info->fit_rms_residual_s = fit.rms_residual_s;
        info->fit_max_relative_residual = fit.max_relative_residual;
    }
#undef FAIL
out:
    free(copy);
    free(bytes);
    free(time_s);
    free(alg);
    free(bus);
    return rc;
}

int slo_comm_nccl_load(const char *path, struct slo_comm_link *link,
                       struct slo_comm_profile_info *info, slo_error_t *err)
{
    char *text;
    int rc = slo__read_file(path, &text, err);
    if (rc)
        return rc;
    rc = slo_comm_nccl_parse(text, path, link, info, err);
    free(text);
    return rc;
}
