/*
 * args.c - plugstack.conf arguments and --slo-* option values (pure code).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"

static const char *const known_keys =
    "catalog, workloads, workload, onprem_partition, spot_partition, ondemand_partition, "
    "burst_partition, max_nodes, mode, infer_profile";

__attribute__((format(printf, 3, 4))) static int fail(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;
    if (msg && len) {
        va_start(ap, fmt);
        vsnprintf(msg, len, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Slurm partition names and our workload names: [A-Za-z0-9._-]+. */
static int is_name(const char *s, size_t max_len)
{
    size_t n = strlen(s);
    return n > 0 && n < max_len &&
           strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

/* A finite number > 0 with nothing after it. */
static int parse_positive(const char *text, double *out)
{
    char *end;
    double v;
    /* Plain decimal only: no spaces, hex or "inf"/"nan" spellings. */
    if (!text || !*text || strspn(text, "0123456789.eE+-") != strlen(text))
        return -1;
    errno = 0;
    v = strtod(text, &end);
    if (*end || errno == ERANGE || !isfinite(v) || !(v > 0))
        return -1;
    *out = v;
    return 0;
}

static int copy_path(char *dst, size_t size, const char *key, const char *value, char *msg,
                     size_t len)
{
    if (value[0] != '/')
        return fail(msg, len, "plugstack argument %s=%s: expected an absolute path, found a "
                              "relative one", key, value);
    if (strlen(value) >= size)
        return fail(msg, len, "plugstack argument %s=: expected a path of at most %zu bytes, "
                              "found %zu", key, size - 1, strlen(value));
    strcpy(dst, value);
    return 0;
}

static int copy_name(char *dst, size_t size, const char *key, const char *value, char *msg,
                     size_t len)
{
    if (!is_name(value, size))
        return fail(msg, len, "plugstack argument %s=%s: expected a name of 1 to %zu characters "
                              "from [A-Za-z0-9._-]", key, value, size - 1);
    strcpy(dst, value);
    return 0;
}

int sslo_config_parse(struct sslo_config *cfg, int ac, char **av, char *msg, size_t len)
{
    static const char *const keys[] = {"catalog", "workloads", "workload", "onprem_partition",
                                       "spot_partition", "ondemand_partition",
                                       "burst_partition", "max_nodes", "mode",
                                       "infer_profile"};
    enum { N_KEYS = sizeof keys / sizeof keys[0] };
    int seen[N_KEYS] = {0};

    memset(cfg, 0, sizeof *cfg);
    strcpy(cfg->onprem_partition, "onprem");
    strcpy(cfg->spot_partition, "cloud-spot");
    strcpy(cfg->ondemand_partition, "cloud-ondemand");
    strcpy(cfg->burst_partition, "burst");
    cfg->max_nodes = 64;
    cfg->mode = SSLO_MODE_ENFORCE;

    for (int i = 0; i < ac; i++) {
        const char *arg = av[i], *eq = arg ? strchr(arg, '=') : NULL, *value;
        size_t klen, k;
        int rv = 0;

        if (!eq || eq == arg)
            return fail(msg, len, "plugstack argument \"%s\": expected key=value with key one "
                                  "of %s", arg ? arg : "(null)", known_keys);
        klen = (size_t)(eq - arg);
        value = eq + 1;
        for (k = 0; k < N_KEYS; k++)
            if (strlen(keys[k]) == klen && strncmp(keys[k], arg, klen) == 0)
                break;
        if (k == N_KEYS)
            return fail(msg, len, "plugstack argument \"%s\": unknown key \"%.*s\"; known keys: "
                                  "%s", arg, (int)klen, arg, known_keys);
        if (seen[k]++)
            return fail(msg, len, "plugstack argument \"%s\": expected each key once, found %s "
                                  "again", arg, keys[k]);
        if (!*value)
            return fail(msg, len, "plugstack argument %s=: expected a value, found it empty",
                        keys[k]);
        switch (k) {
        case 0: rv = copy_path(cfg->catalog, sizeof cfg->catalog, keys[k], value, msg, len); break;
        case 1:
            rv = copy_path(cfg->workloads, sizeof cfg->workloads, keys[k], value, msg, len);
            break;
        case 2: rv = copy_name(cfg->workload, sizeof cfg->workload, keys[k], value, msg, len); break;
        case 3:
            rv = copy_name(cfg->onprem_partition, sizeof cfg->onprem_partition, keys[k], value,
                           msg, len);
            break;
        case 4:
            rv = copy_name(cfg->spot_partition, sizeof cfg->spot_partition, keys[k], value, msg,
                           len);
            break;
        case 5:
            rv = copy_name(cfg->ondemand_partition, sizeof cfg->ondemand_partition, keys[k],
                           value, msg, len);
            break;
        case 6:
            rv = copy_name(cfg->burst_partition, sizeof cfg->burst_partition, keys[k], value,
                           msg, len);
            break;
        case 7: {
            char *end;
            long n;
            errno = 0;
            n = strtol(value, &end, 10);
            if (*end || errno || n < 1 || n > SSLO_MAX_NODES_LIMIT || value[0] == '+' ||
                value[0] == ' ')
                return fail(msg, len, "plugstack argument max_nodes=%s: expected an integer "
                                      "from 1 to %d", value, SSLO_MAX_NODES_LIMIT);
            cfg->max_nodes = (int)n;
            break;
        }
        case 9: /* infer_profile: an embedded name or an absolute path */
            if (value[0] == '/')
                rv = copy_path(cfg->infer_profile, sizeof cfg->infer_profile, keys[k], value,
                               msg, len);
            else if (!is_name(value, SLO_NAME_LENGTH))
                return fail(msg, len, "plugstack argument infer_profile=%s: expected an "
                                      "embedded GPU profile name or an absolute path of a "
                                      "profile file", value);
            else
                strcpy(cfg->infer_profile, value);
            break;
        default:
            if (strcmp(value, "advise") == 0)
                cfg->mode = SSLO_MODE_ADVISE;
            else if (strcmp(value, "enforce") == 0)
                cfg->mode = SSLO_MODE_ENFORCE;
            else
                return fail(msg, len, "plugstack argument mode=%s: expected advise or enforce",
                            value);
        }
        if (rv)
            return rv;
    }
    return 0;
}

const char *sslo_option_name(int id)
{
    switch (id) {
    case SSLO_OPT_LOSS: return "--slo-loss";
    case SSLO_OPT_TIME: return "--slo-time";
    case SSLO_OPT_WORKLOAD: return "--slo-workload";
    case SSLO_OPT_BUDGET: return "--slo-budget";
    case SSLO_OPT_PRICING: return "--slo-pricing";
    case SSLO_OPT_MODE: return "--slo-mode";
    case SSLO_OPT_CONFIDENCE: return "--slo-confidence";
    case SSLO_OPT_SERVE: return "--slo-serve";
    default: return "?";
    }
}

/* ---- --slo-serve (serving jobs): MODEL:rate=R:slo=MS[,MODEL:...] */

/* The number of a --slo-serve KEY=VALUE field tok (key "rate" or "slo")
 * of model's item into *out: 0, or -1 with msg[len] saying which - KEY=
 * given twice (*have counts it), or VALUE not a finite number > 0 (what:
 * the quantity and its unit). */
static int serve_field(const char *tok, const char *key, int *have, const char *what,
                       const char *model, double *out, char *msg, size_t len)
{
    const char *value = tok + strlen(key) + 1;
    if ((*have)++)
        return fail(msg, len, "--slo-serve %s: expected %s= once, found it again", model, key);
    if (parse_positive(value, out))
        return fail(msg, len, "--slo-serve %s: %s: expected %s, a finite number > 0, found "
                              "\"%s\"", model, key, what, value);
    return 0;
}

/* One MODEL:rate=R:slo=MS item of length n at item into *spec. */
static int parse_serve_item(const char *item, size_t n, struct sslo_serve_spec *spec, char *msg,
                            size_t len)
{
    char buf[256], *save = NULL, *tok;
    int have_rate = 0, have_slo = 0, field = 0;

    if (n == 0)
        return fail(msg, len, "--slo-serve: expected MODEL:rate=R:slo=MS[,MODEL:rate=R:slo=MS...]"
                              ", found an empty item");
    if (n >= sizeof buf)
        return fail(msg, len, "--slo-serve: expected an item of at most %zu characters, found "
                              "%zu", sizeof buf - 1, n);
    memcpy(buf, item, n);
    buf[n] = '\0';
    if (buf[0] == ':' || buf[n - 1] == ':' || strstr(buf, "::"))
        return fail(msg, len, "--slo-serve: expected MODEL:rate=R:slo=MS, found \"%s\" (an "
                              "empty field)", buf);
    memset(spec, 0, sizeof *spec);
    for (tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save), field++) {
        if (field == 0) {
            if (!is_name(tok, sizeof spec->model))
                return fail(msg, len, "--slo-serve: expected a model name of 1 to %zu characters "
                                      "from [A-Za-z0-9._-] before the first ':', found \"%s\"",
                            sizeof spec->model - 1, tok);
            strcpy(spec->model, tok);
        } else if (strncmp(tok, "rate=", 5) == 0) {
            if (serve_field(tok, "rate", &have_rate, "an arrival rate in req/s", spec->model,
                            &spec->rate_rps, msg, len))
                return -1;
        } else if (strncmp(tok, "slo=", 4) == 0) {
            if (serve_field(tok, "slo", &have_slo, "a latency SLO in ms", spec->model,
                            &spec->slo_ms, msg, len))
                return -1;
        } else {
            return fail(msg, len, "--slo-serve %s: expected rate=R or slo=MS, found \"%s\"",
                        spec->model, tok);
        }
    }
    if (!have_rate || !have_slo)
        return fail(msg, len, "--slo-serve: expected MODEL:rate=R:slo=MS, found \"%.*s\" (no "
                              "%s)", (int)n, item, !have_rate ? "rate=" : "slo=");
    return 0;
}

static int parse_serve(struct sslo_options *o, const char *text, char *msg, size_t len)
{
    struct sslo_serve_spec specs[SSLO_MAX_SERVE];
    const char *p = text, *seen = o->serve_texts;
    size_t tl = strlen(text), used = strlen(o->serve_texts);
    int n = 0;

    if (!*text)
        return fail(msg, len, "--slo-serve: expected MODEL:rate=R:slo=MS[,MODEL:rate=R:slo=MS...]"
                              ", found an empty value");
    if (strchr(text, '\n'))
        return fail(msg, len, "--slo-serve: expected MODEL:rate=R:slo=MS, found a newline");
    /* the same text again (a callback Slurm runs twice): nothing to add */
    while (*seen) {
        size_t l = strcspn(seen, "\n");
        if (l == tl && strncmp(seen, text, l) == 0)
            return 0;
        seen += l + (seen[l] == '\n');
    }
    for (;;) {
        size_t l = strcspn(p, ",");
        if (o->n_serve + n >= SSLO_MAX_SERVE)
            return fail(msg, len, "--slo-serve: expected at most %d models for one serving job, "
                                  "found more", SSLO_MAX_SERVE);
        if (parse_serve_item(p, l, &specs[n], msg, len))
            return -1;
        n++;
        if (!p[l])
            break;
        p += l + 1;
    }
    if (used + tl + 2 > sizeof o->serve_texts)
        return fail(msg, len, "--slo-serve: expected at most %zu characters of --slo-serve in "
                              "all, found more", sizeof o->serve_texts - 2);
    memcpy(&o->serve[o->n_serve], specs, (size_t)n * sizeof specs[0]);
    o->n_serve += n;
    snprintf(o->serve_texts + used, sizeof o->serve_texts - used, "%s\n", text);
    return 0;
}

int sslo_option_parse(struct sslo_options *o, int id, const char *text, char *msg, size_t len)
{
    const char *opt = sslo_option_name(id);
    double v;

    if (!text)
        return fail(msg, len, "%s: expected a value, found none", opt);
    switch (id) {
    case SSLO_OPT_LOSS:
        if (parse_positive(text, &v))
            return fail(msg, len, "%s: expected a target training loss, a finite number > 0, "
                                  "found \"%s\"", opt, text);
        o->loss = v;
        o->have_loss = 1;
        return 0;
    case SSLO_OPT_TIME: {
        slo_error_t err = {0};
        if (slo_parse_duration(text, &v, NULL, &err) != SLO_OK)
            return fail(msg, len, "%s: %s", opt, err.text);
        if (strlen(text) >= sizeof o->time_text)
            return fail(msg, len, "%s: expected at most %zu characters, found %zu", opt,
                        sizeof o->time_text - 1, strlen(text));
        o->time_s = v;
        strcpy(o->time_text, text);
        o->have_time = 1;
        return 0;
    }
    case SSLO_OPT_WORKLOAD:
        if (!is_name(text, sizeof o->workload))
            return fail(msg, len, "%s: expected a workload name of 1 to %zu characters from "
                                  "[A-Za-z0-9._-], found \"%s\"", opt, sizeof o->workload - 1,
                        text);
        strcpy(o->workload, text);
        o->have_workload = 1;
        return 0;
    case SSLO_OPT_BUDGET:
        if (parse_positive(text, &v))
            return fail(msg, len, "%s: expected a cost in USD, a finite number > 0, found \"%s\"",
                        opt, text);
        o->budget_usd = v;
        o->have_budget = 1;
        return 0;
    case SSLO_OPT_PRICING:
        if (strcmp(text, "spot") == 0)
            o->pricing = SLO_PRICING_SPOT;
        else if (strcmp(text, "on-demand") == 0)
            o->pricing = SLO_PRICING_ON_DEMAND;
        else
            return fail(msg, len, "%s: expected spot or on-demand, found \"%s\"", opt, text);
        o->have_pricing = 1;
        return 0;
    case SSLO_OPT_MODE:
        if (strcmp(text, "advise") == 0)
            o->mode = SSLO_MODE_ADVISE;
        else if (strcmp(text, "enforce") == 0)
            o->mode = SSLO_MODE_ENFORCE;
        else
            return fail(msg, len, "%s: expected advise or enforce, found \"%s\"", opt, text);
        o->have_mode = 1;
        return 0;
    case SSLO_OPT_CONFIDENCE:
        if (parse_positive(text, &v) || !(v < 1))
            return fail(msg, len, "%s: expected a probability of meeting the deadline in (0, 1), "
                                  "found \"%s\"", opt, text);
        o->confidence = v;
        o->have_confidence = 1;
        return 0;
    case SSLO_OPT_SERVE:
        return parse_serve(o, text, msg, len);
    default:
        return fail(msg, len, "unknown option id %d", id);
    }
}

int sslo_workload_path(const struct sslo_config *cfg, const char *name, char *path,
                       size_t path_len, char *msg, size_t len)
{
    int n;

    if (!cfg->workloads[0])
        return fail(msg, len, "--slo-workload %s: expected a workloads=DIR argument in "
                              "plugstack.conf, found none (ask the site admin)", name);
    if (!is_name(name, SLO_NAME_LENGTH))
        return fail(msg, len, "--slo-workload: expected a workload name from [A-Za-z0-9._-], "
                              "found \"%s\"", name);
    n = snprintf(path, path_len, "%s/%s.json", cfg->workloads, name);
    if (n < 0 || (size_t)n >= path_len)
        return fail(msg, len, "--slo-workload %s: the path %s/%s.json is too long", name,
                    cfg->workloads, name);
    if (access(path, R_OK) != 0)
        return fail(msg, len, "--slo-workload %s: expected a readable workload profile %s, "
                              "found %s", name, path, strerror(errno));
    return 0;
}

int sslo_config_check_workloads(const struct sslo_config *cfg, char *msg, size_t len)
{
    struct stat sb;

    if (!cfg->workloads[0])
        return 0;
    if (stat(cfg->workloads, &sb) != 0)
        return fail(msg, len, "plugstack.conf workloads=%s: expected a readable directory of "
                              "workload profiles, found %s", cfg->workloads, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return fail(msg, len, "plugstack.conf workloads=%s: expected a readable directory of "
                              "workload profiles, found a file that is not a directory",
                    cfg->workloads);
    if (access(cfg->workloads, R_OK | X_OK) != 0)
        return fail(msg, len, "plugstack.conf workloads=%s: expected a readable directory of "
                              "workload profiles, found %s", cfg->workloads, strerror(errno));
    return 0;
}

int sslo_options_apply_env(struct sslo_options *o, const char *(*get)(const char *name),
                           char *msg, size_t len)
{
    static const struct {
        const char *var;
        int id;
    } env[] = {{"SLO_SPANK_WORKLOAD", SSLO_OPT_WORKLOAD},
               {"SLO_SPANK_BUDGET", SSLO_OPT_BUDGET},
               {"SLO_SPANK_PRICING", SSLO_OPT_PRICING},
               {"SLO_SPANK_MODE", SSLO_OPT_MODE}};

    for (size_t i = 0; i < sizeof env / sizeof env[0]; i++) {
        int given = env[i].id == SSLO_OPT_WORKLOAD  ? o->have_workload
                    : env[i].id == SSLO_OPT_BUDGET  ? o->have_budget
                    : env[i].id == SSLO_OPT_PRICING ? o->have_pricing
                                                    : o->have_mode;
        const char *v;
        char why[SSLO_MSG_LENGTH];

        if (given || !(v = get(env[i].var)) || !*v)
            continue;
        if (sslo_option_parse(o, env[i].id, v, why, sizeof why))
            return fail(msg, len, "environment %s=%s (fallback for %s): %s", env[i].var, v,
                        sslo_option_name(env[i].id), why);
    }
    return 0;
}

enum sslo_mode sslo_effective_mode(const struct sslo_options *o, const struct sslo_config *cfg)
{
    return o->have_mode ? o->mode : cfg->mode;
}

const char *sslo_effective_workload(const struct sslo_options *o, const struct sslo_config *cfg)
{
    return o->have_workload ? o->workload : cfg->workload;
}

enum slo_pricing sslo_effective_pricing(const struct sslo_options *o)
{
    return o->have_pricing ? o->pricing : SLO_PRICING_SPOT;
}

const char *sslo_mode_name(enum sslo_mode mode)
{
    return mode == SSLO_MODE_ADVISE ? "advise" : "enforce";
}

const char *sslo_pricing_name(enum slo_pricing pricing)
{
    return pricing == SLO_PRICING_ON_DEMAND ? "on-demand" : "spot";
}
