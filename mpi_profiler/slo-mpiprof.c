/*
 * slo-mpiprof.c - measure the network a job step got: point-to-point
 * bandwidth (OSU osu_bw style: a window of MPI_Isend closed by a small ack)
 * and latency (ping-pong, half round trip) for every rank pair, MPI_Allreduce
 * time over message sizes fitted to t = alpha + beta * bytes (libslo's
 * slo_comm_fit_alpha_beta, LAPACKE), the memcpy bandwidth of every node (the
 * physical ceiling: figures above 1.05 x it are flagged "suspect"), the hwloc
 * view of every node and the transport Open MPI says it uses. One JSON
 * document (schema: doc/mpiprof.md) on stdout or --output FILE; `--check
 * FILE` validates one without MPI (libslo's slo_comm_profile_check).
 *
 * main runs the phases in order; the modules (mpiprof.h):
 *   mpiprof_options.c    --help, options, --sizes, run parameters
 *   mpiprof_measure.c    errors that end the job, the measurement phases
 *   mpiprof_transport.c  MPI_T: the transport Open MPI uses
 *   mpiprof_cma.c        cross-memory attach between the ranks of a node
 *   mpiprof_topo.c       hwloc: the node's topology, this rank's binding
 *   mpiprof_doc.c        the document, its self-check
 *   mpiprof_output.c     --output (temp file + rename) or stdout
 *   mpiprof_check.c      --check FILE
 * Method sources: OSU Micro-Benchmarks osu_bw / osu_latency as described in
 * shared/research/anchors.md A.4 and C.2; alpha-beta (Hockney) model and its
 * ring allreduce reading as in kernel/comm/slo_comm.h.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv_agree.h"
#include "mpiprof.h"

/* How this process was started: "mpirun", "pmix", or NULL (a plain
 * command: --help, --check and bad options need no MPI). */
static const char *launcher(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") ? "mpirun" : getenv("PMIX_RANK") ? "pmix" : NULL;
}

/* 1 on a launched rank other than 0 (it prints no --help or --check). */
static int quiet_rank(void)
{
    const char *env_rank = getenv("OMPI_COMM_WORLD_RANK") ? getenv("OMPI_COMM_WORLD_RANK")
                                                           : getenv("PMIX_RANK");
    return env_rank && strcmp(env_rank, "0") != 0;
}

/* Options on every rank (the same argv everywhere, checked first); --help
 * and --check are answered here. Returns -1 to go on and measure, else the
 * exit status. */
static int start(int argc, char **argv, const char *launched, struct mpiprof_options *o)
{
    char msg[512];
    if (launched) { /* every rank: the same arguments, before parsing can fail */
        int r;
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &mpiprof_rank);
        if ((r = slo_argv_first_differing_rank(argc, argv, MPI_COMM_WORLD)) >= 0)
            mpiprof_die(2, "rank %d was started with other arguments than rank 0: expected "
                           "the same options on every rank (one command line for all ranks)",
                        r);
    }
    if (mpiprof_parse_options(argc, argv, o, msg, sizeof msg)) {
        if (!launched) { /* a plain command: no MPI needed to say so */
            fprintf(stderr, "%s: %s\n", MPIPROF_NAME, msg);
            return 2;
        }
        mpiprof_die(2, "%s", msg);
    }
    if (o->help || o->check) {
        int rc = 0;
        if (o->help && !quiet_rank())
            mpiprof_usage(stdout);
        else if (o->check && !quiet_rank())
            rc = mpiprof_check_file(o->check);
        if (launched)
            MPI_Finalize();
        return rc;
    }
    if (!launched)
        MPI_Init(&argc, &argv);
    return -1;
}

int main(int argc, char **argv)
{
    struct mpiprof_options o;
    struct mpiprof_run run;
    json_t *doc;
    int rc, suspect_pairs = 0;

    memset(&run, 0, sizeof run);
    run.launched = launcher();
    if ((rc = start(argc, argv, run.launched, &o)) >= 0)
        return rc;
    run.p = &o.p;
    run.t_start = mpiprof_now_s();
    MPI_Comm_rank(MPI_COMM_WORLD, &run.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &run.np);
    mpiprof_rank = run.rank;

    mpiprof_output_probe(&o, run.rank);
    mpiprof_nodes_setup(&run);
    mpiprof_cma_probe(&run);
    mpiprof_memcpy_phase(&run);
    mpiprof_node_documents(&run);
    mpiprof_point_to_point(&run);
    mpiprof_allreduce_phase(&run);
    mpiprof_memcpy_again(&run);

    if (run.rank == 0) {
        doc = mpiprof_document(&run);
        suspect_pairs = mpiprof_self_check(doc, run.np);
        mpiprof_output_write(&o, doc);
        fprintf(stderr, "%s: done in %.1f s%s%s\n", MPIPROF_NAME,
                mpiprof_now_s() - run.t_start, o.output ? ", wrote " : "",
                o.output ? o.output : "");
        if (suspect_pairs) {
            /* the first pair's reason says what failed and what to do */
            json_t *pairs = json_object_get(json_object_get(doc, "point_to_point"), "pairs"), *e;
            size_t k;
            json_array_foreach(pairs, k, e) {
                if (json_is_true(json_object_get(e, "suspect"))) {
                    fprintf(stderr, "%s: %d of %zu pairs flagged suspect (first: ranks %lld-%lld: "
                                    "%s); slo comm --profile and --check refuse this profile\n",
                            MPIPROF_NAME, suspect_pairs, json_array_size(pairs),
                            (long long)json_integer_value(json_object_get(e, "rank_a")),
                            (long long)json_integer_value(json_object_get(e, "rank_b")),
                            json_string_value(json_object_get(e, "suspect_reason")));
                    break;
                }
            }
        }
        json_decref(doc);
        json_decref(run.nodes);
        json_decref(run.pairs);
        free(run.hosts);
        free(run.binds);
        free(run.leaders);
    }
    free(run.ap);
    MPI_Comm_free(&run.node_comm);
    /* every rank: the exit status of a profile measured on a failing
     * transport is 1 (doc/mpiprof.md) */
    MPI_Bcast(&suspect_pairs, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return suspect_pairs ? 1 : 0;
}
