/*
 * util.c - slo-power's log lines and child processes (power_run: every external
 * command runs with a time limit, an output limit and no inherited descriptor).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE /* pipe2, syscall(SYS_close_range) */
#include "power.h"

#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

void power_fmt(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

int power_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen)
        vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

void power_utc_stamp(char *buf, size_t len)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int power_code_in(const char *code, const char *const *codes, size_t n)
{
    if (!code)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(code, codes[i]) == 0)
            return 1;
    return 0;
}

void power_log(struct power_log *lg, const char *level, const char *node, const char *fmt, ...)
{
    char text[2048], head[256], stamp[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    power_utc_stamp(stamp, sizeof stamp);
    snprintf(head, sizeof head, "slo-power[%ld] %s provider=%s node=%s", (long)getpid(),
             power_action_name(lg->action), lg->provider ? lg->provider : "-",
             node ? node : "-");
    if (lg->file) {
        /* One fprintf + fflush per line: concurrent programs append whole lines. */
        fprintf(lg->file, "%s %s: %s: %s\n", stamp, head, level, text);
        fflush(lg->file);
    }
    else if (strcmp(level, "info") != 0 && !lg->quiet_stderr) {
        /* No log file (not configured, or the config could not be read):
         * slurmctld discards our stderr, so problems also go to syslog. */
        syslog(LOG_DAEMON | (level[0] == 'e' ? LOG_ERR : LOG_WARNING), "%s: %s: %s", head,
               level, text);
    }
    if (!lg->quiet_stderr)
        fprintf(stderr, "%s: %s: %s\n", head, level, text);
}

int power_find_program(const char *name, const char *extra, char *out, size_t len)
{
    if (strchr(name, '/')) {
        if (access(name, X_OK) != 0 || strlen(name) >= len)
            return -1;
        strcpy(out, name);
        return 0;
    }
    const char *path = getenv("PATH");
    const char *lists[2] = {path && *path ? path : "/usr/local/bin:/usr/bin:/bin", extra};
    for (int l = 0; l < 2; l++) {
        const char *p = lists[l];
        while (p && *p) {
            const char *colon = strchr(p, ':');
            size_t dl = colon ? (size_t)(colon - p) : strlen(p);
            if (dl > 0) {
                int w = snprintf(out, len, "%.*s/%s", (int)dl, p, name);
                struct stat st;
                if (w > 0 && (size_t)w < len && stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
                    access(out, X_OK) == 0)
                    return 0;
            }
            p = colon ? colon + 1 : NULL;
        }
    }
    return -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Close every descriptor from lowfd up (child side, before exec). */
static void close_from(int lowfd)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)lowfd, ~0u, 0) == 0)
        return;
#endif
    long maxfd = sysconf(_SC_OPEN_MAX);
    if (maxfd < 0 || maxfd > 65536)
        maxfd = 65536;
    for (int i = lowfd; i < maxfd; i++)
        close(i);
}

void power_child_default_signals(void)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);
}

/* The child after fork: never returns. */
static void run_child(char *const argv[], int in, int outw, int errw)
{
    setpgid(0, 0);
    power_child_default_signals();
    /* Move the three ends above 2 first, so dup2 never meets an end that
     * already sits on 0..2 (dup2 onto a different fd clears close-on-exec). */
    int a = fcntl(in, F_DUPFD_CLOEXEC, 3), b = fcntl(outw, F_DUPFD_CLOEXEC, 3),
        c = fcntl(errw, F_DUPFD_CLOEXEC, 3);
    if (a < 0 || b < 0 || c < 0 || dup2(a, 0) < 0 || dup2(b, 1) < 0 || dup2(c, 2) < 0)
        _exit(126);
    close_from(3);
    execv(argv[0], argv);
    dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

static void signal_group(pid_t pid, int reaped, int sig)
{
    kill(-pid, sig); /* the child and what it started (its own process group) */
    if (!reaped)
        kill(pid, sig); /* in case setpgid had not happened yet */
}

int power_run(char *const argv[], const struct power_run_limits *lim, char **out,
              char *errline, size_t errlen)
{
    const struct power_run_limits def = {POWER_RUN_TIMEOUT_S, POWER_RUN_GRACE_S,
                                         POWER_RUN_MAX_OUTPUT};
    if (!lim)
        lim = &def;
    *out = NULL;
    errline[0] = '\0';
    int op[2] = {-1, -1}, ep[2] = {-1, -1};
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0 || pipe2(op, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0) {
        power_fmt(errline, errlen, "%s: %s", devnull < 0 ? "/dev/null" : "pipe2",
                  strerror(errno));
        for (int k = 0; k < 2; k++) {
            if (op[k] >= 0)
                close(op[k]);
            if (ep[k] >= 0)
                close(ep[k]);
        }
        if (devnull >= 0)
            close(devnull);
        return -1;
    }
    /* With SIGCHLD ignored (inherited) the child would be reaped by the
     * kernel and its status lost: default disposition while it runs. */
    struct sigaction dfl, old_chld;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGCHLD, &dfl, &old_chld);
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    pid_t pid = buf ? fork() : -1;
    if (pid == 0)
        run_child(argv, devnull, op[1], ep[1]);
    int fork_errno = errno;
    close(devnull);
    close(op[1]);
    close(ep[1]);
    if (pid < 0) {
        sigaction(SIGCHLD, &old_chld, NULL);
        power_fmt(errline, errlen, "%s: %s", buf ? "fork" : "out of memory",
                  strerror(fork_errno));
        free(buf);
        close(op[0]);
        close(ep[0]);
        return -1;
    }
    setpgid(pid, pid); /* both sides, so the group exists before any kill */

    enum { RUNNING, TERM_SENT, KILL_SENT } phase = RUNNING;
    enum { NONE, TIMEOUT, OVERFLOW, NOMEM } why = NONE;
    double deadline = now_s() + lim->timeout_s;
    int fds[2] = {op[0], ep[0]};
    char ebuf[1024];
    size_t elen = 0;
    int reaped = 0, lost = 0, status = 0;
    for (;;) {
        if (!reaped) {
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid)
                reaped = 1;
            else if (w < 0 && errno == ECHILD)
                reaped = lost = 1; /* reaped elsewhere: status unknown */
        }
        if (reaped && fds[0] < 0 && fds[1] < 0)
            break;
        double t = now_s();
        if (t >= deadline) {
            if (phase == KILL_SENT)
                break; /* unkillable (D state) or an escaped grandchild holds a pipe */
            if (why == NONE)
                why = TIMEOUT;
            signal_group(pid, reaped, phase == RUNNING ? SIGTERM : SIGKILL);
            phase = phase == RUNNING ? TERM_SENT : KILL_SENT;
            deadline = t + lim->grace_s;
            continue;
        }
        /* Wake at least every 50 ms to notice an exit while a grandchild
         * still holds the pipes. */
        double wait_s = deadline - t < 0.05 ? deadline - t : 0.05;
        struct pollfd pf[2];
        nfds_t np = 0;
        for (int k = 0; k < 2; k++)
            if (fds[k] >= 0)
                pf[np++] = (struct pollfd){.fd = fds[k], .events = POLLIN};
        int pr = poll(pf, np, (int)(wait_s * 1000) + 1);
        if (pr < 0 && errno != EINTR)
            break;
        for (nfds_t k = 0; pr > 0 && k < np; k++) {
            if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            int is_out = pf[k].fd == fds[0];
            char chunk[65536];
            ssize_t got = read(pf[k].fd, chunk, sizeof chunk);
            if (got < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (got <= 0) {
                close(pf[k].fd);
                fds[is_out ? 0 : 1] = -1;
                continue;
            }
            if (!is_out) {
                size_t take = (size_t)got < sizeof ebuf - 1 - elen ? (size_t)got
                                                                   : sizeof ebuf - 1 - elen;
                memcpy(ebuf + elen, chunk, take);
                elen += take;
                continue;
            }
            if (why != NONE)
                continue; /* being killed: discard */
            if (len + (size_t)got > lim->max_output) {
                why = OVERFLOW;
            } else if (len + (size_t)got + 1 > cap) {
                size_t ncap = cap;
                while (len + (size_t)got + 1 > ncap)
                    ncap *= 2;
                char *nb = realloc(buf, ncap);
                if (!nb)
                    why = NOMEM;
                else {
                    buf = nb;
                    cap = ncap;
                }
            }
            if (why != NONE) {
                /* Stop reading: the command is told to stop, then killed. */
                close(fds[0]);
                fds[0] = -1;
                signal_group(pid, reaped, SIGTERM);
                phase = TERM_SENT;
                deadline = now_s() + lim->grace_s;
                continue;
            }
            memcpy(buf + len, chunk, (size_t)got);
            len += (size_t)got;
        }
    }
    for (int k = 0; k < 2; k++)
        if (fds[k] >= 0)
            close(fds[k]);
    sigaction(SIGCHLD, &old_chld, NULL);
    buf[len] = '\0';
    /* First non-empty line of stderr, for messages. */
    if (elen > 0) {
        ebuf[elen] = '\0';
        char *s = ebuf;
        while (*s == '\n' || *s == '\r')
            s++;
        s[strcspn(s, "\r\n")] = '\0';
        power_fmt(errline, errlen, "%s", s);
    }
    const char *sig = phase == KILL_SENT ? "KILL" : "TERM";
    if (why != NONE || !reaped) {
        free(buf);
        if (!reaped)
            power_fmt(errline, errlen, "%s (pid %ld) did not exit after TERM and KILL",
                      argv[0], (long)pid);
        else if (why == TIMEOUT)
            power_fmt(errline, errlen, "%s timed out after %g s (killed by %s)", argv[0],
                      lim->timeout_s, sig);
        else if (why == OVERFLOW)
            power_fmt(errline, errlen, "%s printed more than %zu bytes (killed by %s)",
                      argv[0], lim->max_output, sig);
        else
            power_fmt(errline, errlen, "reading the output of %s: out of memory (killed)",
                      argv[0]);
        return -1;
    }
    if (lost) {
        free(buf);
        power_fmt(errline, errlen, "%s: its exit status was lost (SIGCHLD ignored?)",
                  argv[0]);
        return -1;
    }
    if (WIFSIGNALED(status)) {
        free(buf);
        power_fmt(errline, errlen, "%s was killed by signal %d", argv[0], WTERMSIG(status));
        return -1;
    }
    *out = buf;
    return WEXITSTATUS(status);
}
