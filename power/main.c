/*
 * main.c - slo-power: Slurm's ResumeProgram, SuspendProgram and
 * ResumeFailProgram for cloud nodes (ec2) or slurmd processes on this host
 * (local). doc/man/slo-power.8 is the user documentation.
 *
 * Slurm 22.05 runs these programs with one argument, the hostlist, and an
 * environment holding only SLURM_CONF (and SLURM_RESUME_FILE on resume), so
 * the action is built into three programs (slo-power-resume, -suspend,
 * -resume-fail: this file compiled with POWER_ENTRY = the action) besides
 * slo-power ACTION (POWER_ENTRY -1), and the config file is found beside
 * slurm.conf.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"

#include "power.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#ifndef POWER_ENTRY
#define POWER_ENTRY (-1)
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: slo-power [--config FILE] [--dry-run] [--node-table FILE] "
            "resume|suspend|resume-fail HOSTLIST\n"
            "       slo-power-resume|slo-power-suspend|slo-power-resume-fail [OPTIONS] HOSTLIST\n"
            "Slurm ResumeProgram / SuspendProgram / ResumeFailProgram (see slo-power(8)).\n"
            "  --config FILE      config file (default: $SLO_POWER_CONF, else slo-power.conf\n"
            "                     beside $SLURM_CONF, else " POWER_DEFAULT_CONF ")\n"
            "  --dry-run          print the provider requests on stdout; run nothing,\n"
            "                     change no node\n"
            "  --node-table FILE  node features from FILE ('NODE FEATURE,...' lines)\n"
            "                     instead of slurmctld\n"
            "  --help, --version\n");
}

static int parse_action(const char *s, enum power_action *a)
{
    if (strcmp(s, "resume") == 0)
        *a = POWER_RESUME;
    else if (strcmp(s, "suspend") == 0)
        *a = POWER_SUSPEND;
    else if (strcmp(s, "resume-fail") == 0)
        *a = POWER_RESUME_FAIL;
    else
        return -1;
    return 0;
}

/* libslurm's slurm_init exits the process when it finds no configuration,
 * so look for it first. */
static int slurm_ready(struct power_log *lg, const char *hostlist)
{
    const char *sc = getenv("SLURM_CONF");
    const char *scp = sc && *sc ? sc : "/etc/slurm/slurm.conf";
    FILE *probe = fopen(scp, "r");
    if (!probe) {
        power_log(lg, "error", hostlist, "cannot read the Slurm config %s%s: %s", scp,
                  sc && *sc ? " (SLURM_CONF)" : " (SLURM_CONF is unset)", strerror(errno));
        return -1;
    }
    fclose(probe);
    slurm_init(NULL);
    return 0;
}

/* On resume, nodes the program cannot handle at all are powered down so
 * their jobs requeue now rather than after ResumeTimeout. The caller has
 * logged why, once (not once more per node). */
static void power_down_all(struct power_log *lg, const struct power_slurm_ops *ops,
                           struct power_node *nodes, size_t n, const char *why)
{
    for (size_t i = 0; i < n; i++) {
        char reason[POWER_ERR_LEN + 16], err[POWER_ERR_LEN];
        power_fmt(reason, sizeof reason, "slo-power: %.400s", why);
        if (!ops)
            continue;
        if (ops->power_down(ops->arg, nodes[i].name, reason, err, sizeof err) != 0)
            power_log(lg, "error", nodes[i].name, "could not power the node down: %s", err);
        else
            power_log(lg, "info", nodes[i].name, "powered down (POWER_DOWN_FORCE)");
    }
}

/* ResumeFailProgram, after the provider released what was started: Slurm
 * 22.05 leaves a node that did not register within ResumeTimeout DOWN
 * (down~), so every later job that wants it waits for an admin. Each node
 * whose instance / slurmd is gone is forced down (POWER_DOWN_FORCE: idle~
 * again after SuspendTimeout, its reason cleared, usable by the next
 * job); a node whose cleanup failed stays DOWN with the reason, since it
 * may still run (and bill) something. Returns the exit status. */
static int resume_fail_power_down(struct power_log *lg, const struct power_slurm_ops *ops,
                                  struct power_node *nodes, size_t n, const char *hostlist,
                                  int rc)
{
    size_t back = 0;
    for (size_t i = 0; i < n; i++) {
        char err[POWER_ERR_LEN];
        if (nodes[i].failed) {
            power_log(lg, "error", nodes[i].name, "did not register within ResumeTimeout and "
                      "could not be released (%s): left DOWN; `scontrol update nodename=%s "
                      "state=power_down_force` after fixing the cause", nodes[i].reason,
                      nodes[i].name);
            continue;
        }
        static const char reason[] = "slo-power: did not register within ResumeTimeout; "
                                     "released, powered down for the next job";
        if (!ops) { /* dry run: the request, as the other dry-run printers do */
            printf("scontrol update nodename=%s state=POWER_DOWN_FORCE reason=\"%s\"\n",
                   nodes[i].name, reason);
            continue;
        }
        if (ops->power_down(ops->arg, nodes[i].name, reason, err, sizeof err) != 0) {
            power_log(lg, "error", nodes[i].name, "could not power the node down: %s", err);
            rc = rc ? rc : 1;
            continue;
        }
        back++;
        power_log(lg, "info", nodes[i].name, "did not register within ResumeTimeout: "
                  "released and powered down (POWER_DOWN_FORCE): idle~ again after "
                  "SuspendTimeout");
    }
    if (ops)
        power_log(lg, rc ? "error" : "info", hostlist, "resume-fail: %zu of %zu node(s) "
                  "returned to power saving", back, n);
    return rc;
}

int main(int argc, char **argv)
{
    const char *config_opt = NULL, *node_table = NULL;
    int dry_run = 0;
    enum power_action action = POWER_RESUME;
    int have_action = 0;
    if (POWER_ENTRY >= 0) {
        action = (enum power_action)POWER_ENTRY;
        have_action = 1;
    }

    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("slo-power %s\n", PACKAGE_VERSION);
            return 0;
        } else if (strcmp(a, "--dry-run") == 0) {
            dry_run = 1;
        } else if (strcmp(a, "--config") == 0 || strcmp(a, "--node-table") == 0) {
            if (i + 1 >= argc || !argv[i + 1][0]) {
                fprintf(stderr, "slo-power: %s: expected a file name, found nothing\n", a);
                return 2;
            }
            if (a[2] == 'c')
                config_opt = argv[++i];
            else
                node_table = argv[++i];
        } else if (strncmp(a, "--config=", 9) == 0 && a[9]) {
            config_opt = a + 9;
        } else if (strncmp(a, "--node-table=", 13) == 0 && a[13]) {
            node_table = a + 13;
        } else if (a[0] == '-' && a[1] == '-') {
            fprintf(stderr, "slo-power: unknown option '%s' (see --help)\n", a);
            return 2;
        } else {
            break;
        }
    }
    if (!have_action) {
        if (i >= argc) {
            fprintf(stderr, "slo-power: expected an action resume, suspend or resume-fail, "
                    "found nothing (see --help)\n");
            return 2;
        }
        if (parse_action(argv[i], &action) != 0) {
            fprintf(stderr, "slo-power: expected an action resume, suspend or resume-fail, "
                    "found '%s'\n", argv[i]);
            return 2;
        }
        i++;
    }
    if (i + 1 != argc) {
        fprintf(stderr, "slo-power: expected one HOSTLIST argument after the action, found "
                "%d arguments\n", argc - i);
        return 2;
    }
    const char *hostlist = argv[i];

    struct power_log lg = {.file = NULL, .action = action, .provider = "-"};
    char err[POWER_ERR_LEN];
    struct power_node *nodes = NULL;
    size_t n = 0;
    if (power_hostlist_expand(hostlist, &nodes, &n, err, sizeof err) != 0) {
        power_log(&lg, "error", NULL, "%s", err);
        return 2;
    }
    /* Real slurmctld calls only outside --dry-run (and, in a dry run, for
     * the node table unless --node-table gives it). */
    int use_slurm = 0;
    if (!dry_run) {
        if (slurm_ready(&lg, hostlist) != 0) {
            free(nodes);
            return 2;
        }
        use_slurm = 1;
    }
    const struct power_slurm_ops *ops = dry_run ? NULL : &power_slurm_real;

    static struct power_config cfg;
    char path[PATH_MAX];
    int rc = 2;
    struct slo_catalog cat = {0};
    int have_cat = 0;
    json_t *resume_file = NULL;
    struct power_node_info *info = NULL;
    size_t n_info = 0;

    if (power_config_locate(config_opt, path, sizeof path) != 0) {
        power_fmt(err, sizeof err, "config file path too long");
        goto config_error;
    }
    if (power_config_load(path, &cfg, err, sizeof err) != 0)
        goto config_error;
    lg.provider = power_provider_name(cfg.provider);
    /* A dry run changes nothing, the production log included: stderr only. */
    if (cfg.log[0] && !dry_run) {
        lg.file = fopen(cfg.log, "ae"); /* e: O_CLOEXEC, not inherited by aws/slurmd */
        if (!lg.file) {
            power_fmt(err, sizeof err, "%.150s: log=%.150s: cannot open for appending: %s", path,
                     cfg.log, strerror(errno));
            goto config_error;
        }
    }
    if (cfg.catalog[0]) {
        slo_error_t serr;
        if (slo_catalog_load(cfg.catalog, &cat, &serr) != SLO_OK) {
            power_fmt(err, sizeof err, "%.100s: catalog=%.100s: %.100s: %.200s", path, cfg.catalog,
                     serr.source, serr.text);
            goto config_error;
        }
        have_cat = 1;
        if (power_config_check_catalog(&cfg, &cat, err, sizeof err) != 0)
            goto config_error;
    }
    power_log(&lg, "info", hostlist, "%s%zu node(s), config %s%s%s", dry_run ? "dry run, " : "",
              n, path, dry_run && cfg.log[0] ? ", not writing log=" : "",
              dry_run ? cfg.log : "");

    struct power_ctx ctx = {
        .cfg = &cfg, .log = &lg, .slurm = ops, .dry_run = dry_run, .out = stdout,
    };
    if (action == POWER_RESUME) {
        const char *rf = getenv("SLURM_RESUME_FILE");
        if (rf && *rf && power_resume_file_load(rf, &resume_file, err, sizeof err) != 0)
            power_log(&lg, "warning", NULL, "%s (continuing with the hostlist only)", err);
        ctx.resume_file = resume_file;
        if (have_cat) {
            if (!node_table && !use_slurm) {
                if (slurm_ready(&lg, hostlist) != 0) {
                    rc = 2;
                    goto out;
                }
                use_slurm = 1;
            }
            int got = node_table ? power_node_info_file(node_table, &info, &n_info, err,
                                                        sizeof err)
                                 : power_slurm_load_nodes(&info, &n_info, err, sizeof err);
            if (got != 0) {
                if (node_table)
                    goto config_error;
                power_log(&lg, "error", hostlist, "%s", err);
                power_down_all(&lg, ops, nodes, n, err);
                rc = 1;
                goto out;
            }
            char table[PATH_MAX + 32];
            if (node_table)
                power_fmt(table, sizeof table, "the node table %s", node_table);
            power_map_nodes(&cat, info, n_info, nodes, n, cfg.provider == POWER_PROVIDER_EC2,
                            node_table ? table : NULL);
        }
        rc = cfg.provider == POWER_PROVIDER_EC2 ? power_ec2_resume(&ctx, nodes, n)
                                                : power_local_resume(&ctx, nodes, n);
    } else {
        rc = cfg.provider == POWER_PROVIDER_EC2 ? power_ec2_terminate(&ctx, nodes, n)
                                                : power_local_stop(&ctx, nodes, n);
        if (action == POWER_RESUME_FAIL)
            rc = resume_fail_power_down(&lg, ops, nodes, n, hostlist, rc);
    }
    /* What went to stdout (the dry run's requests) must have been written:
     * a full disk or closed pipe is a failure, not "done". */
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        power_log(&lg, "error", hostlist, "stdout: write error: %s",
                  errno ? strerror(errno) : "output lost");
        rc = rc ? rc : 1;
    }
    power_log(&lg, rc ? "error" : "info", hostlist, "%s", rc ? "done, with failures" : "done");
    goto out;

config_error:
    power_log(&lg, "error", hostlist, "%s", err);
    /* Resume: power the nodes down (unless dry run) so their jobs requeue. */
    if (action == POWER_RESUME)
        power_down_all(&lg, ops, nodes, n, err);
    rc = 2;
out:
    if (have_cat)
        slo_catalog_free(&cat);
    json_decref(resume_file);
    free(info);
    free(nodes);
    if (lg.file)
        fclose(lg.file);
    if (use_slurm)
        slurm_fini();
    return rc;
}
