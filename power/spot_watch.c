/*
 * spot_watch.c - slo-spot-watch: on a cloud node, watch the EC2 instance
 * metadata service (IMDSv2) for the spot interruption notice and the
 * rebalance recommendation, and hand the node's jobs over before EC2 takes
 * the instance: the configured signal to every step of each job running on
 * the node (the batch script included), so a training loop checkpoints;
 * after the grace (bounded by the notice's time) the jobs are requeued and
 * the node is forced down (POWER_DOWN_FORCE), so slurmctld runs slo-power's
 * SuspendProgram for it and the requeued jobs start elsewhere.
 * User documentation: doc/man/slo-spot-watch.8; sources of the metadata
 * shapes: power/imds.c; of the Slurm calls: slurm.h (slurm_kill_job with
 * KILL_FULL_JOB as `scancel --full --signal`, slurm_requeue as `scontrol
 * requeue`, slurm_update_node as `scontrol update state=POWER_DOWN_FORCE`).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE /* sigabbrev_np */
#include "config.h"

#include "imds.h"
#include "power.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

/* Seconds kept between the requeue and the notice's time: slurmctld must
 * still reach the steps (KillWait) before the instance goes. */
#define WATCH_MARGIN_S 10.0
#define WATCH_MAX_JOBS 256

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

struct watch {
    struct power_config cfg;
    char node[POWER_NAME_LEN];
    double interval_s;
    int once, dry_run;
    FILE *log;
    struct imds imds;
};

static void wlog(struct watch *w, const char *level, const char *fmt, ...) POWER_PRINTF(3, 4);
static void wlog(struct watch *w, const char *level, const char *fmt, ...)
{
    char text[2048], stamp[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    power_utc_stamp(stamp, sizeof stamp);
    if (w->log) {
        fprintf(w->log, "%s slo-spot-watch[%ld] node=%s: %s: %s\n", stamp, (long)getpid(),
                w->node, level, text);
        fflush(w->log);
    }
    fprintf(stderr, "slo-spot-watch[%ld] node=%s: %s: %s\n", (long)getpid(), w->node, level,
            text);
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: slo-spot-watch [OPTIONS]\n"
            "Watch the EC2 instance metadata service for the spot interruption notice on this\n"
            "cloud node; signal its jobs, requeue them after the grace, power the node down\n"
            "(see slo-spot-watch(8)).\n"
            "  --config FILE     slo-power config with spot_signal, spot_grace_s,\n"
            "                    spot_rebalance, imds_endpoint (default: as slo-power)\n"
            "  --node NAME       Slurm node name of this host (default: short host name)\n"
            "  --endpoint URL    metadata service, http://HOST[:PORT] (default\n"
            "                    imds_endpoint, http://169.254.169.254)\n"
            "  --interval S      seconds between polls (default 5, as AWS recommends)\n"
            "  --signal SIG      signal for the jobs (default spot_signal, USR1)\n"
            "  --grace S         seconds from signal to requeue (default spot_grace_s, 90)\n"
            "  --rebalance yes|no  also signal on a rebalance recommendation (no requeue)\n"
            "  --log FILE        append log lines to FILE (and stderr)\n"
            "  --once            poll once and exit (0: no notice or handled, 1: failure)\n"
            "  --dry-run         print what would be done; no Slurm call\n"
            "  --help, --version\n");
}

static int bad_option(const char *opt, const char *expected, const char *found)
{
    fprintf(stderr, "slo-spot-watch: %s: expected %s, found '%s'\n", opt, expected, found);
    return 2;
}

static int parse_seconds(const char *s, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static const char *signame(int sig, char *buf, size_t len)
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(buf, len, "SIG%s", abbrev);
    else
        snprintf(buf, len, "signal %d", sig);
    return buf;
}

/* Ids of the jobs running on node, into ids[*n]. */
static int jobs_on_node(const char *node, uint32_t *ids, size_t *n, char *err, size_t errlen)
{
    job_info_msg_t *msg = NULL;
    *n = 0;
    if (slurm_load_jobs((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS)
        return power_fail(err, errlen, "slurm_load_jobs: %s",
                          slurm_strerror(slurm_get_errno()));
    for (uint32_t i = 0; i < msg->record_count && *n < WATCH_MAX_JOBS; i++) {
        const slurm_job_info_t *j = &msg->job_array[i];
        if ((j->job_state & JOB_STATE_BASE) != JOB_RUNNING || !j->nodes || !*j->nodes)
            continue;
        hostlist_t hl = slurm_hostlist_create(j->nodes);
        if (!hl)
            continue;
        if (slurm_hostlist_find(hl, node) >= 0)
            ids[(*n)++] = j->job_id;
        slurm_hostlist_destroy(hl);
    }
    slurm_free_job_info_msg(msg);
    return 0;
}

static void sleep_s(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL); /* a stop signal cuts it short */
}

/* Signal every job on the node; returns how many were signalled (ids kept). */
static size_t signal_jobs(struct watch *w, const char *why, uint32_t *ids, size_t *n)
{
    char sn[32], err[POWER_ERR_LEN];
    signame(w->cfg.spot_signal, sn, sizeof sn);
    if (w->dry_run) {
        printf("dry run: would send %s to every step of each job running on %s (%s)\n", sn,
               w->node, why);
        *n = 0;
        return 0;
    }
    if (jobs_on_node(w->node, ids, n, err, sizeof err) != 0) {
        wlog(w, "error", "%s: cannot list the node's jobs: %s", why, err);
        *n = 0;
        return 0;
    }
    if (*n == 0)
        wlog(w, "info", "%s: no job runs on %s", why, w->node);
    size_t done = 0;
    for (size_t i = 0; i < *n; i++) {
        if (slurm_kill_job(ids[i], (uint16_t)w->cfg.spot_signal, KILL_FULL_JOB) !=
            SLURM_SUCCESS) {
            wlog(w, "error", "%s: job %u: sending %s failed: %s", why, ids[i], sn,
                 slurm_strerror(slurm_get_errno()));
            continue;
        }
        done++;
        wlog(w, "warning", "%s: sent %s to job %u (the batch script and every step)", why,
             sn, ids[i]);
    }
    return done;
}

/* The interruption notice: signal, grace, requeue, power down. */
static int handle_notice(struct watch *w, const struct imds_notice *nt)
{
    char why[160], sn[32], err[POWER_ERR_LEN];
    double left = difftime(nt->time, time(NULL));
    snprintf(why, sizeof why, "spot interruption notice (%s at %s)", nt->action,
             nt->time_text);
    wlog(w, "warning", "%s, in %.0f s", why, left);
    double grace = w->cfg.spot_grace_s;
    if (grace > left - WATCH_MARGIN_S)
        grace = left - WATCH_MARGIN_S > 0 ? left - WATCH_MARGIN_S : 0;
    uint32_t ids[WATCH_MAX_JOBS];
    size_t n = 0;
    signal_jobs(w, why, ids, &n);
    signame(w->cfg.spot_signal, sn, sizeof sn);
    if (w->dry_run) {
        printf("dry run: would wait %.0f s (grace %g s, bounded by the notice time minus "
               "%.0f s), then requeue those jobs and power %s down (POWER_DOWN_FORCE)\n",
               grace, w->cfg.spot_grace_s, WATCH_MARGIN_S, w->node);
        return 0;
    }
    if (n > 0) {
        wlog(w, "info", "requeue in %.0f s (grace %g s, notice in %.0f s)", grace,
             w->cfg.spot_grace_s, left);
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            double el = (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9;
            if (el >= grace || stop_requested)
                break;
            sleep_s(grace - el < 1 ? grace - el : 1);
            /* Jobs that finished (checkpointed and exited) need no requeue. */
            uint32_t now_ids[WATCH_MAX_JOBS];
            size_t m = 0;
            if (jobs_on_node(w->node, now_ids, &m, err, sizeof err) == 0 && m == 0) {
                wlog(w, "info", "no job left on %s after %.0f s", w->node, el);
                break;
            }
        }
        uint32_t still[WATCH_MAX_JOBS];
        size_t m = 0;
        if (jobs_on_node(w->node, still, &m, err, sizeof err) != 0) {
            wlog(w, "error", "cannot list the node's jobs: %s (requeueing the signalled ones)",
                 err);
            memcpy(still, ids, n * sizeof ids[0]);
            m = n;
        }
        for (size_t i = 0; i < m; i++) {
            if (slurm_requeue(still[i], 0) != SLURM_SUCCESS)
                wlog(w, "error", "job %u: requeue failed: %s (it ends with the node)", still[i],
                     slurm_strerror(slurm_get_errno()));
            else
                wlog(w, "warning", "requeued job %u (%s)", still[i], why);
        }
    }
    char reason[256];
    snprintf(reason, sizeof reason, "slo-spot-watch: %s", why);
    if (power_slurm_real.power_down(NULL, w->node, reason, err, sizeof err) != 0) {
        wlog(w, "error", "could not power %s down: %s", w->node, err);
        return 1;
    }
    wlog(w, "warning", "powered %s down (POWER_DOWN_FORCE): slurmctld runs the "
         "SuspendProgram for it", w->node);
    return 0;
}

int main(int argc, char **argv)
{
    static struct watch w;
    const char *config_opt = NULL, *endpoint = NULL, *node = NULL, *log = NULL;
    const char *signal_opt = NULL, *grace_opt = NULL, *rebalance_opt = NULL;
    w.interval_s = 5;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **dst = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("slo-spot-watch %s\n", PACKAGE_VERSION);
            return 0;
        } else if (strcmp(a, "--once") == 0) {
            w.once = 1;
            continue;
        } else if (strcmp(a, "--dry-run") == 0) {
            w.dry_run = 1;
            continue;
        }
        static const char *const valued[] = {"--config", "--endpoint", "--node", "--log",
                                              "--signal", "--grace", "--rebalance",
                                              "--interval"};
        const char *val = NULL;
        size_t k;
        for (k = 0; k < sizeof valued / sizeof valued[0]; k++) {
            size_t l = strlen(valued[k]);
            if (strcmp(a, valued[k]) == 0) {
                if (i + 1 >= argc || !argv[i + 1][0])
                    return bad_option(a, "a value", "nothing");
                val = argv[++i];
                break;
            }
            if (strncmp(a, valued[k], l) == 0 && a[l] == '=') {
                val = a + l + 1;
                if (!*val)
                    return bad_option(valued[k], "a value", "nothing");
                break;
            }
        }
        if (!val) {
            fprintf(stderr, "slo-spot-watch: unknown option or argument '%s' (see --help)\n", a);
            return 2;
        }
        const char **slots[] = {&config_opt, &endpoint, &node, &log,
                                &signal_opt, &grace_opt, &rebalance_opt};
        if (k < 7) {
            dst = slots[k];
            *dst = val;
        } else if (parse_seconds(val, 0.1, 3600, &w.interval_s) != 0) {
            return bad_option("--interval", "seconds in [0.1, 3600]", val);
        }
    }

    /* The site's settings: the slo-power config (same search as slo-power);
     * built-in defaults when no file is found at the default places. */
    char path[PATH_MAX], err[POWER_ERR_LEN];
    if (power_config_locate(config_opt, path, sizeof path) != 0) {
        fprintf(stderr, "slo-spot-watch: config file path too long\n");
        return 2;
    }
    int explicit_conf = config_opt || (getenv("SLO_POWER_CONF") && *getenv("SLO_POWER_CONF"));
    if (!explicit_conf && access(path, F_OK) != 0) {
        power_config_parse("provider=local\nstate_dir=/nonexistent\n", "(defaults)", &w.cfg,
                           err, sizeof err);
        path[0] = '\0';
    } else if (power_config_load(path, &w.cfg, err, sizeof err) != 0) {
        fprintf(stderr, "slo-spot-watch: %s\n", err);
        return 2;
    }
    if (signal_opt) {
        int sig = power_signal_parse(signal_opt);
        if (sig < 0 || sig == SIGKILL || sig == SIGSTOP)
            return bad_option("--signal", "a signal a job can trap (USR1, USR2, TERM, ... not "
                              "KILL or STOP)", signal_opt);
        w.cfg.spot_signal = sig;
    }
    if (grace_opt && parse_seconds(grace_opt, 0, 3600, &w.cfg.spot_grace_s) != 0)
        return bad_option("--grace", "seconds in [0, 3600]", grace_opt);
    if (rebalance_opt) {
        if (strcmp(rebalance_opt, "yes") != 0 && strcmp(rebalance_opt, "no") != 0)
            return bad_option("--rebalance", "yes or no", rebalance_opt);
        w.cfg.spot_rebalance = rebalance_opt[0] == 'y';
    }
    if (endpoint && (!power_endpoint_valid(endpoint) ||
                     strlen(endpoint) >= sizeof w.cfg.imds_endpoint))
        return bad_option("--endpoint", "http://HOST[:PORT] (the instance metadata service, "
                          "plain HTTP)", endpoint);
    if (endpoint)
        strcpy(w.cfg.imds_endpoint, endpoint);
    if (imds_parse_endpoint(w.cfg.imds_endpoint, &w.imds, err, sizeof err) != 0) {
        fprintf(stderr, "slo-spot-watch: endpoint: %s\n", err);
        return 2;
    }
    if (node) {
        if (strlen(node) >= sizeof w.node || strpbrk(node, " ,[]"))
            return bad_option("--node", "one Slurm node name", node);
        strcpy(w.node, node);
    } else {
        if (gethostname(w.node, sizeof w.node - 1) != 0 || !w.node[0]) {
            fprintf(stderr, "slo-spot-watch: --node: no host name to default to; give "
                    "--node NAME\n");
            return 2;
        }
        w.node[strcspn(w.node, ".")] = '\0';
    }
    if (log) {
        w.log = fopen(log, "ae");
        if (!w.log) {
            fprintf(stderr, "slo-spot-watch: --log %s: cannot open for appending: %s\n", log,
                    strerror(errno));
            return 2;
        }
    }
    int use_slurm = 0;
    if (!w.dry_run) {
        const char *sc = getenv("SLURM_CONF");
        const char *scp = sc && *sc ? sc : "/etc/slurm/slurm.conf";
        if (access(scp, R_OK) != 0) {
            fprintf(stderr, "slo-spot-watch: cannot read the Slurm config %s%s: %s\n", scp,
                    sc && *sc ? " (SLURM_CONF)" : " (SLURM_CONF is unset)", strerror(errno));
            if (w.log)
                fclose(w.log);
            return 2;
        }
        slurm_init(NULL);
        use_slurm = 1;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    char sn[32];
    wlog(&w, "info", "watching %s%s every %g s: on a notice %s, requeue after %g s%s%s%s",
         w.imds.url, IMDS_INSTANCE_ACTION, w.interval_s,
         signame(w.cfg.spot_signal, sn, sizeof sn), w.cfg.spot_grace_s,
         w.cfg.spot_rebalance ? "; signal on a rebalance recommendation" : "",
         path[0] ? ", config " : "", path);

    int rc = 0, failing = 0;
    char last_rebalance[40] = "";
    while (!stop_requested) {
        struct imds_response *r = malloc(sizeof *r);
        if (!r) {
            wlog(&w, "error", "out of memory");
            rc = 1;
            break;
        }
        int got = imds_get(&w.imds, IMDS_INSTANCE_ACTION, r, err, sizeof err);
        if (got != 0 || (r->status != 200 && r->status != 404)) {
            if (got == 0)
                snprintf(err, sizeof err, "%s" IMDS_INSTANCE_ACTION ": HTTP %d (expected 200 "
                         "or 404)", w.imds.url, r->status);
            if (!failing || w.once)
                wlog(&w, "error", "%s", err);
            failing = 1;
            if (w.once) {
                free(r);
                rc = 1;
                break;
            }
        } else {
            if (failing)
                wlog(&w, "info", "the metadata service answers again");
            failing = 0;
            if (r->status == 200) {
                struct imds_notice nt;
                if (imds_parse_notice(r->body, IMDS_INSTANCE_ACTION, "time", &nt, err,
                                      sizeof err) != 0) {
                    wlog(&w, "error", "%s", err);
                    if (w.once) {
                        free(r);
                        rc = 1;
                        break;
                    }
                } else {
                    rc = handle_notice(&w, &nt);
                    free(r);
                    /* The instance is about to go: the watcher's work is done. */
                    break;
                }
            } else if (w.once && !w.cfg.spot_rebalance) {
                printf("no interruption notice (%s" IMDS_INSTANCE_ACTION ": 404)\n",
                       w.imds.url);
            }
            if (w.cfg.spot_rebalance) {
                int g2 = imds_get(&w.imds, IMDS_REBALANCE, r, err, sizeof err);
                struct imds_notice nt;
                if (g2 != 0) {
                    wlog(&w, "error", "%s", err);
                    rc = w.once ? 1 : rc;
                } else if (r->status == 200) {
                    if (imds_parse_notice(r->body, IMDS_REBALANCE, "noticeTime", &nt, err,
                                          sizeof err) != 0) {
                        wlog(&w, "error", "%s", err);
                        rc = w.once ? 1 : rc;
                    } else if (strcmp(nt.time_text, last_rebalance) != 0) {
                        snprintf(last_rebalance, sizeof last_rebalance, "%s", nt.time_text);
                        char why[96];
                        snprintf(why, sizeof why, "rebalance recommendation (%s)",
                                 nt.time_text);
                        uint32_t ids[WATCH_MAX_JOBS];
                        size_t n = 0;
                        wlog(&w, "warning", "%s: checkpoint signal, no requeue", why);
                        signal_jobs(&w, why, ids, &n);
                    }
                } else if (r->status == 404 && w.once) {
                    printf("no interruption notice, no rebalance recommendation\n");
                } else if (r->status != 404) {
                    wlog(&w, "error", "%s" IMDS_REBALANCE ": HTTP %d (expected 200 or 404)",
                         w.imds.url, r->status);
                }
            }
        }
        free(r);
        if (w.once)
            break;
        sleep_s(w.interval_s);
    }
    if (w.imds.token_refreshes)
        wlog(&w, "info", "the metadata token was refreshed %d time(s) after HTTP 401",
             w.imds.token_refreshes);
    if (stop_requested)
        wlog(&w, "info", "stopped by a signal");
    if (fflush(stdout) != 0 || ferror(stdout))
        rc = rc ? rc : 1;
    if (use_slurm)
        slurm_fini();
    if (w.log)
        fclose(w.log);
    return rc;
}
