/*
 * config.c - slo-power's configuration file: strict key=value lines.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "power.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SCOPE_ANY 0
#define SCOPE_EC2 1
#define SCOPE_LOCAL 2

struct key_def {
    const char *key;
    int scope;
};

static const struct key_def keys[] = {
    {"provider", SCOPE_ANY},
    {"catalog", SCOPE_ANY},
    {"log", SCOPE_ANY},
    {"region", SCOPE_EC2},
    {"cluster", SCOPE_EC2},
    {"launch_template", SCOPE_EC2},
    {"launch_template_version", SCOPE_EC2},
    {"subnets", SCOPE_EC2},
    {"max_spot_price", SCOPE_EC2},
    {"aws", SCOPE_EC2},
    {"all_or_nothing", SCOPE_EC2},
    {"aws_timeout_s", SCOPE_EC2},
    {"aws_retries", SCOPE_EC2},
    {"aws_retry_base_s", SCOPE_EC2},
    {"aws_retry_max_s", SCOPE_EC2},
    {"slurmd", SCOPE_LOCAL},
    {"boot_delay_s", SCOPE_LOCAL},
    {"state_dir", SCOPE_LOCAL},
    {"stop_timeout_s", SCOPE_LOCAL},
    {"spot_signal", SCOPE_ANY},
    {"spot_grace_s", SCOPE_ANY},
    {"spot_rebalance", SCOPE_ANY},
    {"imds_endpoint", SCOPE_ANY},
};
#define N_KEYS (sizeof keys / sizeof keys[0])


const char *power_provider_name(enum power_provider p)
{
    switch (p) {
    case POWER_PROVIDER_EC2: return "ec2";
    case POWER_PROVIDER_LOCAL: return "local";
    default: return "-";
    }
}

const char *power_action_name(enum power_action a)
{
    switch (a) {
    case POWER_RESUME: return "resume";
    case POWER_SUSPEND: return "suspend";
    default: return "resume-fail";
    }
}

const char *power_capacity_name(enum power_capacity c)
{
    return c == POWER_SPOT ? "spot" : "on-demand";
}

static int copy_value(const char *src, const char *value, int line, const char *key, char *dst,
                      size_t len, char *err, size_t errlen)
{
    if (strlen(value) >= len)
        return power_fail(err, errlen, "%s:%d: %s: expected at most %zu characters, found %zu", src,
                    line, key, len - 1, strlen(value));
    memcpy(dst, value, strlen(value) + 1);
    return 0;
}

static int parse_number(const char *src, int line, const char *key, const char *value,
                        double min, double max, double *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (end == value || *end != '\0' || errno != 0 || !isfinite(v) || v < min || v > max)
        return power_fail(err, errlen, "%s:%d: %s: expected a number in [%g, %g], found '%s'", src,
                    line, key, min, max, value);
    *out = v;
    return 0;
}

/* EC2 launch template: an id lt-<hex> or a name of 3-128 of [A-Za-z0-9()./_-]
 * (API_CreateLaunchTemplate LaunchTemplateName constraints). */
static int valid_template(const char *v)
{
    size_t n = strlen(v);
    if (n < 3 || n > 128)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)v[i]) && !strchr("()./_-", v[i]))
            return 0;
    return 1;
}

static int valid_token(const char *v, const char *extra)
{
    if (!*v)
        return 0;
    for (; *v; v++)
        if (!isalnum((unsigned char)*v) && !strchr(extra, *v))
            return 0;
    return 1;
}

/* The first n characters are [A-Za-z0-9.-] (a host name or IPv4 address). */
static int valid_token_n(const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)v[i]) && v[i] != '.' && v[i] != '-')
            return 0;
    return 1;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static int parse_subnets(const char *src, int line, const char *value, struct power_config *cfg,
                         char *err, size_t errlen)
{
    char buf[POWER_MAX_SUBNETS * POWER_NAME_LEN];
    if (strlen(value) >= sizeof buf)
        return power_fail(err, errlen, "%s:%d: subnets: list too long", src, line);
    strcpy(buf, value);
    cfg->n_subnets = 0;
    /* Split by hand: strtok would skip an empty entry ("subnet-1,,subnet-2"). */
    char *next = buf;
    for (size_t pos = 1; next; pos++) {
        char *tok = next, *comma = strchr(next, ',');
        if (comma)
            *comma = '\0';
        next = comma ? comma + 1 : NULL;
        tok = trim(tok);
        if (!*tok)
            return power_fail(err, errlen, "%s:%d: subnets: expected comma-separated subnet ids "
                        "subnet-<hex>, found an empty entry %zu in '%s'", src, line, pos, value);
        if (strncmp(tok, "subnet-", 7) != 0 || !valid_token(tok + 7, "") ||
            strlen(tok) >= POWER_NAME_LEN)
            return power_fail(err, errlen,
                        "%s:%d: subnets: expected comma-separated subnet ids subnet-<hex>, "
                        "found '%s'",
                        src, line, tok);
        for (size_t i = 0; i < cfg->n_subnets; i++)
            if (strcmp(cfg->subnets[i], tok) == 0)
                return power_fail(err, errlen, "%s:%d: subnets: '%s' is listed twice", src, line,
                            tok);
        if (cfg->n_subnets == POWER_MAX_SUBNETS)
            return power_fail(err, errlen, "%s:%d: subnets: expected at most %d subnets", src, line,
                        POWER_MAX_SUBNETS);
        strcpy(cfg->subnets[cfg->n_subnets++], tok);
    }
    if (cfg->n_subnets == 0)
        return power_fail(err, errlen, "%s:%d: subnets: expected at least one subnet id, found '%s'",
                    src, line, value);
    return 0;
}

/* The line that set key (0 when it was not set). */
static int seen_line(const int *seen, const char *key)
{
    for (size_t k = 0; k < N_KEYS; k++)
        if (strcmp(keys[k].key, key) == 0)
            return seen[k];
    return 0;
}

static void set_defaults(struct power_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    strcpy(cfg->launch_template_version, "$Latest");
    strcpy(cfg->cluster, "slo");
    cfg->all_or_nothing = 1;
    cfg->stop_timeout_s = 10;
    cfg->aws_timeout_s = POWER_RUN_TIMEOUT_S;
    cfg->aws_retries = 4;
    cfg->aws_retry_base_s = 1;
    cfg->aws_retry_max_s = 16;
    cfg->spot_signal = SIGUSR1;
    cfg->spot_grace_s = 90;
    strcpy(cfg->imds_endpoint, "http://169.254.169.254");
}

int power_signal_parse(const char *s)
{
    static const struct {
        const char *name;
        int sig;
    } names[] = {
        {"HUP", SIGHUP}, {"INT", SIGINT}, {"QUIT", SIGQUIT}, {"KILL", SIGKILL},
        {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"ALRM", SIGALRM}, {"TERM", SIGTERM},
        {"CONT", SIGCONT}, {"STOP", SIGSTOP}, {"TSTP", SIGTSTP}, {"URG", SIGURG},
        {"XCPU", SIGXCPU}, {"WINCH", SIGWINCH},
    };
    if (!s || !*s)
        return -1;
    if (isdigit((unsigned char)*s)) {
        char *end;
        long v = strtol(s, &end, 10);
        return (*end || v < 1 || v > 64) ? -1 : (int)v;
    }
    if (strncmp(s, "SIG", 3) == 0)
        s += 3;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(s, names[i].name) == 0)
            return names[i].sig;
    return -1;
}

/* http://HOST[:PORT] with nothing after (no path, no https: the instance
 * metadata service is plain HTTP on a link-local address). */
int power_endpoint_valid(const char *v)
{
    if (strncmp(v, "http://", 7) != 0 || !v[7])
        return 0;
    const char *h = v + 7;
    size_t n = strcspn(h, ":/");
    if (n == 0 || !valid_token_n(h, n))
        return 0;
    if (h[n] == '/')
        return h[n + 1] == '\0';
    if (h[n] == ':') {
        const char *p = h + n + 1;
        size_t d = strspn(p, "0123456789");
        if (d == 0 || d > 5 || (p[d] && strcmp(p + d, "/") != 0) || atol(p) < 1 || atol(p) > 65535)
            return 0;
    }
    return 1;
}

int power_config_parse(const char *text, const char *source, struct power_config *cfg,
                       char *err, size_t errlen)
{
    int seen[N_KEYS] = {0};
    int type_line[POWER_MAX_TYPE_TEMPLATES] = {0};
    int rc = -1;
    char *copy = strdup(text);
    if (!copy)
        return power_fail(err, errlen, "%s: out of memory", source);
    set_defaults(cfg);
    if (strlen(source) < sizeof cfg->path)
        strcpy(cfg->path, source);

    int line = 0;
    /* Walk line by line (strtok would skip empty lines and lose the count). */
    char *p = copy;
    while (p && *p) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        line++;
        char *s = trim(p);
        p = nl ? nl + 1 : NULL;
        if (*s == '\0' || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        if (!eq) {
            power_fail(err, errlen, "%s:%d: expected key=value, found '%s'", source, line, s);
            goto out;
        }
        *eq = '\0';
        char *key = trim(s), *value = trim(eq + 1);
        if (*value == '\0') {
            power_fail(err, errlen, "%s:%d: %s: expected a value after '=', found nothing", source,
                 line, key);
            goto out;
        }

        /* launch_template[TYPE]=... : a per instance type template. */
        if (strncmp(key, "launch_template[", 16) == 0) {
            size_t kl = strlen(key);
            if (kl < 18 || key[kl - 1] != ']') {
                power_fail(err, errlen,
                     "%s:%d: expected launch_template[INSTANCE_TYPE]=TEMPLATE, found key '%s'",
                     source, line, key);
                goto out;
            }
            char type[SLO_NAME_LENGTH];
            if (kl - 17 >= sizeof type) {
                power_fail(err, errlen, "%s:%d: %s: instance type name too long", source, line, key);
                goto out;
            }
            memcpy(type, key + 16, kl - 17);
            type[kl - 17] = '\0';
            for (size_t i = 0; i < cfg->n_type_templates; i++)
                if (strcmp(cfg->type_templates[i].type, type) == 0) {
                    power_fail(err, errlen, "%s:%d: %s is set twice (first on line %d)", source,
                         line, key, type_line[i]);
                    goto out;
                }
            if (cfg->n_type_templates == POWER_MAX_TYPE_TEMPLATES) {
                power_fail(err, errlen, "%s:%d: %s: expected at most %d per-type templates", source,
                     line, key, POWER_MAX_TYPE_TEMPLATES);
                goto out;
            }
            if (!valid_template(value)) {
                power_fail(err, errlen,
                     "%s:%d: %s: expected a launch template id lt-... or name of 3-128 "
                     "characters [A-Za-z0-9()./_-], found '%s'",
                     source, line, key, value);
                goto out;
            }
            struct power_type_template *t = &cfg->type_templates[cfg->n_type_templates];
            strcpy(t->type, type);
            if (copy_value(source, value, line, key, t->template_ref, sizeof t->template_ref,
                           err, errlen))
                goto out;
            t->line = line;
            type_line[cfg->n_type_templates++] = line;
            continue;
        }

        size_t k;
        for (k = 0; k < N_KEYS; k++)
            if (strcmp(keys[k].key, key) == 0)
                break;
        if (k == N_KEYS) {
            power_fail(err, errlen, "%s:%d: unknown key '%s'", source, line, key);
            goto out;
        }
        if (seen[k]) {
            power_fail(err, errlen, "%s:%d: %s is set twice (first on line %d)", source, line, key,
                 seen[k]);
            goto out;
        }
        seen[k] = line;

        if (strcmp(key, "provider") == 0) {
            if (strcmp(value, "ec2") == 0)
                cfg->provider = POWER_PROVIDER_EC2;
            else if (strcmp(value, "local") == 0)
                cfg->provider = POWER_PROVIDER_LOCAL;
            else {
                power_fail(err, errlen, "%s:%d: provider: expected ec2 or local, found '%s'", source,
                     line, value);
                goto out;
            }
        } else if (strcmp(key, "catalog") == 0) {
            if (copy_value(source, value, line, key, cfg->catalog, sizeof cfg->catalog, err,
                           errlen))
                goto out;
        } else if (strcmp(key, "log") == 0) {
            if (copy_value(source, value, line, key, cfg->log, sizeof cfg->log, err, errlen))
                goto out;
        } else if (strcmp(key, "region") == 0) {
            if (!valid_token(value, "-")) {
                power_fail(err, errlen, "%s:%d: region: expected an AWS region like us-east-1, "
                     "found '%s'", source, line, value);
                goto out;
            }
            if (copy_value(source, value, line, key, cfg->region, sizeof cfg->region, err,
                           errlen))
                goto out;
        } else if (strcmp(key, "cluster") == 0) {
            if (!valid_token(value, "-_.")) {
                power_fail(err, errlen, "%s:%d: cluster: expected a name of [A-Za-z0-9._-], "
                     "found '%s'", source, line, value);
                goto out;
            }
            if (copy_value(source, value, line, key, cfg->cluster, sizeof cfg->cluster, err,
                           errlen))
                goto out;
        } else if (strcmp(key, "launch_template") == 0) {
            if (!valid_template(value)) {
                power_fail(err, errlen,
                     "%s:%d: launch_template: expected a launch template id lt-... or name "
                     "of 3-128 characters [A-Za-z0-9()./_-], found '%s'",
                     source, line, value);
                goto out;
            }
            if (copy_value(source, value, line, key, cfg->launch_template,
                           sizeof cfg->launch_template, err, errlen))
                goto out;
        } else if (strcmp(key, "launch_template_version") == 0) {
            if (strcmp(value, "$Latest") != 0 && strcmp(value, "$Default") != 0 &&
                !valid_token(value, "")) {
                power_fail(err, errlen, "%s:%d: launch_template_version: expected $Latest, "
                     "$Default or a version number, found '%s'", source, line, value);
                goto out;
            }
            for (const char *c = value; *c && *c != '$'; c++)
                if (!isdigit((unsigned char)*c)) {
                    power_fail(err, errlen, "%s:%d: launch_template_version: expected $Latest, "
                         "$Default or a version number, found '%s'", source, line, value);
                    goto out;
                }
            if (copy_value(source, value, line, key, cfg->launch_template_version,
                           sizeof cfg->launch_template_version, err, errlen))
                goto out;
        } else if (strcmp(key, "subnets") == 0) {
            if (parse_subnets(source, line, value, cfg, err, errlen))
                goto out;
        } else if (strcmp(key, "max_spot_price") == 0) {
            if (parse_number(source, line, key, value, 1e-6, 1e6,
                             &cfg->max_spot_price_usd_per_h, err, errlen))
                goto out;
        } else if (strcmp(key, "aws") == 0) {
            if (copy_value(source, value, line, key, cfg->aws, sizeof cfg->aws, err, errlen))
                goto out;
        } else if (strcmp(key, "all_or_nothing") == 0) {
            if (strcmp(value, "yes") == 0)
                cfg->all_or_nothing = 1;
            else if (strcmp(value, "no") == 0)
                cfg->all_or_nothing = 0;
            else {
                power_fail(err, errlen, "%s:%d: all_or_nothing: expected yes or no, found '%s'",
                     source, line, value);
                goto out;
            }
        } else if (strcmp(key, "aws_timeout_s") == 0) {
            if (parse_number(source, line, key, value, 1, 3600, &cfg->aws_timeout_s, err,
                             errlen))
                goto out;
        } else if (strcmp(key, "aws_retries") == 0) {
            double v;
            if (parse_number(source, line, key, value, 0, 10, &v, err, errlen))
                goto out;
            if (v != (double)(int)v) {
                power_fail(err, errlen, "%s:%d: aws_retries: expected a whole number in [0, 10], "
                           "found '%s'", source, line, value);
                goto out;
            }
            cfg->aws_retries = (int)v;
        } else if (strcmp(key, "aws_retry_base_s") == 0) {
            if (parse_number(source, line, key, value, 0.01, 60, &cfg->aws_retry_base_s, err,
                             errlen))
                goto out;
        } else if (strcmp(key, "aws_retry_max_s") == 0) {
            if (parse_number(source, line, key, value, 0.01, 600, &cfg->aws_retry_max_s, err,
                             errlen))
                goto out;
        } else if (strcmp(key, "spot_signal") == 0) {
            int sig = power_signal_parse(value);
            if (sig < 0 || sig == SIGKILL || sig == SIGSTOP) {
                power_fail(err, errlen, "%s:%d: spot_signal: expected a signal a job can trap "
                           "(USR1, USR2, TERM, INT, HUP, ... or 1..64, not KILL or STOP), found "
                           "'%s'", source, line, value);
                goto out;
            }
            cfg->spot_signal = sig;
        } else if (strcmp(key, "spot_grace_s") == 0) {
            if (parse_number(source, line, key, value, 0, 3600, &cfg->spot_grace_s, err,
                             errlen))
                goto out;
        } else if (strcmp(key, "spot_rebalance") == 0) {
            if (strcmp(value, "yes") == 0 || strcmp(value, "no") == 0)
                cfg->spot_rebalance = value[0] == 'y';
            else {
                power_fail(err, errlen, "%s:%d: spot_rebalance: expected yes or no, found '%s'",
                           source, line, value);
                goto out;
            }
        } else if (strcmp(key, "imds_endpoint") == 0) {
            if (!power_endpoint_valid(value) || strlen(value) >= sizeof cfg->imds_endpoint) {
                power_fail(err, errlen, "%s:%d: imds_endpoint: expected http://HOST[:PORT] (the "
                           "instance metadata service, plain HTTP), found '%s'", source, line,
                           value);
                goto out;
            }
            strcpy(cfg->imds_endpoint, value);
        } else if (strcmp(key, "slurmd") == 0) {
            if (copy_value(source, value, line, key, cfg->slurmd, sizeof cfg->slurmd, err,
                           errlen))
                goto out;
        } else if (strcmp(key, "boot_delay_s") == 0) {
            if (parse_number(source, line, key, value, 0, 3600, &cfg->boot_delay_s, err,
                             errlen))
                goto out;
        } else if (strcmp(key, "state_dir") == 0) {
            if (copy_value(source, value, line, key, cfg->state_dir, sizeof cfg->state_dir,
                           err, errlen))
                goto out;
        } else if (strcmp(key, "stop_timeout_s") == 0) {
            if (parse_number(source, line, key, value, 0.1, 600, &cfg->stop_timeout_s, err,
                             errlen))
                goto out;
        }
    }

    if (cfg->provider == POWER_PROVIDER_NONE) {
        power_fail(err, errlen, "%s: provider: missing (expected provider=ec2 or provider=local)",
             source);
        goto out;
    }
    /* Keys of the other provider are mistakes, not options to ignore. */
    for (size_t k = 0; k < N_KEYS; k++) {
        int want = cfg->provider == POWER_PROVIDER_EC2 ? SCOPE_EC2 : SCOPE_LOCAL;
        if (seen[k] && keys[k].scope != SCOPE_ANY && keys[k].scope != want) {
            power_fail(err, errlen, "%s:%d: %s applies to provider %s, this file sets provider=%s",
                 source, seen[k], keys[k].key, keys[k].scope == SCOPE_EC2 ? "ec2" : "local",
                 power_provider_name(cfg->provider));
            goto out;
        }
    }
    if (cfg->provider == POWER_PROVIDER_LOCAL && cfg->n_type_templates > 0) {
        power_fail(err, errlen, "%s:%d: launch_template[%s] applies to provider ec2, this file sets "
             "provider=local", source, type_line[0], cfg->type_templates[0].type);
        goto out;
    }
    if (cfg->aws_retry_max_s < cfg->aws_retry_base_s) {
        int l = seen_line(seen, "aws_retry_max_s");
        power_fail(err, errlen, "%s:%d: aws_retry_max_s: expected at least aws_retry_base_s "
                   "(%g s), found %g s%s", source, l ? l : seen_line(seen, "aws_retry_base_s"),
                   cfg->aws_retry_base_s, cfg->aws_retry_max_s, l ? "" : " (the default)");
        goto out;
    }
    if (cfg->provider == POWER_PROVIDER_EC2) {
        if (!cfg->region[0]) {
            power_fail(err, errlen, "%s: region: missing (required with provider=ec2)", source);
            goto out;
        }
        if (!cfg->catalog[0]) {
            power_fail(err, errlen, "%s: catalog: missing (required with provider=ec2: it says "
                 "which node features are instance types)", source);
            goto out;
        }
        if (!cfg->launch_template[0] && cfg->n_type_templates == 0) {
            power_fail(err, errlen, "%s: launch_template: missing (required with provider=ec2: "
                 "launch_template=NAME|ID or launch_template[TYPE]=NAME|ID)", source);
            goto out;
        }
    } else if (!cfg->state_dir[0]) {
        power_fail(err, errlen, "%s: state_dir: missing (required with provider=local: the "
             "directory for slurmd pid files)", source);
        goto out;
    }
    rc = 0;
out:
    free(copy);
    return rc;
}

int power_config_check_catalog(const struct power_config *cfg, const struct slo_catalog *cat,
                               char *err, size_t errlen)
{
    for (size_t i = 0; i < cfg->n_type_templates; i++) {
        const struct power_type_template *t = &cfg->type_templates[i];
        if (slo_catalog_find_type(cat, t->type) < 0)
            return power_fail(err, errlen, "%s:%d: launch_template[%s]: expected an instance type of "
                        "catalog %s (%s), found '%s'", cfg->path, t->line, t->type, cat->name,
                        cfg->catalog, t->type);
    }
    return 0;
}

int power_config_load(const char *path, struct power_config *cfg, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return power_fail(err, errlen, "%s: cannot read the config file: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    char buf[4096];
    size_t got;
    int rc = 0;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        if (len + got + 1 > cap) {
            cap = (len + got + 1) * 2;
            if (cap > (1u << 20)) {
                rc = power_fail(err, errlen, "%s: expected a config file under 1 MiB", path);
                break;
            }
            char *t = realloc(text, cap);
            if (!t) {
                rc = power_fail(err, errlen, "%s: out of memory", path);
                break;
            }
            text = t;
        }
        memcpy(text + len, buf, got);
        len += got;
    }
    if (!rc && ferror(f))
        rc = power_fail(err, errlen, "%s: read error: %s", path, strerror(errno));
    fclose(f);
    if (!rc && memchr(text ? text : "", '\0', len))
        rc = power_fail(err, errlen, "%s: expected a text file, found a NUL byte", path);
    if (!rc) {
        if (!text)
            text = calloc(1, 1);
        else
            text[len] = '\0';
        rc = text ? power_config_parse(text, path, cfg, err, errlen)
                  : power_fail(err, errlen, "%s: out of memory", path);
    }
    free(text);
    return rc;
}

int power_config_locate(const char *option, char *out, size_t len)
{
    const char *env = getenv("SLO_POWER_CONF");
    const char *conf = getenv("SLURM_CONF");
    int n;
    if (option)
        n = snprintf(out, len, "%s", option);
    else if (env && *env)
        n = snprintf(out, len, "%s", env);
    else {
        n = -1;
        if (conf && *conf) {
            const char *slash = strrchr(conf, '/');
            struct stat st;
            if (slash)
                n = snprintf(out, len, "%.*s/slo-power.conf", (int)(slash - conf), conf);
            else
                n = snprintf(out, len, "slo-power.conf");
            if (n < 0 || (size_t)n >= len || stat(out, &st) != 0)
                n = -1;
        }
        if (n < 0)
            n = snprintf(out, len, "%s", POWER_DEFAULT_CONF);
    }
    return (n < 0 || (size_t)n >= len) ? -1 : 0;
}
