/*
 * mpiprof_output.c - where the document goes (doc/mpiprof.md "Output"):
 * --output FILE through a temp file renamed over it (probed before any
 * measurement, written at the end, so an aborted run leaves nothing), or
 * stdout. Nodes rename(2) would replace are refused (trial finding M1).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _XOPEN_SOURCE 700 /* realpath, S_IFREG (--output, M1) */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpiprof.h"

static int write_document(json_t *doc, FILE *f)
{
    errno = 0;
    if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) ||
        fputc('\n', f) == EOF || fflush(f) || ferror(f))
        return -1;
    return 0;
}

/* A temp file next to `output` (".NAME.XXXXXX", the mode a plain fopen
 * would give), its name in tmp_path; NULL with errno on failure. */
static FILE *open_temp(const char *output, char *tmp_path, size_t len)
{
    const char *slash = strrchr(output, '/');
    FILE *f;
    int fd, e;
    if (slash)
        snprintf(tmp_path, len, "%.*s/.%s.XXXXXX", (int)(slash - output), output, slash + 1);
    else
        snprintf(tmp_path, len, ".%s.XXXXXX", output);
    if ((fd = mkstemp(tmp_path)) < 0)
        return NULL;
    {
        mode_t mask = umask(0);
        umask(mask);
        fchmod(fd, 0666 & ~mask);
    }
    if (!(f = fdopen(fd, "w"))) {
        e = errno;
        close(fd);
        unlink(tmp_path);
        errno = e;
    }
    return f;
}

/* Where --output goes (trial finding M1): `output` itself when it is a
 * regular file or does not exist yet, the file a symbolic link resolves to
 * (realpath) when it is a link to a regular file; the document is written to
 * a temp file in that file's directory and renamed over it. Anything else is
 * refused, as rename(2) would replace the node itself (a device turned into a
 * regular file, a FIFO or a link replaced): a directory, a character or block
 * device, a FIFO, a socket, a link whose target is missing or not a regular
 * file. target: TARGET_LEN bytes. 0 ok; -1 with the message in msg (a usage
 * error: exit 2). Source: doc/mpiprof.md "Output". */
static int output_target(const char *output, char *target, size_t target_len, char *msg,
                         size_t len)
{
    struct stat st;
    char *real = NULL;
    const char *path = output, *kind;
    if (lstat(output, &st) != 0) {
        if (errno != ENOENT) {
            snprintf(msg, len, "--output: cannot write \"%s\": %s", output, strerror(errno));
            return -1;
        }
        st.st_mode = S_IFREG; /* a new file */
    } else if (S_ISLNK(st.st_mode)) {
        if (!(real = realpath(output, NULL)) || stat(real, &st) != 0) {
            snprintf(msg, len, "--output: expected a regular file, a new file name or a link to "
                               "a regular file, found \"%s\", a symbolic link whose target "
                               "cannot be resolved (%s)", output, strerror(errno));
            free(real);
            return -1;
        }
        path = real;
    }
    if (!S_ISREG(st.st_mode)) {
        kind = S_ISDIR(st.st_mode)    ? "a directory"
               : S_ISCHR(st.st_mode)  ? "a character device"
               : S_ISBLK(st.st_mode)  ? "a block device"
               : S_ISFIFO(st.st_mode) ? "a FIFO"
               : S_ISSOCK(st.st_mode) ? "a socket"
                                      : "not a regular file";
        snprintf(msg, len, "--output: expected a regular file or a new file name, found \"%s\"%s%s"
                           "%s, %s (the document is written to a temp file renamed over FILE; "
                           "for a device or a pipe leave out --output and redirect stdout)",
                 output, real ? " (a link to \"" : "", real ? real : "", real ? "\")" : "", kind);
        free(real);
        return -1;
    }
    if (strlen(path) >= target_len) {
        snprintf(msg, len, "--output: expected a path shorter than %zu bytes, found \"%.256s...\"",
                 target_len, path);
        free(real);
        return -1;
    }
    memcpy(target, path, strlen(path) + 1);
    free(real);
    return 0;
}

void mpiprof_output_probe(const struct mpiprof_options *o, int rank)
{
    char msg[512], tmp_path[MPIPROF_PATH_LEN + 64], target[MPIPROF_PATH_LEN];
    FILE *out;
    int bad = 0;
    /* the output file first: a bad path fails before any measurement. The
     * probe is removed at once and the temp file made again at the end, so
     * a run that aborts on the way (one rank out of memory) leaves nothing. */
    if (rank == 0 && o->output) {
        if (output_target(o->output, target, sizeof target, msg, sizeof msg))
            bad = 1;
        else if (!(out = open_temp(target, tmp_path, sizeof tmp_path))) {
            snprintf(msg, sizeof msg, "--output: cannot write \"%s\": %s", o->output,
                     strerror(errno));
            bad = 1;
        } else {
            fclose(out);
            unlink(tmp_path);
        }
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (bad)
        mpiprof_die(2, "%s", msg);
}

void mpiprof_output_write(const struct mpiprof_options *o, json_t *doc)
{
    char msg[512], tmp_path[MPIPROF_PATH_LEN + 64], target[MPIPROF_PATH_LEN];
    FILE *out = NULL;
    /* again: the path may have changed while measuring */
    if (o->output && output_target(o->output, target, sizeof target, msg, sizeof msg)) {
        fprintf(stderr, "%s: %s\n", MPIPROF_NAME, msg);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (o->output && !(out = open_temp(target, tmp_path, sizeof tmp_path))) {
        fprintf(stderr, "%s: --output: cannot write \"%s\": %s\n", MPIPROF_NAME, o->output,
                strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (out) {
        int failed = write_document(doc, out);
        int e = errno;
        if (fclose(out) && !failed)
            failed = 1, e = errno;
        if (!failed && rename(tmp_path, target))
            failed = 1, e = errno;
        if (failed) {
            unlink(tmp_path);
            fprintf(stderr, "%s: --output: cannot write \"%s\": %s\n", MPIPROF_NAME, o->output,
                    e ? strerror(e) : "write error");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else if (write_document(doc, stdout)) {
        fprintf(stderr, "%s: cannot write stdout: %s\n", MPIPROF_NAME, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}
