/*
 * backoff.c - the failed-pool back-off file (backoff.h).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "backoff.h"
#ifndef POWER_BACKOFF_NO_NOTE
#include "power.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <slurm/slurm.h>

#define FORMAT "slo-backoff-1"

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen,
                                                       const char *fmt, ...)
{
    va_list ap;
    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int power_backoff_path(char *out, size_t len, char *err, size_t errlen)
{
    const char *env = getenv("SLO_BACKOFF_FILE");
    slurm_conf_t *conf = NULL;
    int n;

    if (env && *env) {
        n = snprintf(out, len, "%s", env);
        return n < 0 || (size_t)n >= len ? fail(err, errlen, "SLO_BACKOFF_FILE: path too long")
                                         : 0;
    }
    if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS || !conf)
        return fail(err, errlen, "cannot read slurmctld's configuration (slurm_load_ctl_conf, "
                    "for StateSaveLocation): %s", slurm_strerror(slurm_get_errno()));
    if (!conf->state_save_location || !conf->state_save_location[0]) {
        slurm_free_ctl_conf(conf);
        return fail(err, errlen, "slurmctld's StateSaveLocation is not set");
    }
    n = snprintf(out, len, "%s/slo-backoff.json", conf->state_save_location);
    slurm_free_ctl_conf(conf);
    return n < 0 || (size_t)n >= len ? fail(err, errlen, "StateSaveLocation: path too long") : 0;
}

static int copy_str(char *dst, size_t len, const json_t *v)
{
    const char *s = json_string_value(v);
    if (!s || !*s || strlen(s) >= len)
        return -1;
    strcpy(dst, s);
    return 0;
}

/* Parse root into entries (all of them, expired or not). */
static int parse(const char *path, const json_t *root, struct power_backoff **out, size_t *n,
                 char *err, size_t errlen)
{
    const json_t *pools = json_object_get(root, "pools");
    const char *fmt = json_string_value(json_object_get(root, "format"));
    *out = NULL;
    *n = 0;
    if (!json_is_object(root) || !fmt || strcmp(fmt, FORMAT) != 0)
        return fail(err, errlen, "%s: format: expected \"" FORMAT "\", found %s", path,
                    fmt ? fmt : "none");
    if (!json_is_array(pools) || json_array_size(pools) > POWER_BACKOFF_MAX)
        return fail(err, errlen, "%s: pools: expected an array of at most %d entries", path,
                    POWER_BACKOFF_MAX);
    size_t m = json_array_size(pools);
    if (!m)
        return 0;
    struct power_backoff *e = calloc(m, sizeof *e);
    if (!e)
        return fail(err, errlen, "%s: out of memory", path);
    for (size_t i = 0; i < m; i++) {
        const json_t *p = json_array_get(pools, i);
        const json_t *since = json_object_get(p, "since_unix_s");
        const json_t *until = json_object_get(p, "until_unix_s");
        if (copy_str(e[i].type, sizeof e[i].type, json_object_get(p, "type")) ||
            copy_str(e[i].capacity, sizeof e[i].capacity, json_object_get(p, "capacity")) ||
            (strcmp(e[i].capacity, "spot") != 0 && strcmp(e[i].capacity, "on-demand") != 0) ||
            !json_is_number(since) || !json_is_number(until) ||
            !isfinite(json_number_value(until))) {
            free(e);
            return fail(err, errlen, "%s: pools[%zu]: expected {type, capacity spot|on-demand, "
                        "since_unix_s, until_unix_s}", path, i);
        }
        e[i].since_unix_s = json_number_value(since);
        e[i].until_unix_s = json_number_value(until);
        copy_str(e[i].code, sizeof e[i].code, json_object_get(p, "code"));
        copy_str(e[i].node, sizeof e[i].node, json_object_get(p, "node"));
    }
    *out = e;
    *n = m;
    return 0;
}

/* Read path (a missing file: no entry). */
static int read_all(const char *path, struct power_backoff **out, size_t *n, char *err,
                    size_t errlen)
{
    json_error_t je;
    *out = NULL;
    *n = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        return fail(err, errlen, "%s: %s", path, strerror(errno));
    }
    json_t *root = json_loadfd(fd, JSON_REJECT_DUPLICATES, &je);
    close(fd);
    if (!root)
        return fail(err, errlen, "%s:%d: not JSON: %s", path, je.line, je.text);
    int rc = parse(path, root, out, n, err, errlen);
    json_decref(root);
    return rc;
}

int power_backoff_load(const char *path, double now, struct power_backoff **out, size_t *n,
                       char *err, size_t errlen)
{
    size_t k = 0;
    if (read_all(path, out, n, err, errlen))
        return -1;
    for (size_t i = 0; i < *n; i++)
        if ((*out)[i].until_unix_s > now)
            (*out)[k++] = (*out)[i];
    *n = k;
    if (!k) {
        free(*out);
        *out = NULL;
    }
    return 0;
}

int power_backoff_has(const struct power_backoff *entries, size_t n, const char *type,
                      const char *capacity)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(entries[i].type, type) == 0 && strcmp(entries[i].capacity, capacity) == 0)
            return 1;
    return 0;
}

static json_t *entry_json(const struct power_backoff *e)
{
    json_t *o = json_pack("{s:s, s:s, s:f, s:f}", "type", e->type, "capacity", e->capacity,
                          "since_unix_s", e->since_unix_s, "until_unix_s", e->until_unix_s);
    if (o && e->code[0])
        json_object_set_new(o, "code", json_string(e->code));
    if (o && e->node[0])
        json_object_set_new(o, "node", json_string(e->node));
    return o;
}

int power_backoff_record(const char *path, const char *type, const char *capacity,
                         const char *code, const char *node, double now, double period_s,
                         char *err, size_t errlen)
{
    char lock[4096], tmp[4096];
    struct power_backoff *e = NULL, add = {0};
    size_t n = 0;
    int lfd, rc = -1;

    if (!type || !*type || strlen(type) >= sizeof add.type || !capacity ||
        (strcmp(capacity, "spot") != 0 && strcmp(capacity, "on-demand") != 0) ||
        !(period_s > 0) || !isfinite(now))
        return fail(err, errlen, "back-off of pool %s/%s: expected an instance type, capacity "
                    "spot|on-demand and a period > 0 s", type ? type : "?",
                    capacity ? capacity : "?");
    if (snprintf(lock, sizeof lock, "%s.lock", path) >= (int)sizeof lock ||
        snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp)
        return fail(err, errlen, "%s: path too long", path);
    lfd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lfd < 0)
        return fail(err, errlen, "%s: %s", lock, strerror(errno));
    if (flock(lfd, LOCK_EX) != 0) {
        fail(err, errlen, "%s: flock: %s", lock, strerror(errno));
        close(lfd);
        return -1;
    }
    if (read_all(path, &e, &n, err, errlen)) {
        /* A corrupt file is replaced (the state is advisory), and said so. */
        fprintf(stderr, "slo back-off: %s; the file is rewritten\n", err);
        e = NULL;
        n = 0;
    }
    snprintf(add.type, sizeof add.type, "%s", type);
    snprintf(add.capacity, sizeof add.capacity, "%s", capacity);
    snprintf(add.code, sizeof add.code, "%s", code ? code : "");
    snprintf(add.node, sizeof add.node, "%s", node ? node : "");
    add.since_unix_s = now;
    add.until_unix_s = now + period_s;

    json_t *root = json_pack("{s:s, s:[]}", "format", FORMAT, "pools");
    json_t *pools = root ? json_object_get(root, "pools") : NULL;
    for (size_t i = 0; pools && i < n; i++) {
        if (e[i].until_unix_s <= now)
            continue; /* expired */
        if (strcmp(e[i].type, type) == 0 && strcmp(e[i].capacity, capacity) == 0) {
            if (e[i].until_unix_s > add.until_unix_s)
                add.until_unix_s = e[i].until_unix_s;
            continue; /* replaced by add */
        }
        json_array_append_new(pools, entry_json(&e[i]));
    }
    if (pools)
        json_array_append_new(pools, entry_json(&add));
    free(e);
    int fd = root ? mkstemp(tmp) : -1;
    if (fd < 0) {
        fail(err, errlen, "%s: cannot create a temporary file: %s", tmp,
             root ? strerror(errno) : "out of memory");
    } else {
        fchmod(fd, 0644);
        if (json_dumpfd(root, fd, JSON_INDENT(1) | JSON_PRESERVE_ORDER) != 0 ||
            write(fd, "\n", 1) != 1 || fsync(fd) != 0) {
            fail(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
        } else if (close(fd) != 0 || rename(tmp, path) != 0) {
            fail(err, errlen, "%s: cannot replace: %s", path, strerror(errno));
            unlink(tmp);
        } else {
            rc = 0;
        }
    }
    json_decref(root);
    close(lfd); /* releases the flock */
    return rc;
}

/* slo-requeue links this file without slo-power's modules (power_log,
 * power_slurm_real): it builds with POWER_BACKOFF_NO_NOTE. */
#ifndef POWER_BACKOFF_NO_NOTE
void power_backoff_note_failed(struct power_ctx *ctx, const struct power_node *nodes,
                               const size_t *idx, size_t n)
{
    char path[4096], err[POWER_ERR_LEN];
    int have_path = 0;

    const char *env = getenv("SLO_BACKOFF_FILE");
    if (ctx->dry_run || !ctx->slurm)
        return;
    /* Only the real Slurm operations ask slurmctld for StateSaveLocation:
     * recorded operations (tests/test_power.c) back off only into an
     * explicit $SLO_BACKOFF_FILE. */
    if (ctx->slurm != &power_slurm_real && !(env && *env))
        return;
    for (size_t i = 0; i < n; i++) {
        const struct power_node *nd = &nodes[idx ? idx[i] : i];
        const char *p = nd->failed ? strstr(nd->reason, ": no capacity: ") : NULL;
        char code[POWER_BACKOFF_CODE_LEN];
        if (!p || !nd->type[0])
            continue;
        p += strlen(": no capacity: ");
        size_t len = strcspn(p, ": ");
        if (!len || len >= sizeof code)
            continue;
        memcpy(code, p, len);
        code[len] = '\0';
        if (!have_path && power_backoff_path(path, sizeof path, err, sizeof err)) {
            power_log(ctx->log, "warning", nd->name, "pool %s %s not backed off: %s", nd->type,
                      power_capacity_name(nd->capacity), err);
            return;
        }
        have_path = 1;
        double now = (double)time(NULL);
        if (power_backoff_record(path, nd->type, power_capacity_name(nd->capacity), code,
                                 nd->name, now, POWER_BACKOFF_DEFAULT_S, err, sizeof err))
            power_log(ctx->log, "warning", nd->name, "pool %s %s not backed off: %s", nd->type,
                      power_capacity_name(nd->capacity), err);
        else
            power_log(ctx->log, "info", nd->name,
                      "pool %s %s backed off for %.0f s (%s): slo-requeue plans its jobs "
                      "without it (%s)", nd->type, power_capacity_name(nd->capacity),
                      POWER_BACKOFF_DEFAULT_S, code, path);
    }
}
#endif
