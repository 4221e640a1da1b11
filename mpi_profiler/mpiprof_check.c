/*
 * mpiprof_check.c - `slo-mpiprof --check FILE`: read the file and hand it to
 * libslo's one validator of the profile format, slo_comm_profile_check
 * (kernel/comm/comm_profile.c: the schema of doc/mpiprof.md and its
 * consistency rules), then to the link reader `slo comm --profile` uses,
 * slo_comm_profile_parse. No MPI: runs as a plain command.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mpiprof.h"
#include "slo_comm.h"

/* The whole of f as a NUL-terminated malloc'd text; NULL on a read error
 * or out of memory (errno set). */
static char *read_all(FILE *f)
{
    size_t len = 0, cap = 1 << 16, n;
    char *text = malloc(cap), *bigger;
    if (!text)
        return NULL;
    while ((n = fread(text + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len - 1 == 0) {
            if (!(bigger = realloc(text, cap * 2))) {
                free(text);
                errno = ENOMEM;
                return NULL;
            }
            text = bigger;
            cap *= 2;
        }
    }
    if (ferror(f)) {
        free(text);
        return NULL;
    }
    text[len] = '\0';
    return text;
}

int mpiprof_check_file(const char *path)
{
    struct stat st;
    slo_error_t err = {0};
    int np = 0;
    char *text;
    FILE *f = fopen(path, "r");
    /* plain words for a file that cannot be read (trial finding M10: jansson
     * said "line -1, column -1: unable to open" and, for a directory, "'['
     * or '{' expected near end of file") */
    if (!f) {
        fprintf(stderr, "%s: --check: %s: cannot open: %s\n", MPIPROF_NAME, path,
                strerror(errno));
        return 2;
    }
    if (fstat(fileno(f), &st) == 0 && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "%s: --check: %s: expected a JSON file (a slo-mpiprof document), found "
                        "%s\n", MPIPROF_NAME, path,
                S_ISDIR(st.st_mode) ? "a directory" : "something that is not a regular file");
        fclose(f);
        return 2;
    }
    text = read_all(f);
    fclose(f);
    if (!text) {
        fprintf(stderr, "%s: --check: %s: cannot read: %s\n", MPIPROF_NAME, path,
                strerror(errno));
        return 2;
    }
    if (slo_comm_profile_check(text, path, &np, &err)) {
        fprintf(stderr, "%s: --check: %s: %s\n", MPIPROF_NAME, path, err.text);
        free(text);
        return 2;
    }
    if (np >= 2) {
        /* and slo comm --profile must accept it */
        struct slo_comm_link link;
        struct slo_comm_profile_info info;
        if (slo_comm_profile_parse(text, path, &link, &info, &err)) {
            fprintf(stderr, "%s: --check: %s: valid document, but the link reader rejects it: "
                            "%s\n", MPIPROF_NAME, path, err.text);
            free(text);
            return 2;
        }
        printf("%s: %s: valid (schema_version %d, %d ranks, %lld pairs); ring link for slo "
               "comm: alpha %.4g us per step, B %.4g GB/s, %d workers%s\n",
               MPIPROF_NAME, path, SLO_COMM_PROFILE_SCHEMA_VERSION, np,
               (long long)np * (np - 1) / 2,
               link.latency_s * 1e6, link.bandwidth_bytes_per_s / 1e9, link.workers,
               info.bandwidth_suspect ? " (bandwidth flagged suspect)" : "");
    } else {
        printf("%s: %s: valid (schema_version %d, 1 rank: no link to measure)\n", MPIPROF_NAME,
               path, SLO_COMM_PROFILE_SCHEMA_VERSION);
    }
    free(text);
    return 0;
}
