/*
 * test_runtime_mpi.c - the MPI half of the Prophet runtime
 * (mpi_runtime/slo_prophet.h) on hand-built kernel plans (struct
 * slo_comm_plan, installed with slo_prophet_set_plan), run by
 * tests/runtime_mpi.sh under mpirun at 2 and 3 ranks: partial reduction
 * (a block of two ranges over separate buffers, packed), the issue order,
 * waits that cannot be satisfied (an error, never a hang), gradients marked
 * twice, collective plan agreement (a plan for another list on one rank,
 * different plans on different ranks: every rank gets the error, nobody is
 * left waiting), recovery after it, averaging, and the recorded sequence.
 * Prints "ok - ..." / "not ok - ..." per check from rank 0; exit 0 when
 * every check held on every rank.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The gradient list: g0 16 bytes, g1 0 (no parameters), g2 32, g3 8 (fp32,
 * so 4, 0, 8, 2 elements), apart in memory (layout(0)). Plan A (hand-made):
 *   block 0 = g3 [0, 8) + g2 [16, 32)   (24 bytes, two buffers: packed)
 *   block 1 = g2 [0, 16) + g0 [0, 16)   (32 bytes, packed)
 * Rank r writes 100 g + i + r to element i of gradient g, so the reduced
 * value is p (100 g + i) + p (p - 1) / 2 (exact: small integers).
 */
#include "config.h" /* SLO_TEST_HOOKS: the build the test runs against */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slo_prophet.h"

static int rank, size, failures;

static void check(int cond, const char *what)
{
    int all = 0, mine = cond ? 0 : 1;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s - %s (np %d)%s\n", all ? "not ok" : "ok", what, size,
               all ? " [failed on some rank]" : "");
    failures += all != 0;
}

#define N_GRADS 4
static const size_t grad_bytes[N_GRADS] = {16, 0, 32, 8};
static float arena[64];
static float *bufs[N_GRADS];

/* separate: g0, g2, g3 apart in memory (blocks are packed); flat: back to
 * back in forward order (blocks of adjacent ranges are reduced in place) */
static void layout(int flat)
{
    bufs[0] = arena;
    bufs[1] = NULL;
    bufs[2] = arena + (flat ? 4 : 16);
    bufs[3] = arena + (flat ? 12 : 32);
}

static void fill(void)
{
    for (int g = 0; g < N_GRADS; g++)
        for (size_t i = 0; i < grad_bytes[g] / 4; i++)
            bufs[g][i] = (float)(100 * g + (int)i + rank);
}

/* Element i of gradient g reduced (sum, or average if avg)? */
static int reduced(int g, size_t i, int avg)
{
    float want = (float)(size * (100 * g + (int)i) + size * (size - 1) / 2);
    if (avg)
        want /= (float)size;
    return bufs[g][i] == want;
}

static int untouched(int g, size_t i)
{
    return bufs[g][i] == (float)(100 * g + (int)i + rank);
}

/* The plans are the kernel's (struct slo_comm_plan), built by hand over the
 * flat buffer of grad_bytes: gradient g owns flat bytes [O_g, O_g + S_g),
 * O = 0, 16, 16, 48, total 56; no holds (hold_layer 4). The runtime maps
 * them onto the registered buffers (planned_for NULL: the identity).
 * Block initializers: first_layer, last_layer, bytes, first_range,
 * n_ranges, post/start/end/done (unknown), hold_layer; ranges: block,
 * first_layer, last_layer, offset_bytes, bytes. */
#define NT NAN, NAN, NAN, NAN
/* Plan A (the header comment): block 0 = g3 [0, 8) = flat [48, 56), then
 * g2 [16, 32) = flat [32, 48); block 1 = g2 [0, 16) = flat [16, 32), then
 * g0 [0, 16) = flat [0, 16). */
static struct slo_comm_plan_block a_blocks[] = {{2, 3, 24, 0, 2, NT, 4}, {0, 2, 32, 2, 2, NT, 4}};
static struct slo_comm_plan_range a_ranges[] = {
    {0, 3, 3, 48, 8}, {0, 2, 2, 32, 16}, {1, 2, 2, 16, 16}, {1, 0, 0, 0, 16}};
static struct slo_comm_plan plan_a = {"a", "t", 4, N_GRADS, 56, NAN, 2, a_blocks, 4, a_ranges};
/* Plan B: one block, everything in forward order (pieces g0, g2, g3). */
static struct slo_comm_plan_block b_blocks[] = {{0, 3, 56, 0, 1, NT, 4}};
static struct slo_comm_plan_range b_ranges[] = {{0, 0, 3, 0, 56}};
static struct slo_comm_plan plan_b = {"b", "t", 4, N_GRADS, 56, NAN, 1, b_blocks, 1, b_ranges};
/* Plan C: for another gradient list (g2 has 36 bytes: 60 in all). */
static struct slo_comm_plan_block c_blocks[] = {{0, 3, 60, 0, 1, NT, 4}};
static struct slo_comm_plan_range c_ranges[] = {{0, 0, 3, 0, 60}};
static struct slo_comm_plan plan_c = {"c", "t", 4, N_GRADS, 60, NAN, 1, c_blocks, 1, c_ranges};

int main(int argc, char **argv)
{
    struct slo_prophet *rt = NULL, *bad = NULL;
    slo_error_t err = {0};
    const struct slo_prophet_issue *log;
    int provided, rc;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    check(slo_prophet_create(MPI_COMM_WORLD, MPI_INT, SLO_PROPHET_AVERAGE, &bad, &err) ==
                  SLO_ERR_INVALID && !bad && strstr(err.text, "MPI_FLOAT or MPI_DOUBLE"),
          "create: averaging needs MPI_FLOAT or MPI_DOUBLE");
    /* review finding 10: MPI addresses a buffer by the datatype's extent,
     * the runtime counts by its size; a derived or padded type would make
     * MPI_Iallreduce read and write past the gradients, and MPI_SUM is
     * defined on predefined types only. Each must be refused at create. */
    {
        MPI_Datatype vec, contig, padded;
        MPI_Type_vector(2, 1, 2, MPI_FLOAT, &vec); /* size 8, extent 12 */
        MPI_Type_commit(&vec);
        MPI_Type_contiguous(2, MPI_FLOAT, &contig); /* size = extent 8, but derived */
        MPI_Type_commit(&contig);
        MPI_Type_create_resized(MPI_FLOAT, 0, 8, &padded); /* size 4, extent 8 */
        MPI_Type_commit(&padded);
        check(slo_prophet_create(MPI_COMM_WORLD, vec, 0, &bad, &err) == SLO_ERR_INVALID &&
                  !bad && strstr(err.text, "expected a predefined type"),
              "create: a strided derived type (vector, extent 12 > size 8) is refused");
        check(slo_prophet_create(MPI_COMM_WORLD, contig, 0, &bad, &err) == SLO_ERR_INVALID &&
                  !bad && strstr(err.text, "found a derived type"),
              "create: a contiguous derived type is refused (MPI_SUM needs a predefined one)");
        check(slo_prophet_create(MPI_COMM_WORLD, padded, 0, &bad, &err) == SLO_ERR_INVALID &&
                  !bad && strstr(err.text, "expected a predefined type"),
              "create: a resized MPI_FLOAT (extent 8 > size 4) is refused");
        check(slo_prophet_create(MPI_COMM_WORLD, MPI_2INT, 0, &bad, &err) == SLO_ERR_INVALID &&
                  !bad && strstr(err.text, "MINLOC/MAXLOC pair"),
              "create: MPI_2INT (predefined, but not for MPI_SUM) is refused");
        MPI_Type_free(&vec);
        MPI_Type_free(&contig);
        MPI_Type_free(&padded);
        rc = slo_prophet_create(MPI_COMM_WORLD, MPI_DOUBLE, SLO_PROPHET_AVERAGE, &bad, &err);
        check(rc == SLO_OK && bad, "create: MPI_DOUBLE accepted");
        slo_prophet_free(bad);
        bad = NULL;
        rc = slo_prophet_create(MPI_COMM_WORLD, MPI_INT, 0, &bad, &err);
        check(rc == SLO_OK && bad, "create: MPI_INT accepted");
        slo_prophet_free(bad);
        bad = NULL;
    }
    layout(0);
    check(slo_prophet_create(MPI_COMM_WORLD, MPI_FLOAT, 0, &rt, &err) == SLO_OK, "create");
    check(slo_prophet_thread_level(rt) == provided, "thread level recorded");
    rc = 0;
    for (int g = 0; g < N_GRADS; g++)
        rc |= slo_prophet_register(rt, bufs[g], grad_bytes[g], &err);
    check(rc == SLO_OK && slo_prophet_n_grads(rt) == N_GRADS, "register 4 gradients");
    check(slo_prophet_register(rt, arena, 6, &err) == SLO_ERR_INVALID &&
              strstr(err.text, "multiple of the 4-byte element"),
          "register: size not a whole element");

    /* plan A, serialized */
    check(slo_prophet_set_plan(rt, &plan_a, NULL, 1, &err) == SLO_OK &&
              slo_prophet_staging_bytes(rt) == 64 + 64,
          "set_plan A: both blocks packed (two 64-byte-aligned staging regions)");
    fill();
    check(slo_prophet_begin(rt, &err) == SLO_OK, "begin");
    check(slo_prophet_mark_ready(rt, 3, &err) == SLO_OK, "mark 3");
    /* block 0 also needs g2: not issued yet */
    check(slo_prophet_sequence(rt, &log) == 0, "block 0 waits for g2");
    check(slo_prophet_mark_ready(rt, 2, &err) == SLO_OK &&
              slo_prophet_sequence(rt, &log) == 1 && log[0].block == 0 && log[0].bytes == 24,
          "mark 2 issues block 0 (24 bytes)");
    check(slo_prophet_wait_layer(rt, 3, &err) == SLO_OK, "wait_layer 3");
    {
        int ok = reduced(3, 0, 0) && reduced(3, 1, 0);
        for (size_t i = 4; i < 8; i++)
            ok &= reduced(2, i, 0); /* g2 bytes 16..32 */
        for (size_t i = 0; i < 4; i++)
            ok &= untouched(2, i) && untouched(0, i); /* block 1 not issued */
        check(ok, "after block 0: g3 and g2[4..8) reduced, g2[0..4) and g0 untouched");
    }
    /* wait_layer 0 needs block 1, which waits for g0: an error, not a hang */
    rc = slo_prophet_wait_layer(rt, 0, &err);
    check(rc == SLO_ERR_INVALID && strstr(err.text, "waits for gradient 0, which was not "
                                                    "marked ready"),
          "wait_layer 0 before g0 is ready: error naming gradient 0");
    check(slo_prophet_mark_ready(rt, 2, &err) == SLO_ERR_INVALID &&
              strstr(err.text, "marked ready twice"),
          "mark 2 twice: error");
    check(slo_prophet_mark_ready(rt, 1, &err) == SLO_OK, "mark 1 (no bytes): accepted");
    check(slo_prophet_mark_ready(rt, 0, &err) == SLO_OK && slo_prophet_wait_layer(rt, 0, &err) ==
              SLO_OK, "mark 0, wait_layer 0");
    {
        int ok = 1;
        for (size_t i = 0; i < 8; i++)
            ok &= reduced(2, i, 0);
        for (size_t i = 0; i < 4; i++)
            ok &= reduced(0, i, 0);
        check(ok, "every value reduced exactly once");
    }
    check(slo_prophet_sequence(rt, &log) == 2 && log[1].block == 1 && log[1].bytes == 32 &&
              slo_prophet_check_sequence(rt, &err) == SLO_OK,
          "sequence (0, 24), (1, 32), the same on every rank");

    /* a second pass, unlimited in flight */
    check(slo_prophet_set_plan(rt, &plan_a, NULL, 0, &err) == SLO_OK &&
              slo_prophet_sequence(rt, &log) == 0,
          "set_plan clears the sequence");
    fill();
    rc = slo_prophet_begin(rt, &err);
    for (int g = N_GRADS; g-- > 0;)
        rc |= slo_prophet_mark_ready(rt, (size_t)g, &err);
    rc |= slo_prophet_wait_all(rt, &err);
    {
        int ok = rc == SLO_OK;
        for (size_t i = 0; i < 8; i++)
            ok &= reduced(2, i, 0);
        check(ok && slo_prophet_check_sequence(rt, &err) == SLO_OK, "pass with --in-flight 0");
    }

    /* plan agreement */
    rc = slo_prophet_set_plan(rt, rank == 1 ? &plan_c : &plan_a, NULL, 1, &err);
    check(rc == SLO_ERR_INVALID &&
              (rank == 1 ? strstr(err.text, "model.bytes: expected 56 (the registered gradient "
                                            "list") != NULL
                         : strstr(err.text, "rank 1: the plan is not for its registered "
                                            "gradient list") != NULL),
          "a plan for another list on rank 1: every rank fails, rank 1 says why");
    check(slo_prophet_n_blocks(rt) == 0, "no plan installed after the failure");
    rc = slo_prophet_set_plan(rt, rank == size - 1 ? &plan_b : &plan_a, NULL, 1, &err);
    {
        char want[64];
        snprintf(want, sizeof want, "rank %d's has 1 blocks", size - 1);
        check(rc == SLO_ERR_INVALID && strstr(err.text, "plans differ between ranks: rank 0's "
                                                        "has 2 blocks") &&
                  strstr(err.text, want),
              "different plans on the last rank: every rank fails with the same text");
    }
    /* review finding 9: a failure of one rank only must still reach every
     * rank through the agreement (before the fix a bad max_in_flight
     * returned before the MPI_Allgather: the other ranks hung in it) */
    rc = slo_prophet_set_plan(rt, &plan_a, NULL, rank == size - 1 ? -1 : 1, &err);
    {
        char want[64];
        snprintf(want, sizeof want, "rank %d: max_in_flight < 0", size - 1);
        check(rc == SLO_ERR_INVALID && slo_prophet_n_blocks(rt) == 0 &&
                  strstr(err.text, rank == size - 1 ? "max_in_flight: expected >= 0" : want),
              "max_in_flight -1 on the last rank only: every rank fails, no hang");
    }
    /* the fault cases need the test hooks (configure --enable-test-hooks):
     * without them SLO_PROPHET_TEST_FAULT is not read, so they are skipped */
#ifdef SLO_TEST_HOOKS
    const int hooks = 1;
#else
    const int hooks = 0;
#endif
    if (!hooks) {
        if (rank == 0)
            printf("# skip: 3 fault-injection checks (nomem, drain): libsloprophet was built "
                   "without --enable-test-hooks\n");
    } else {
        /* out of memory on rank 1 only (test-only fault injection: set_plan's
         * allocations fail there): SLO_ERR_NOMEM on every rank, rank 1 named */
        setenv("SLO_PROPHET_TEST_FAULT", "nomem:1", 1);
        rc = slo_prophet_set_plan(rt, &plan_a, NULL, 1, &err);
        unsetenv("SLO_PROPHET_TEST_FAULT");
        check(rc == SLO_ERR_NOMEM && slo_prophet_n_blocks(rt) == 0 &&
                  strstr(err.text, rank == 1 ? "out of memory" : "rank 1: out of memory"),
              "out of memory on rank 1 only: SLO_ERR_NOMEM on every rank, no hang");
        /* an MPI error on the last rank while waiting for the previous plan's
         * collectives (injected): it joins the agreement, every rank fails */
        check(slo_prophet_set_plan(rt, &plan_a, NULL, 1, &err) == SLO_OK, "plan A again");
        setenv("SLO_PROPHET_TEST_FAULT", "drain:0", 1);
        rc = slo_prophet_set_plan(rt, &plan_a, NULL, 1, &err);
        unsetenv("SLO_PROPHET_TEST_FAULT");
        check(rc == SLO_ERR_IO && slo_prophet_n_blocks(rt) == 0 &&
                  strcmp(err.source, "set_plan") == 0 &&
                  strstr(err.text, rank == 0 ? "waiting for the previous plan's collectives"
                                             : "rank 0: an MPI error while waiting"),
              "an MPI error draining on rank 0 only: SLO_ERR_IO on every rank (agreed), no hang");
    }
    check(slo_prophet_begin(rt, &err) == SLO_ERR_INVALID, "begin without a plan: error");
    check(slo_prophet_set_plan(rt, &plan_b, NULL, 1, &err) == SLO_OK &&
              slo_prophet_staging_bytes(rt) == 64,
          "recovery: plan B installs (one packed block)");
    fill();
    rc = slo_prophet_begin(rt, &err);
    for (int g = N_GRADS; g-- > 0;)
        rc |= slo_prophet_mark_ready(rt, (size_t)g, &err);
    rc |= slo_prophet_wait_layer(rt, 2, &err);
    {
        int ok = rc == SLO_OK;
        for (size_t i = 0; i < 4; i++)
            ok &= reduced(0, i, 0);
        check(ok && slo_prophet_sequence(rt, &log) == 1 && log[0].bytes == 56,
              "plan B: one 56-byte collective, values reduced");
    }
    slo_prophet_free(rt);

    /* averaging: p (100 g + i) + p (p-1)/2, divided by p once; one flat
     * buffer: plan B's block (g0, g2, g3 in order) is reduced in place */
    rt = NULL;
    layout(1);
    rc = slo_prophet_create(MPI_COMM_WORLD, MPI_FLOAT, SLO_PROPHET_AVERAGE, &rt, &err);
    for (int g = 0; rc == SLO_OK && g < N_GRADS; g++)
        rc |= slo_prophet_register(rt, bufs[g], grad_bytes[g], &err);
    rc |= slo_prophet_set_plan(rt, &plan_b, NULL, 1, &err);
    check(rc == SLO_OK && slo_prophet_staging_bytes(rt) == 0,
          "flat layout: plan B's block is contiguous, no staging");
    fill();
    rc |= slo_prophet_begin(rt, &err);
    for (int g = N_GRADS; rc == SLO_OK && g-- > 0;)
        rc |= slo_prophet_mark_ready(rt, (size_t)g, &err);
    rc |= slo_prophet_wait_all(rt, &err);
    {
        int ok = rc == SLO_OK;
        for (size_t i = 0; i < 8; i++)
            ok &= reduced(2, i, 1);
        ok &= reduced(3, 1, 1) && reduced(0, 3, 1);
        check(ok, "SLO_PROPHET_AVERAGE, in place: every value the sum / p");
    }
    slo_prophet_free(rt);
    if (rank == 0)
        printf("%d failed\n", failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}
