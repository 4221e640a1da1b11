/*
 * mpiprof_check.c - `slo-mpiprof --check FILE`: read the file and hand it to
 * libslo's one validator of the profile format, slo_comm_profile_check
 * (kernel/comm/comm_profile.c: the schema of doc/mpiprof.md and its
 * consistency rules), then to the link reader `slo comm --profile` uses,
 * slo_comm_profile_parse. No MPI: runs as a plain command.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <sys/stat.h>

#include "mpiprof.h"
#include "slo_comm.h"

int mpiprof_check_file(const char *path)
{
    struct stat st;
    slo_error_t err = {0};
    int np = 0;
    /* a directory in plain words (trial finding M10: jansson said "'[' or
     * '{' expected near end of file"); an unreadable file as the kernel's
     * one reader says it ("cannot open: ...") */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "%s: --check: %s: expected a JSON file (a slo-mpiprof document), found "
                        "%s\n", MPIPROF_NAME, path,
                S_ISDIR(st.st_mode) ? "a directory" : "something that is not a regular file");
        return 2;
    }
    if (slo_comm_profile_check_load(path, &np, &err)) {
        fprintf(stderr, "%s: --check: %s: %s\n", MPIPROF_NAME, path, err.text);
        return 2;
    }
    if (np >= 2) {
        /* and slo comm --profile must accept it */
        struct slo_comm_link link;
        struct slo_comm_profile_info info;
        if (slo_comm_profile_load(path, &link, &info, &err)) {
            fprintf(stderr, "%s: --check: %s: valid document, but the link reader rejects it: "
                            "%s\n", MPIPROF_NAME, path, err.text);
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
    return 0;
}
