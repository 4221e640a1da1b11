/*
 * argv_agree.h - argument agreement of the project's MPI programs
 * (slo-mpiprof, slo-train-demo); compiled into each of them.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef SLO_ARGV_AGREE_H
#define SLO_ARGV_AGREE_H

#include <mpi.h>

/* Ranks started with different arguments (mpirun's colon syntax, a wrapper
 * script) would run different loops, collectives of different sizes or fail
 * in parsing on some ranks only: a hang, MPI_ERR_TRUNCATE or a crash. Call
 * on every rank of comm right after MPI_Init, before any parsing can fail:
 * a fixed-size collective (MPI_Bcast of rank 0's 64-bit FNV-1a hash of
 * argv[1..argc-1], each argument followed by its NUL, then MPI_Allreduce
 * MPI_MIN of the ranks whose hash differs). argv: [argc] strings.
 * Returns the lowest rank whose arguments differ from rank 0's, or -1 when
 * every rank has the same; the same value on every rank. No errors of its
 * own (MPI errors abort, the default handler). */
int slo_argv_first_differing_rank(int argc, char **argv, MPI_Comm comm);

#endif
