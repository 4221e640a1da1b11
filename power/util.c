/*
 * util.c - slo-power's log lines and child processes.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "power.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

void power_log(struct power_log *lg, const char *level, const char *node, const char *fmt, ...)
{
    char text[2048], head[256], stamp[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
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

static int read_all(int fd, char **out)
{
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    if (!buf)
        return -1;
    for (;;) {
        if (len + 1 >= cap) {
            if (cap >= (64u << 20)) {
                free(buf);
                errno = EFBIG;
                return -1;
            }
            char *t = realloc(buf, cap * 2);
            if (!t) {
                free(buf);
                return -1;
            }
            buf = t;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + len, cap - len - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            free(buf);
            return -1;
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    buf[len] = '\0';
    *out = buf;
    return 0;
}

int power_run(char *const argv[], char **out, char *errline, size_t errlen)
{
    *out = NULL;
    errline[0] = '\0';
    char errpath[] = "/tmp/slo-power-err.XXXXXX";
    int errfd = mkstemp(errpath);
    if (errfd < 0) {
        power_fmt(errline, errlen, "cannot create a temporary file: %s", strerror(errno));
        return -1;
    }
    unlink(errpath);
    int pipefd[2];
    if (pipe(pipefd) != 0) {
        power_fmt(errline, errlen, "pipe: %s", strerror(errno));
        close(errfd);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        power_fmt(errline, errlen, "fork: %s", strerror(errno));
        close(errfd);
        close(pipefd[0]);
        close(pipefd[1]);
        return -1;
    }
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(pipefd[1], 1);
        dup2(errfd, 2);
        execv(argv[0], argv);
        dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(pipefd[1]);
    int rc = read_all(pipefd[0], out);
    int saved = errno;
    close(pipefd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    /* First non-empty line of stderr, for messages. */
    char ebuf[1024];
    ssize_t got = pread(errfd, ebuf, sizeof ebuf - 1, 0);
    close(errfd);
    if (got > 0) {
        ebuf[got] = '\0';
        char *s = ebuf;
        while (*s == '\n')
            s++;
        s[strcspn(s, "\n")] = '\0';
        power_fmt(errline, errlen, "%s", s);
    }
    if (rc != 0) {
        power_fmt(errline, errlen, "reading the output of %s: %s", argv[0], strerror(saved));
        return -1;
    }
    if (WIFSIGNALED(status)) {
        power_fmt(errline, errlen, "%s was killed by signal %d", argv[0], WTERMSIG(status));
        return -1;
    }
    return WEXITSTATUS(status);
}
