/*
 * test_alloc_fail.c - allocation-failure sweep of libslo's public calls
 * (issue 15 item 5; jansson's approach in its test suite: fail the Nth
 * allocation, for every N, until a run completes).
 *
 * The test is linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,
 * --wrap=free,--wrap=json_loadb against the convenience library kernel/libslo-internal.la, so
 * every allocation of the kernel's objects comes here; jansson's come here
 * too through json_set_alloc_funcs. For each public call (readers, solves,
 * writers, fits) and N = 0, 1, 2, ... the sweep fails exactly the Nth
 * allocation the call makes and checks, for every N:
 *  - the call returns SLO_ERR_NOMEM (a char * writer returns NULL), never
 *    another code, never success with an allocation refused;
 *  - nothing leaks: every block the call allocated is freed by the call or by
 *    the documented release function (the wrappers count live blocks; the
 *    suite also runs this test under valgrind, make check-valgrind);
 *  - it does not crash (a crash fails the test).
 * The sweep for a call ends at the first N the call does not reach (it made
 * fewer than N + 1 allocations): that run must succeed. One success with an
 * allocation refused is allowed: a documented fallback that needs no memory
 * (igniter_plan.c's sort), and only when the result equals the one with
 * every allocation granted. Each N runs in a child process (a refusal inside
 * jansson's parser can corrupt jansson's heap, below); under valgrind the
 * sweep runs in process and refuses no allocation of jansson's parser.
 * jansson's hash seed is fixed, so every run makes the same allocations.
 * The test prints the number of allocations failed per call and in total.
 * Allocations made inside other libraries (libc's fopen, LAPACK) are not
 * failed: they are not the kernel's code.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <setjmp.h>
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <execinfo.h>

#include "slo.h"

/* Under valgrind a child per refusal costs a leak check each: the sweep
 * then runs in process and does not refuse jansson's parser (below). */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define UNDER_VALGRIND() RUNNING_ON_VALGRIND
#endif
#endif
#ifndef UNDER_VALGRIND
#define UNDER_VALGRIND() 0
#endif

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);
json_t *__real_json_loadb(const char *buffer, size_t len, size_t flags, json_error_t *e);
json_t *__wrap_json_loadb(const char *buffer, size_t len, size_t flags, json_error_t *e);

/* ------------------------------------------------------------------ */
/* The allocator: counts, fails the chosen one, tracks live blocks     */
/* ------------------------------------------------------------------ */

static int armed;           /* 1 while a swept call runs */
static long n_allocs;       /* allocations seen while armed */
static long fail_at = -1;   /* index of the allocation to refuse */
static int refused;         /* 1 once it was refused */
static int trace;           /* print the refused allocation's stack */
static volatile sig_atomic_t in_json_load; /* in jansson's parser (below) */
static int report_fd = -1;  /* a sweep child's pipe to the parent */
static int refused_in_parser; /* the refusal was inside json_loadb */

/* Live blocks allocated through the wrappers: an open-addressing set of
 * pointers (blocks from elsewhere, e.g. libc's, are freed untracked). */
#define LIVE_SLOTS ((size_t)1 << 16)
static void **live;
/* For each live block, the json_loadb call it was allocated in (0: none);
 * a call that returned NULL owns what it left: jansson's, not the kernel's. */
static long *live_load;
static long load_seq, cur_load;
#define MAX_LOADS 65536
static char load_failed[MAX_LOADS];
static size_t n_live;
#define TOMB ((void *)1)

static size_t slot_of(const void *p)
{
    return (size_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull) & (LIVE_SLOTS - 1);
}

static void live_add(void *p)
{
    if (!p)
        return;
    if (!live) {
        live = __real_calloc(LIVE_SLOTS, sizeof *live);
        live_load = __real_calloc(LIVE_SLOTS, sizeof *live_load);
        if (!live || !live_load)
            abort();
    }
    if (n_live > LIVE_SLOTS / 2) {
        fprintf(stderr, "test_alloc_fail: more than %zu live blocks\n", LIVE_SLOTS / 2);
        abort();
    }
    size_t i = slot_of(p);
    while (live[i] && live[i] != TOMB)
        i = (i + 1) & (LIVE_SLOTS - 1);
    live[i] = p;
    live_load[i] = cur_load;
    n_live++;
}

static void live_remove(void *p)
{
    if (!p || !live)
        return;
    for (size_t i = slot_of(p); live[i]; i = (i + 1) & (LIVE_SLOTS - 1))
        if (live[i] == p) {
            live[i] = TOMB;
            n_live--;
            return;
        }
}

/* 1 when this allocation is the one to refuse. */
#define MAX_TRACKED ((long)1 << 16)
static char in_parser_at[MAX_TRACKED]; /* reference run: allocation i was jansson's parser's */

static int refuse_this(void)
{
    if (!armed)
        return 0;
    if (fail_at < 0 && n_allocs < MAX_TRACKED)
        in_parser_at[n_allocs] = (char)in_json_load;
    if (n_allocs++ == fail_at) {
        refused = 1;
        refused_in_parser = in_json_load;
        if (in_json_load && report_fd >= 0 && write(report_fd, "P", 1) != 1)
            abort();
        if (trace) { /* SLO_ALLOC_FAIL_TRACE=CALL:N: where allocation N of CALL is */
            void *frames[16];
            backtrace_symbols_fd(frames, backtrace(frames, 16), 2);
        }
        return 1;
    }
    return 0;
}

void *__wrap_malloc(size_t size)
{
    if (refuse_this())
        return NULL;
    void *p = __real_malloc(size);
    live_add(p);
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    if (refuse_this())
        return NULL;
    void *p = __real_calloc(n, size);
    live_add(p);
    return p;
}

void *__wrap_realloc(void *old, size_t size)
{
    if (refuse_this())
        return NULL; /* old stays allocated, as realloc leaves it */
    void *p = __real_realloc(old, size);
    if (p) {
        live_remove(old);
        live_add(p);
    }
    return p;
}

void __wrap_free(void *p)
{
    live_remove(p);
    __real_free(p);
}

/* jansson 2.14's parser is not safe when an allocation fails: its lexer
 * drops a character it cannot save (load.c lex_save ignores
 * strbuffer_append_byte's error), then reads and writes past a 16-byte
 * buffer or stops at assert(0) in lex_scan_string (valgrind: "Invalid write
 * of size 1" in json_loadb, for tests/mpiprof/real-quick-np4.json with its
 * 4th allocation refused). That is jansson's fault, not the kernel's: each
 * refusal runs in a child process (run_child), and a child that dies after
 * a refusal inside json_loadb (the kernel's one entry to jansson's parser,
 * --wrap=json_loadb), or whose jansson block canary (json_malloc) is broken
 * after such a refusal, is counted as such; any other death, overrun or
 * leak fails the test. */

json_t *__wrap_json_loadb(const char *buffer, size_t len, size_t flags, json_error_t *e)
{
    in_json_load = 1;
    cur_load = ++load_seq < MAX_LOADS ? load_seq : MAX_LOADS - 1;
    load_failed[cur_load] = 0;
    json_t *v = __real_json_loadb(buffer, len, flags, e);
    load_failed[cur_load] = !v;
    cur_load = 0;
    in_json_load = 0;
    return v;
}

/* Live blocks, split: left by a json_loadb that failed (jansson's) or not. */
static void count_live(size_t *kernel, size_t *jansson)
{
    *kernel = *jansson = 0;
    for (size_t i = 0; live && i < LIVE_SLOTS; i++)
        if (live[i] && live[i] != TOMB) {
            if (live_load[i] && load_failed[live_load[i]])
                (*jansson)++;
            else
                (*kernel)++;
        }
}

/* jansson's blocks carry a canary after the bytes asked for: a write past
 * the end (jansson's lexer above) is seen when the block is freed. */
#define CANARY_LEN 16
static const unsigned char canary[CANARY_LEN] = "slo-canary-0123";
static int canary_broken; /* a jansson block was overrun */

static void *json_malloc(size_t size)
{
    unsigned char *b = __wrap_malloc(size + 16 + CANARY_LEN);
    if (!b)
        return NULL;
    memcpy(b, &size, sizeof size);
    memcpy(b + 16 + size, canary, CANARY_LEN);
    return b + 16;
}

static void json_free(void *p)
{
    if (!p)
        return;
    unsigned char *b = (unsigned char *)p - 16;
    size_t size;
    memcpy(&size, b, sizeof size);
    if (memcmp(b + 16 + size, canary, CANARY_LEN) != 0)
        canary_broken = 1;
    __wrap_free(b);
}

/* ------------------------------------------------------------------ */
/* The sweep                                                           */
/* ------------------------------------------------------------------ */

/* One public call with its inputs prepared outside the sweep: returns the
 * call's code and releases whatever the call gave back. */
typedef int (*call_fn)(slo_error_t *err);

static long total_sites, total_tolerated, total_jansson_aborts;

/* What a call produced, for calls that may succeed with an allocation
 * refused (a documented fallback that needs no memory): such a success
 * counts only when the result equals the one with every allocation granted. */
static char digest[4096], digest_ref[4096];

/* Fail allocation N for N = 0, 1, ... of call; name identifies it. */
/* What one run of a call did (written by the child to the parent). */
struct outcome {
    int rc;
    int refused;     /* the chosen allocation was reached and refused */
    long n_allocs;   /* allocations the call made */
    size_t leaked;   /* blocks it left allocated (the kernel's) */
    size_t leaked_jansson; /* blocks a failed json_loadb left (jansson's) */
    int in_parser;   /* the refused allocation was jansson's parser's */
    int overrun;     /* jansson wrote past one of its blocks */
    int same;        /* its digest equals the reference run's */
    char source[SLO_ERROR_SOURCE_LENGTH];
    char text[SLO_ERROR_TEXT_LENGTH];
};

/* Run call with allocation n refused (n < 0: none), in this process. */
static struct outcome run_here(call_fn call, long n, int do_trace)
{
    struct outcome o;
    slo_error_t err;
    memset(&o, 0, sizeof o);
    memset(&err, 0, sizeof err);
    digest[0] = '\0';
    size_t k0, j0, k1, j1;
    count_live(&k0, &j0);
    n_allocs = 0;
    fail_at = n;
    refused = 0;
    refused_in_parser = 0;
    canary_broken = 0;
    trace = do_trace;
    armed = 1;
    o.rc = call(&err);
    armed = 0;
    o.refused = refused;
    o.in_parser = refused_in_parser;
    o.overrun = canary_broken;
    o.n_allocs = n_allocs;
    count_live(&k1, &j1);
    o.leaked = k1 > k0 ? k1 - k0 : 0;
    o.leaked_jansson = j1 > j0 ? j1 - j0 : 0;
    o.same = digest_ref[0] && strcmp(digest, digest_ref) == 0;
    snprintf(o.source, sizeof o.source, "%s", err.source);
    snprintf(o.text, sizeof o.text, "%s", err.text);
    return o;
}

/* Run call with allocation n refused, in a child process: a refusal can
 * crash a library the kernel calls (jansson, above), and a crash must not
 * take the test's own heap with it. Returns the outcome; *in_parser is 1
 * when the refused allocation was jansson's parser's, *died the child's
 * signal (0 when it exited). */
static struct outcome run_child(call_fn call, long n, int do_trace, int *in_parser, int *died)
{
    struct outcome o;
    int fd[2];
    memset(&o, 0, sizeof o);
    *in_parser = 0;
    *died = 0;
    if (pipe(fd) != 0)
        fail_msg("pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        fail_msg("fork: %s", strerror(errno));
    if (pid == 0) {
        close(fd[0]);
        report_fd = fd[1];
        o = run_here(call, n, do_trace);
        char tag = 'R';
        if (write(fd[1], &tag, 1) != 1 || write(fd[1], &o, sizeof o) != (ssize_t)sizeof o)
            _exit(3);
        _exit(0);
    }
    close(fd[1]);
    char tag;
    int got = 0;
    while (read(fd[0], &tag, 1) == 1) {
        if (tag == 'P')
            *in_parser = 1;
        else if (tag == 'R' && read(fd[0], &o, sizeof o) == (ssize_t)sizeof o)
            got = 1;
    }
    close(fd[0]);
    int status;
    if (waitpid(pid, &status, 0) != pid)
        fail_msg("waitpid: %s", strerror(errno));
    if (WIFSIGNALED(status))
        *died = WTERMSIG(status);
    else if (!got || WEXITSTATUS(status) != 0)
        *died = -1;
    return o;
}

/* Fail allocation N for N = 0, 1, ... of call; name identifies it. */
static void sweep(const char *name, call_fn call)
{
    long n, tolerated = 0, jansson_faults = 0, not_refused = 0;
    const char *t = getenv("SLO_ALLOC_FAIL_TRACE"), *only = getenv("SLO_ALLOC_FAIL_ONLY");
    int vg = UNDER_VALGRIND();
    if (only && strcmp(only, name) != 0)
        skip(); /* debugging one call: SLO_ALLOC_FAIL_ONLY=NAME */
    /* the reference run, nothing refused: its result, and which allocations
     * are jansson's parser's (the first n of a run refusing allocation n are
     * the reference run's: the calls are deterministic) */
    digest_ref[0] = '\0';
    struct outcome ref = run_here(call, -1, 0);
    if (ref.rc != SLO_OK || ref.leaked)
        fail_msg("%s: with every allocation granted: rc %d (%s: %s), %zu block(s) leaked", name,
                 ref.rc, ref.source, ref.text, ref.leaked);
    memcpy(digest_ref, digest, sizeof digest);
    for (n = 0;; n++) {
        char want[128];
        int in_parser = 0, died = 0;
        struct outcome o;
        snprintf(want, sizeof want, "%s:%ld", name, n);
        if (vg && n < ref.n_allocs && n < MAX_TRACKED && in_parser_at[n]) {
            not_refused++; /* jansson's parser under valgrind: not refused */
            continue;
        }
        if (vg)
            o = run_here(call, n, t && strcmp(t, want) == 0);
        else
            o = run_child(call, n, t && strcmp(t, want) == 0, &in_parser, &died);
        if (died) {
            if (in_parser) { /* jansson's own fault under a refused allocation (above) */
                jansson_faults++;
                continue;
            }
            fail_msg("%s: allocation %ld refused: the call crashed (%s)", name, n,
                     died > 0 ? strsignal(died) : "no outcome");
        }
        if (o.in_parser && (o.overrun || (o.leaked_jansson && !o.leaked))) {
            /* jansson's parser overran a buffer after its allocation failed
             * (canary), or lost what it held: jansson's fault (above) */
            jansson_faults++;
            continue;
        }
        if (o.overrun)
            fail_msg("%s: allocation %ld refused: a jansson block was overrun outside its "
                     "parser", name, n);
        if (o.leaked || o.leaked_jansson)
            fail_msg("%s: allocation %ld refused: %zu block(s) leaked, %zu by jansson's parser "
                     "(rc %d %s: %s)", name, n, o.leaked, o.leaked_jansson, o.rc, o.source,
                     o.text);
        if (!o.refused) {
            if (o.rc != SLO_OK)
                fail_msg("%s: with every allocation granted: rc %d %s: %s", name, o.rc,
                         o.source, o.text);
            break;
        }
        if (o.rc == SLO_OK && o.same) {
            tolerated++; /* the fallback gave the same result */
            continue;
        }
        if (o.rc != SLO_ERR_NOMEM)
            fail_msg("%s: allocation %ld of %ld refused: expected SLO_ERR_NOMEM (%d), found %s "
                     "(%d) \"%s: %s\"",
                     name, n, o.n_allocs, SLO_ERR_NOMEM, slo_code_name(o.rc), o.rc, o.source,
                     o.text);
    }
    assert_true(n >= 1); /* the call allocates: a sweep that failed nothing tests nothing */
    n -= not_refused;
    printf("%-22s %5ld allocations failed one at a time: %5ld SLO_ERR_NOMEM, %ld same result "
           "(fallback), %ld faults inside jansson's parser, 0 leaks%s\n",
           name, n, n - tolerated - jansson_faults, tolerated, jansson_faults,
           not_refused ? " (valgrind: jansson's parser not refused)" : "");
    total_sites += n;
    total_tolerated += tolerated;
    total_jansson_aborts += jansson_faults;
}

/* A char * writer: NULL is its SLO_ERR_NOMEM. */
static int writer_rc(char *text, slo_error_t *err)
{
    if (!text)
        return slo_error_set(err, SLO_ERR_NOMEM, "writer", "returned NULL");
    free(text);
    return SLO_OK;
}

/* ------------------------------------------------------------------ */
/* Inputs (the shipped defaults and the test fixtures)                 */
/* ------------------------------------------------------------------ */

static struct slo_catalog cat_spotdnn, cat_aws;
static struct slo_workload wl_resnet110, wl_sync;
static struct slo_ig_profile v100;
static struct slo_comm_model small_model;
static struct slo_comm_link link_10g = {1.25e9, 20e-6, 4, SLO_COMM_RING, 1};
static struct slo_comm_plan small_plan;
static char *small_plan_json;
static char *profile_json, *profile_np4_json, *upstream_config;
static char log_path[2][256];
static struct slo_train_log logs[2];

/* tests/runtime/small_layers.csv: five layers, two without parameters. */
static const char small_csv[] = "layer_type,forward_ms,backward_ms,param_bytes\n"
                                "Conv2d,2,4,8192000\n"
                                "ReLU,1,1,0\n"
                                "Conv2d,3,6,4096000\n"
                                "BatchNorm2d,1,1,4096\n"
                                "Linear,2,3,16384000\n";

/* Two training logs of one worker each on two clusters of the spotdnn
 * catalog (the model of tests/cli_fit.sh: loss = (-0.2 b_w + 2507.6)
 * sqrt(n) / (j + 876.5) + 0.5, spotdnn-2023 without gamma4): 12 rows each. */
static void write_log(int k, const char *cluster, double bw, int n)
{
    snprintf(log_path[k], sizeof log_path[k], "%s/slo-alloc-fail-%ld-%d.csv",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid(),
             k);
    FILE *f = fopen(log_path[k], "w");
    assert_non_null(f);
    fprintf(f, "# cluster: %s\ntime_s,global_step,global_samples,loss\n", cluster);
    for (int i = 1; i <= 12; i++) {
        double step = i * 400.0, samples = step * bw, j = samples / bw;
        fprintf(f, "%d,%.0f,%.0f,%.10f\n", i * 10, step, samples,
                (-0.2 * bw + 2507.6) * sqrt(n) / (j + 876.5) + 0.5);
    }
    assert_int_equal(fclose(f), 0);
}

/* A file of the source tree ($SLO_SRCDIR), read before any sweep. */
static char *read_src(const char *rel)
{
    char path[1024];
    const char *src = getenv("SLO_SRCDIR");
    snprintf(path, sizeof path, "%s/%s", src ? src : "..", rel);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s (SLO_SRCDIR: the source tree)", path);
    char *t = calloc(1 << 16, 1);
    assert_non_null(t);
    assert_true(fread(t, 1, (1 << 16) - 1, f) > 0);
    assert_true(feof(f)); /* fits in 64 KiB */
    fclose(f);
    return t;
}

static int setup(void **state)
{
    slo_error_t err;
    (void)state;
    json_set_alloc_funcs(json_malloc, json_free);
    /* jansson seeds its hash function from /dev/urandom: objects would then
     * allocate in another order on every run; fixed, every run is the same */
    const char *seed = getenv("SLO_ALLOC_FAIL_SEED");
    json_object_seed(seed ? (size_t)strtoul(seed, NULL, 10) : 1);
    assert_int_equal(slo_catalog_parse(slo_embedded_catalog("spotdnn-resnet110"), "spotdnn",
                                       &cat_spotdnn, &err),
                     SLO_OK);
    assert_int_equal(slo_catalog_parse(slo_embedded_catalog("aws-table3"), "aws", &cat_aws, &err),
                     SLO_OK);
    assert_int_equal(slo_workload_parse(slo_embedded_workload("resnet110"), "resnet110",
                                        &wl_resnet110, &err),
                     SLO_OK);
    assert_int_equal(slo_ig_profile_parse(slo_embedded_gpu_profile("v100"), "v100", &v100, &err),
                     SLO_OK);
    assert_int_equal(slo_comm_model_parse_csv(small_csv, "small", "small", &small_model, &err),
                     SLO_OK);
    struct slo_comm_problem pb = {&small_model, &link_10g};
    struct slo_comm_result res = {0};
    assert_int_equal(slo_comm_solve(&pb, NULL, &res, &err), SLO_OK);
    small_plan = res.plan;
    memset(&res.plan, 0, sizeof res.plan);
    slo_comm_result_free(&res);
    assert_int_equal(slo_comm_plan_to_json(&small_plan, &small_plan_json, &err), SLO_OK);
    profile_json = read_src("tests/mpiprof/reader-good.json");
    profile_np4_json = read_src("tests/mpiprof/real-quick-np4.json");
    upstream_config = read_src("tests/fuzz/corpus/ig_profile/upstream-config.jsonl");
    {
        char *sync_json = read_src("doc/examples/sync-workload.json");
        assert_int_equal(slo_workload_parse(sync_json, "sync-workload.json", &wl_sync, &err),
                         SLO_OK);
        free(sync_json);
    }
    write_log(0, "g3.8xlarge=2", 1000, 2);
    write_log(1, "g4dn.4xlarge=4", 2000, 4);
    for (int k = 0; k < 2; k++)
        assert_int_equal(slo_train_log_load(log_path[k], &logs[k], &err), SLO_OK);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    slo_catalog_free(&cat_spotdnn);
    slo_catalog_free(&cat_aws);
    slo_workload_free(&wl_resnet110);
    slo_workload_free(&wl_sync);
    slo_ig_profile_free(&v100);
    slo_comm_model_free(&small_model);
    slo_comm_plan_free(&small_plan);
    free(small_plan_json);
    free(profile_json);
    free(profile_np4_json);
    free(upstream_config);
    for (int k = 0; k < 2; k++) {
        slo_train_log_free(&logs[k]);
        unlink(log_path[k]);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* The calls                                                           */
/* ------------------------------------------------------------------ */

static int c_catalog_parse(slo_error_t *err)
{
    struct slo_catalog c;
    int rc = slo_catalog_parse(slo_embedded_catalog("aws-table3"), "aws", &c, err);
    if (rc == SLO_OK)
        slo_catalog_free(&c);
    return rc;
}

static int c_catalog_open(slo_error_t *err)
{
    struct slo_catalog c;
    int rc = slo_catalog_open("spotdnn-resnet110", "--catalog", &c, err);
    if (rc == SLO_OK)
        slo_catalog_free(&c);
    return rc;
}

static int c_workload_parse(slo_error_t *err)
{
    struct slo_workload w;
    int rc = slo_workload_parse(slo_embedded_workload("resnet110"), "resnet110", &w, err);
    if (rc == SLO_OK)
        slo_workload_free(&w);
    return rc;
}

static int c_workload_to_json(slo_error_t *err)
{
    return writer_rc(slo_workload_to_json(&wl_resnet110), err);
}

/* the sync-allreduce profile's writer (sync_model.c's fields) */
static int c_sync_workload_to_json(slo_error_t *err)
{
    return writer_rc(slo_workload_to_json(&wl_sync), err);
}

static int c_train_log_load(slo_error_t *err)
{
    struct slo_train_log log;
    int rc = slo_train_log_load(log_path[0], &log, err);
    if (rc == SLO_OK)
        slo_train_log_free(&log);
    return rc;
}

static int c_train_setup(slo_error_t *err)
{
    struct slo_train_setup s;
    int rc = slo_train_setup_init(&s, &cat_spotdnn, &wl_resnet110, SLO_PRICING_SPOT, err);
    if (rc == SLO_OK)
        slo_train_setup_free(&s);
    return rc;
}

/* The loss fit from logs: samples from the logs, then slo_fit_loss. */
static int c_fit_loss(slo_error_t *err)
{
    struct slo_train_setup s;
    struct slo_loss_sample *samples = NULL;
    size_t n = 0;
    struct slo_loss_model m = wl_resnet110.loss;
    struct slo_fit_report rep;
    int rc = slo_train_setup_init(&s, &cat_spotdnn, &wl_resnet110, SLO_PRICING_SPOT, err);
    if (rc)
        return rc;
    rc = slo_train_logs_to_samples(logs, 2, &s, 0, &samples, &n, err);
    if (rc == SLO_OK)
        rc = slo_fit_loss(samples, n, &m, &rep, err);
    free(samples);
    slo_train_setup_free(&s);
    return rc;
}

static int c_train_solve(slo_error_t *err)
{
    struct slo_train_problem pb = {.catalog = &cat_spotdnn,
                                   .workload = &wl_resnet110,
                                   .pricing = SLO_PRICING_SPOT,
                                   .target_loss = 0.8,
                                   .deadline_s = 2400};
    struct slo_train_options opt;
    struct slo_train_result res;
    slo_train_options_init(&opt);
    opt.max_workers = 5;
    int rc = slo_train_solve(&pb, &opt, &res, err);
    slo_train_result_free(&res);
    return rc;
}

static int c_ig_profile_parse(slo_error_t *err)
{
    struct slo_ig_profile p;
    int rc = slo_ig_profile_parse(slo_embedded_gpu_profile("v100"), "v100", &p, err);
    if (rc == SLO_OK)
        slo_ig_profile_free(&p);
    return rc;
}

static int c_ig_coefficients_json(slo_error_t *err)
{
    return writer_rc(slo_ig_profile_coefficients_json(&v100), err);
}

static const char ig_workloads_text[] =
    "{\"workloads\": [{\"model\": \"ssd\", \"rate_rps\": 150, \"slo_ms\": 25},"
    " {\"model\": \"vgg19\", \"rate_rps\": 200, \"slo_ms\": 40},"
    " {\"model\": \"alexnet\", \"rate_rps\": 500, \"slo_ms\": 15}]}";

static int c_ig_workloads_parse(slo_error_t *err)
{
    struct slo_ig_workload *w = NULL;
    size_t n;
    int rc = slo_ig_workloads_parse(ig_workloads_text, "workloads", &w, &n, err);
    free(w);
    return rc;
}

static int c_infer_solve(slo_error_t *err)
{
    struct slo_ig_workload *w = NULL;
    size_t n;
    struct slo_infer_result res;
    memset(&res, 0, sizeof res);
    int rc = slo_ig_workloads_parse(ig_workloads_text, "workloads", &w, &n, err);
    if (rc == SLO_OK) {
        struct slo_infer_problem pb = {&v100, 1, &cat_aws, SLO_PRICING_ON_DEMAND, NULL, w, n};
        rc = slo_infer_solve(&pb, NULL, &res, err);
        if (rc == SLO_OK) { /* igniter_plan.c sorts without scratch when malloc fails */
            size_t used = (size_t)snprintf(digest, sizeof digest, "%s %.17g %zu:",
                                           slo_status_name(res.status), res.cost_usd_per_h,
                                           res.n_gpus);
            for (size_t k = 0; k < res.n_placements && used < sizeof digest; k++) {
                const struct slo_infer_placement *pl = &res.placements[k];
                used += (size_t)snprintf(digest + used, sizeof digest - used,
                                         " %zu@%zu b%d %.17g%%", pl->workload, pl->gpu,
                                         pl->batch, pl->share_pct);
            }
        }
        slo_infer_result_free(&res);
    }
    free(w);
    return rc;
}

static int c_comm_model_parse(slo_error_t *err)
{
    struct slo_comm_model m;
    int rc = slo_comm_model_parse(slo_embedded_comm_model("vgg16"), "vgg16", "vgg16", -1, &m,
                                  err);
    if (rc == SLO_OK)
        slo_comm_model_free(&m);
    return rc;
}

static int c_comm_solve_optimal(slo_error_t *err)
{
    struct slo_comm_problem pb = {&small_model, &link_10g};
    struct slo_comm_result res;
    int rc = slo_comm_solve(&pb, NULL, &res, err);
    if (rc == SLO_OK)
        slo_comm_result_free(&res);
    return rc;
}

static int c_comm_solve_prophet(slo_error_t *err)
{
    struct slo_comm_problem pb = {&small_model, &link_10g};
    struct slo_comm_options opt;
    struct slo_comm_result res;
    slo_comm_options_init(&opt);
    opt.policy_name = "prophet";
    int rc = slo_comm_solve(&pb, &opt, &res, err);
    if (rc == SLO_OK)
        slo_comm_result_free(&res);
    return rc;
}

static int c_comm_plan_to_json(slo_error_t *err)
{
    char *text = NULL;
    int rc = slo_comm_plan_to_json(&small_plan, &text, err);
    free(text);
    return rc;
}

static int c_comm_plan_parse(slo_error_t *err)
{
    struct slo_comm_plan p;
    int rc = slo_comm_plan_parse(small_plan_json, "plan", NULL, 4, &p, err);
    if (rc == SLO_OK)
        slo_comm_plan_free(&p);
    return rc;
}

static int c_comm_profile_parse(slo_error_t *err)
{
    struct slo_comm_link link;
    struct slo_comm_profile_info info;
    return slo_comm_profile_parse(profile_json, "reader-good.json", &link, &info, err);
}

/* Every published policy and ours, simulated on the small model. */
static int c_comm_simulate(slo_error_t *err)
{
    for (int pol = 0; pol < SLO_COMM_N_POLICIES; pol++) {
        struct slo_comm_result res;
        int rc = slo_comm_simulate(&small_model, &link_10g, NULL, pol, &res, err);
        if (rc)
            return rc;
        slo_comm_result_free(&res);
    }
    return SLO_OK;
}

static int c_comm_model_builtin(slo_error_t *err)
{
    struct slo_comm_model m;
    int rc = slo_comm_model_builtin("resnet50", &m, err);
    if (rc == SLO_OK)
        slo_comm_model_free(&m);
    return rc;
}

/* A gradient ready-time file in Prophet's staircase form (the columns of
 * shared/data/prophet/resnet50_v2_mxnet_prophet_gradients.csv). */
static const char gradients_csv[] = "grad_index,bytes_fp32,prophet_step,step_interval_ms_bs64\n"
                                    "0,4096,2,1.5\n"
                                    "1,8192,1,2.0\n"
                                    "2,8192,1,2.0\n"
                                    "3,65536,0,0.5\n";

static int c_comm_model_gradients(slo_error_t *err)
{
    struct slo_comm_model m;
    int rc = slo_comm_model_parse_gradients(gradients_csv, "gradients", "g", -1, &m, err);
    if (rc == SLO_OK)
        slo_comm_model_free(&m);
    return rc;
}

static int c_comm_detect_steps(slo_error_t *err)
{
    static const double ready[] = {0.03, 0.03, 0.02, 0.02, 0.02, 0.001, 0.0};
    struct slo_comm_steps st;
    int rc = slo_comm_detect_steps(ready, 7, &st, err);
    if (rc == SLO_OK)
        slo_comm_steps_free(&st);
    return rc;
}

static int c_comm_plan_policies(slo_error_t *err)
{
    char names[4][SLO_COMM_NAME_LENGTH];
    size_t n;
    return slo_comm_plan_policies(small_plan_json, "plan", names, 4, &n, err);
}

static int c_comm_profile_check(slo_error_t *err)
{
    return slo_comm_profile_check(profile_np4_json, "real-quick-np4.json", NULL, err);
}

static int c_comm_fit_alpha_beta(slo_error_t *err)
{
    static const double bytes[] = {1024, 4096, 65536, 1048576}, t[] = {2e-5, 2.3e-5, 7e-5, 7.1e-4};
    struct slo_comm_alpha_beta fit;
    return slo_comm_fit_alpha_beta(bytes, t, 4, &fit, err);
}

static int c_workload_open(slo_error_t *err)
{
    struct slo_workload w;
    int rc = slo_workload_open("resnet110", "--workload", &w, err);
    if (rc == SLO_OK)
        slo_workload_free(&w);
    return rc;
}

/* The upstream JSON-lines profile (icloud-ecnu/igniter i-Gniter/Algorithm/
 * config, in tests/fuzz/corpus/ig_profile/): merged line by line, then the
 * hardware and model fits from the raw measurements. */
static int c_ig_profile_upstream(slo_error_t *err)
{
    struct slo_ig_profile p;
    int rc = slo_ig_profile_parse(upstream_config, "upstream-config.jsonl", &p, err);
    if (rc == SLO_OK)
        slo_ig_profile_free(&p);
    return rc;
}

/* One sweep per call, so cmocka names the one that fails. */
#define SWEEP(fn)                                                                               \
    static void test_##fn(void **state)                                                         \
    {                                                                                           \
        (void)state;                                                                            \
        sweep(#fn, c_##fn);                                                                     \
    }
SWEEP(catalog_parse)
SWEEP(catalog_open)
SWEEP(workload_parse)
SWEEP(workload_to_json)
SWEEP(sync_workload_to_json)
SWEEP(train_log_load)
SWEEP(train_setup)
SWEEP(fit_loss)
SWEEP(train_solve)
SWEEP(ig_profile_parse)
SWEEP(ig_coefficients_json)
SWEEP(ig_workloads_parse)
SWEEP(infer_solve)
SWEEP(comm_model_parse)
SWEEP(comm_solve_optimal)
SWEEP(comm_solve_prophet)
SWEEP(comm_plan_to_json)
SWEEP(comm_plan_parse)
SWEEP(comm_profile_parse)
SWEEP(comm_simulate)
SWEEP(comm_model_builtin)
SWEEP(comm_model_gradients)
SWEEP(comm_detect_steps)
SWEEP(comm_plan_policies)
SWEEP(comm_profile_check)
SWEEP(comm_fit_alpha_beta)
SWEEP(workload_open)
SWEEP(ig_profile_upstream)

static void test_total(void **state)
{
    (void)state;
    printf("total: %ld allocations failed one at a time, %ld SLO_ERR_NOMEM, %ld same result "
           "(fallback), 0 leaks, 0 crashes in libslo, %ld faults (crash or lost blocks) inside jansson 2.14's parser\n",
           total_sites, total_sites - total_tolerated - total_jansson_aborts, total_tolerated,
           total_jansson_aborts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalog_parse),     cmocka_unit_test(test_catalog_open),
        cmocka_unit_test(test_workload_parse),    cmocka_unit_test(test_workload_to_json),
        cmocka_unit_test(test_sync_workload_to_json),
        cmocka_unit_test(test_train_log_load),    cmocka_unit_test(test_train_setup),
        cmocka_unit_test(test_fit_loss),          cmocka_unit_test(test_train_solve),
        cmocka_unit_test(test_ig_profile_parse),  cmocka_unit_test(test_ig_coefficients_json),
        cmocka_unit_test(test_ig_workloads_parse), cmocka_unit_test(test_infer_solve),
        cmocka_unit_test(test_comm_model_parse),  cmocka_unit_test(test_comm_solve_optimal),
        cmocka_unit_test(test_comm_solve_prophet), cmocka_unit_test(test_comm_plan_to_json),
        cmocka_unit_test(test_comm_plan_parse),   cmocka_unit_test(test_comm_profile_parse),
        cmocka_unit_test(test_comm_simulate),     cmocka_unit_test(test_comm_model_builtin),
        cmocka_unit_test(test_comm_model_gradients), cmocka_unit_test(test_comm_detect_steps),
        cmocka_unit_test(test_comm_plan_policies), cmocka_unit_test(test_comm_profile_check),
        cmocka_unit_test(test_comm_fit_alpha_beta), cmocka_unit_test(test_workload_open),
        cmocka_unit_test(test_ig_profile_upstream),
        cmocka_unit_test(test_total),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
