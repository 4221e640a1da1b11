/*
 * nodes.c - node names (Slurm hostlists), node features -> instance types,
 * grouping, and Slurm's SLURM_RESUME_FILE.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "power.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#define MAX_NODES 100000

static int cmp_name_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The name (first member, a char array) that occurs twice among n records
 * of size bytes at base, or NULL; *rc = -1 when out of memory (and NULL). */
static const char *first_duplicate(const void *base, size_t size, size_t n, int *rc)
{
    if (n < 2)
        return NULL; /* nothing to sort (qsort of NULL is undefined: the fuzz smoke run) */
    const char **names = malloc(n * sizeof *names);
    const char *dup = NULL;

    if (!names) {
        *rc = -1;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        names[i] = (const char *)base + i * size;
    qsort(names, n, sizeof *names, cmp_name_ptr);
    for (size_t i = 1; i < n && !dup; i++)
        if (strcmp(names[i - 1], names[i]) == 0)
            dup = names[i];
    free(names);
    return dup;
}


int power_hostlist_expand(const char *hostlist, struct power_node **out, size_t *n, char *err,
                          size_t errlen)
{
    *out = NULL;
    *n = 0;
    if (!hostlist || !*hostlist)
        return power_fail(err, errlen, "hostlist: expected node names like c[1-2], found nothing");
    hostlist_t hl = slurm_hostlist_create(hostlist);
    if (!hl)
        return power_fail(err, errlen, "hostlist: expected node names like c[1-2], found '%s'",
                    hostlist);
    int count = slurm_hostlist_count(hl);
    if (count <= 0 || count > MAX_NODES) {
        slurm_hostlist_destroy(hl);
        return power_fail(err, errlen, "hostlist: expected 1 to %d node names, found %d in '%s'",
                    MAX_NODES, count, hostlist);
    }
    struct power_node *nodes = calloc((size_t)count, sizeof *nodes);
    if (!nodes) {
        slurm_hostlist_destroy(hl);
        return power_fail(err, errlen, "hostlist: out of memory");
    }
    size_t k = 0;
    char *name;
    int rc = 0;
    while ((name = slurm_hostlist_shift(hl))) {
        if (!*name || strlen(name) >= POWER_NAME_LEN ||
            strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
                strlen(name)) {
            rc = power_fail(err, errlen, "hostlist: expected node names of [A-Za-z0-9._-] like "
                      "c[1-2], found '%s' in '%s'", name, hostlist);
            free(name);
            break;
        }
        if (k < (size_t)count)
            strcpy(nodes[k++].name, name);
        free(name);
    }
    slurm_hostlist_destroy(hl);
    /* Duplicates: sorted names side by side, O(n log n) (c[1-100000] in
     * well under a second; the pairwise check took 15 s for 60,000). */
    int oom = 0;
    const char *dup = rc ? NULL : first_duplicate(nodes, sizeof *nodes, k, &oom);
    if (oom)
        rc = power_fail(err, errlen, "hostlist: out of memory");
    else if (dup)
        rc = power_fail(err, errlen, "hostlist: node %s appears twice in '%s'", dup, hostlist);
    if (rc) {
        free(nodes);
        return -1;
    }
    *out = nodes;
    *n = k;
    return 0;
}

int power_hostlist_ranged(const struct power_node *nodes, const size_t *idx, size_t n,
                          char *buf, size_t len)
{
    hostlist_t hl = slurm_hostlist_create(NULL);
    if (!hl)
        return -1;
    for (size_t i = 0; i < n; i++)
        slurm_hostlist_push_host(hl, nodes[idx[i]].name);
    ssize_t got = slurm_hostlist_ranged_string(hl, len, buf);
    slurm_hostlist_destroy(hl);
    return (got < 0 || (size_t)got >= len) ? -1 : 0;
}

size_t power_map_nodes(const struct slo_catalog *cat, const struct power_node_info *info,
                       size_t n_info, struct power_node *nodes, size_t n,
                       int require_capacity, const char *table)
{
    size_t mapped = 0;
    for (size_t i = 0; i < n; i++) {
        struct power_node *nd = &nodes[i];
        const struct power_node_info *in = NULL;
        for (size_t j = 0; j < n_info; j++)
            if (strcmp(info[j].name, nd->name) == 0) {
                in = &info[j];
                break;
            }
        if (!in) {
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason,
                     "node %s is not in %s", nd->name,
                     table ? table : "slurmctld's node table");
            continue;
        }
        char feats[sizeof in->features];
        strcpy(feats, in->features);
        int n_types = 0, n_cap = 0;
        char first_type[SLO_NAME_LENGTH] = "";
        char second_type[SLO_NAME_LENGTH] = "";
        enum power_capacity cap = POWER_ON_DEMAND;
        char *save = NULL;
        for (char *f = strtok_r(feats, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
            if (strcmp(f, "spot") == 0 || strcmp(f, "ondemand") == 0) {
                enum power_capacity c = f[0] == 's' ? POWER_SPOT : POWER_ON_DEMAND;
                if (n_cap && c != cap)
                    n_cap++;
                else if (!n_cap)
                    n_cap = 1;
                cap = c;
            } else if (cat && slo_catalog_find_type(cat, f) >= 0) {
                if (n_types == 0)
                    snprintf(first_type, sizeof first_type, "%s", f);
                else if (n_types == 1)
                    snprintf(second_type, sizeof second_type, "%s", f);
                n_types++;
            }
        }
        const char *shown = in->features[0] ? in->features : "(none)";
        if (n_types == 0) {
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason,
                     "no feature of node %s names an instance type of catalog %s "
                     "(features: %s)",
                     nd->name, cat ? cat->name : "(none)", shown);
        } else if (n_types > 1) {
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason,
                     "features of node %s name %d instance types (%s, %s); expected one",
                     nd->name, n_types, first_type, second_type);
        } else if (n_cap > 1) {
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason,
                     "features of node %s name both spot and ondemand (features: %s)",
                     nd->name, shown);
        } else if (n_cap == 0 && require_capacity) {
            nd->failed = 1;
            power_fmt(nd->reason, sizeof nd->reason,
                     "features of node %s name neither spot nor ondemand (features: %s)",
                     nd->name, shown);
        } else {
            snprintf(nd->type, sizeof nd->type, "%s", first_type);
            nd->capacity = cap;
            mapped++;
        }
    }
    return mapped;
}

int power_group_nodes(const struct power_node *nodes, size_t n, struct power_groups *g)
{
    memset(g, 0, sizeof *g);
    size_t *group_of = calloc(n ? n : 1, sizeof *group_of);
    size_t *first = calloc(n ? n : 1, sizeof *first);   /* representative node per group */
    size_t *count = calloc(n + 1, sizeof *count);
    g->start = calloc(n + 1, sizeof *g->start);
    g->idx = calloc(n ? n : 1, sizeof *g->idx);
    if (!group_of || !first || !count || !g->start || !g->idx) {
        free(group_of);
        free(first);
        free(count);
        power_groups_free(g);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (nodes[i].failed)
            continue;
        size_t k;
        for (k = 0; k < g->n_groups; k++) {
            const struct power_node *r = &nodes[first[k]];
            if (strcmp(r->type, nodes[i].type) == 0 && r->capacity == nodes[i].capacity)
                break;
        }
        if (k == g->n_groups)
            first[g->n_groups++] = i;
        group_of[i] = k;
        count[k]++;
    }
    for (size_t k = 0; k < g->n_groups; k++)
        g->start[k + 1] = g->start[k] + count[k];
    memset(count, 0, (n + 1) * sizeof *count);
    for (size_t i = 0; i < n; i++) {
        if (nodes[i].failed)
            continue;
        size_t k = group_of[i];
        g->idx[g->start[k] + count[k]++] = i;
    }
    free(group_of);
    free(first);
    free(count);
    return 0;
}

void power_groups_free(struct power_groups *g)
{
    free(g->start);
    free(g->idx);
    memset(g, 0, sizeof *g);
}

/* Node list fields of one SLURM_RESUME_FILE job: "nodes" (Slurm 22.05,
 * research note section 5), "nodes_alloc" and "nodes_resume" (newer Slurm,
 * power_save.shtml: the job's allocation and the part being resumed). */
static const char *const resume_node_keys[] = {"nodes", "nodes_resume", "nodes_alloc"};
#define N_RESUME_NODE_KEYS (sizeof resume_node_keys / sizeof resume_node_keys[0])

int power_resume_file_load(const char *path, json_t **out, char *err, size_t errlen)
{
    json_error_t je;
    *out = NULL;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return power_fail(err, errlen, "SLURM_RESUME_FILE %s:%d:%d: %s", path, je.line, je.column,
                    je.text);
    json_t *jobs = json_object_get(root, "jobs");
    if (!json_is_object(root) || !json_is_array(jobs)) {
        json_decref(root);
        return power_fail(err, errlen, "SLURM_RESUME_FILE %s: expected an object with a \"jobs\" "
                    "array", path);
    }
    size_t i;
    json_t *job;
    json_array_foreach(jobs, i, job)
    {
        int lists = 0, bad = 0;
        for (size_t k = 0; k < N_RESUME_NODE_KEYS; k++) {
            json_t *v = json_object_get(job, resume_node_keys[k]);
            lists += json_is_string(v);
            bad += v && !json_is_string(v);
        }
        if (!json_is_integer(json_object_get(job, "job_id")) || !lists || bad) {
            json_decref(root);
            return power_fail(err, errlen, "SLURM_RESUME_FILE %s: jobs[%zu]: expected job_id "
                        "(integer) and nodes, or nodes_alloc / nodes_resume (strings)", path,
                        i);
        }
    }
    *out = root;
    return 0;
}

int power_resume_file_jobs(const json_t *resume, const char *node, char *buf, size_t len)
{
    size_t used = 0, i;
    json_t *job;
    buf[0] = '\0';
    if (!resume)
        return 0;
    json_array_foreach(json_object_get(resume, "jobs"), i, job)
    {
        int found = 0;
        for (size_t k = 0; k < N_RESUME_NODE_KEYS && !found; k++) {
            const char *list = json_string_value(json_object_get(job, resume_node_keys[k]));
            hostlist_t hl = list ? slurm_hostlist_create(list) : NULL;
            if (!hl)
                continue;
            found = slurm_hostlist_find(hl, node) >= 0;
            slurm_hostlist_destroy(hl);
        }
        if (!found)
            continue;
        int w = snprintf(buf + used, len - used, "%s%" JSON_INTEGER_FORMAT, used ? "," : "",
                         json_integer_value(json_object_get(job, "job_id")));
        if (w < 0 || (size_t)w >= len - used)
            return -1;
        used += (size_t)w;
    }
    return 0;
}

int power_node_info_file(const char *path, struct power_node_info **out, size_t *n, char *err,
                         size_t errlen)
{
    *out = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return power_fail(err, errlen, "%s: cannot read the node table: %s", path, strerror(errno));
    /* Lines of any length (getline): a long comment stays one comment. */
    char *line = NULL;
    size_t line_cap = 0;
    int lineno = 0, rc = 0;
    size_t cap = 0;
    struct power_node_info *info = NULL;
    int *lines = NULL; /* line of each entry, for the duplicate message */
    while (getline(&line, &line_cap, f) != -1) {
        lineno++;
        char names[1024 + 1], feats[1024 + 1];
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#' || *s == '\n' || *s == '\0')
            continue;
        feats[0] = '\0';
        size_t w1 = strcspn(s, " \t\n"), sp = strspn(s + w1, " \t");
        size_t w2 = strcspn(s + w1 + sp, " \t\n");
        if (w1 >= 1024 || w2 >= 1024) {
            rc = power_fail(err, errlen, "%s:%d: expected a NODE and a FEATURE,... list of at most "
                            "1023 characters each, found %zu and %zu", path, lineno, w1, w2);
            break;
        }
        int got = sscanf(s, "%1024s %1024s", names, feats);
        if (got < 1) {
            rc = power_fail(err, errlen, "%s:%d: expected 'NODE FEATURE,FEATURE...'", path, lineno);
            break;
        }
        /* NODE may be a hostlist ("g[001-002]"), as NodeName= in slurm.conf. */
        struct power_node *expanded = NULL;
        size_t n_exp = 0;
        char herr[POWER_ERR_LEN];
        if (power_hostlist_expand(names, &expanded, &n_exp, herr, sizeof herr) != 0) {
            rc = power_fail(err, errlen, "%s:%d: %s", path, lineno, herr);
            break;
        }
        if (*n + n_exp > MAX_NODES) {
            free(expanded);
            rc = power_fail(err, errlen, "%s:%d: expected at most %d nodes in the table", path,
                      lineno, MAX_NODES);
            break;
        }
        for (size_t e = 0; e < n_exp && !rc; e++) {
            if (*n == cap) {
                cap = cap ? 2 * cap : 16;
                struct power_node_info *t = realloc(info, cap * sizeof *info);
                int *tl = t ? realloc(lines, cap * sizeof *lines) : NULL;
                if (t)
                    info = t;
                if (!tl) {
                    rc = power_fail(err, errlen, "%s: out of memory", path);
                    break;
                }
                lines = tl;
            }
            strcpy(info[*n].name, expanded[e].name);
            strcpy(info[*n].features, feats);
            lines[*n] = lineno;
            (*n)++;
        }
        free(expanded);
        if (rc)
            break;
    }
    free(line);
    if (!rc && ferror(f))
        rc = power_fail(err, errlen, "%s: cannot read the node table: %s", path, strerror(errno));
    fclose(f);
    if (!rc) {
        /* Duplicates after the whole table, sorted: O(n log n). */
        const char *dup = first_duplicate(info, sizeof *info, *n, &rc);
        if (rc)
            rc = power_fail(err, errlen, "%s: out of memory", path);
        else if (dup) {
            int first = 0, second = 0;
            for (size_t j = 0; j < *n; j++)
                if (strcmp(info[j].name, dup) == 0) {
                    if (!first)
                        first = lines[j];
                    else if (!second)
                        second = lines[j];
                }
            rc = power_fail(err, errlen, "%s:%d: node %s is listed twice (also line %d)", path,
                            second, dup, first);
        }
    }
    free(lines);
    if (rc) {
        free(info);
        *n = 0;
        return -1;
    }
    *out = info;
    return 0;
}
