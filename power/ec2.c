/*
 * ec2.c - the ec2 provider: EC2 CreateFleet (Type instant) per (instance type,
 * capacity type) group on resume, TerminateInstances by tag on suspend, all
 * through the aws CLI (each call limited by aws_timeout_s, power_run).
 * Instances carry slo-power:cluster and slo-power:nodes from launch, and
 * slo-power:node once CreateTags names them: suspend / resume-fail find both
 * kinds, so a resume that dies in between leaks no instance.
 *
 * Sources: EC2 API reference, CreateFleet (request fields, the response's
 * Instances[].InstanceIds and Errors[].ErrorCode), DescribeInstances
 * (PrivateIpAddress, PrivateDnsName), CreateTags, TerminateInstances; the way
 * AWS ParallelCluster's ResumeProgram uses CreateFleet and powers down nodes
 * that got no capacity (research note section 5.1).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "power.h"
#include "backoff.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TAG_CLUSTER "slo-power:cluster"
#define TAG_NODES "slo-power:nodes"
#define TAG_NODE "slo-power:node"
#define TAG_JOBS "slo-power:jobs"
#define DESCRIBE_TRIES 5
/* EC2 limits (EC2 API reference, Tag: value at most 256 Unicode characters;
 * 50 tags per resource; TerminateInstances: at most 1000 instance ids per
 * call, as AWS ParallelCluster batches them). */
#define TAG_VALUE_MAX 256
#define MAX_NODES_TAGS 32
#define TERMINATE_BATCH 1000


static const char *template_for(const struct power_config *cfg, const char *type)
{
    for (size_t i = 0; i < cfg->n_type_templates; i++)
        if (strcmp(cfg->type_templates[i].type, type) == 0)
            return cfg->type_templates[i].template_ref;
    return cfg->launch_template[0] ? cfg->launch_template : NULL;
}

/* lt- followed by hex digits is an id (API_LaunchTemplate: LaunchTemplateId). */
static int is_template_id(const char *ref)
{
    if (strncmp(ref, "lt-", 3) != 0 || !ref[3])
        return 0;
    return strspn(ref + 3, "0123456789abcdef") == strlen(ref + 3);
}

static json_t *tag(const char *key, const char *value)
{
    return json_pack("{s:s, s:s}", "Key", key, "Value", value);
}

/* 1 when the ranged hostlist of idx[0..n-1] fits one tag value (into buf). */
static int fits_tag(const struct power_node *nodes, const size_t *idx, size_t n, char *buf)
{
    return power_hostlist_ranged(nodes, idx, n, buf, TAG_VALUE_MAX + 1) == 0;
}

int power_ec2_nodes_tags(const struct power_node *nodes, const size_t *idx, size_t n,
                         json_t *tags, char *err, size_t errlen)
{
    char buf[TAG_VALUE_MAX + 1];
    size_t s = 0;
    for (int k = 0; s < n; k++) {
        if (k == MAX_NODES_TAGS)
            return power_fail(err, errlen, "ec2 CreateFleet: the hostlist of the %zu nodes needs "
                        "more than %d " TAG_NODES " tags of %d characters (give the CLOUD "
                        "nodes names PREFIX[N-M])", n, MAX_NODES_TAGS, TAG_VALUE_MAX);
        /* Longest run idx[s..s+lo-1] found by bisection whose ranged string
         * fits (node names are shorter than a tag value, so lo >= 1). */
        size_t lo = 1, hi = n - s;
        if (!fits_tag(nodes, idx + s, 1, buf))
            return power_fail(err, errlen, "ec2 CreateFleet: node name %s is longer than an EC2 "
                        "tag value (%d characters)", nodes[idx[s]].name, TAG_VALUE_MAX);
        while (lo < hi) {
            size_t mid = lo + (hi - lo + 1) / 2;
            if (fits_tag(nodes, idx + s, mid, buf))
                lo = mid;
            else
                hi = mid - 1;
        }
        fits_tag(nodes, idx + s, lo, buf);
        char key[64];
        if (k == 0)
            snprintf(key, sizeof key, TAG_NODES);
        else
            snprintf(key, sizeof key, TAG_NODES ":%d", k + 1);
        json_array_append_new(tags, tag(key, buf));
        s += lo;
    }
    return 0;
}

json_t *power_ec2_fleet_request(const struct power_config *cfg, const struct power_node *nodes,
                                const size_t *idx, size_t n, const char *jobs, char *err,
                                size_t errlen)
{
    if (n == 0) {
        power_fail(err, errlen, "ec2 CreateFleet: no nodes in the group");
        return NULL;
    }
    const struct power_node *first = &nodes[idx[0]];
    const char *ref = template_for(cfg, first->type);
    if (!ref) {
        power_fail(err, errlen,
             "ec2: no launch template for instance type %s (set launch_template or "
             "launch_template[%s] in %s)",
             first->type, first->type, cfg->path);
        return NULL;
    }
    int spot = first->capacity == POWER_SPOT;

    json_t *spec = json_pack("{s:s, s:s}", is_template_id(ref) ? "LaunchTemplateId"
                                                                : "LaunchTemplateName",
                             ref, "Version", cfg->launch_template_version);
    json_t *overrides = json_array();
    size_t n_sub = cfg->n_subnets ? cfg->n_subnets : 1;
    for (size_t s = 0; s < n_sub; s++) {
        json_t *o = json_pack("{s:s}", "InstanceType", first->type);
        if (cfg->n_subnets)
            json_object_set_new(o, "SubnetId", json_string(cfg->subnets[s]));
        if (spot && cfg->max_spot_price_usd_per_h > 0) {
            /* MaxPrice is a string of USD per instance-hour. */
            char price[32];
            snprintf(price, sizeof price, "%.6g", cfg->max_spot_price_usd_per_h);
            json_object_set_new(o, "MaxPrice", json_string(price));
        }
        json_array_append_new(overrides, o);
    }
    /* One instance type per request and all nodes in one AZ: a training job's
     * workers talk to each other every iteration. MinTargetCapacity = n makes
     * the request all-or-nothing (it needs SingleInstanceType or
     * SingleAvailabilityZone, both set). */
    json_t *options = json_pack("{s:s, s:b, s:b, s:I}", "AllocationStrategy",
                                spot ? "capacity-optimized" : "lowest-price",
                                "SingleInstanceType", 1, "SingleAvailabilityZone", 1,
                                "MinTargetCapacity",
                                (json_int_t)(cfg->all_or_nothing ? n : 1));
    /* The launch tags are how suspend / resume-fail find an instance whose
     * resume never got as far as its slo-power:node tag. */
    json_t *tags = json_array();
    json_array_append_new(tags, tag(TAG_CLUSTER, cfg->cluster));
    if (power_ec2_nodes_tags(nodes, idx, n, tags, err, errlen) != 0) {
        json_decref(tags);
        json_decref(spec);
        json_decref(overrides);
        json_decref(options);
        return NULL;
    }
    if (jobs && *jobs)
        json_array_append_new(tags, tag(TAG_JOBS, jobs));

    json_t *req = json_pack(
        "{s:s, s:[{s:o, s:o}], s:{s:I, s:s}, s:o, s:[{s:s, s:o}]}", "Type", "instant",
        "LaunchTemplateConfigs", "LaunchTemplateSpecification", spec, "Overrides", overrides,
        "TargetCapacitySpecification", "TotalTargetCapacity", (json_int_t)n,
        "DefaultTargetCapacityType", spot ? "spot" : "on-demand",
        spot ? "SpotOptions" : "OnDemandOptions", options, "TagSpecifications",
        "ResourceType", "instance", "Tags", tags);
    if (!req)
        power_fail(err, errlen, "ec2 CreateFleet: out of memory");
    return req;
}

int power_ec2_capacity_error(const char *code)
{
    static const char *const codes[] = {
        "InsufficientInstanceCapacity", "InsufficientCapacity", "MaxSpotInstanceCountExceeded",
        "SpotMaxPriceTooLow", "UnfulfillableCapacity", "InstanceLimitExceeded",
        "VcpuLimitExceeded", "InsufficientFreeAddressesInSubnet", "InsufficientHostCapacity",
    };
    return power_code_in(code, codes, sizeof codes / sizeof codes[0]);
}

/* The error that explains a shortfall: the first one that is not the generic
 * "UnfulfillableCapacity" pointer to the others, else the first one. */
static const json_t *main_error(const json_t *errors)
{
    size_t i;
    json_t *e;
    json_array_foreach(errors, i, e)
    {
        const char *code = json_string_value(json_object_get(e, "ErrorCode"));
        if (code && strcmp(code, "UnfulfillableCapacity") != 0)
            return e;
    }
    return json_array_size(errors) ? json_array_get(errors, 0) : NULL;
}

int power_ec2_assign(const json_t *response, struct power_node *nodes, const size_t *idx,
                     size_t n, json_t **extra, char *err, size_t errlen)
{
    *extra = json_array();
    const json_t *instances = json_object_get(response, "Instances");
    const json_t *errors = json_object_get(response, "Errors");
    if (!json_is_object(response) || (instances && !json_is_array(instances)) ||
        (errors && !json_is_array(errors))) {
        json_decref(*extra);
        *extra = NULL;
        return power_fail(err, errlen, "ec2 CreateFleet: expected a response object with arrays "
                    "Instances and Errors");
    }
    size_t k = 0, i, j;
    json_t *inst, *id;
    json_array_foreach(instances, i, inst)
    {
        const json_t *ids = json_object_get(inst, "InstanceIds");
        if (!json_is_array(ids)) {
            json_decref(*extra);
            *extra = NULL;
            return power_fail(err, errlen, "ec2 CreateFleet: Instances[%zu].InstanceIds: expected "
                        "an array", i);
        }
        json_array_foreach(ids, j, id)
        {
            const char *s = json_string_value(id);
            if (!s || !*s || strlen(s) >= POWER_NAME_LEN) { /* "" is no id (fuzz_power_fleet) */
                json_decref(*extra);
                *extra = NULL;
                return power_fail(err, errlen, "ec2 CreateFleet: Instances[%zu].InstanceIds[%zu]: "
                            "expected an instance id string", i, j);
            }
            if (k < n)
                strcpy(nodes[idx[k++]].instance_id, s);
            else
                json_array_append_new(*extra, json_string(s));
        }
    }
    if (k < n) {
        const json_t *e = main_error(errors);
        const char *code = e ? json_string_value(json_object_get(e, "ErrorCode")) : NULL;
        const char *msg = e ? json_string_value(json_object_get(e, "ErrorMessage")) : NULL;
        const struct power_node *first = &nodes[idx[0]];
        for (size_t m = k; m < n; m++) {
            struct power_node *nd = &nodes[idx[m]];
            nd->failed = 1;
            if (code)
                power_fmt(nd->reason, sizeof nd->reason,
                         "ec2 CreateFleet %s %s: %s: %s: %.200s", first->type,
                         power_capacity_name(first->capacity),
                         power_ec2_capacity_error(code) ? "no capacity" : "error", code,
                         msg ? msg : "");
            else
                power_fmt(nd->reason, sizeof nd->reason,
                         "ec2 CreateFleet %s %s: launched %zu of %zu instances and gave no "
                         "error", first->type, power_capacity_name(first->capacity), k, n);
        }
    }
    return (int)k;
}

/* ------------------------------------------------------------------ */
/* Running the aws CLI                                                 */
/* ------------------------------------------------------------------ */

struct aws {
    char path[PATH_MAX];
    char region_arg[POWER_NAME_LEN];
    struct power_run_limits limits;
    const struct power_config *cfg;
    struct power_log *log;   /* where retries are logged (may be NULL) */
    unsigned seed;           /* rand_r state of the back-off jitter */
};

static int aws_locate(const struct power_config *cfg, struct aws *a, char *err, size_t errlen)
{
    const char *name = cfg->aws[0] ? cfg->aws : "aws";
    if (power_find_program(name, "/usr/local/bin", a->path, sizeof a->path) != 0) {
        const char *path = getenv("PATH");
        return power_fail(err, errlen,
                    "the aws command (AWS CLI) was not found: %s (PATH=%s; Slurm runs this "
                    "program without PATH: set aws=/path/to/aws in %s)",
                    cfg->aws[0] ? cfg->aws : "aws not in PATH", path ? path : "(unset)",
                    cfg->path);
    }
    snprintf(a->region_arg, sizeof a->region_arg, "%s", cfg->region);
    a->limits.timeout_s = cfg->aws_timeout_s > 0 ? cfg->aws_timeout_s : POWER_RUN_TIMEOUT_S;
    a->limits.grace_s = POWER_RUN_GRACE_S;
    a->limits.max_output = POWER_RUN_MAX_OUTPUT;
    a->cfg = cfg;
    a->seed = (unsigned)getpid() ^ (unsigned)time(NULL);
    return 0;
}

/* Run `aws --region R --output json ec2 ARGS...` and parse its JSON output
 * (NULL *out when it printed nothing). */
static int aws_ec2(struct aws *a, const char *const *args, size_t n_args, json_t **out,
                   char *err, size_t errlen)
{
    *out = NULL;
    char **argv = calloc(n_args + 7, sizeof *argv);
    if (!argv)
        return power_fail(err, errlen, "aws ec2 %s: out of memory", args[0]);
    size_t k = 0;
    argv[k++] = (char *)a->path;
    argv[k++] = (char *)"--region";
    argv[k++] = (char *)a->region_arg;
    argv[k++] = (char *)"--output";
    argv[k++] = (char *)"json";
    argv[k++] = (char *)"ec2";
    for (size_t i = 0; i < n_args; i++)
        argv[k++] = (char *)args[i];
    argv[k] = NULL;
    char *text = NULL, line[512];
    int rc = power_run(argv, &a->limits, &text, line, sizeof line);
    /* Throttling (RequestLimitExceeded and kin, after the CLI's own retries)
     * refuses the request without running it: try again after a bounded,
     * jittered exponential back-off instead of failing the nodes. */
    int retries = a->cfg ? a->cfg->aws_retries : 0;
    for (int t = 0; rc > 0 && t < retries && power_aws_throttled(line); t++) {
        double d = power_retry_delay_s(a->cfg, t, &a->seed);
        char code[128] = "";
        power_aws_error_code(line, code, sizeof code);
        if (a->log)
            power_log(a->log, "warning", NULL, "aws ec2 %s: throttled (%s); retry %d of %d "
                      "in %.2f s", args[0], code, t + 1, retries, d);
        struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
        free(text);
        text = NULL;
        rc = power_run(argv, &a->limits, &text, line, sizeof line);
        if (rc > 0 && power_aws_throttled(line) && t + 1 == retries) {
            free(text);
            free(argv);
            return power_fail(err, errlen, "aws ec2 %s: still throttled after %d tries: %s",
                              args[0], retries + 1, line);
        }
    }
    free(argv);
    if (rc != 0) {
        free(text);
        if (rc < 0)
            return power_fail(err, errlen, "aws ec2 %s: %s", args[0], line);
        return power_fail(err, errlen, "aws ec2 %s exited with %d: %s", args[0], rc,
                    line[0] ? line : "(no message)");
    }
    size_t i = strspn(text, " \t\r\n");
    if (text[i] == '\0') {
        free(text);
        return 0;
    }
    json_error_t je;
    *out = json_loads(text, 0, &je);
    free(text);
    if (!*out)
        return power_fail(err, errlen, "aws ec2 %s: expected JSON output, found: %s (line %d)",
                    args[0], je.text, je.line);
    return 0;
}

static void dry_print_command(FILE *out, const struct power_config *cfg,
                              const char *const *args, size_t n_args)
{
    fprintf(out, "aws --region %s --output json ec2", cfg->region);
    for (size_t i = 0; i < n_args; i++)
        fprintf(out, " %s", args[i]);
    fputc('\n', out);
}

/* Terminate instance ids (json array of strings) in calls of at most
 * TERMINATE_BATCH ids; logs the outcome. Ids of failed calls are appended to
 * failed (when not NULL). Returns 0, or -1 when a call failed. */
static int terminate_ids(struct power_ctx *ctx, struct aws *a, const json_t *ids,
                         const char *why, json_t *failed)
{
    size_t n = json_array_size(ids);
    int rc = 0;
    for (size_t from = 0; from < n; from += TERMINATE_BATCH) {
        size_t m = n - from < TERMINATE_BATCH ? n - from : TERMINATE_BATCH;
        const char **args = calloc(m + 2, sizeof *args);
        if (!args) {
            power_log(ctx->log, "error", NULL, "terminate-instances: out of memory");
            return -1;
        }
        args[0] = "terminate-instances";
        args[1] = "--instance-ids";
        char list[2048] = "";
        for (size_t i = 0; i < m; i++) {
            args[i + 2] = json_string_value(json_array_get(ids, from + i));
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", i ? " " : "", args[i + 2]);
        }
        char err[POWER_ERR_LEN];
        json_t *resp = NULL;
        if (ctx->dry_run) {
            dry_print_command(ctx->out, ctx->cfg, args, m + 2);
        } else if (aws_ec2(a, args, m + 2, &resp, err, sizeof err) != 0) {
            power_log(ctx->log, "error", NULL, "terminating %zu instance(s) %s (%s) failed: %s",
                      m, list, why, err);
            rc = -1;
            for (size_t i = 0; failed && i < m; i++)
                json_array_append(failed, json_array_get(ids, from + i));
        } else {
            power_log(ctx->log, "info", NULL, "terminated %zu instance(s) %s (%s)", m, list,
                      why);
        }
        json_decref(resp);
        free(args);
    }
    return rc;
}

/* Look up private addresses of the group's launched instances; retries while
 * EC2 has not yet filled them in (eventual consistency). */
static void describe_addresses(struct power_ctx *ctx, struct aws *a,
                               struct power_node *nodes, const size_t *idx, size_t n)
{
    char last_err[POWER_ERR_LEN] = "";
    const char **args = calloc(n + 2, sizeof *args);
    if (!args)
        power_fmt(last_err, sizeof last_err, "out of memory");
    for (int attempt = 0; args && attempt < DESCRIBE_TRIES; attempt++) {
        size_t k = 0;
        args[k++] = "describe-instances";
        args[k++] = "--instance-ids";
        for (size_t i = 0; i < n; i++) {
            struct power_node *nd = &nodes[idx[i]];
            if (!nd->failed && nd->instance_id[0] && !nd->addr[0])
                args[k++] = nd->instance_id;
        }
        if (k == 2)
            break;
        if (attempt > 0) {
            power_log(ctx->log, "info", NULL, "DescribeInstances: %zu address(es) missing "
                      "(%s); retrying in %u s", k - 2, last_err, 1u << (attempt - 1));
            sleep(1u << (attempt - 1));
        }
        json_t *resp = NULL;
        if (aws_ec2(a, args, k, &resp, last_err, sizeof last_err) != 0)
            continue;
        size_t r, i;
        json_t *res, *inst;
        json_array_foreach(json_object_get(resp, "Reservations"), r, res)
        {
            json_array_foreach(json_object_get(res, "Instances"), i, inst)
            {
                const char *id = json_string_value(json_object_get(inst, "InstanceId"));
                const char *ip = json_string_value(json_object_get(inst, "PrivateIpAddress"));
                const char *dns = json_string_value(json_object_get(inst, "PrivateDnsName"));
                if (!id || !ip || !*ip)
                    continue;
                for (size_t m = 0; m < n; m++) {
                    struct power_node *nd = &nodes[idx[m]];
                    if (strcmp(nd->instance_id, id) != 0)
                        continue;
                    snprintf(nd->addr, sizeof nd->addr, "%s", ip);
                    /* Short host name: ip-10-0-0-5.ec2.internal -> ip-10-0-0-5. */
                    snprintf(nd->hostname, sizeof nd->hostname, "%s", dns && *dns ? dns : ip);
                    if (dns && *dns)
                        nd->hostname[strcspn(nd->hostname, ".")] = '\0';
                }
            }
        }
        json_decref(resp);
        power_fmt(last_err, sizeof last_err, "no PrivateIpAddress in the response");
    }
    free(args);
    for (size_t m = 0; m < n; m++) {
        struct power_node *nd = &nodes[idx[m]];
        if (!nd->failed && nd->instance_id[0] && !nd->addr[0]) {
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason,
                     "ec2 DescribeInstances %s: no private address after %d tries: %.200s",
                     nd->instance_id, DESCRIBE_TRIES, last_err);
        }
    }
}

/* Job ids of the group's nodes from SLURM_RESUME_FILE, "6,7". */
static void group_jobs(const struct power_ctx *ctx, const struct power_node *nodes,
                       const size_t *idx, size_t n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char one[POWER_VALUE_LEN];
        if (power_resume_file_jobs(ctx->resume_file, nodes[idx[i]].name, one, sizeof one))
            continue;
        char *save = NULL;
        for (char *t = strtok_r(one, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            char pat[64];
            snprintf(pat, sizeof pat, ",%s,", t);
            char have[POWER_VALUE_LEN + 2];
            snprintf(have, sizeof have, ",%s,", buf);
            if (strstr(have, pat))
                continue;
            size_t used = strlen(buf);
            if (used + strlen(t) + 2 < len)
                snprintf(buf + used, len - used, "%s%s", used ? "," : "", t);
        }
    }
}

static void resume_group(struct power_ctx *ctx, struct aws *a, struct power_node *nodes,
                         const size_t *idx, size_t n)
{
    const struct power_node *first = &nodes[idx[0]];
    char err[POWER_ERR_LEN], hosts[POWER_VALUE_LEN], jobs[POWER_VALUE_LEN];
    if (power_hostlist_ranged(nodes, idx, n, hosts, sizeof hosts) != 0)
        snprintf(hosts, sizeof hosts, "%s...", first->name);
    group_jobs(ctx, nodes, idx, n, jobs, sizeof jobs);
    json_t *req = power_ec2_fleet_request(ctx->cfg, nodes, idx, n, jobs, err, sizeof err);
    if (!req) {
        for (size_t i = 0; i < n; i++) {
            nodes[idx[i]].failed = 1;
            power_fmt(nodes[idx[i]].reason, sizeof nodes[idx[i]].reason, "%s", err);
        }
        return;
    }
    power_log(ctx->log, "info", hosts, "CreateFleet %zu x %s %s%s%s", n, first->type,
              power_capacity_name(first->capacity), jobs[0] ? " for job " : "", jobs);
    if (ctx->dry_run) {
        json_dumpf(req, ctx->out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', ctx->out);
        json_decref(req);
        return;
    }

    /* Write the request to a private temporary file for --cli-input-json. */
    const char *tmpdir = getenv("TMPDIR");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/slo-power-fleet.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    int werr = !f || json_dumpf(req, f, JSON_COMPACT) != 0;
    if (f && fclose(f) != 0)
        werr = 1;
    else if (!f && fd >= 0)
        close(fd);
    json_decref(req);
    if (werr) {
        power_fmt(err, sizeof err, "cannot write the CreateFleet request to %s: %s", path,
                 strerror(errno));
        if (fd >= 0)
            unlink(path);
        for (size_t i = 0; i < n; i++) {
            nodes[idx[i]].failed = 1;
            power_fmt(nodes[idx[i]].reason, sizeof nodes[idx[i]].reason, "%s", err);
        }
        return;
    }
    char uri[PATH_MAX + 16];
    snprintf(uri, sizeof uri, "file://%s", path);
    const char *args[] = {"create-fleet", "--cli-input-json", uri};
    json_t *extra = NULL;
    int rc;
    for (int t = 0;; t++) {
        json_t *resp = NULL;
        int k = 0;
        rc = aws_ec2(a, args, 3, &resp, err, sizeof err);
        if (rc == 0 && !resp)
            rc = power_fail(err, sizeof err, "aws ec2 create-fleet printed nothing");
        if (rc == 0 && (k = power_ec2_assign(resp, nodes, idx, n, &extra, err, sizeof err)) < 0)
            rc = -1;
        /* An instant fleet that launched nothing because the launches were
         * throttled (Errors[].ErrorCode RequestLimitExceeded...) is retried
         * like a throttled call; a partial one keeps what it got. */
        const json_t *e = rc == 0 && k == 0 ? main_error(json_object_get(resp, "Errors")) : NULL;
        char code[128];
        snprintf(code, sizeof code, "%s",
                 e && json_string_value(json_object_get(e, "ErrorCode"))
                     ? json_string_value(json_object_get(e, "ErrorCode")) : "");
        json_decref(resp);
        if (!power_aws_code_throttled(code) || t >= ctx->cfg->aws_retries)
            break;
        json_decref(extra);
        extra = NULL;
        for (size_t i = 0; i < n; i++) {
            nodes[idx[i]].failed = 0;
            nodes[idx[i]].reason[0] = '\0';
        }
        double d = power_retry_delay_s(ctx->cfg, t, &a->seed);
        power_log(ctx->log, "warning", hosts, "CreateFleet %s %s launched nothing: %s in the "
                  "response; retry %d of %d in %.2f s", first->type,
                  power_capacity_name(first->capacity), code, t + 1, ctx->cfg->aws_retries, d);
        struct timespec ts = {(time_t)d, (long)((d - (double)(time_t)d) * 1e9)};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    unlink(path);
    if (rc != 0) {
        /* The request as a whole failed (credentials, throttling, bad template):
         * no instance was launched for the group. */
        for (size_t i = 0; i < n; i++) {
            nodes[idx[i]].failed = 1;
            power_fmt(nodes[idx[i]].reason, sizeof nodes[idx[i]].reason,
                     "ec2 CreateFleet %s %s: %.400s", first->type,
                     power_capacity_name(first->capacity), err);
        }
        json_decref(extra);
        return;
    }
    power_backoff_note_failed(ctx, nodes, idx, n); /* capacity errors: back off the pool */
    if (json_array_size(extra) > 0)
        terminate_ids(ctx, a, extra, "more instances than nodes", NULL);
    json_decref(extra);

    /* Name each instance after its node at once (suspend finds it by this
     * tag; until then by the launch tags slo-power:cluster and
     * slo-power:nodes), then look up the addresses, then tell slurmctld
     * where the node is. */
    for (size_t i = 0; i < n; i++) {
        struct power_node *nd = &nodes[idx[i]];
        if (nd->failed || !nd->instance_id[0])
            continue;
        char t1[POWER_NAME_LEN + 32], t2[POWER_NAME_LEN + 32];
        snprintf(t1, sizeof t1, "Key=Name,Value=%s", nd->name);
        snprintf(t2, sizeof t2, "Key=" TAG_NODE ",Value=%s", nd->name);
        const char *targs[] = {"create-tags", "--resources", nd->instance_id, "--tags", t1, t2};
        json_t *tresp = NULL;
        if (aws_ec2(a, targs, 6, &tresp, err, sizeof err) != 0) {
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason, "ec2 CreateTags %s: %.400s",
                     nd->instance_id, err);
        }
        json_decref(tresp);
    }

    describe_addresses(ctx, a, nodes, idx, n);

    for (size_t i = 0; i < n; i++) {
        struct power_node *nd = &nodes[idx[i]];
        if (nd->failed)
            continue;
        if (ctx->slurm->set_addr(ctx->slurm->arg, nd->name, nd->addr, nd->hostname, err,
                                 sizeof err) != 0) {
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason, "%s", err);
            continue;
        }
        power_log(ctx->log, "info", nd->name, "instance %s (%s %s) at %s (%s)", nd->instance_id,
                  nd->type, power_capacity_name(nd->capacity), nd->addr, nd->hostname);
    }

    /* Instances of failed nodes would run unused: terminate them. */
    json_t *orphans = json_array();
    for (size_t i = 0; i < n; i++) {
        struct power_node *nd = &nodes[idx[i]];
        if (nd->failed && nd->instance_id[0])
            json_array_append_new(orphans, json_string(nd->instance_id));
    }
    terminate_ids(ctx, a, orphans, "their nodes failed to resume", NULL);
    json_decref(orphans);
}

static int finish_failed(struct power_ctx *ctx, struct power_node *nodes, size_t n,
                         int power_down)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        struct power_node *nd = &nodes[i];
        if (!nd->failed)
            continue;
        bad = 1;
        power_log(ctx->log, "error", nd->name, "%s", nd->reason);
        if (!power_down || ctx->dry_run || !ctx->slurm)
            continue;
        char reason[POWER_ERR_LEN + 16], err[POWER_ERR_LEN];
        power_fmt(reason, sizeof reason, "slo-power: %.400s", nd->reason);
        if (ctx->slurm->power_down(ctx->slurm->arg, nd->name, reason, err, sizeof err) != 0)
            power_log(ctx->log, "error", nd->name, "could not power the node down: %s", err);
        else
            power_log(ctx->log, "info", nd->name, "powered down (POWER_DOWN_FORCE): its jobs "
                      "are requeued");
    }
    return bad;
}

int power_ec2_resume(struct power_ctx *ctx, struct power_node *nodes, size_t n)
{
    struct aws a;
    char err[POWER_ERR_LEN];
    memset(&a, 0, sizeof a);
    a.log = ctx->log;
    struct power_groups g;
    if (power_group_nodes(nodes, n, &g) != 0) {
        power_log(ctx->log, "error", NULL, "out of memory");
        return 1;
    }
    if (g.n_groups > 0 && !ctx->dry_run && aws_locate(ctx->cfg, &a, err, sizeof err) != 0) {
        for (size_t i = 0; i < n; i++)
            if (!nodes[i].failed) {
                nodes[i].failed = 1;
                power_fmt(nodes[i].reason, sizeof nodes[i].reason, "%s", err);
            }
    } else {
        for (size_t k = 0; k < g.n_groups; k++)
            resume_group(ctx, &a, nodes, g.idx + g.start[k], g.start[k + 1] - g.start[k]);
    }
    power_groups_free(&g);
    return finish_failed(ctx, nodes, n, 1);
}

/* The request's node names, sorted for bsearch. */
struct name_ix {
    const char *name;
    size_t i; /* index into the node array */
};

static int cmp_name(const void *x, const void *y)
{
    return strcmp(((const struct name_ix *)x)->name, ((const struct name_ix *)y)->name);
}

/* Index of the node called name, or -1. */
static long find_node(const struct name_ix *sorted, size_t n, const char *name)
{
    struct name_ix key = {name, 0};
    const struct name_ix *hit = n ? bsearch(&key, sorted, n, sizeof *sorted, cmp_name) : NULL;
    return hit ? (long)hit->i : -1;
}

/* For an instance without a slo-power:node tag: 1 when one of its launch
 * hostlists (slo-power:nodes, slo-power:nodes:2, ...) names a node of the
 * request; *launched_for gets the first such hostlist. */
static int launched_for_request(const json_t *itags, const struct name_ix *sorted, size_t n,
                                const char **launched_for)
{
    size_t t;
    json_t *tg;
    json_array_foreach(itags, t, tg)
    {
        const char *key = json_string_value(json_object_get(tg, "Key"));
        const char *val = json_string_value(json_object_get(tg, "Value"));
        if (!key || !val ||
            (strcmp(key, TAG_NODES) != 0 && strncmp(key, TAG_NODES ":", strlen(TAG_NODES) + 1)))
            continue;
        struct power_node *hn = NULL;
        size_t hcount = 0;
        char err[POWER_ERR_LEN];
        if (power_hostlist_expand(val, &hn, &hcount, err, sizeof err) != 0)
            continue;
        int hit = 0;
        for (size_t h = 0; h < hcount && !hit; h++)
            hit = find_node(sorted, n, hn[h].name) >= 0;
        free(hn);
        if (hit) {
            *launched_for = val;
            return 1;
        }
    }
    return 0;
}

int power_ec2_terminate(struct power_ctx *ctx, struct power_node *nodes, size_t n)
{
    struct aws a;
    char err[POWER_ERR_LEN];
    memset(&a, 0, sizeof a);
    a.log = ctx->log;
    if (!ctx->dry_run && aws_locate(ctx->cfg, &a, err, sizeof err) != 0) {
        for (size_t i = 0; i < n; i++) {
            nodes[i].failed = 1;
            power_fmt(nodes[i].reason, sizeof nodes[i].reason, "%s", err);
        }
        return finish_failed(ctx, nodes, n, 0);
    }
    /* The cluster's live instances, matched here rather than by a tag filter
     * per node: EC2 allows at most 200 filter values per call, and an
     * instance whose resume died before its slo-power:node tag carries only
     * the launch tags (slo-power:cluster, slo-power:nodes). */
    char f_cluster[POWER_NAME_LEN + 64];
    snprintf(f_cluster, sizeof f_cluster, "Name=tag:" TAG_CLUSTER ",Values=%s",
             ctx->cfg->cluster);
    const char *args[] = {"describe-instances", "--filters", f_cluster,
                          "Name=instance-state-name,Values=pending,running,stopping,stopped"};
    if (ctx->dry_run) {
        dry_print_command(ctx->out, ctx->cfg, args, 4);
        fprintf(ctx->out, "aws --region %s --output json ec2 terminate-instances "
                "--instance-ids <the InstanceIds found above: tagged " TAG_NODE "=NODE, or "
                "without " TAG_NODE " and launched for a hostlist " TAG_NODES " naming a "
                "NODE; at most %d per call>\n", ctx->cfg->region, TERMINATE_BATCH);
        return 0;
    }
    json_t *resp = NULL;
    if (aws_ec2(&a, args, 4, &resp, err, sizeof err) != 0) {
        for (size_t i = 0; i < n; i++) {
            nodes[i].failed = 1;
            power_fmt(nodes[i].reason, sizeof nodes[i].reason,
                     "cannot find the node's instance: %.400s", err);
        }
        json_decref(resp);
        return finish_failed(ctx, nodes, n, 0);
    }
    struct name_ix *sorted = malloc((n ? n : 1) * sizeof *sorted);
    if (!sorted) {
        json_decref(resp);
        power_log(ctx->log, "error", NULL, "out of memory");
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        sorted[i] = (struct name_ix){nodes[i].name, i};
    qsort(sorted, n, sizeof *sorted, cmp_name);

    json_t *ids = json_array();
    size_t r, i, t;
    json_t *res, *inst, *tg;
    json_array_foreach(json_object_get(resp, "Reservations"), r, res)
    {
        json_array_foreach(json_object_get(res, "Instances"), i, inst)
        {
            const char *id = json_string_value(json_object_get(inst, "InstanceId"));
            const json_t *itags = json_object_get(inst, "Tags");
            if (!id)
                continue;
            const char *node = NULL;
            json_array_foreach(itags, t, tg)
            {
                const char *key = json_string_value(json_object_get(tg, "Key"));
                if (key && strcmp(key, TAG_NODE) == 0)
                    node = json_string_value(json_object_get(tg, "Value"));
            }
            const char *launched_for = NULL;
            if (node) {
                long m = find_node(sorted, n, node);
                if (m < 0)
                    continue; /* another node's instance */
                snprintf(nodes[m].instance_id, sizeof nodes[m].instance_id, "%s", id);
            } else if (launched_for_request(itags, sorted, n, &launched_for)) {
                power_log(ctx->log, "warning", NULL, "instance %s was launched for %s and "
                          "never tagged " TAG_NODE " (its resume did not finish): "
                          "terminating it", id, launched_for);
            } else {
                continue;
            }
            json_array_append_new(ids, json_string(id));
        }
    }
    free(sorted);
    for (size_t m = 0; m < n; m++)
        if (!nodes[m].instance_id[0])
            power_log(ctx->log, "info", nodes[m].name, "no running instance is tagged "
                      TAG_NODE "=%s", nodes[m].name);
    json_t *failed = json_array();
    if (terminate_ids(ctx, &a, ids, power_action_name(ctx->log->action), failed) != 0) {
        size_t f;
        json_t *fid;
        json_array_foreach(failed, f, fid)
        {
            for (size_t m = 0; m < n; m++)
                if (nodes[m].instance_id[0] &&
                    strcmp(nodes[m].instance_id, json_string_value(fid)) == 0) {
                    nodes[m].failed = 1;
                    power_fmt(nodes[m].reason, sizeof nodes[m].reason,
                             "instance %s was not terminated (see the line above)",
                             nodes[m].instance_id);
                }
        }
    }
    json_decref(failed);
    json_decref(resp);
    json_decref(ids);
    return finish_failed(ctx, nodes, n, 0);
}
