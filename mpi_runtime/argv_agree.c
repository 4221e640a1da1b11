/*
 * argv_agree.c - argument agreement of the project's MPI programs
 * (argv_agree.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdint.h>

#include "argv_agree.h"

int slo_argv_first_differing_rank(int argc, char **argv, MPI_Comm comm)
{
    uint64_t h = 1469598103934665603ULL, h0; /* FNV-1a 64 offset basis */
    int rank, np, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &np);
    for (int i = 1; i < argc; i++) {
        const unsigned char *c = (const unsigned char *)argv[i];
        do {
            h ^= *c;
            h *= 1099511628211ULL; /* FNV prime */
        } while (*c++);
    }
    h0 = h;
    MPI_Bcast(&h0, 1, MPI_UINT64_T, 0, comm);
    first = h == h0 ? np : rank;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
    return first < np ? first : -1;
}
