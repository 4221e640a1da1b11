/*
 * mpiprof_cma.c - can the ranks of a node read each other's memory with
 * cross-memory attach (CMA, process_vm_readv)? Open MPI's shared-memory
 * BTL (vader) moves large messages with it when its single-copy mechanism
 * is cma (Debian's default); where CMA is blocked (a container without
 * CAP_SYS_PTRACE, Yama ptrace_scope 2 or 3, a seccomp profile) every such
 * message fails ("Read -1, expected N, errno = 1" on the ranks' stderr)
 * and Open MPI falls back to copying through its shared segment, so the
 * figures measured are not those of the path it reports (issue 15: 1,500+
 * such lines, 9.3 GB/s at 1 MiB against 3.6 normally, exit 0). The
 * profiler cannot read the ranks' stderr; it tries the same system call
 * itself, between the same processes, before measuring.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE /* process_vm_readv */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/uio.h>
#endif

#include "mpiprof.h"

#define PROBE_BYTES 4096

static void pattern(unsigned char *buf)
{
    for (size_t i = 0; i < PROBE_BYTES; i++)
        buf[i] = (unsigned char)(i * 131u + 17u);
}

void mpiprof_cma_probe(struct mpiprof_run *r)
{
    unsigned char mine[PROBE_BYTES];
    uint64_t where[2];
    int n = 0, verdict = 0;
    MPI_Comm_size(r->node_comm, &n);
    r->cma_errno = MPIPROF_CMA_UNTESTED;
    if (n < 2)
        return; /* every rank of this node_comm sees the same n */
    pattern(mine);
    where[0] = (uint64_t)getpid();
    where[1] = (uint64_t)(uintptr_t)mine;
    MPI_Bcast(where, 2, MPI_UINT64_T, 0, r->node_comm);
    if (r->node_rank != 0) {
#if defined(__linux__)
        unsigned char got[PROBE_BYTES];
        struct iovec local = {got, sizeof got}, remote = {(void *)(uintptr_t)where[1], sizeof got};
        ssize_t k;
        memset(got, 0, sizeof got);
        errno = 0;
        k = process_vm_readv((pid_t)where[0], &local, 1, &remote, 1, 0);
        if (k < 0)
            verdict = errno > 0 ? errno : MPIPROF_CMA_WRONG;
        else if ((size_t)k != sizeof got || memcmp(got, mine, sizeof got) != 0)
            verdict = MPIPROF_CMA_WRONG;
#else
        verdict = ENOSYS;
#endif
    }
    /* the leader's buffer stays alive until every rank has read it */
    MPI_Allreduce(&verdict, &r->cma_errno, 1, MPI_INT, MPI_MAX, r->node_comm);
}

json_t *mpiprof_cma_json(int cma_errno)
{
    json_t *o = json_object();
    int scope = -1;
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    if (f) {
        if (fscanf(f, "%d", &scope) != 1)
            scope = -1;
        fclose(f);
    }
    json_object_set_new(o, "tested", json_boolean(cma_errno != MPIPROF_CMA_UNTESTED));
    json_object_set_new(o, "usable", cma_errno == MPIPROF_CMA_UNTESTED ? json_null()
                                                                       : json_boolean(!cma_errno));
    json_object_set_new(o, "errno", cma_errno > 0 ? json_integer(cma_errno) : json_null());
    json_object_set_new(o, "error",
                        cma_errno > 0 ? json_string(strerror(cma_errno))
                        : cma_errno == MPIPROF_CMA_WRONG
                            ? json_string("process_vm_readv returned other bytes than the "
                                          "node leader holds")
                            : json_null());
    json_object_set_new(o, "ptrace_scope", scope >= 0 ? json_integer(scope) : json_null());
    json_object_set_new(o, "method",
                        json_string(cma_errno == MPIPROF_CMA_UNTESTED
                                        ? "not tested: one rank on this node"
                                        : "every other rank of the node reads 4096 bytes of "
                                          "the node leader's memory with process_vm_readv "
                                          "(the call Open MPI's vader BTL makes for cma) and "
                                          "compares them"));
    return o;
}
