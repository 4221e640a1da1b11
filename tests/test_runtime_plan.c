/*
 * test_runtime_plan.c - the MPI-free private half of the Prophet runtime
 * (mpi_runtime/prophet_private.h): mapping the kernel's plan (struct
 * slo_comm_plan) and libslo's messages onto a registered gradient list,
 * validation (tiling, layers, numbering), `slo comm --json` plans read by
 * the kernel and mapped, and their errors, holds, checksums, and the issue
 * rule / gradient -> block mapping. No MPI; valgrind clean.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Hand-worked cases use elem = 4 bytes and tiny models; the expected pieces
 * are derived in the comments from the definitions in doc/runtime.md (plan
 * space = the model's flat buffer, boundary x in layer j at fraction
 * phi = (x - o_j) / s_j maps to O_j + round(phi S_j / 4) 4).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "prophet_private.h"

static void make_model(struct slo_comm_model *m, const double *bytes, const double *bw_s,
                       size_t n)
{
    slo_error_t err = {0};
    assert_int_equal(slo_comm_model_alloc(m, n, &err), SLO_OK);
    snprintf(m->name, sizeof m->name, "tiny");
    for (size_t j = 0; j < n; j++) {
        m->layers[j].grad_bytes = bytes[j];
        m->layers[j].forward_s = 1e-3;
        m->layers[j].backward_s = bw_s ? bw_s[j] : 1e-3;
    }
}

static struct slo_comm_message msg(size_t block, double off, double bytes, size_t lo,
                                   size_t hi, double post)
{
    struct slo_comm_message m = {0};
    m.block = block;
    m.offset_bytes = off;
    m.bytes = bytes;
    m.first_layer = lo;
    m.last_layer = hi;
    m.post_s = post;
    return m;
}

static void assert_piece(const struct slo__prophet_schedule *p, size_t k, size_t grad, size_t off,
                         size_t bytes)
{
    assert_true(k < p->n_pieces);
    assert_int_equal(p->pieces[k].grad, grad);
    assert_int_equal(p->pieces[k].offset_bytes, off);
    assert_int_equal(p->pieces[k].bytes, bytes);
}

/* The registered sizes of a model whose sizes are whole elements. */
static size_t *own_sizes(const struct slo_comm_model *m)
{
    size_t *S = calloc(m->n_layers + 1, sizeof *S);
    assert_non_null(S);
    for (size_t j = 0; j < m->n_layers; j++)
        S[j] = (size_t)m->layers[j].grad_bytes;
    return S;
}

/* A plan file as the runtime takes it: read by the kernel's strict reader
 * (slo_comm_plan_parse), mapped onto S (NULL: the model's own sizes) with
 * the model as plan space. */
static int parse_map(const char *text, const char *source, const char *policy,
                     const struct slo_comm_model *m, const size_t *S,
                     struct slo__prophet_schedule *p, slo_error_t *err)
{
    struct slo_comm_plan kp;
    size_t *own = S ? NULL : own_sizes(m);
    int rc;
    memset(p, 0, sizeof *p);
    if (!(rc = slo_comm_plan_parse(text, source, policy, 4, &kp, err))) {
        rc = slo__prophet_schedule_map(&kp, m, S ? S : own, m->n_layers, 4, p, err);
        slo_comm_plan_free(&kp);
    }
    free(own);
    return rc;
}

/* A policy planned by the kernel (slo_comm_solve, fp32) and mapped onto the
 * model's own sizes, as slo-train-demo does. */
static int plan_policy(const struct slo_comm_model *m, const struct slo_comm_link *link,
                       int policy, struct slo__prophet_schedule *p, double *predicted_s,
                       slo_error_t *err)
{
    struct slo_comm_problem prob = {m, link};
    struct slo_comm_options opt;
    struct slo_comm_result r;
    size_t *S = own_sizes(m);
    int rc;
    slo_comm_options_init(&opt);
    opt.policy = policy;
    if (!(rc = slo_comm_solve(&prob, &opt, &r, err))) {
        rc = slo__prophet_schedule_map(&r.plan, m, S, m->n_layers, 4, p, err);
        if (predicted_s)
            *predicted_s = r.iteration_s;
        slo_comm_result_free(&r);
    }
    free(S);
    return rc;
}

/* Identity: sizes [8, 0, 12], flat offsets 0, 8, 8. FIFO-like post order:
 * block 0 = layer 2 (bytes 8..20), block 1 = layer 0 (bytes 0..8). Layer 1
 * has no bytes and is in no block. */
static void test_identity(void **state)
{
    const double bytes[] = {8, 0, 12};
    struct slo_comm_model m;
    struct slo_comm_message ms[] = {msg(0, 8, 12, 2, 2, 0), msg(1, 0, 8, 0, 0, 0)};
    struct slo__prophet_schedule p;
    slo_error_t err = {0};
    (void)state;
    make_model(&m, bytes, NULL, 3);
    assert_int_equal(slo__prophet_schedule_from_messages(ms, 2, &m, NULL, 4, NULL,
                                                    "fifo", &p, &err), SLO_OK);
    assert_string_equal(p.policy, "fifo");
    assert_int_equal(p.n_grads, 3);
    assert_int_equal(p.n_blocks, 2);
    assert_int_equal(p.n_pieces, 2);
    assert_piece(&p, 0, 2, 0, 12);
    assert_piece(&p, 1, 0, 0, 8);
    assert_int_equal(p.block_bytes[0], 12);
    assert_int_equal(p.block_bytes[1], 8);
    assert_int_equal(p.block_hold[0], 3); /* no hold */
    assert_int_equal(slo__prophet_schedule_check(&p, &err), SLO_OK);
    slo__prophet_schedule_free(&p);
    slo_comm_model_free(&m);
}

/* Scaled mapping: plan-space sizes [1000, 0, 3000], registered [100, 0, 300]
 * (O = 0, 100, 100; layer 2 has 75 elements). Block 0 = [1000, 2400):
 * layer 2 from phi 0 to 1400/3000; 75 x 1400/3000 = 35 elements = 140
 * bytes -> gradient 2 bytes 0..140. Block 1 = [2400, 4000) -> gradient 2
 * bytes 140..300. Block 2 = [0, 1000) -> gradient 0 whole (100 bytes). The
 * boundary 2400 is given as 2399.9999999999 in block 0's end and
 * 2400.0000000001 in block 1's start (12 significant digits, as `slo comm
 * --json` prints): mapped once, so the neighbours share it.
 * A tie: a boundary at exactly 2500 is 37.5 elements, rounded half away
 * from zero (llround) to 38 = 152 bytes. */
static void test_scaled_mapping(void **state)
{
    const double bytes[] = {1000, 0, 3000};
    const size_t S[] = {100, 0, 300};
    struct slo_comm_model m;
    struct slo_comm_message ms[] = {msg(0, 1000, 1399.9999999999, 2, 2, 0),
                                    msg(1, 2400.0000000001, 1599.9999999999, 2, 2, 0),
                                    msg(2, 0, 1000, 0, 0, 0)};
    struct slo_comm_message tie[] = {msg(0, 1000, 1500, 2, 2, 0), msg(1, 2500, 1500, 2, 2, 0),
                                     msg(2, 0, 1000, 0, 0, 0)};
    struct slo__prophet_schedule p;
    slo_error_t err = {0};
    (void)state;
    make_model(&m, bytes, NULL, 3);
    assert_int_equal(slo__prophet_schedule_from_messages(ms, 3, &m, S, 4, NULL,
                                                    "x", &p, &err), SLO_OK);
    assert_int_equal(p.n_blocks, 3);
    assert_piece(&p, 0, 2, 0, 140);
    assert_piece(&p, 1, 2, 140, 160);
    assert_piece(&p, 2, 0, 0, 100);
    slo__prophet_schedule_free(&p);
    assert_int_equal(slo__prophet_schedule_from_messages(tie, 3, &m, S, 4, NULL,
                                                    "x", &p, &err), SLO_OK);
    assert_piece(&p, 0, 2, 0, 152);
    assert_piece(&p, 1, 2, 152, 148);
    slo__prophet_schedule_free(&p);
    slo_comm_model_free(&m);
}

/* A block of two ranges over three gradients, and a sliver that maps to no
 * bytes. Plan sizes [400, 400, 400] -> registered [4, 4, 400] (elem 4).
 * Block 0 = [0, 600) + [1100, 1200): gradient 0 whole, gradient 1 from 0 to
 * phi 0.5 -> 0.5 x 1 element = 0.5 -> 1 element (llround): bytes 0..4 (all
 * of it); gradient 2 from phi 0.75 to 1 -> 300..400. Block 1 = [600, 1100):
 * gradient 1 from phi 0.5 (-> 4, its end) and gradient 2 phi 0..0.75 ->
 * 0..300. Block 2 = [1199.99, 1200) is 0.01 bytes: above the tolerance
 * 1e-3, so valid in plan space, but it maps to nothing and is dropped (the
 * same on every rank). Block 0's second range starts where block 1 ends:
 * the pieces of gradient 2 in block 0 are (300, 100). */
static void test_ranges_and_drop(void **state)
{
    const double bytes[] = {400, 400, 400};
    const size_t S[] = {4, 4, 400};
    struct slo_comm_model m;
    struct slo_comm_message ms[] = {msg(0, 0, 600, 0, 1, 0), msg(0, 1100, 99.99, 2, 2, 0),
                                    msg(1, 600, 500, 1, 2, 0), msg(2, 1199.99, 0.01, 2, 2, 0)};
    struct slo__prophet_schedule p;
    slo_error_t err = {0};
    (void)state;
    make_model(&m, bytes, NULL, 3);
    assert_int_equal(slo__prophet_schedule_from_messages(ms, 4, &m, S, 4, NULL,
                                                    "x", &p, &err), SLO_OK);
    assert_int_equal(p.n_blocks, 2);
    assert_int_equal(p.block_start[1], 3);
    assert_piece(&p, 0, 0, 0, 4);
    assert_piece(&p, 1, 1, 0, 4);
    assert_piece(&p, 2, 2, 300, 100);
    assert_piece(&p, 3, 2, 0, 300);
    assert_int_equal(p.block_bytes[0], 108);
    assert_int_equal(p.block_bytes[1], 300);
    slo__prophet_schedule_free(&p);
    slo_comm_model_free(&m);
}

static void expect_error(const struct slo_comm_message *ms, size_t n, const double *bytes,
                         size_t nl, const size_t *S, const char *needle)
{
    struct slo_comm_model m;
    struct slo__prophet_schedule p;
    slo_error_t err = {0};
    make_model(&m, bytes, NULL, nl);
    assert_int_equal(slo__prophet_schedule_from_messages(ms, n, &m, S, 4, NULL, "x",
                                                    &p, &err), SLO_ERR_INVALID);
    if (!strstr(err.text, needle)) {
        print_error("expected \"%s\" in \"%s\"\n", needle, err.text);
        fail();
    }
    assert_int_equal(p.n_blocks, 0); /* left empty */
    assert_null(p.pieces);
    slo_comm_model_free(&m);
}

/* Plans that do not tile the gradients, or are for another list. */
static void test_validation_errors(void **state)
{
    const double bytes[] = {8, 12};
    (void)state;
    {   /* hole: bytes 8..12 in no block */
        struct slo_comm_message ms[] = {msg(0, 12, 8, 1, 1, 0), msg(1, 0, 8, 0, 0, 0)};
        expect_error(ms, 2, bytes, 2, NULL, "found bytes 8..12 in no block");
    }
    {   /* overlap: bytes 4..8 twice */
        struct slo_comm_message ms[] = {msg(0, 4, 16, 0, 1, 0), msg(1, 0, 8, 0, 0, 0)};
        expect_error(ms, 2, bytes, 2, NULL, "in two blocks");
    }
    {   /* a plan for a 24-byte list */
        struct slo_comm_message ms[] = {msg(0, 8, 12, 1, 1, 0), msg(1, 0, 8, 0, 0, 0),
                                        msg(2, 20, 4, 1, 1, 0)};
        expect_error(ms, 3, bytes, 2, NULL, "inside the 20 gradient bytes");
    }
    {   /* short of the end */
        struct slo_comm_message ms[] = {msg(0, 0, 16, 0, 1, 0)};
        expect_error(ms, 1, bytes, 2, NULL, "found 16 bytes covered");
    }
    {   /* claimed layers do not hold the bytes */
        struct slo_comm_message ms[] = {msg(0, 8, 12, 0, 0, 0), msg(1, 0, 8, 0, 0, 0)};
        expect_error(ms, 2, bytes, 2, NULL, "expected its bytes in layers 0..0, found bytes "
                                            "8..20 in layers 1..1");
    }
    {   /* block numbers skip */
        struct slo_comm_message ms[] = {msg(0, 8, 12, 1, 1, 0), msg(2, 0, 8, 0, 0, 0)};
        expect_error(ms, 2, bytes, 2, NULL, "expected block 0 or 1");
    }
    {   /* zero bytes */
        struct slo_comm_message ms[] = {msg(0, 0, 0, 0, 0, 0)};
        expect_error(ms, 1, bytes, 2, NULL, "more than 0 bytes");
    }
    {   /* registered size not whole elements */
        const size_t S[] = {8, 10};
        struct slo_comm_message ms[] = {msg(0, 0, 20, 0, 1, 0)};
        expect_error(ms, 1, bytes, 2, S, "gradient 1: expected a size that is a multiple of 4");
    }
    {   /* model sizes used as registered must be whole elements */
        const double odd[] = {8, 13};
        struct slo_comm_message ms[] = {msg(0, 0, 21, 0, 1, 0)};
        expect_error(ms, 1, odd, 2, NULL, "layer 1: expected a whole number of 4-byte elements");
    }
}

/* slo__prophet_schedule_check on hand-built plans. */
static void test_check(void **state)
{
    size_t G[] = {8, 8}, start[] = {0, 1, 2}, bbytes[] = {8, 8}, hold[] = {2, 2};
    struct slo__prophet_piece pieces[] = {{0, 0, 8}, {1, 0, 8}};
    struct slo__prophet_schedule p = {"x", 4, 2, G, 2, start, bbytes, hold, 2, pieces};
    slo_error_t err = {0};
    (void)state;
    assert_int_equal(slo__prophet_schedule_check(&p, &err), SLO_OK);
    pieces[1].offset_bytes = 4; /* gradient 1: bytes 0..4 in no block, overruns */
    assert_int_equal(slo__prophet_schedule_check(&p, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "inside a gradient"));
    pieces[1] = (struct slo__prophet_piece){0, 4, 4}; /* gradient 0 bytes 4..8 twice */
    bbytes[1] = 4;
    assert_int_equal(slo__prophet_schedule_check(&p, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "gradient 0: bytes 4..8 of 8 are in two blocks"));
    pieces[1] = (struct slo__prophet_piece){1, 0, 8};
    bbytes[1] = 4; /* wrong block total */
    assert_int_equal(slo__prophet_schedule_check(&p, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "block 1: expected 8 bytes (its ranges), found 4"));
    bbytes[1] = 8;
    pieces[1] = (struct slo__prophet_piece){1, 0, 6}; /* not whole elements */
    bbytes[1] = 6;
    assert_int_equal(slo__prophet_schedule_check(&p, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "whole 4-byte elements"));
}

/* Holds from post times (notes 1.6 step 1, Prophet releases a step only when
 * all of it arrived), set by the kernel (slo_comm_plan_hold_at_post) on its
 * plan and mapped by the runtime. Backward times b = [1, 1, 1] s, so ready
 * times r = [3, 2, 1]. Block 0 = layer 2 posted at 2 s (when layer 1 was
 * ready too: a step of layers 1-2): hold = lowest j with r_j <= 2 = 1. Block
 * 1 = layer 1 posted at 2: hold 1. Block 2 = layer 0 at 3: hold 0. */
static void test_hold_and_sched(void **state)
{
    const double bytes[] = {4, 4, 4}, bw[] = {1, 1, 1};
    const size_t S[] = {4, 4, 4};
    struct slo_comm_model m;
    struct slo_comm_plan_block kb[] = {{2, 2, 4, 0, 1, 2.0, NAN, NAN, NAN, 3},
                                       {1, 1, 4, 1, 1, 2.0, NAN, NAN, NAN, 3},
                                       {0, 0, 4, 2, 1, 3.0, NAN, NAN, NAN, 3}};
    struct slo_comm_plan_range kr[] = {{0, 2, 2, 8, 4}, {1, 1, 1, 4, 4}, {2, 0, 0, 0, 4}};
    struct slo_comm_plan kp = {"prophet", "tiny", 4, 3, 12, NAN, 3, kb, 3, kr};
    struct slo__prophet_schedule p;
    struct slo__prophet_sched s;
    slo_error_t err = {0};
    const size_t *blocks;
    size_t n;
    (void)state;
    make_model(&m, bytes, bw, 3);
    assert_int_equal(slo_comm_plan_hold_at_post(&kp, &m, &err), SLO_OK);
    assert_int_equal(slo__prophet_schedule_map(&kp, &m, S, 3, 4, &p, &err), SLO_OK);
    assert_string_equal(p.policy, "prophet");
    assert_int_equal(p.block_hold[0], 1);
    assert_int_equal(p.block_hold[1], 1);
    assert_int_equal(p.block_hold[2], 0);
    assert_int_equal(slo__prophet_sched_init(&s, &p, &err), SLO_OK);
    assert_false(slo__prophet_sched_ready(&s));
    assert_int_equal(slo__prophet_sched_mark(&s, 2, &err), SLO_OK);
    /* block 0's own gradient is ready, but its hold waits for gradient 1 */
    assert_false(slo__prophet_sched_ready(&s));
    assert_int_equal(slo__prophet_sched_waiting_for(&s), 1);
    assert_int_equal(slo__prophet_sched_mark(&s, 1, &err), SLO_OK);
    assert_true(slo__prophet_sched_ready(&s));
    assert_int_equal(slo__prophet_sched_issue(&s), 0);
    assert_true(slo__prophet_sched_ready(&s));
    assert_int_equal(slo__prophet_sched_issue(&s), 1);
    assert_false(slo__prophet_sched_ready(&s));
    assert_int_equal(slo__prophet_sched_mark(&s, 0, &err), SLO_OK);
    assert_int_equal(slo__prophet_sched_issue(&s), 2);
    assert_false(slo__prophet_sched_ready(&s)); /* all issued */
    assert_int_equal(slo__prophet_sched_waiting_for(&s), 3);
    /* errors */
    assert_int_equal(slo__prophet_sched_mark(&s, 0, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "marked ready twice"));
    assert_int_equal(slo__prophet_sched_mark(&s, 3, &err), SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "gradient 3: expected an index below 3"));
    slo__prophet_sched_blocks_of(&s, 1, &blocks, &n);
    assert_int_equal(n, 1);
    assert_int_equal(blocks[0], 1);
    /* the same plan without holds: block 0 goes as soon as gradient 2 is */
    slo__prophet_sched_free(&s);
    slo__prophet_schedule_free(&p);
    for (size_t b = 0; b < 3; b++)
        kb[b].hold_layer = 3;
    assert_int_equal(slo__prophet_schedule_map(&kp, &m, S, 3, 4, &p, &err), SLO_OK);
    assert_int_equal(slo__prophet_sched_init(&s, &p, &err), SLO_OK);
    assert_int_equal(slo__prophet_sched_mark(&s, 2, &err), SLO_OK);
    assert_true(slo__prophet_sched_ready(&s));
    slo__prophet_sched_free(&s);
    slo__prophet_schedule_free(&p);
    slo_comm_model_free(&m);
}

/* The ordering rule: block 1 (gradient 2) never goes before block 0
 * (gradient 0), even when its gradient is ready first; a gradient split
 * over two non-adjacent blocks maps to both; a gradient without bytes is
 * ready from the start. Sizes [4, 0, 8]: block 0 = gradient 0 and the
 * first half of gradient 2, block 1 = gradient 2's second half... built
 * directly: block 0 = {g0 0..4, g2 0..4}, block 1 = {g2 4..8}. */
static void test_order_rule(void **state)
{
    /* the kernel's plan over the flat buffer (O = 0, 4, 4): block 0 = flat
     * [0, 4) + [4, 8), block 1 = flat [8, 12); no holds */
    const size_t G[] = {4, 0, 8};
    struct slo_comm_plan_block kb[] = {{0, 2, 8, 0, 2, NAN, NAN, NAN, NAN, 3},
                                       {2, 2, 4, 2, 1, NAN, NAN, NAN, NAN, 3}};
    struct slo_comm_plan_range kr[] = {{0, 0, 0, 0, 4}, {0, 2, 2, 4, 4}, {1, 2, 2, 8, 4}};
    struct slo_comm_plan kp = {"x", "t", 4, 3, 12, NAN, 2, kb, 3, kr};
    struct slo__prophet_schedule p;
    struct slo__prophet_sched s;
    slo_error_t err = {0};
    const size_t *blocks;
    size_t n;
    (void)state;
    assert_int_equal(slo__prophet_schedule_map(&kp, NULL, G, 3, 4, &p, &err), SLO_OK);
    assert_int_equal(p.n_blocks, 2);
    assert_int_equal(p.block_start[1], 2);
    assert_piece(&p, 0, 0, 0, 4);
    assert_piece(&p, 1, 2, 0, 4);
    assert_piece(&p, 2, 2, 4, 4);
    assert_int_equal(p.block_hold[0], 3);
    assert_int_equal(p.block_hold[1], 3);
    assert_int_equal(slo__prophet_sched_init(&s, &p, &err), SLO_OK);
    slo__prophet_sched_blocks_of(&s, 2, &blocks, &n);
    assert_int_equal(n, 2);
    assert_int_equal(blocks[0], 0);
    assert_int_equal(blocks[1], 1);
    slo__prophet_sched_blocks_of(&s, 1, &blocks, &n);
    assert_int_equal(n, 0);
    assert_int_equal(slo__prophet_sched_mark(&s, 1, &err), SLO_OK); /* no bytes: ignored */
    assert_int_equal(slo__prophet_sched_mark(&s, 2, &err), SLO_OK);
    /* block 1 has all it needs, block 0 not: nothing may go */
    assert_false(slo__prophet_sched_ready(&s));
    assert_int_equal(slo__prophet_sched_waiting_for(&s), 0);
    assert_int_equal(slo__prophet_sched_mark(&s, 0, &err), SLO_OK);
    assert_int_equal(slo__prophet_sched_issue(&s), 0);
    assert_int_equal(slo__prophet_sched_issue(&s), 1);
    /* a new pass */
    slo__prophet_sched_reset(&s);
    assert_false(slo__prophet_sched_ready(&s));
    assert_int_equal(slo__prophet_sched_mark(&s, 0, &err), SLO_OK);
    assert_false(slo__prophet_sched_ready(&s)); /* block 0 also needs gradient 2 */
    slo__prophet_sched_free(&s);
    slo__prophet_schedule_free(&p);
}

/* `slo comm --json` documents (doc/comm.md schema), written here by hand
 * for sizes [8, 12]: fifo = layer 1 then layer 0; optimal = both at once. */
static const char *doc_ok =
    "{\"model\": {\"name\": \"tiny\", \"layers\": 2, \"gradients\": 2, \"bytes\": 20},"
    " \"policies\": ["
    "  {\"name\": \"fifo\", \"blocks\": ["
    "    {\"first_layer\": 1, \"last_layer\": 1, \"bytes\": 12, \"post_s\": 0.001,"
    "     \"ranges\": [{\"offset_bytes\": 8, \"bytes\": 12}]},"
    "    {\"first_layer\": 0, \"last_layer\": 0, \"bytes\": 8, \"post_s\": 0.002,"
    "     \"ranges\": [{\"offset_bytes\": 0, \"bytes\": 8}]}]},"
    "  {\"name\": \"optimal\", \"blocks\": ["
    "    {\"first_layer\": 0, \"last_layer\": 1, \"bytes\": 20, \"post_s\": 0.002,"
    "     \"ranges\": [{\"offset_bytes\": 0, \"bytes\": 20}]}]}]}";

static void test_json(void **state)
{
    const double bytes[] = {8, 12};
    struct slo_comm_model m;
    struct slo__prophet_schedule p;
    slo_error_t err = {0};
    char names[4][SLO_COMM_NAME_LENGTH];
    size_t n;
    (void)state;
    make_model(&m, bytes, NULL, 2);
    assert_int_equal(slo_comm_plan_policies(doc_ok, "d.json", names, 4, &n, &err),
                     SLO_OK);
    assert_int_equal(n, 2);
    assert_string_equal(names[1], "optimal");
    assert_int_equal(parse_map(doc_ok, "d.json", "fifo", &m, NULL, &p, &err), SLO_OK);
    assert_int_equal(p.n_blocks, 2);
    assert_piece(&p, 0, 1, 0, 12);
    assert_piece(&p, 1, 0, 0, 8);
    slo__prophet_schedule_free(&p);
    /* registered at half size: [4, 8] (elem 4), optimal = one block */
    {
        const size_t S[] = {4, 8};
        assert_int_equal(parse_map(doc_ok, "d.json", "optimal", &m, S, &p, &err), SLO_OK);
        assert_int_equal(p.n_blocks, 1);
        assert_int_equal(p.block_bytes[0], 12);
        assert_piece(&p, 0, 0, 0, 4);
        assert_piece(&p, 1, 1, 0, 8);
        slo__prophet_schedule_free(&p);
    }
    /* errors: the message names the file and what was found */
    assert_int_equal(parse_map(doc_ok, "d.json", "ddp", &m, NULL, &p, &err),
                     SLO_ERR_INVALID);
    assert_string_equal(err.source, "d.json");
    assert_non_null(strstr(err.text, "expected a policy named \"ddp\", found fifo, optimal"));
    {   /* (trial finding M8) the same policy twice: before, the first entry was
         * used for both and the second never validated; now refused */
        static const char *dup =
            "{\"model\": {\"name\": \"tiny\", \"layers\": 2, \"gradients\": 2, \"bytes\": 20},"
            " \"policies\": [{\"name\": \"optimal\", \"blocks\": []},"
            " {\"name\": \"fifo\", \"blocks\": []}, {\"name\": \"optimal\", \"blocks\": 7}]}";
        assert_int_equal(slo_comm_plan_policies(dup, "dup.json", names, 4, &n, &err),
                         SLO_ERR_INVALID);
        assert_string_equal(err.source, "dup.json");
        assert_non_null(strstr(err.text, "policies[2].name: expected each policy once, found "
                                         "\"optimal\" again (policies[0]"));
    }
    assert_int_equal(parse_map(doc_ok, "d.json", NULL, &m, NULL, &p, &err),
                     SLO_ERR_INVALID);
    assert_non_null(strstr(err.text, "expected exactly one policy"));
    slo_comm_model_free(&m);
    {   /* a plan for a three-layer model */
        const double b3[] = {8, 12, 4};
        make_model(&m, b3, NULL, 3);
        assert_int_equal(parse_map(doc_ok, "d.json", "fifo", &m, NULL, &p, &err),
                         SLO_ERR_INVALID);
        assert_non_null(strstr(err.text, "model.layers: expected 3 (the registered gradient "
                                         "list, model \"tiny\"), found 2"));
        slo_comm_model_free(&m);
    }
    {   /* the same layer count, other bytes */
        const double b2[] = {8, 16};
        make_model(&m, b2, NULL, 2);
        assert_int_equal(parse_map(doc_ok, "d.json", "fifo", &m, NULL, &p, &err),
                         SLO_ERR_INVALID);
        assert_non_null(strstr(err.text, "model.bytes: expected 24"));
        slo_comm_model_free(&m);
    }
    make_model(&m, bytes, NULL, 2);
    {   /* malformed documents */
        static const struct { const char *text, *needle; } bad[] = {
            {"{\"policies\": [", "expected `slo comm --json` output, found no JSON"},
            {"[1, 2]", "expected an object (`slo comm --json` output), found a list"},
            {"{\"model\": {\"layers\": 2, \"bytes\": 20}}",
             "policies: expected a list (`slo comm --json` output), found it missing"},
            {"{\"policies\": []}", "model.layers: expected the number of layers"},
            {"{\"model\": {\"layers\": 2, \"bytes\": 20}, \"policies\": [{\"name\": \"fifo\","
             " \"blocks\": [{\"first_layer\": 1, \"last_layer\": 1, \"bytes\": 12,"
             " \"ranges\": [{\"offset_bytes\": 8, \"bytes\": -12}]}]}]}",
             "policies[0].blocks[0].ranges[0].bytes: expected a number > 0, found -12"},
            {"{\"model\": {\"layers\": 2, \"bytes\": 20}, \"policies\": [{\"name\": \"fifo\","
             " \"blocks\": [{\"first_layer\": 1, \"last_layer\": 1, \"bytes\": 12,"
             " \"ranges\": [{\"offset_bytes\": \"8\", \"bytes\": 12}]}]}]}",
             "ranges[0].offset_bytes: expected a number >= 0, found the string \"8\""},
            {"{\"model\": {\"layers\": 2, \"bytes\": 20}, \"policies\": [{\"name\": \"fifo\","
             " \"blocks\": [{\"first_layer\": 1, \"last_layer\": 1, \"bytes\": 10,"
             " \"ranges\": [{\"offset_bytes\": 8, \"bytes\": 12}]}]}]}",
             "blocks[0].bytes: expected 12 (the sum of its ranges), found 10"},
            {"{\"model\": {\"layers\": 2, \"bytes\": 20}, \"policies\": [{\"name\": \"fifo\","
             " \"blocks\": [{\"first_layer\": 1, \"last_layer\": 1, \"bytes\": 12,"
             " \"ranges\": [{\"offset_bytes\": 8, \"bytes\": 12}]}]}]}",
             "found bytes 0..8 in no block"},
        };
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            int rc = parse_map(bad[i].text, "b.json", "fifo", &m, NULL, &p, &err);
            if (rc != SLO_ERR_INVALID || !strstr(err.text, bad[i].needle) ||
                strcmp(err.source, "b.json") != 0) {
                print_error("case %zu: rc %d, \"%s: %s\", expected \"%s\"\n", i, rc, err.source,
                            err.text, bad[i].needle);
                fail();
            }
            assert_null(p.pieces);
        }
    }
    slo_comm_model_free(&m);
}

/* Checksums tell lists and plans apart. */
static void test_checksums(void **state)
{
    size_t a[] = {8, 0, 12}, b[] = {8, 0, 16}, c[] = {8, 12};
    size_t G[] = {8, 8}, start[] = {0, 1, 2}, bbytes[] = {8, 8}, hold[] = {2, 2};
    struct slo__prophet_piece pieces[] = {{0, 0, 8}, {1, 0, 8}};
    struct slo__prophet_schedule p = {"x", 4, 2, G, 2, start, bbytes, hold, 2, pieces};
    uint64_t h;
    (void)state;
    assert_true(slo__prophet_grads_checksum(a, 3, 4) == slo__prophet_grads_checksum(a, 3, 4));
    assert_true(slo__prophet_grads_checksum(a, 3, 4) != slo__prophet_grads_checksum(b, 3, 4));
    assert_true(slo__prophet_grads_checksum(a, 3, 4) != slo__prophet_grads_checksum(c, 2, 4));
    assert_true(slo__prophet_grads_checksum(a, 3, 4) != slo__prophet_grads_checksum(a, 3, 8));
    h = slo__prophet_schedule_checksum(&p);
    hold[0] = 1;
    assert_true(h != slo__prophet_schedule_checksum(&p));
    hold[0] = 2;
    assert_true(h == slo__prophet_schedule_checksum(&p));
    snprintf(p.policy, sizeof p.policy, "other"); /* the name does not count */
    assert_true(h == slo__prophet_schedule_checksum(&p));
}

/* The built-in ResNet-50 (PipeDream profile: 176 layers, 107 with bytes;
 * doc/comm.md) planned by every runtime policy on a 10 Gbit/s, 4-worker
 * ring: each plan tiles every gradient once (plan_check), and FIFO's plan
 * is by definition one block per gradient, highest index first. */
static void test_resnet50_policies(void **state)
{
    struct slo_comm_model m;
    struct slo_comm_link link = {1.25e9, 20e-6, 4, SLO_COMM_RING, 1};
    slo_error_t err = {0};
    const int pol[] = {SLO_COMM_FIFO, SLO_COMM_DDP, SLO_COMM_PROPHET, SLO_COMM_OPTIMAL};
    (void)state;
    assert_int_equal(slo_comm_model_builtin("resnet50", &m, &err), SLO_OK);
    for (size_t i = 0; i < 4; i++) {
        struct slo__prophet_schedule p;
        double predicted = 0;
        assert_int_equal(plan_policy(&m, &link, pol[i], &p, &predicted, &err), SLO_OK);
        assert_int_equal(slo__prophet_schedule_check(&p, &err), SLO_OK);
        assert_true(predicted > 0);
        if (pol[i] == SLO_COMM_FIFO) {
            size_t g = m.n_layers;
            assert_int_equal(p.n_blocks, 107);
            for (size_t b = 0; b < p.n_blocks; b++) {
                while (g > 0 && m.layers[g - 1].grad_bytes == 0)
                    g--;
                g--;
                assert_int_equal(p.block_start[b + 1] - p.block_start[b], 1);
                assert_piece(&p, p.block_start[b], g, 0, (size_t)m.layers[g].grad_bytes);
            }
        }
        slo__prophet_schedule_free(&p);
    }
    slo_comm_model_free(&m);
}

/* Layer sizes that are not whole elements (review): a model of 1002, 2002
 * and 3002 bytes, registered as fp32 buffers of 1004, 2004 and 3004 bytes.
 * The kernel's plan rounds every boundary to elements (1004, 3004 and the
 * end 6008: slo_comm.h "Plans"), so plan space is those rounded layer spans;
 * every policy's plan must map and tile the registered bytes exactly once.
 * By hand for FIFO: one block per gradient in backward order, gradient 2
 * whole (3004 bytes), then 1 (2004), then 0 (1004). */
static void test_uneven_layer_bytes(void **state)
{
    const double bytes[] = {1002, 2002, 3002};
    const size_t S[] = {1004, 2004, 3004};
    struct slo_comm_model m;
    struct slo_comm_link link = {1e9, 1e-5, 4, SLO_COMM_RING, 1};
    slo_error_t err = {0};
    (void)state;
    make_model(&m, bytes, NULL, 3);
    for (int pol = 0; pol < SLO_COMM_N_POLICIES; pol++) {
        struct slo_comm_problem prob = {&m, &link};
        struct slo_comm_options opt;
        struct slo_comm_result r;
        struct slo__prophet_schedule p;
        size_t per_grad[3] = {0, 0, 0};
        slo_comm_options_init(&opt);
        opt.policy = pol;
        assert_int_equal(slo_comm_solve(&prob, &opt, &r, &err), SLO_OK);
        assert_int_equal(r.plan.total_bytes, 6008);
        if (slo__prophet_schedule_map(&r.plan, &m, S, 3, 4, &p, &err) != SLO_OK)
            fail_msg("%s: %s: %s", slo_comm_policy_name(pol), err.source, err.text);
        assert_int_equal(slo__prophet_schedule_check(&p, &err), SLO_OK);
        for (size_t k = 0; k < p.n_pieces; k++)
            per_grad[p.pieces[k].grad] += p.pieces[k].bytes;
        for (size_t g = 0; g < 3; g++)
            assert_int_equal(per_grad[g], S[g]);
        if (pol == SLO_COMM_FIFO) {
            assert_int_equal(p.n_blocks, 3);
            assert_piece(&p, 0, 2, 0, 3004);
            assert_piece(&p, 1, 1, 0, 2004);
            assert_piece(&p, 2, 0, 0, 1004);
        }
        slo__prophet_schedule_free(&p);
        slo_comm_result_free(&r);
    }
    slo_comm_model_free(&m);
}

/* tests/runtime/small_layers.csv (its README): Prophet's partitions are
 * quarters and halves of layers, so at half the size every block is exactly
 * half its plan-space size, and the blocks keep their order. */
static void test_fixture_half(void **state)
{
    const char *src = getenv("SLO_SRCDIR");
    char path[4096];
    struct slo_comm_model m;
    struct slo_comm_link link = {1.25e8, 20e-6, 2, SLO_COMM_RING, 1};
    struct slo_comm_result r = {0};
    struct slo__prophet_schedule p;
    size_t S[5];
    slo_error_t err = {0};
    (void)state;
    snprintf(path, sizeof path, "%s/tests/runtime/small_layers.csv", src ? src : ".");
    if (slo_comm_model_load(path, -1, &m, &err)) {
        print_message("skipped: %s: %s (set SLO_SRCDIR)\n", err.source, err.text);
        skip();
    }
    assert_int_equal(m.n_layers, 5);
    for (size_t j = 0; j < 5; j++)
        S[j] = (size_t)m.layers[j].grad_bytes / 2;
    assert_int_equal(slo_comm_simulate(&m, &link, NULL, SLO_COMM_PROPHET, &r, &err), SLO_OK);
    assert_int_equal(slo__prophet_schedule_from_messages(r.messages, r.n_messages, &m, S, 4,
                                                    NULL, "prophet", &p, &err),
                     SLO_OK);
    assert_int_equal(p.n_blocks, r.n_blocks);
    for (size_t k = 0, b = 0; k < r.n_messages; b++) {
        double sum = 0;
        size_t blk = r.messages[k].block;
        for (; k < r.n_messages && r.messages[k].block == blk; k++)
            sum += r.messages[k].bytes;
        assert_true(fabs(2.0 * (double)p.block_bytes[b] - sum) < 1e-6);
    }
    slo__prophet_schedule_free(&p);
    slo_comm_result_free(&r);
    slo_comm_model_free(&m);
}

/* Plan files are read by the kernel's one reader (slo_comm_plan_load; the
 * runtime has no file reader of its own): a missing file is SLO_ERR_IO
 * naming the path, and the plan is left empty. */
static void test_read_file(void **state)
{
    struct slo_comm_plan kp;
    slo_error_t err = {0};
    (void)state;
    assert_int_equal(slo_comm_plan_load("/nonexistent/plan.json", NULL, 4, &kp, &err),
                     SLO_ERR_IO);
    assert_string_equal(err.source, "/nonexistent/plan.json");
    assert_non_null(strstr(err.text, "cannot open"));
    assert_null(kp.ranges);
}

/* (issue 15) The plan reader the runtime uses is strict: a range with
 * offset_bytes twice (the duplicate placed before the real one, so that
 * with jansson's default "the last wins" the plan would still parse and
 * map) is refused naming the key given twice; a plan of 100 MB (a real
 * plan padded with blanks: still valid JSON) is refused by
 * slo_comm_plan_load at the kernel's 64 MiB input limit. Both were taken
 * before (the fuzzing campaign of issue 15). */
static void test_strict_reader(void **state)
{
    struct slo_comm_model m;
    struct slo_comm_link link = {1.25e9, 20e-6, 4, SLO_COMM_RING, 1};
    struct slo_comm_problem prob = {&m, &link};
    struct slo_comm_options opt;
    struct slo_comm_result r;
    struct slo_comm_plan kp;
    slo_error_t err = {0};
    char *text = NULL, *dup, *at, path[] = "/tmp/slo_test_plan_XXXXXX";
    const char *key = "\"offset_bytes\": ";
    size_t n, pad = (size_t)100 * 1000 * 1000, off;
    FILE *f;
    int fd;
    (void)state;
    assert_int_equal(slo_comm_model_builtin("resnet50", &m, &err), SLO_OK);
    slo_comm_options_init(&opt);
    opt.policy = SLO_COMM_FIFO;
    assert_int_equal(slo_comm_solve(&prob, &opt, &r, &err), SLO_OK);
    assert_int_equal(slo_comm_plan_to_json(&r.plan, &text, &err), SLO_OK);
    /* the unedited text is a plan: what follows changes only the key */
    assert_int_equal(slo_comm_plan_parse(text, "p.json", NULL, 4, &kp, &err), SLO_OK);
    slo_comm_plan_free(&kp);
    n = strlen(text);
    assert_non_null(at = strstr(text, key));
    off = (size_t)(at - text);
    assert_non_null(dup = malloc(n + 64));
    memcpy(dup, text, off);
    off += (size_t)sprintf(dup + off, "\"offset_bytes\": 12345678, ");
    memcpy(dup + off, at, n - (size_t)(at - text) + 1);
    assert_int_equal(slo_comm_plan_parse(dup, "dup.json", NULL, 4, &kp, &err), SLO_ERR_INVALID);
    assert_string_equal(err.source, "dup.json");
    assert_non_null(strstr(err.text, "a key given twice"));
    assert_non_null(strstr(err.text, "offset_bytes"));
    assert_null(kp.ranges);
    free(dup);
    /* 100 MB: the plan, then blanks */
    assert_true((fd = mkstemp(path)) >= 0);
    assert_non_null(f = fdopen(fd, "w"));
    assert_int_equal(fwrite(text, 1, n, f), n);
    {
        char blanks[65536];
        memset(blanks, ' ', sizeof blanks);
        for (size_t k = n; k < pad; k += sizeof blanks)
            assert_int_equal(fwrite(blanks, 1, sizeof blanks, f), sizeof blanks);
    }
    assert_int_equal(fclose(f), 0);
    assert_int_equal(slo_comm_plan_load(path, NULL, 4, &kp, &err), SLO_ERR_INVALID);
    assert_string_equal(err.source, path);
    assert_non_null(strstr(err.text, "expected an input of at most 64 MiB, found more"));
    assert_null(kp.ranges);
    assert_int_equal(unlink(path), 0);
    free(text);
    slo_comm_result_free(&r);
    slo_comm_model_free(&m);
}

/* A plan object written by the kernel (slo_comm_plan_to_json) is a plan
 * file too: read back through the kernel's reader it maps to the very
 * plan slo_comm_solve made, mapped (same blocks, pieces, holds and
 * checksum: Prophet's holds survive the JSON as "hold_layer"). */
static void test_plan_object(void **state)
{
    struct slo_comm_model m;
    struct slo_comm_link link = {1.25e9, 20e-6, 4, SLO_COMM_RING, 1};
    struct slo_comm_problem prob = {&m, &link};
    struct slo_comm_options opt;
    struct slo_comm_result r;
    struct slo__prophet_schedule a, b;
    char names[2][SLO_COMM_NAME_LENGTH];
    size_t n = 0;
    slo_error_t err = {0};
    char *text = NULL;
    (void)state;
    assert_int_equal(slo_comm_model_builtin("resnet50", &m, &err), SLO_OK);
    slo_comm_options_init(&opt);
    opt.policy = SLO_COMM_PROPHET;
    assert_int_equal(slo_comm_solve(&prob, &opt, &r, &err), SLO_OK);
    assert_int_equal(slo_comm_plan_to_json(&r.plan, &text, &err), SLO_OK);
    assert_int_equal(slo_comm_plan_policies(text, "p.json", names, 2, &n, &err), SLO_OK);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "prophet");
    assert_int_equal(parse_map(text, "p.json", NULL, &m, NULL, &b, &err), SLO_OK);
    assert_int_equal(plan_policy(&m, &link, SLO_COMM_PROPHET, &a, NULL, &err), SLO_OK);
    assert_int_equal(a.n_blocks, b.n_blocks);
    assert_int_equal(a.n_pieces, b.n_pieces);
    assert_true(slo__prophet_schedule_checksum(&a) == slo__prophet_schedule_checksum(&b));
    slo__prophet_schedule_free(&a);
    slo__prophet_schedule_free(&b);
    free(text);
    slo_comm_result_free(&r);
    slo_comm_model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_scaled_mapping),
        cmocka_unit_test(test_ranges_and_drop),
        cmocka_unit_test(test_validation_errors),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_hold_and_sched),
        cmocka_unit_test(test_order_rule),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_checksums),
        cmocka_unit_test(test_resnet50_policies),
        cmocka_unit_test(test_fixture_half),
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_strict_reader),
        cmocka_unit_test(test_plan_object),
        cmocka_unit_test(test_uneven_layer_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
