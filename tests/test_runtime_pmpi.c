/*
 * test_runtime_pmpi.c - a PMPI interposer for tests/runtime_mpi.sh (review
 * finding 11a): it sits between slo-train-demo (and libsloprophet) and Open
 * MPI and records every MPI_Iallreduce actually issued, so the test compares
 * the real calls across ranks and against the plan file's block sizes,
 * independently of the runtime's own log (which is written by the same code
 * that issues the blocks and cannot disagree with itself).
 *
 * Linked into tests/train_demo_pmpi (the demo's own source, mk/runtime.am):
 * a program's MPI_Iallreduce takes precedence over libmpi's for every caller
 * in the process, libsloprophet included (the MPI profiling interface, MPI
 * 4.1 section 15.2); the real call is PMPI_Iallreduce.
 *
 * With SLO_PMPI_LOG=PREFIX set, rank r (of MPI_COMM_WORLD) writes
 * PREFIX.r, one line per call, in issue order, line-buffered (a run that
 * aborts keeps what it issued):
 *   COMM COMM_SIZE COUNT TYPE_BYTES OP PLACE
 * COMM: "world" (MPI_COMM_WORLD itself: the demo's link measurement), "dup"
 * (congruent to it: the runtime's duplicate), "other"; TYPE_BYTES from
 * PMPI_Type_size; OP "sum" or "other"; PLACE "inplace" or "separate".
 * Without SLO_PMPI_LOG nothing is written.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static FILE *pmpi_log;
static int pmpi_log_failed;

static FILE *log_file(void)
{
    const char *prefix = getenv("SLO_PMPI_LOG");
    char path[4096];
    int rank = 0;
    if (pmpi_log || pmpi_log_failed || !prefix || !*prefix)
        return pmpi_log;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(path, sizeof path, "%s.%d", prefix, rank);
    if (!(pmpi_log = fopen(path, "w"))) {
        fprintf(stderr, "test_runtime_pmpi: rank %d: cannot write \"%s\"\n", rank, path);
        pmpi_log_failed = 1;
        PMPI_Abort(MPI_COMM_WORLD, 3);
        return NULL;
    }
    setvbuf(pmpi_log, NULL, _IOLBF, 0);
    return pmpi_log;
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    FILE *f = log_file();
    if (f) {
        int same = MPI_UNEQUAL, csize = 0, tsize = 0;
        PMPI_Comm_compare(comm, MPI_COMM_WORLD, &same);
        PMPI_Comm_size(comm, &csize);
        PMPI_Type_size(datatype, &tsize);
        fprintf(f, "%s %d %d %d %s %s\n",
                same == MPI_IDENT ? "world" : same == MPI_CONGRUENT ? "dup" : "other", csize,
                count, tsize, op == MPI_SUM ? "sum" : "other",
                sendbuf == MPI_IN_PLACE ? "inplace" : "separate");
    }
    return PMPI_Iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
}

int MPI_Finalize(void)
{
    if (pmpi_log) {
        fclose(pmpi_log);
        pmpi_log = NULL;
    }
    return PMPI_Finalize();
}
