/*
 * local.c - the local provider: a "cloud node" is a slurmd started on this
 * host (tests and demos).
 *
 * Source: research note slurm-mpi-feasibility.md 2.6 pitfalls 9 and 10 and
 * 5.3: programs run by slurmscriptd inherit a blocked signal mask, which a
 * slurmd must not keep; `slurmd -b` reports its start as the boot time, so
 * slurmctld accepts the node as freshly resumed.
 * state_dir is used only when it is a directory (not a link) of the running
 * user that nobody else can write; its files are created by mkstemp and
 * renamed into place, and read without following links.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "power.h"
#include "backoff.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_s(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int node_path(const struct power_config *cfg, const char *node, const char *ext,
                     char *out, size_t len)
{
    if (strlen(cfg->state_dir) + strlen(node) + strlen(ext) + 3 > len)
        return -1;
    power_fmt(out, len, "%s/%s.%s", cfg->state_dir, node, ext);
    return 0;
}

static int mkdir_p(const char *dir)
{
    char buf[PATH_MAX];
    if (strlen(dir) >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(buf, dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
        return -1;
    return 0;
}

/*
 * state_dir must be safe to create files in: a directory itself (not a
 * symbolic link: opened with O_NOFOLLOW and checked with fstat, so the check
 * and the object are the same), owned by the user slo-power runs as, and not
 * writable by group or others (nobody else can plant links or replace the
 * pid and output files). Returns 0, or -1 with err naming state_dir, what
 * was found and what is expected; errno ENOENT when it does not exist.
 */
static int state_dir_check(const char *dir, char *err, size_t errlen)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        struct stat lst;
        if (e == ENOENT)
            power_fmt(err, errlen, "state_dir %s does not exist", dir);
        else if (lstat(dir, &lst) == 0 && S_ISLNK(lst.st_mode))
            power_fmt(err, errlen, "state_dir %s is a symbolic link; expected a directory "
                      "(give the real path)", dir);
        else
            power_fmt(err, errlen, "state_dir %s: expected a directory: %s", dir, strerror(e));
        errno = e;
        return -1;
    }
    struct stat st;
    int rc = fstat(fd, &st);
    int e = errno;
    close(fd);
    if (rc != 0) {
        power_fmt(err, errlen, "state_dir %s: %s", dir, strerror(e));
        return -1;
    }
    if (st.st_uid != geteuid()) {
        power_fmt(err, errlen, "state_dir %s is owned by uid %ld; expected uid %ld, the user "
                  "slo-power runs as (SlurmUser)", dir, (long)st.st_uid, (long)geteuid());
        errno = EPERM;
        return -1;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        power_fmt(err, errlen, "state_dir %s is writable by %s (mode %04o); expected a "
                  "directory only its owner can write (e.g. chmod 755)", dir,
                  (st.st_mode & S_IWOTH) ? "others" : "its group",
                  (unsigned)(st.st_mode & 07777));
        errno = EPERM;
        return -1;
    }
    return 0;
}

/* A new file DIR/.NODE.EXT.XXXXXX (mkstemp: O_CREAT|O_EXCL, never through a
 * link), mode 0644; its name in tmp. Returns the fd or -1. */
static int state_tmpfile(const struct power_config *cfg, const char *node, const char *ext,
                         char *tmp, size_t len)
{
    int w = snprintf(tmp, len, "%s/.%s.%s.XXXXXX", cfg->state_dir, node, ext);
    if (w < 0 || (size_t)w >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = mkstemp(tmp);
    if (fd >= 0 && fchmod(fd, 0644) != 0) {
        int e = errno;
        close(fd);
        unlink(tmp);
        errno = e;
        return -1;
    }
    return fd;
}

/* fopen(path, "r") that does not follow a symbolic link. */
static FILE *open_nofollow(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "r");
    if (!f)
        close(fd);
    return f;
}

/* 1 when pid is a live (not zombie) process whose command line is a slurmd
 * started with -N node: a recycled pid is never signalled. */
static int is_our_slurmd(pid_t pid, const char *node)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    char *rp = strrchr(buf, ')');
    if (!rp || rp[1] != ' ' || rp[2] == 'Z' || rp[2] == 'X')
        return 0;
    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
    f = fopen(path, "r");
    if (!f)
        return 0;
    got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    /* argv[0] is slurmd, or argv[1] when an interpreter runs a wrapper. */
    int named = 0;
    for (size_t i = 0, a = 0; i < got && a < 2; a++) {
        const char *base = strrchr(buf + i, '/');
        base = base ? base + 1 : buf + i;
        named |= strcmp(base, "slurmd") == 0;
        i += strlen(buf + i) + 1;
    }
    if (!named)
        return 0;
    for (size_t i = 0; i < got;) {
        const char *arg = buf + i;
        size_t al = strlen(arg);
        if (strcmp(arg, "-N") == 0 && i + al + 1 < got && strcmp(arg + al + 1, node) == 0)
            return 1;
        i += al + 1;
    }
    return 0;
}

static pid_t read_pid(const char *path)
{
    FILE *f = open_nofollow(path);
    if (!f)
        return errno == ENOENT ? 0 : -1; /* a link or unreadable: not trusted */
    long pid = 0;
    if (fscanf(f, "%ld", &pid) != 1 || pid <= 1)
        pid = -1;
    fclose(f);
    return (pid_t)pid;
}

/* Write NODE.pid: a new temporary file (mkstemp) renamed over it, so a
 * reader sees the old or the new content and no link is followed. */
static int write_pid(const struct power_config *cfg, const char *node, const char *path,
                     pid_t pid)
{
    char tmp[PATH_MAX];
    int fd = state_tmpfile(cfg, node, "pid", tmp, sizeof tmp);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        return -1;
    }
    int bad = fprintf(f, "%ld\n", (long)pid) < 0;
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

/* Last non-empty line of a file, for "slurmd exited: ..." messages. */
static void last_line(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = open_nofollow(path);
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0])
            power_fmt(out, len, "%s", line);
    }
    fclose(f);
}

/* The child: its own session, no blocked or ignored signals, output to
 * the NODE.out file the parent created (fd), no other inherited descriptors;
 * then slurmd in the foreground (-D) so the pid we record is slurmd's. */
static void exec_slurmd(const char *slurmd, const char *node, int fd)
{
    setsid();
    power_child_default_signals();
    /* Above 2 first, so no dup2 below overwrites the other source. */
    int o = fcntl(fd, F_DUPFD, 3);
    int in = open("/dev/null", O_RDONLY);
    if (in < 0 || o < 0 || (in < 3 && (in = fcntl(in, F_DUPFD, 3)) < 0))
        _exit(126);
    dup2(in, 0);
    dup2(o, 1);
    dup2(o, 2);
    long maxfd = sysconf(_SC_OPEN_MAX);
    if (maxfd < 0 || maxfd > 65536)
        maxfd = 65536;
    for (int i = 3; i < maxfd; i++)
        close(i);
    char *const argv[] = {(char *)"slurmd", (char *)"-D", (char *)"-b", (char *)"-N",
                          (char *)node, NULL};
    execv(slurmd, argv);
    dprintf(2, "slo-power: cannot run %s: %s\n", slurmd, strerror(errno));
    _exit(127);
}

/* The local provider's stand-in for an EC2 capacity error (tests, demos):
 * the file STATE_DIR/capacity-errors, lines "TYPE CAPACITY CODE" ('#'
 * comments; CAPACITY spot or on-demand; CODE an EC2 error code such as
 * InsufficientInstanceCapacity). A node of a listed pool fails its resume
 * as CreateFleet would ("local TYPE CAPACITY: no capacity: CODE"), so the
 * rest of slo-power (back-off, POWER_DOWN_FORCE, requeue) runs as with EC2.
 * Read only from a safe state_dir (state_dir_check), never through a link. */
static void simulated_capacity_errors(const struct power_config *cfg, struct power_node *nodes,
                                      size_t n)
{
    char path[PATH_MAX], line[512];
    if (strlen(cfg->state_dir) + sizeof "/capacity-errors" > sizeof path)
        return;
    power_fmt(path, sizeof path, "%s/capacity-errors", cfg->state_dir);
    FILE *f = open_nofollow(path);
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        char type[SLO_NAME_LENGTH], cap[16], code[64];
        if (line[0] == '#' || sscanf(line, "%63s %15s %63s", type, cap, code) != 3)
            continue;
        for (size_t i = 0; i < n; i++) {
            struct power_node *nd = &nodes[i];
            if (nd->failed || strcmp(nd->type, type) != 0 ||
                strcmp(power_capacity_name(nd->capacity), cap) != 0)
                continue;
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason,
                      "local %s %s: no capacity: %s: simulated by %s", type, cap, code, path);
        }
    }
    fclose(f);
}

int power_local_resume(struct power_ctx *ctx, struct power_node *nodes, size_t n)
{
    const struct power_config *cfg = ctx->cfg;
    char slurmd[PATH_MAX];
    const char *name = cfg->slurmd[0] ? cfg->slurmd : "slurmd";
    int ok_setup = 1;
    char setup_err[POWER_ERR_LEN] = "";
    if (power_find_program(name, "/usr/sbin:/usr/local/sbin", slurmd, sizeof slurmd) != 0) {
        ok_setup = 0;
        power_fmt(setup_err, sizeof setup_err,
                 "slurmd not found or not executable: %s (set slurmd=PATH in %s)", name,
                 cfg->path);
    } else if (!ctx->dry_run && mkdir_p(cfg->state_dir) != 0) {
        ok_setup = 0;
        power_fmt(setup_err, sizeof setup_err, "cannot create state_dir %s: %s",
                 cfg->state_dir, strerror(errno));
    } else if (!ctx->dry_run && state_dir_check(cfg->state_dir, setup_err,
                                                sizeof setup_err) != 0) {
        ok_setup = 0;
    }
    if (!ok_setup)
        for (size_t i = 0; i < n; i++)
            if (!nodes[i].failed) {
                nodes[i].failed = 1;
                power_fmt(nodes[i].reason, sizeof nodes[i].reason, "%s", setup_err);
            }
    if (ok_setup)
        simulated_capacity_errors(cfg, nodes, n);

    /* Simulated boot, once for all nodes (they boot in parallel). */
    size_t todo = 0;
    for (size_t i = 0; i < n; i++)
        todo += !nodes[i].failed;
    if (todo && !ctx->dry_run)
        sleep_s(cfg->boot_delay_s);

    pid_t *pids = calloc(n ? n : 1, sizeof *pids);
    if (!pids) {
        power_log(ctx->log, "error", NULL, "out of memory");
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        struct power_node *nd = &nodes[i];
        if (nd->failed)
            continue;
        char pidf[PATH_MAX], outf[PATH_MAX];
        if (node_path(cfg, nd->name, "pid", pidf, sizeof pidf) ||
            node_path(cfg, nd->name, "out", outf, sizeof outf)) {
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason, "state_dir path too long");
            continue;
        }
        if (ctx->dry_run) {
            fprintf(ctx->out, "%s -D -b -N %s  # pid file %s, output %s\n", slurmd, nd->name,
                    pidf, outf);
            continue;
        }
        pid_t old = read_pid(pidf);
        if (old > 0 && is_our_slurmd(old, nd->name)) {
            power_log(ctx->log, "info", nd->name, "slurmd already runs (pid %ld)", (long)old);
            continue;
        }
        if (old != 0)
            unlink(pidf);
        /* NODE.out of this run: a new file renamed over the old one. */
        char outtmp[PATH_MAX];
        int outfd = state_tmpfile(cfg, nd->name, "out", outtmp, sizeof outtmp);
        if (outfd >= 0 && rename(outtmp, outf) != 0) {
            int e = errno;
            close(outfd);
            unlink(outtmp);
            errno = e;
            outfd = -1;
        }
        if (outfd < 0) {
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason, "cannot create %s: %s", outf,
                     strerror(errno));
            continue;
        }
        pid_t pid = fork();
        if (pid == 0)
            exec_slurmd(slurmd, nd->name, outfd);
        int fork_errno = errno;
        close(outfd);
        if (pid < 0) {
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason, "fork: %s", strerror(fork_errno));
            continue;
        }
        pids[i] = pid;
        if (write_pid(cfg, nd->name, pidf, pid) != 0) {
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            pids[i] = 0;
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason, "cannot write pid file %s: %s", pidf,
                     strerror(errno));
            continue;
        }
        power_log(ctx->log, "info", nd->name, "started %s -D -b -N %s (pid %ld, type %s)",
                  slurmd, nd->name, (long)pid, nd->type[0] ? nd->type : "-");
    }

    /* A slurmd that cannot start (bad config, port in use) exits at once:
     * report it now rather than let slurmctld wait for ResumeTimeout. */
    int started = 0;
    for (size_t i = 0; i < n; i++)
        started += pids[i] > 0;
    if (started)
        sleep_s(0.5);
    for (size_t i = 0; i < n; i++) {
        if (pids[i] <= 0)
            continue;
        int status;
        if (waitpid(pids[i], &status, WNOHANG) == pids[i]) {
            struct power_node *nd = &nodes[i];
            char outf[PATH_MAX], pidf[PATH_MAX], tail[256];
            node_path(cfg, nd->name, "out", outf, sizeof outf);
            node_path(cfg, nd->name, "pid", pidf, sizeof pidf);
            unlink(pidf);
            last_line(outf, tail, sizeof tail);
            nd->failed = 1;
            if (WIFEXITED(status))
                power_fmt(nd->reason, sizeof nd->reason, "slurmd -N %s exited with %d: %s",
                         nd->name, WEXITSTATUS(status), tail[0] ? tail : "(no output)");
            else
                power_fmt(nd->reason, sizeof nd->reason, "slurmd -N %s died: signal %d",
                         nd->name, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        }
    }
    free(pids);

    /* Capacity errors: the pool is backed off before its jobs requeue. */
    power_backoff_note_failed(ctx, nodes, NULL, n);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        struct power_node *nd = &nodes[i];
        if (!nd->failed)
            continue;
        bad = 1;
        power_log(ctx->log, "error", nd->name, "%s", nd->reason);
        if (ctx->dry_run || !ctx->slurm)
            continue;
        char reason[POWER_ERR_LEN + 16], err[POWER_ERR_LEN];
        power_fmt(reason, sizeof reason, "slo-power: %.400s", nd->reason);
        if (ctx->slurm->power_down(ctx->slurm->arg, nd->name, reason, err, sizeof err) != 0)
            power_log(ctx->log, "error", nd->name, "could not power the node down: %s", err);
        else
            power_log(ctx->log, "info", nd->name,
                      "powered down (POWER_DOWN_FORCE): its jobs are requeued");
    }
    return bad;
}

int power_local_stop(struct power_ctx *ctx, struct power_node *nodes, size_t n)
{
    const struct power_config *cfg = ctx->cfg;
    int bad = 0;
    /* Pid files are trusted only from a safe state_dir; a missing one holds
     * none (nothing was started). */
    char dir_err[POWER_ERR_LEN] = "";
    int dir_bad = !ctx->dry_run &&
                  state_dir_check(cfg->state_dir, dir_err, sizeof dir_err) != 0 &&
                  errno != ENOENT;
    for (size_t i = 0; i < n; i++) {
        struct power_node *nd = &nodes[i];
        char pidf[PATH_MAX];
        if (dir_bad) {
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason, "%s", dir_err);
        } else if (node_path(cfg, nd->name, "pid", pidf, sizeof pidf)) {
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason, "state_dir path too long");
        } else {
            pid_t pid = read_pid(pidf);
            if (pid == 0) {
                power_log(ctx->log, "info", nd->name, "no pid file %s: no slurmd to stop",
                          pidf);
            } else if (pid < 0 || !is_our_slurmd(pid, nd->name)) {
                power_log(ctx->log, "info", nd->name,
                          "pid file %s names no running slurmd -N %s: removed", pidf,
                          nd->name);
                if (!ctx->dry_run)
                    unlink(pidf);
            } else if (ctx->dry_run) {
                fprintf(ctx->out, "kill -TERM %ld  # slurmd -N %s, KILL after %g s\n",
                        (long)pid, nd->name, cfg->stop_timeout_s);
            } else {
                kill(pid, SIGTERM);
                double waited = 0;
                while (is_our_slurmd(pid, nd->name) && waited < cfg->stop_timeout_s) {
                    sleep_s(0.05);
                    waited += 0.05;
                }
                const char *how = "TERM";
                if (is_our_slurmd(pid, nd->name)) {
                    kill(pid, SIGKILL);
                    how = "KILL";
                    for (waited = 0; is_our_slurmd(pid, nd->name) && waited < 2; waited += 0.05)
                        sleep_s(0.05);
                }
                if (is_our_slurmd(pid, nd->name)) {
                    nd->failed = 1;
                    power_fmt(nd->reason, sizeof nd->reason,
                             "slurmd -N %s (pid %ld) survived TERM and KILL", nd->name,
                             (long)pid);
                } else {
                    unlink(pidf);
                    power_log(ctx->log, "info", nd->name, "stopped slurmd (pid %ld) by %s",
                              (long)pid, how);
                }
            }
        }
        if (nd->failed) {
            bad = 1;
            power_log(ctx->log, "error", nd->name, "%s", nd->reason);
        }
    }
    return bad;
}
