/*
 * requeue.c - slo-requeue, slurmctld's EpilogSlurmctld for planned jobs:
 * when a job with an enforced SLO plan is requeued (a spot reclaim, a
 * launch that failed for lack of capacity or quota), plan its remaining SLO
 * again with the capacity that is there, and change the pending job's
 * request to the new plan; when the remaining SLO cannot be met, hold the
 * job (user hold) and say why in its Comment, naming the closest plan.
 *
 * Contract and what the user sees: doc/slurm.md "Re-planning on requeue".
 * The plan is libslo's (slo_train_solve through the plugin's sslo_plan, the
 * call `slo train --exact --max-nodes N --elapsed T --loss-now L
 * --restart-overhead O` makes): spotDNN Sec. IV-C re-planning (survivors
 * none, time left, loss reached, restart overhead T_ohd).
 * Mechanism (Slurm 22.05): slurmctld runs EpilogSlurmctld from
 * deallocate_nodes() whenever a job's nodes are released, a requeue
 * included, while the job is still COMPLETING, so it cannot be started
 * again before this program returns; SlurmUser may then update the pending
 * job (slurm_update_job: partition, node count, features, GRES, time
 * limit, AdminComment), which job_submit.lua's slurm_job_modify allows for
 * admins (SITE.admin_uids) and refuses for the job's user.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "args.h"
#include "plan.h"
#include "backoff.h"
#include "slo.h"

#define REPLAN_MARK "slo-replan:"
#define PLAN_MARK "slo-plan:"
#define PROGRESS_NAME "slo-progress-%u.json"
#define PROGRESS_MAX_BYTES (1 << 20)
#define DEFAULT_OVERHEAD_S 30.0
/* job_submit.lua SITE.time_limit_grace_min: the time limit of a plan is its
 * deadline rounded up to minutes plus this grace. */
#define TIME_LIMIT_GRACE_MIN 5
#define MAX_REPLANS 8

static FILE *logf_;
static int quiet_;

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (!quiet_)
        fprintf(stderr, "slo-requeue: %s\n", line);
    if (logf_) {
        char ts[32];
        time_t now = time(NULL);
        struct tm tm;
        strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
        fprintf(logf_, "%s slo-requeue[%ld] %s\n", ts, (long)getpid(), line);
        fflush(logf_);
    } else {
        syslog(LOG_DAEMON | LOG_INFO, "slo-requeue: %s", line);
    }
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: slo-requeue [--plugstack FILE] [--restart-overhead S] [--log FILE]\n"
            "                   [--dry-run] [JOBID]\n"
            "EpilogSlurmctld of slo-kernel: re-plan a requeued job's remaining SLO\n"
            "(doc/slurm.md \"Re-planning on requeue\"). JOBID defaults to $SLURM_JOB_ID.\n"
            "  --plugstack FILE      plugstack.conf with the spank_slo.so line (default:\n"
            "                        slurmctld's PlugStackConfig)\n"
            "  --restart-overhead S  seconds added to every plan's time (default 30)\n"
            "  --log FILE            append one line per decision (default: syslog)\n"
            "  --dry-run             print the decision, change nothing\n");
}

/* A plan record of the job's spank_job_env, as slurmctld passes it to
 * EpilogSlurmctld ("SPANK_SLO_X" or "SLO_X"); NULL when absent. */
static const char *record(const char *name)
{
    char var[96];
    snprintf(var, sizeof var, "SPANK_%s", name);
    const char *v = getenv(var);
    if (!v)
        v = getenv(name);
    return v && *v ? v : NULL;
}

/* The spank_slo.so arguments of plugstack.conf at path into cfg. */
static int read_plugstack(const char *path, struct sslo_config *cfg, char *msg, size_t len)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    int lineno = 0;
    if (!f) {
        snprintf(msg, len, "plugstack %.400s: %s", path, strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        char *av[64], *save = NULL, *tok;
        int ac = 0;
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        tok = strtok_r(line, " \t\r\n", &save); /* required | optional */
        if (!tok)
            continue;
        tok = strtok_r(NULL, " \t\r\n", &save); /* plugin path */
        if (!tok || strlen(tok) < 12 || strcmp(tok + strlen(tok) - 12, "spank_slo.so") != 0)
            continue;
        while ((tok = strtok_r(NULL, " \t\r\n", &save)) && ac < 64)
            av[ac++] = tok;
        fclose(f);
        if (sslo_config_parse(cfg, ac, av, msg, len)) {
            char m2[SSLO_MSG_LENGTH + 64];
            snprintf(m2, sizeof m2, "%.200s:%d: %.800s", path, lineno, msg);
            snprintf(msg, len, "%.1000s", m2);
            return -1;
        }
        return 0;
    }
    fclose(f);
    snprintf(msg, len, "plugstack %.400s: expected a spank_slo.so line, found none", path);
    return -1;
}

/* The loss the job reached, from its progress file (python/slo/trainlog.py
 * StepLogger: {"format": "slo-train-progress-1", "loss": L, ...}); 0 when
 * there is none or it cannot be trusted (why[] says which). The file must be
 * a regular file owned by the job's user (or root), not a link, at most
 * 1 MiB: slo-requeue runs as SlurmUser and reads a user's file. */
static double read_progress(const char *path, uid_t uid, double *started, char *why,
                            size_t len)
{
    *started = 0;
    struct stat st;
    json_error_t je;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, len, "no progress file %s (%s): planned from the start", path,
                 strerror(errno));
        return 0;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (st.st_uid != uid && st.st_uid != 0) ||
        st.st_size > PROGRESS_MAX_BYTES) {
        snprintf(why, len, "progress file %s ignored: expected a regular file of the job's user "
                 "of at most 1 MiB: planned from the start", path);
        close(fd);
        return 0;
    }
    json_t *root = json_loadfd(fd, 0, &je);
    close(fd);
    const char *fmt = root ? json_string_value(json_object_get(root, "format")) : NULL;
    const json_t *loss = root ? json_object_get(root, "loss") : NULL;
    double l = json_is_number(loss) ? json_number_value(loss) : 0;
    if (!fmt || strcmp(fmt, "slo-train-progress-1") != 0 || !isfinite(l) || l <= 0) {
        snprintf(why, len, "progress file %s ignored: expected format \"slo-train-progress-1\" "
                 "with a loss > 0, found %s: planned from the start", path,
                 !root ? "no JSON" : !fmt ? "no format" : "no loss yet");
        json_decref(root);
        return 0;
    }
    /* When the logger started: its rewrite time minus its elapsed time. */
    const json_t *el = json_object_get(root, "elapsed_s");
    const json_t *up = json_object_get(root, "updated_unix_s");
    if (json_is_number(el) && json_is_number(up) && json_number_value(el) >= 0 &&
        isfinite(json_number_value(el)) && isfinite(json_number_value(up)))
        *started = json_number_value(up) - json_number_value(el);
    snprintf(why, len, "progress file %s: loss %.6g", path, l);
    json_decref(root);
    return l;
}

/* The live inventory (as spank_plugin/ctx_submit.c reads it). */
static int load_inventory(node_info_msg_t **msg, struct sslo_node **nodes, size_t *n)
{
    partition_info_msg_t *parts = NULL;
    *msg = NULL;
    if (slurm_load_node((time_t)0, msg, SHOW_ALL) != SLURM_SUCCESS) {
        say("cannot read the node inventory (slurm_load_node): %s",
            slurm_strerror(slurm_get_errno()));
        *msg = NULL;
        return -1;
    }
    if (slurm_load_partitions((time_t)0, &parts, SHOW_ALL) != SLURM_SUCCESS) {
        say("cannot read the partitions: %s", slurm_strerror(slurm_get_errno()));
        return -1;
    }
    slurm_populate_node_partitions(*msg, parts);
    slurm_free_partition_info_msg(parts);
    *n = (*msg)->record_count;
    *nodes = calloc(*n ? *n : 1, sizeof **nodes);
    if (!*nodes)
        return -1;
    for (size_t i = 0; i < *n; i++) {
        const node_info_t *ni = &(*msg)->node_array[i];
        (*nodes)[i].name = ni->name;
        (*nodes)[i].features = ni->features;
        (*nodes)[i].partitions = ni->partitions;
        (*nodes)[i].state = ni->node_state;
    }
    return 0;
}

/* Why the job came back, from the reasons of its nodes (a spot reclaim:
 * "spot-reclaim", as AWS ParallelCluster and doc/slurm.md report it; a
 * failed launch: slo-power's "no capacity: CODE"). A reclaimed spot node's
 * pool is backed off here (slo-power backs off capacity errors itself). */
static void find_cause(const char *hostlist, const node_info_msg_t *msg,
                       const struct slo_catalog *cat, const char *backoff_path, int dry_run,
                       char *cause, size_t len)
{
    hostlist_t hl = hostlist && *hostlist ? slurm_hostlist_create(hostlist) : NULL;
    char *host;
    cause[0] = '\0';
    while (hl && (host = slurm_hostlist_shift(hl)) != NULL) {
        for (uint32_t i = 0; i < msg->record_count; i++) {
            const node_info_t *ni = &msg->node_array[i];
            if (!ni->name || strcmp(ni->name, host) != 0 || !ni->reason)
                continue;
            const char *type = NULL;
            for (size_t k = 0; k < cat->n_types; k++)
                if (cat->types[k].site == SLO_SITE_CLOUD &&
                    sslo_features_have(ni->features, cat->types[k].name))
                    type = cat->types[k].name;
            int spot = sslo_features_have(ni->features, "spot");
            size_t used = strlen(cause);
            if (strstr(ni->reason, "reclaim")) {
                snprintf(cause + used, len - used, "%sspot reclaim of %s", used ? ", " : "",
                         host);
                if (type && spot && !dry_run) {
                    char err[512];
                    if (power_backoff_record(backoff_path, type, "spot", "spot-reclaim", host,
                                             (double)time(NULL), POWER_BACKOFF_DEFAULT_S, err,
                                             sizeof err))
                        say("pool %s spot not backed off: %s", type, err);
                }
            } else if (strstr(ni->reason, "no capacity")) {
                const char *p = strstr(ni->reason, "no capacity");
                snprintf(cause + used, len - used, "%sfailed launch of %s (%.*s)",
                         used ? ", " : "", host, (int)strcspn(p, "\n"), p);
            }
        }
        free(host);
    }
    if (hl)
        slurm_hostlist_destroy(hl);
    if (!cause[0])
        snprintf(cause, len, "requeue");
}

/* Pools of the back-off state: quota 0 for the catalog types whose pool at
 * pricing is backed off; their names into list[len]. */
static void apply_backoff(struct slo_catalog *cat, const struct power_backoff *b, size_t nb,
                          enum slo_pricing pricing, char *list, size_t len)
{
    const char *cap = pricing == SLO_PRICING_SPOT ? "spot" : "on-demand";
    list[0] = '\0';
    for (size_t k = 0; k < cat->n_types; k++) {
        struct slo_instance_type *t = &cat->types[k];
        if (t->site != SLO_SITE_CLOUD || !power_backoff_has(b, nb, t->name, cap))
            continue;
        t->quota = 0;
        size_t used = strlen(list);
        snprintf(list + used, len - used, "%s%s %s", used ? ", " : "", t->name, cap);
    }
}

struct attempt {
    enum slo_pricing pricing;
    int rc;
    struct sslo_plan_result res;
    char excluded[512];
};

static void plan_once(const struct sslo_config *cfg, const struct slo_workload *wl,
                      const struct sslo_node *nodes, size_t n_nodes,
                      const struct power_backoff *b, size_t nb,
                      const struct sslo_plan_request *req, struct attempt *a)
{
    struct slo_catalog cat = {0};
    slo_error_t err = {0};
    int *usable = NULL;
    a->rc = SLO_ERR_INVALID;
    if (slo_catalog_load(cfg->catalog, &cat, &err) != SLO_OK) {
        snprintf(a->res.reason, sizeof a->res.reason, "catalog %.300s: %.600s", cfg->catalog,
                 err.text);
        return;
    }
    apply_backoff(&cat, b, nb, req->pricing, a->excluded, sizeof a->excluded);
    usable = calloc(cat.n_types ? cat.n_types : 1, sizeof *usable);
    if (!usable) {
        slo_catalog_free(&cat);
        return;
    }
    sslo_inventory_count(cfg, &cat, nodes, n_nodes, req->pricing, usable);
    sslo_apply_inventory(&cat, usable, cfg->max_nodes);
    a->rc = sslo_plan(cfg, &cat, usable, wl, req, &a->res, &err);
    if (a->rc != SLO_OK && a->rc != SLO_ERR_INFEASIBLE && a->rc != SLO_ERR_UNREACHABLE)
        snprintf(a->res.reason, sizeof a->res.reason, "planning failed: %s%s%s", err.source,
                 err.source[0] ? ": " : "", err.text);
    free(usable);
    slo_catalog_free(&cat);
}

static int update_comment(uint32_t job_id, const char *comment, int hold)
{
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id = job_id;
    d.comment = (char *)comment;
    if (hold) {
        d.priority = 0;
        d.alloc_sid = ALLOC_SID_USER_HOLD; /* scontrol uhold: the user may release it */
    }
    return slurm_update_job(&d);
}

int main(int argc, char **argv)
{
    const char *plugstack = NULL, *log_path = NULL, *job_arg = NULL;
    double overhead_s = DEFAULT_OVERHEAD_S;
    int dry_run = 0;
    char msg[SSLO_MSG_LENGTH];

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if ((strcmp(a, "--plugstack") == 0 || strcmp(a, "--log") == 0 ||
             strcmp(a, "--restart-overhead") == 0) && i + 1 < argc) {
            const char *v = argv[++i];
            if (a[2] == 'p')
                plugstack = v;
            else if (a[2] == 'l')
                log_path = v;
            else if (slo_parse_duration(v, &overhead_s, NULL, NULL) != SLO_OK ||
                     overhead_s < 0) {
                fprintf(stderr, "slo-requeue: --restart-overhead: expected a duration >= 0 "
                        "(30s, 1:00), found \"%s\"\n", v);
                return 2;
            }
        } else if (strcmp(a, "--dry-run") == 0) {
            dry_run = 1;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (a[0] != '-' && !job_arg) {
            job_arg = a;
        } else {
            fprintf(stderr, "slo-requeue: unknown option or extra argument \"%s\" (expected "
                    "[--plugstack FILE] [--restart-overhead S] [--log FILE] [--dry-run] "
                    "[JOBID]; --help lists them)\n", a);
            return 2;
        }
    }
    if (!job_arg)
        job_arg = getenv("SLURM_JOB_ID");
    char *end = NULL;
    unsigned long jid = job_arg ? strtoul(job_arg, &end, 10) : 0;
    if (!job_arg || !*job_arg || *end || jid == 0 || jid > 0xfffffff0UL) {
        fprintf(stderr, "slo-requeue: expected a job id (argument or SLURM_JOB_ID), found "
                "\"%s\"\n", job_arg ? job_arg : "");
        return 2;
    }
    uint32_t job_id = (uint32_t)jid;
    if (log_path && !(logf_ = fopen(log_path, "ae"))) {
        fprintf(stderr, "slo-requeue: --log %s: %s\n", log_path, strerror(errno));
        return 2;
    }
    quiet_ = getenv("SLURM_SCRIPT_CONTEXT") != NULL && logf_ != NULL;

    /* Not a planned, enforced job: nothing to do (every job passes here). */
    const char *mode = record("SLO_MODE");
    if (!dry_run && (!mode || strcmp(mode, "enforce") != 0))
        return 0;

    /* libslurm exits (fatal) without a readable slurm.conf: say so first.
     * slurmctld runs EpilogSlurmctld without SLURM_CONF. */
    const char *sc = getenv("SLURM_CONF");
    const char *scp = sc && *sc ? sc : "/etc/slurm/slurm.conf";
    if (access(scp, R_OK) != 0) {
        say("job %u: cannot read the Slurm config %s%s: %s", job_id, scp,
            sc && *sc ? " (SLURM_CONF)" : " (SLURM_CONF is unset: set it in the "
                                          "EpilogSlurmctld wrapper)", strerror(errno));
        if (logf_)
            fclose(logf_);
        return 1;
    }
    slurm_init(NULL);
    job_info_msg_t *jm = NULL;
    if (slurm_load_job(&jm, job_id, SHOW_DETAIL) != SLURM_SUCCESS || !jm ||
        jm->record_count < 1) {
        say("job %u: cannot read it from slurmctld: %s", job_id,
            slurm_strerror(slurm_get_errno()));
        if (jm)
            slurm_free_job_info_msg(jm);
        return 1;
    }
    const slurm_job_info_t *j = &jm->job_array[0];
    uint32_t base = j->job_state & JOB_STATE_BASE;
    int requeued = (j->job_state & (JOB_REQUEUE | JOB_REQUEUE_HOLD)) || base == JOB_PENDING;
    int rv = 0;
    struct sslo_config cfg;
    struct slo_workload wl = {0};
    struct slo_catalog cat = {0};
    node_info_msg_t *node_msg = NULL;
    struct sslo_node *nodes = NULL;
    size_t n_nodes = 0;
    struct power_backoff *b = NULL;
    size_t nb = 0;
    struct attempt *tries = NULL;
    slo_error_t err = {0};

    if (!requeued) {
        say("job %u: state 0x%x (restart %u), not requeued: nothing to re-plan", job_id,
            (unsigned)j->job_state, j->restart_cnt);
        goto out;
    }
    /* The plan as applied: AdminComment is the evidence (admins only). */
    const char *ac = j->admin_comment ? j->admin_comment : "";
    int k_done = 0;
    double first_start = (double)j->start_time;
    /* Budget bookkeeping: USD spent by the runs before the last, when the
     * last run's plan started (the last re-plan), its USD/h. */
    double spent_before = 0, last_plan_at = 0, rate = -1;
    const char *ratev = record("SLO_COST_USD_PER_H");
    if (ratev)
        rate = atof(ratev);
    if (strncmp(ac, REPLAN_MARK, strlen(REPLAN_MARK)) == 0) {
        char v[64];
        k_done = atoi(ac + strlen(REPLAN_MARK));
        sslo_mark_value(ac, "first_start", v, sizeof v);
        if (v[0])
            first_start = atof(v);
        sslo_mark_value(ac, "spent_usd", v, sizeof v);
        spent_before = v[0] ? atof(v) : -1; /* -1: unknown (mark of an older slo-requeue) */
        sslo_mark_value(ac, "planned_at", v, sizeof v);
        last_plan_at = v[0] ? atof(v) : 0;
        sslo_mark_value(ac, "SLO_COST_USD_PER_H", v, sizeof v);
        rate = v[0] ? atof(v) : -1;
    } else if (strncmp(ac, PLAN_MARK, strlen(PLAN_MARK)) != 0) {
        say("job %u: AdminComment %s is no plan mark of job_submit.lua: not re-planned", job_id,
            ac[0] ? ac : "(none)");
        goto out;
    }
    if (k_done >= MAX_REPLANS) {
        char c[1024];
        snprintf(c, sizeof c, "slo: held after %d re-plans of the SLO plan (requeued %u "
                 "times); scontrol release %u runs it again, scancel %u drops it",
                 k_done, j->restart_cnt, job_id, job_id);
        say("job %u: %s", job_id, c);
        if (!dry_run && update_comment(job_id, c, 1) != SLURM_SUCCESS)
            say("job %u: cannot hold: %s", job_id, slurm_strerror(slurm_get_errno()));
        goto out;
    }

    /* The SLO, from the plan recorded at submission (job_submit.lua checked it). */
    const char *wname = record("SLO_WORKLOAD"), *lossv = record("SLO_LOSS");
    const char *dlv = record("SLO_DEADLINE_S"), *pricev = record("SLO_PRICING");
    double loss = lossv ? atof(lossv) : 0, deadline = dlv ? atof(dlv) : 0;
    if (!wname || !(loss > 0) || !(deadline > 0)) {
        say("job %u: the recorded plan lacks SLO_WORKLOAD, SLO_LOSS or SLO_DEADLINE_S: not "
            "re-planned", job_id);
        goto out;
    }
    enum slo_pricing pricing =
        pricev && strcmp(pricev, "on-demand") == 0 ? SLO_PRICING_ON_DEMAND : SLO_PRICING_SPOT;

    /* The site's planning configuration: the plugin's own plugstack line. */
    char psbuf[SSLO_PATH_LENGTH] = "";
    if (!plugstack) {
        slurm_conf_t *conf = NULL;
        if (slurm_load_ctl_conf((time_t)0, &conf) == SLURM_SUCCESS && conf) {
            snprintf(psbuf, sizeof psbuf, "%s", conf->plugstack ? conf->plugstack : "");
            slurm_free_ctl_conf(conf);
        }
        plugstack = psbuf[0] ? psbuf : "/etc/slurm/plugstack.conf";
    }
    if (read_plugstack(plugstack, &cfg, msg, sizeof msg)) {
        say("job %u: %s", job_id, msg);
        rv = 1;
        goto out;
    }
    char wpath[SSLO_PATH_LENGTH + 128];
    if (sslo_workload_path(&cfg, wname, wpath, sizeof wpath, msg, sizeof msg) ||
        slo_workload_load(wpath, &wl, &err) != SLO_OK ||
        slo_catalog_load(cfg.catalog, &cat, &err) != SLO_OK) {
        say("job %u: %s", job_id, msg[0] ? msg : err.text);
        rv = 1;
        goto out;
    }
    if (load_inventory(&node_msg, &nodes, &n_nodes)) {
        rv = 1;
        goto out;
    }
    char bpath[4096];
    if (power_backoff_path(bpath, sizeof bpath, msg, sizeof msg)) {
        say("job %u: %s: planned without the back-off state", job_id, msg);
        bpath[0] = '\0';
    }
    char cause[1024];
    /* The nodes the job held: slurmctld's environment of EpilogSlurmctld
     * (the record's node list may already be cleared by the requeue). */
    const char *held = getenv("SLURM_JOB_NODELIST");
    find_cause(held && *held ? held : j->nodes, node_msg, &cat, bpath[0] ? bpath : "/dev/null", dry_run || !bpath[0],
               cause, sizeof cause);
    double now = (double)time(NULL);
    if (bpath[0] && power_backoff_load(bpath, now, &b, &nb, msg, sizeof msg))
        say("job %u: %s: planned without the back-off state", job_id, msg);

    /* Progress: the loss reached, from the job's own progress file. */
    char ppath[SSLO_PATH_LENGTH + 64], pwhy[SSLO_PATH_LENGTH + 256];
    double loss_now = 0, started_run = 0;
    if (j->work_dir && j->work_dir[0] == '/') {
        snprintf(ppath, sizeof ppath, "%s/" PROGRESS_NAME, j->work_dir, job_id);
        double started = 0;
        loss_now = read_progress(ppath, (uid_t)j->user_id, &started, pwhy, sizeof pwhy);
        started_run = started;
        /* Slurm resets a requeued job's start time: at the first re-plan the
         * first start is the progress logger's start when that is earlier
         * (the mark keeps it for the next re-plans). */
        if (!k_done && started > 0 && started < now && (first_start <= 0 || started < first_start))
            first_start = started;
    } else {
        snprintf(pwhy, sizeof pwhy, "no working directory: planned from the start");
    }
    if (loss_now > 0 && loss_now <= loss) {
        say("job %u: loss %.6g already reached (target %.6g): request left as it is", job_id,
            loss_now, loss);
        goto out;
    }
    double elapsed = now - first_start;
    if (!(elapsed >= 0) || first_start <= 0)
        elapsed = 0;

    /* The budget for the remaining run: the submission's (SLO_BUDGET_USD)
     * minus what the runs so far cost at their plans' USD/h; the last run
     * is counted from its plan's start (the first start, or the last
     * re-plan, or its progress logger's start when that is later) to now.
     * Unknown rate or spending: the whole budget. */
    const char *budgetv = record(SSLO_BUDGET_RECORD);
    double budget = budgetv ? atof(budgetv) : 0, spent = 0, left = budget;
    int budget_known = 0;
    if (budget > 0 && isfinite(budget)) {
        double run_from = k_done ? last_plan_at : first_start;
        if (k_done && started_run > run_from && started_run < now)
            run_from = started_run;
        double run_s = run_from > 0 && now > run_from ? now - run_from : 0;
        if (rate >= 0 && spent_before >= 0 && run_from > 0 &&
            sslo_replan_budget(budget, spent_before, rate, run_s, &spent, &left) == 0)
            budget_known = 1;
        else
            left = budget;
    } else {
        budget = 0;
    }
    char budgetbuf[256] = "";
    if (budget > 0)
        snprintf(budgetbuf, sizeof budgetbuf, budget_known
                 ? ", budget %.6g USD (%.6g USD spent, %.6g USD left)"
                 : ", budget %.6g USD (spending unknown: the whole budget)",
                 budget, spent, left);
    if (budget > 0 && !(left > 0)) {
        char c[2048];
        snprintf(c, sizeof c, "slo: held: the SLO (loss %.6g within %.0f s%s) can no longer "
                 "be met after %.900s (restart %u): the budget is spent. scontrol release %u "
                 "runs it with its last plan, scancel %u drops it", loss, deadline, budgetbuf,
                 cause, j->restart_cnt, job_id, job_id);
        say("job %u: %s", job_id, c);
        if (!dry_run && update_comment(job_id, c, 1) != SLURM_SUCCESS) {
            say("job %u: cannot hold it: %s", job_id, slurm_strerror(slurm_get_errno()));
            rv = 1;
        }
        goto out;
    }

    /* Plan: the job's pricing first; a spot job may fall back to on-demand. */
    struct sslo_plan_request req = {
        .workload = wl.name,
        .loss = loss,
        .deadline_s = deadline,
        .budget_usd = budget > 0 ? left : 0,
        .pricing = pricing,
        .mode = SSLO_MODE_ENFORCE,
        .loss_now = loss_now,
        .elapsed_s = elapsed < deadline ? elapsed : deadline,
        .overhead_s = overhead_s,
    };
    tries = calloc(2, sizeof *tries);
    if (!tries) {
        rv = 1;
        goto out;
    }
    int n_tries = 0, chosen = -1;
    if (elapsed < deadline) {
        plan_once(&cfg, &wl, nodes, n_nodes, b, nb, &req, &tries[n_tries]);
        tries[n_tries].pricing = req.pricing;
        if (tries[n_tries++].rc == SLO_OK)
            chosen = 0;
        if (chosen < 0 && pricing == SLO_PRICING_SPOT) {
            req.pricing = SLO_PRICING_ON_DEMAND;
            plan_once(&cfg, &wl, nodes, n_nodes, b, nb, &req, &tries[n_tries]);
            tries[n_tries].pricing = req.pricing;
            if (tries[n_tries++].rc == SLO_OK)
                chosen = 1;
        }
    }
    char head[1024];
    char lossbuf[64];
    if (loss_now > 0)
        snprintf(lossbuf, sizeof lossbuf, "loss %.6g", loss_now);
    else
        snprintf(lossbuf, sizeof lossbuf, "loss unknown (planned from the start)");
    snprintf(head, sizeof head, "after %.900s (restart %u), %.0f s of the %.0f s deadline used, "
             "%s", cause, j->restart_cnt, elapsed, deadline, lossbuf);
    if (chosen < 0) {
        char c[4096];
        if (!n_tries)
            snprintf(c, sizeof c, "slo: held: the SLO (loss %.6g within %.0f s%s) can no "
                     "longer be met %s: the deadline has passed. scontrol release %u runs it "
                     "with its last plan, scancel %u drops it", loss, deadline, budgetbuf, head,
                     job_id, job_id);
        else
            snprintf(c, sizeof c, "slo: held: the SLO (loss %.6g within %.0f s%s) can no "
                     "longer be met %s%s%s: %.1200s%s%.600s. scontrol release %u runs it with "
                     "its last plan, scancel %u drops it", loss, deadline, budgetbuf, head,
                     tries[0].excluded[0] ? ", without backed-off pool " : "",
                     tries[0].excluded, tries[0].res.reason,
                     n_tries > 1 ? "; with on-demand prices: " : "",
                     n_tries > 1 ? tries[1].res.reason : "", job_id, job_id);
        say("job %u: %s (%s)", job_id, c, pwhy);
        if (!dry_run && update_comment(job_id, c, 1) != SLURM_SUCCESS) {
            say("job %u: cannot hold it: %s", job_id, slurm_strerror(slurm_get_errno()));
            rv = 1;
        }
        goto out;
    }

    /* Apply: one update of the pending job, and the new plan mark. */
    const struct sslo_plan_result *r = &tries[chosen].res;
    char mark[4096], comment[2048], gres[64];
    size_t used = (size_t)snprintf(mark, sizeof mark,
                                   REPLAN_MARK "%d first_start=%.0f planned_at=%.0f",
                                   k_done + 1, first_start, now);
    if (budget_known)
        used += (size_t)snprintf(mark + used, sizeof mark - used, " spent_usd=%.6f", spent);
    for (int i = 0; i < SSLO_N_RECORDS && used < sizeof mark; i++)
        used += (size_t)snprintf(mark + used, sizeof mark - used, " %s=%s", sslo_record_names[i],
                                 r->values[i]);
    if (used < sizeof mark)
        used += (size_t)snprintf(mark + used, sizeof mark - used,
                                 " SLO_REPLAN=%d SLO_ELAPSED_S=%.0f SLO_LOSS_NOW=%.10g",
                                 k_done + 1, req.elapsed_s, loss_now);
    if (used >= sizeof mark) {
        say("job %u: the re-plan's mark is longer than %zu characters: not applied", job_id,
            sizeof mark - 1);
        rv = 1;
        goto out;
    }
    const char *inst = sslo_plan_value(r, "SLO_INSTANCES");
    const char *tpred = sslo_plan_value(r, "SLO_TIME_S");
    double remaining = deadline - req.elapsed_s;
    uint32_t limit = (uint32_t)ceil(remaining / 60) + TIME_LIMIT_GRACE_MIN;
    snprintf(gres, sizeof gres, "gres:%s", sslo_plan_value(r, "SLO_GRES"));
    snprintf(comment, sizeof comment,
             "slo: re-planned %s: %s %s (%s prices), predicted %s s of the %.0f s left, %s USD"
             "%s; %s%s%s", head, sslo_plan_value(r, "SLO_PARTITION"), inst,
             sslo_plan_value(r, "SLO_PRICING"), tpred, remaining,
             sslo_plan_value(r, "SLO_COST_USD"), budgetbuf,
             tries[0].excluded[0] ? "backed-off pool " : "", tries[0].excluded,
             tries[0].excluded[0] ? " excluded" : "no pool backed off");
    say("job %u: %s (%s)", job_id, comment, pwhy);
    if (dry_run) {
        printf("%s\n%s\n", mark, r->table);
        goto out;
    }
    job_desc_msg_t d;
    slurm_init_job_desc_msg(&d);
    d.job_id = job_id;
    d.partition = (char *)sslo_plan_value(r, "SLO_PARTITION");
    d.min_nodes = d.max_nodes = (uint32_t)r->nodes;
    d.features = (char *)sslo_plan_value(r, "SLO_CONSTRAINT");
    d.tres_per_node = gres;
    d.time_limit = limit;
    d.admin_comment = mark;
    d.comment = comment;
    if (strcmp(sslo_plan_value(r, "SLO_SPOT"), "1") == 0) /* spot nodes: keep --requeue */
        d.requeue = 1;
    if (slurm_update_job(&d) != SLURM_SUCCESS) {
        char c[2048];
        int e = slurm_get_errno();
        snprintf(c, sizeof c, "slo: held: the re-plan %s could not be applied (%s); "
                 "scontrol release %u runs the last plan", inst, slurm_strerror(e), job_id);
        say("job %u: %s", job_id, c);
        update_comment(job_id, c, 1);
        rv = 1;
    }
out:
    free(tries);
    free(b);
    free(nodes);
    if (node_msg)
        slurm_free_node_info_msg(node_msg);
    slo_workload_free(&wl);
    slo_catalog_free(&cat);
    slurm_free_job_info_msg(jm);
    if (logf_)
        fclose(logf_);
    return rv;
}
