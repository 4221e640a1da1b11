/*
 * Shared helpers of the libFuzzer harnesses (tests/fuzz/README.md).
 *
 * Copyright (C) 2026 the slo-kernel authors
 *
 * Each harness is one LLVMFuzzerTestOneInput over one parser or planner
 * input; it checks a property beyond "no crash" where the API documents one
 * and aborts (a crash libFuzzer reports and saves) when the property fails.
 */
#ifndef SLO_FUZZ_H
#define SLO_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a NUL-terminated string (inputs with a NUL byte are cut at
 * it, as the kernel's file reader refuses them). Caller frees. */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
    char *t = malloc(size + 1);
    if (!t)
        abort();
    memcpy(t, data, size);
    t[size] = '\0';
    return t;
}

/* Inputs larger than this are skipped: the parsers' limits are tested by the
 * unit tests, the fuzzer's time is better spent on structure. */
#define FUZZ_MAX_INPUT ((size_t)1 << 16)

/* Write the input to a private file for readers that take a path; returns
 * the path (static buffer, one per process: libFuzzer runs one input at a
 * time). */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
    static char path[256];
    if (!path[0]) {
        const char *dir = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/slo-fuzz-%ld%s", dir && *dir ? dir : "/tmp",
                 (long)getpid(), suffix);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    if (fclose(f) != 0)
        abort();
    return path;
}

/* A property failed: print it and abort, so libFuzzer saves the input. */
#define FUZZ_REQUIRE(cond, ...)                                                    \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "fuzz property failed: %s (%s:%d): ", #cond, __FILE__, \
                    __LINE__);                                                    \
            fprintf(stderr, __VA_ARGS__);                                         \
            fputc('\n', stderr);                                                  \
            abort();                                                              \
        }                                                                         \
    } while (0)

#endif
