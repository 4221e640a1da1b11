/*
 * osu_bw_ref.c - a minimal, independent OSU-style bandwidth measurement
 * between ranks 0 and 1, written from the description of osu_bw
 * (OSU Micro-Benchmarks, as summarised in shared/research/anchors.md A.4):
 * per iteration the sender posts a window of 64 non-blocking sends of one
 * buffer, the receiver the matching non-blocking receives, and a 4-byte
 * reply closes the iteration; the first iterations are skipped (10 of 110
 * up to 8 KiB, 2 of 22 above); buffers 64-byte aligned; bandwidth = bytes
 * sent / elapsed on the sender, in MB/s (10^6 bytes/s) as OSU prints it.
 * It shares no code with slo-mpiprof: bench/bench_mpiprof.sh compares the
 * two on the same pair in the same run.
 *
 * usage: mpirun -np 2 osu_bw_ref SIZE...   (bytes; other ranks idle)
 * output: "# size_bytes bandwidth_MB_per_s" then one "SIZE MBPS" line each
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WINDOW = 64, LARGE = 8192 };

int main(int argc, char **argv)
{
    int me, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2 || argc < 2) {
        if (me == 0)
            fprintf(stderr, "osu_bw_ref: usage: mpirun -np 2 osu_bw_ref SIZE...\n");
        MPI_Finalize();
        return 2;
    }
    if (me == 0)
        printf("# size_bytes bandwidth_MB_per_s\n");
    for (int a = 1; a < argc; a++) {
        long size = strtol(argv[a], NULL, 10);
        int loop = size > LARGE ? 20 : 100, skip = size > LARGE ? 2 : 10;
        void *s = NULL, *r = NULL;
        char reply[4] = {0};
        MPI_Request rq[WINDOW];
        double start = 0, secs;
        if (size <= 0 || posix_memalign(&s, 64, (size_t)size) ||
            posix_memalign(&r, 64, (size_t)size))
            MPI_Abort(MPI_COMM_WORLD, 2);
        memset(s, 's', (size_t)size);
        memset(r, 'r', (size_t)size);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0) {
            for (int i = 0; i < loop + skip; i++) {
                if (i == skip)
                    start = MPI_Wtime();
                for (int k = 0; k < WINDOW; k++)
                    MPI_Isend(s, (int)size, MPI_CHAR, 1, 7, MPI_COMM_WORLD, rq + k);
                MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
                MPI_Recv(reply, 4, MPI_CHAR, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            secs = MPI_Wtime() - start;
            printf("%ld %.2f\n", size, (double)size * WINDOW * loop / secs / 1e6);
            fflush(stdout);
        } else if (me == 1) {
            for (int i = 0; i < loop + skip; i++) {
                for (int k = 0; k < WINDOW; k++)
                    MPI_Irecv(r, (int)size, MPI_CHAR, 0, 7, MPI_COMM_WORLD, rq + k);
                MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
                MPI_Send(reply, 4, MPI_CHAR, 0, 8, MPI_COMM_WORLD);
            }
        }
        free(s);
        free(r);
    }
    MPI_Finalize();
    return 0;
}
