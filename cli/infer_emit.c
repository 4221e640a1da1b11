/*
 * infer_emit.c - `slo infer --emit triton|slurm --output-dir DIR`: write a
 * plan as Triton model configuration fragments (DIR/<model>/config.pbtxt,
 * fields of Triton's protobuf/model_config.proto) or as one Slurm batch
 * script per planned GPU co-locating its tenants with their gres/mps shares
 * (doc/infer.md "Deploying a plan"). The shares are those libslo rounded
 * and re-verified (slo_infer_mps_round); nothing is rounded here.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "infer_emit.h"

#define CMD "infer"

/* A model name is written into paths, protobuf strings and shell words:
 * letters, digits, '_', '-', '.' only (and not "." or ".."). */
static int safe_name(const char *s)
{
    if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-' || *s == '.'))
            return 0;
    return 1;
}

/* Triton model directory of workload k: the model's name when no other
 * workload of the plan serves it, else MODEL_wK (K from 1). */
void infer_emit_model_dir(const struct slo_ig_workload *w, size_t n, size_t k, char *out,
                          size_t size)
{
    int shared = 0;
    for (size_t i = 0; i < n; i++)
        if (i != k && !strcmp(w[i].model, w[k].model))
            shared = 1;
    if (shared)
        snprintf(out, size, "%s_w%zu", w[k].model, k + 1);
    else
        snprintf(out, size, "%s", w[k].model);
}

/* Write text to dir/name atomically (a temporary file renamed). */
static int write_file(const char *dir, const char *name, const char *text)
{
    char path[4096], tmp[4200];
    FILE *f;
    /* A cut path would name another file: refuse it. */
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path ||
        (size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= sizeof tmp)
        return cli_usage_error(CMD, "--output-dir: expected a path of at most %zu characters, "
                                    "found %zu for %s in \"%.64s...\"",
                               sizeof path - 1, strlen(dir) + 1 + strlen(name), name, dir);
    f = fopen(tmp, "w");
    if (!f)
        return cli_usage_error(CMD, "--output-dir: cannot write %s: %s", tmp, strerror(errno));
    int put = fputs(text, f), closed = fclose(f); /* closed also when fputs failed */
    if (put == EOF || closed != 0) {
        int e = errno;
        remove(tmp);
        return cli_usage_error(CMD, "--output-dir: cannot write %s: %s", tmp, strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return cli_usage_error(CMD, "--output-dir: cannot rename %s to %s: %s", tmp, path,
                               strerror(e));
    }
    return SLO_EXIT_OK;
}

static int make_dir(const char *path)
{
    struct stat st;
    if (mkdir(path, 0777) == 0)
        return SLO_EXIT_OK;
    if (errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return SLO_EXIT_OK;
    return cli_usage_error(CMD, "--output-dir: expected a directory to write into, cannot "
                                "create \"%s\": %s",
                           path, errno == EEXIST ? "exists and is not a directory"
                                                 : strerror(errno));
}

/* Growing text buffer. */
struct buf {
    char *s;
    size_t len, cap;
    int oom;
};

static void add(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int need;
    if (b->oom)
        return;
    va_start(ap, fmt);
    need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0) {
        b->oom = 1;
        return;
    }
    if (b->len + (size_t)need + 1 > b->cap) {
        size_t ncap = (b->len + (size_t)need + 1) * 2;
        char *ns = realloc(b->s, ncap);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = ncap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)need;
}

static int check_names(const struct slo_ig_workload *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!safe_name(w[i].model))
            return cli_usage_error(CMD,
                                   "--emit: workload %zu: expected a model name of letters, "
                                   "digits, '_', '-' and '.' (it names a directory and a "
                                   "Triton model), found \"%s\"",
                                   i + 1, w[i].model);
    return SLO_EXIT_OK;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int infer_emit_triton(const char *dir, const struct slo_ig_workload *w, size_t n,
                      const struct slo_infer_result *res)
{
    int status;
    int *batches = calloc(res->n_placements ? res->n_placements : 1, sizeof *batches);

    if (!batches) {
        fprintf(stderr, "slo %s: out of memory\n", CMD);
        return SLO_EXIT_INTERNAL;
    }
    if ((status = check_names(w, n)) || (status = make_dir(dir)))
        goto out;
    for (size_t k = 0; k < n; k++) {
        char mdir[SLO_IG_NAME_LENGTH + 32], sub[4096];
        struct buf b = {0};
        size_t nb = 0, nd = 0;
        int max_batch = 0;

        infer_emit_model_dir(w, n, k, mdir, sizeof mdir);
        for (size_t i = 0; i < res->n_placements; i++)
            if (res->placements[i].workload == k) {
                batches[nb++] = res->placements[i].batch;
                if (res->placements[i].batch > max_batch)
                    max_batch = res->placements[i].batch;
            }
        if (nb == 0)
            continue; /* not in the plan (cannot happen for a plan of every workload) */
        qsort(batches, nb, sizeof *batches, cmp_int);
        for (size_t i = 0; i < nb; i++)
            if (i == 0 || batches[i] != batches[i - 1])
                batches[nd++] = batches[i];
        add(&b,
            "# Triton model configuration fragment written by `slo infer --emit triton`\n"
            "# (doc/infer.md \"Deploying a plan\"): workload %zu, model %s, %.6g req/s,\n"
            "# latency SLO %.6g ms. Add the model's input/output (or let Triton\n"
            "# auto-complete them) and its version directory 1/.\n",
            k + 1, w[k].model, w[k].rate_rps, w[k].slo_ms);
        for (size_t i = 0; i < res->n_placements; i++) {
            const struct slo_infer_placement *pl = &res->placements[i];
            if (pl->workload != k)
                continue;
            add(&b,
                "# plan GPU %zu (slo-serve-gpu%zu.sbatch): %.6g req/s, batch %d, MPS share %.6g "
                "%% -> --gres=mps:%d, CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%d; predicted %.4g "
                "ms (SLO/2 %.6g ms)\n",
                pl->gpu + 1, pl->gpu + 1, pl->rate_rps, pl->batch, pl->share_pct,
                pl->mps_gres_count, pl->mps_active_thread_pct, pl->mps_latency_ms,
                pl->slo_half_ms);
        }
        add(&b, "name: \"%s\"\n", mdir);
        add(&b, "max_batch_size: %d\n", max_batch);
        /* one instance on each GPU the server process sees: under the plan's
         * Slurm jobs every tenant's process sees its one planned GPU */
        add(&b, "instance_group [\n  {\n    name: \"%s\"\n    kind: KIND_GPU\n    count: 1\n"
                "  }\n]\n",
            mdir);
        add(&b, "dynamic_batching {\n  preferred_batch_size: [");
        for (size_t i = 0; i < nd; i++)
            add(&b, "%s %d", i ? "," : "", batches[i]);
        /* iGniter gives half the SLO to the batch to fill and half to its
         * latency (notes 5.1.2): a request waits at most SLO/2 */
        add(&b, " ]\n  max_queue_delay_microseconds: %.0f\n}\n", floor(w[k].slo_ms * 500.0));
        if (b.oom) {
            free(b.s);
            fprintf(stderr, "slo %s: out of memory\n", CMD);
            status = SLO_EXIT_INTERNAL;
            goto out;
        }
        snprintf(sub, sizeof sub, "%s/%s", dir, mdir);
        if ((status = make_dir(sub)) || (status = write_file(sub, "config.pbtxt", b.s))) {
            free(b.s);
            goto out;
        }
        free(b.s);
    }
    status = SLO_EXIT_OK;
out:
    free(batches);
    return status;
}

/* An earlier plan's scripts for GPUs beyond this plan's n: left in DIR, a
 * submitting every script of DIR would start that plan's GPUs too. Only
 * files of our name whose second line is ours are removed, with a note. */
static void remove_stale_scripts(const char *dir, size_t n)
{
    static const char mark[] = "# Slurm batch script written by `slo infer --emit slurm`";
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d)
        return;
    while ((e = readdir(d))) {
        size_t j;
        int end = 0;
        char path[4096], line[128];
        if (sscanf(e->d_name, "slo-serve-gpu%zu.sbatch%n", &j, &end) != 1 ||
            e->d_name[end] != '\0' || j <= n)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        int ours = f && fgets(line, sizeof line, f) && fgets(line, sizeof line, f) &&
                   strncmp(line, mark, sizeof mark - 1) == 0;
        if (f)
            fclose(f);
        if (ours && unlink(path) == 0)
            fprintf(stderr, "slo %s: note: removed %s (GPU %zu of an earlier plan; this plan "
                            "has %zu)\n", CMD, path, j, n);
    }
    closedir(d);
}

int infer_emit_slurm(const char *dir, const struct slo_ig_workload *w, size_t n,
                     const struct slo_infer_result *res)
{
    int status;

    if (!res->mps_verified)
        return cli_usage_error(CMD, "--emit slurm: the plan's MPS shares do not round to "
                                    "Slurm's gres/mps units: %s",
                               res->mps_reason);
    if ((status = check_names(w, n)) || (status = make_dir(dir)))
        return status;
    for (size_t j = 0; j < res->n_gpus; j++) {
        const struct slo_infer_gpu *g = &res->gpus[j];
        const struct slo_infer_gpu_type *ty = &res->types[g->type];
        struct buf b = {0};
        char name[64];
        int total = 0;

        for (size_t i = 0; i < g->count; i++)
            total += res->placements[g->first + i].mps_gres_count;
        add(&b,
            "#!/bin/bash\n"
            "# Slurm batch script written by `slo infer --emit slurm` (doc/infer.md\n"
            "# \"Deploying a plan\"): plan GPU %zu of %zu, %s%s%s, %.6g USD/h, %zu tenant%s\n"
            "# co-located on one GPU with MPS. A gres/mps request of one node is\n"
            "# served from one GPU, so the job's --gres=mps:%d (the sum of its tenants'\n"
            "# shares) puts every tenant on the same device; each step takes its\n"
            "# share (gres.conf: Name=mps Count=%d per GPU, one unit = 1 %% of the SMs).\n"
            "# Each tenant runs $SLO_SERVE_COMMAND (sh -c) if set, else tritonserver\n"
            "# on $SLO_MODEL_REPOSITORY (default ./triton, from --emit triton).\n"
            "#SBATCH --job-name=slo-serve-gpu%zu\n"
            "#SBATCH --nodes=1\n"
            "#SBATCH --ntasks=%zu\n"
            "#SBATCH --gres=mps:%d\n"
            "set -u\n"
            ": \"${SLO_MODEL_REPOSITORY:=$PWD/triton}\"\n"
            ": \"${SLO_PORT_BASE:=8000}\"\n"
            "export SLO_MODEL_REPOSITORY\n"
            "tenant() { # MPS-UNITS MODEL-DIR PORT-OFFSET\n"
            "    if [ -n \"${SLO_SERVE_COMMAND:-}\" ]; then\n"
            "        srun --exact --nodes=1 --ntasks=1 --gres=mps:\"$1\" --export=ALL \\\n"
            "            sh -c \"$SLO_SERVE_COMMAND\"\n"
            "    else\n"
            "        srun --exact --nodes=1 --ntasks=1 --gres=mps:\"$1\" --export=ALL \\\n"
            "            tritonserver --model-repository=\"$SLO_MODEL_REPOSITORY\" \\\n"
            "            --model-control-mode=explicit --load-model=\"$2\" \\\n"
            "            --http-port=$((SLO_PORT_BASE + $3)) --grpc-port=$((SLO_PORT_BASE + $3 + "
            "1)) \\\n"
            "            --metrics-port=$((SLO_PORT_BASE + $3 + 2))\n"
            "    fi\n"
            "}\n",
            j + 1, res->n_gpus, ty->gpu_model[0] ? ty->gpu_model : "GPU",
            ty->instance_type[0] ? " on " : "", ty->instance_type, g->usd_per_gpu_h, g->count,
            g->count == 1 ? "" : "s", total, SLO_MPS_COUNT_PER_GPU, j + 1, g->count, total);
        for (size_t i = 0; i < g->count; i++) {
            const struct slo_infer_placement *pl = &res->placements[g->first + i];
            char mdir[SLO_IG_NAME_LENGTH + 32];
            infer_emit_model_dir(w, n, pl->workload, mdir, sizeof mdir);
            add(&b,
                "# tenant %zu: workload %zu (%s), %.6g req/s, batch %d, planned share %.6g %%,\n"
                "# predicted at the rounded share %.4g ms (SLO/2 %.6g ms), %.6g req/s\n"
                "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%d SLO_WORKLOAD=%zu SLO_MODEL=%s "
                "SLO_MODEL_DIR=%s SLO_BATCH=%d SLO_RATE_RPS=%.6g SLO_SLO_MS=%.6g \\\n"
                "    tenant %d %s %zu &\n",
                i + 1, pl->workload + 1, w[pl->workload].model, pl->rate_rps, pl->batch,
                pl->share_pct, pl->mps_latency_ms, pl->slo_half_ms, pl->mps_throughput_rps,
                pl->mps_active_thread_pct, pl->workload + 1, w[pl->workload].model, mdir,
                pl->batch, pl->rate_rps, w[pl->workload].slo_ms, pl->mps_gres_count, mdir,
                3 * i);
        }
        add(&b, "wait\n");
        if (b.oom) {
            free(b.s);
            fprintf(stderr, "slo %s: out of memory\n", CMD);
            return SLO_EXIT_INTERNAL;
        }
        snprintf(name, sizeof name, "slo-serve-gpu%zu.sbatch", j + 1);
        status = write_file(dir, name, b.s);
        free(b.s);
        if (status)
            return status;
        {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, name);
            chmod(path, 0755);
        }
    }
    remove_stale_scripts(dir, res->n_gpus);
    return SLO_EXIT_OK;
}
