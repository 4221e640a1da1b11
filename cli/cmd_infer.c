/*
 * cmd_infer.c - `slo infer`: place inference workloads on shared GPUs with
 * MPS shares and batch sizes after iGniter (libslo's slo_infer.h), and
 * `slo infer --predict` / `slo fit infer` (slo_cmd_fit_infer).
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <ctype.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "infer_emit.h"
#include "slo_infer.h"

#define CMD "infer"
#define MAX_PROFILES 16

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slo infer [--profile NAME|FILE]... [--workload MODEL:rate=R:slo=MS]...\n"
            "                 [--workloads FILE] [--policy igniter|ffd|gslice|gpulets]\n"
            "                 [--catalog NAME|FILE] [--pricing on-demand|spot]\n"
            "                 [--instance-type TYPE] [--model-variant NAME] [--json]\n"
            "                 [--emit triton|slurm --output-dir DIR] [--current FILE]\n"
            "       slo infer --predict [--profile NAME|FILE] --workload MODEL:share=S:batch=B"
            "[:rate=R][:slo=MS]... [--model-variant NAME] [--json]\n"
            "       slo infer --coefficients [--profile NAME|FILE]\n"
            "\n"
            "Place inference workloads (model, arrival rate req/s, latency SLO ms) on the\n"
            "fewest, cheapest GPUs so every SLO holds under co-location interference\n"
            "(iGniter, IEEE TPDS 2023). Each workload gets an MPS share (%% of SMs) and a\n"
            "batch size; latencies are checked against SLO/2 (the other half is left for\n"
            "the batch to fill). Format of profiles and workload files: doc/infer.md.\n"
            "  --profile P       a GPU type: embedded profile (%s) or a file in the\n"
            "                    upstream JSON-lines or our JSON format; repeat for\n"
            "                    several GPU types (default: v100)\n"
            "  --workload W      MODEL:rate=R:slo=MS (repeatable); with --predict\n"
            "                    MODEL:share=S:batch=B, B in 1..%d (the profiled batches)\n"
            "  --workloads FILE  JSON {\"workloads\": [{\"model\", \"rate_rps\", \"slo_ms\"}]}\n"
            "  --policy P        igniter (default), ffd, gslice or gpulets (baselines)\n"
            "  --catalog C       instance catalog pricing the GPU types (default aws-table3)\n"
            "  --pricing P       on-demand (default) or spot\n"
            "  --instance-type T catalog type of every profile that names none\n"
            "  --model-variant V interference model: igniter-2023 (the paper's; default\n"
            "                    unless the profile names one) or igniter-calibrated (needs\n"
            "                    the profile's model_variant runs, e.g. profile v100-calibrated)\n"
            "  --predict         predict the given placement on one GPU instead of planning\n"
            "  --coefficients    print the fitted coefficients of the profile (JSON)\n"
            "  --json            one JSON object on stdout (schema: doc/infer.md)\n"
            "  --emit triton     also write DIR/<model>/config.pbtxt per workload (Triton\n"
            "                    instance group, max batch, dynamic batching, SLO/2 delay)\n"
            "  --emit slurm      also write DIR/slo-serve-gpuJ.sbatch per GPU: its tenants\n"
            "                    co-located with --gres=mps:N (Count=100 per GPU) and\n"
            "                    CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=N\n"
            "  --output-dir DIR  where --emit writes (created if missing)\n"
            "  --current FILE    re-place: FILE is the deployed plan (`slo infer --json`\n"
            "                    output); print the moves, in order, to the placement\n"
            "                    for the new rates, each made with a shadow instance\n"
            "Planning, --predict and --coefficients are exclusive modes; options other than\n"
            "--profile and --workload must not repeat with different values.\n"
            "Exit status: 0 success, 2 bad input or an SLO no GPU type can meet, 1 internal.\n",
            slo_embedded_gpu_profile_names()[0], SLO_IG_MAX_BATCH);
}

/* MODEL:key=value:... ; keys rate, slo, share, batch. */
struct spec {
    char model[SLO_IG_NAME_LENGTH];
    double rate_rps, slo_ms, share_pct;
    int batch;
    int has_rate, has_slo, has_share, has_batch;
};

/* Next ':'-separated field of *cursor (modified in place), or NULL at the end. */
static char *next_field(char **cursor)
{
    char *start = *cursor, *colon;
    if (!start)
        return NULL;
    colon = strchr(start, ':');
    if (colon) {
        *colon = '\0';
        *cursor = colon + 1;
    } else {
        *cursor = NULL;
    }
    return start;
}

static int parse_spec(const char *text, struct spec *s)
{
    char buf[512], *cursor = buf, *tok;
    memset(s, 0, sizeof *s);
    if (strlen(text) >= sizeof buf)
        return cli_usage_error(CMD, "--workload: expected at most %zu characters, found %zu",
                               sizeof buf - 1, strlen(text));
    snprintf(buf, sizeof buf, "%s", text);
    tok = next_field(&cursor);
    if (!tok || !*tok || strchr(tok, '=') || strlen(tok) >= sizeof s->model)
        return cli_usage_error(CMD,
                               "--workload: expected MODEL:rate=R:slo=MS (or MODEL:share=S:"
                               "batch=B with --predict), found \"%s\"",
                               text);
    snprintf(s->model, sizeof s->model, "%s", tok);
    while ((tok = next_field(&cursor))) {
        char *eq = strchr(tok, '='), *end;
        double v;
        if (!eq)
            return cli_usage_error(CMD, "--workload \"%s\": expected KEY=VALUE, found \"%s\"",
                                   text, tok);
        *eq = '\0';
        v = slo_strtod(eq + 1, &end);
        if (!eq[1] || isspace((unsigned char)eq[1]) || *end || !isfinite(v))
            return cli_usage_error(CMD, "--workload \"%s\": %s: expected a number, found \"%s\"",
                                   text, tok, eq + 1);
        if ((!strcmp(tok, "rate") && s->has_rate) || (!strcmp(tok, "slo") && s->has_slo) ||
            (!strcmp(tok, "share") && s->has_share) || (!strcmp(tok, "batch") && s->has_batch))
            return cli_usage_error(CMD, "--workload \"%s\": %s: expected once, found twice", text,
                                   tok);
        if (!strcmp(tok, "rate")) {
            if (!(v > 0))
                return cli_usage_error(CMD,
                                       "--workload \"%s\": rate: expected a rate > 0 req/s, "
                                       "found %g",
                                       text, v);
            s->rate_rps = v;
            s->has_rate = 1;
        } else if (!strcmp(tok, "slo")) {
            if (!(v > 0))
                return cli_usage_error(CMD,
                                       "--workload \"%s\": slo: expected an SLO > 0 ms, found %g",
                                       text, v);
            s->slo_ms = v;
            s->has_slo = 1;
        } else if (!strcmp(tok, "share")) {
            if (!(v > 0 && v <= 100))
                return cli_usage_error(CMD,
                                       "--workload \"%s\": share: expected a share in (0, 100] "
                                       "%%, found %g",
                                       text, v);
            s->share_pct = v;
            s->has_share = 1;
        } else if (!strcmp(tok, "batch")) {
            if (!(v >= 1 && v <= SLO_IG_MAX_BATCH && v == floor(v)))
                return cli_usage_error(CMD,
                                       "--workload \"%s\": batch: expected an integer in [1, "
                                       "%d] (the profiled batches), found %g",
                                       text, SLO_IG_MAX_BATCH, v);
            s->batch = (int)v;
            s->has_batch = 1;
        } else {
            return cli_usage_error(CMD,
                                   "--workload \"%s\": expected a key rate, slo, share or "
                                   "batch, found \"%s\"",
                                   text, tok);
        }
    }
    return 0;
}

static const char *gpu_name(const char *gpu_model)
{
    return gpu_model[0] ? gpu_model : "GPU";
}

/* Print "  \"KEY\": VALUE,\n" with VALUE as JSON (stolen reference). */
static int print_member(const char *key, json_t *v)
{
    char *t = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(10)) : NULL;
    json_decref(v);
    if (!t)
        return -1;
    printf("  \"%s\": %s,\n", key, t);
    free(t);
    return 0;
}

/* The plan as one JSON object, streamed: the scalars, then each GPU object
 * printed and freed as it is built, so memory does not grow with the plan's
 * JSON text (issue 19, item 5). Same members and order as a json_dumps of
 * the whole tree; nested objects indented by 2 per level. */
static int print_plan_json(const struct slo_ig_profile *prof, const struct slo_ig_workload *w,
                           const struct slo_infer_result *res, const char *pricing)
{
    printf("{\n");
    if (print_member("status", json_string(slo_status_name(res->status))) ||
        print_member("policy", json_string(slo_ig_policy_name(res->policy))) ||
        print_member("pricing", json_string(pricing)) ||
        print_member("cost_usd_per_h", json_real(res->cost_usd_per_h)) ||
        print_member("n_gpus", json_integer((json_int_t)res->n_gpus)) ||
        print_member("violations", json_integer((json_int_t)res->n_violations)) ||
        print_member("mps_verified", json_boolean(res->mps_verified)) ||
        print_member("mps_repaired_gpus", json_integer((json_int_t)res->mps_repaired_gpus)) ||
        print_member("mps_extra_gpus", json_integer((json_int_t)res->mps_extra_gpus)) ||
        (!res->mps_verified && print_member("mps_reason", json_string(res->mps_reason))))
        goto nomem;
    printf("  \"gpus\": [");
    for (size_t j = 0; j < res->n_gpus; j++) {
        const struct slo_infer_gpu *g = &res->gpus[j];
        const struct slo_infer_gpu_type *ty = &res->types[g->type];
        json_t *go = json_object(), *wa = json_array();
        char *text, *line, *nl;
        if (!go || !wa) {
            json_decref(go);
            json_decref(wa);
            goto nomem;
        }
        json_object_set_new(go, "gpu_type", json_string(gpu_name(ty->gpu_model)));
        json_object_set_new(go, "instance_type", json_string(ty->instance_type));
        json_object_set_new(go, "model_variant",
                            json_string(slo_ig_variant_name(prof[g->type].model_variant)));
        json_object_set_new(go, "usd_per_h", json_real(g->usd_per_gpu_h));
        json_object_set_new(go, "dedicated", json_boolean(g->dedicated));
        json_object_set_new(go, "share_pct", json_real(g->share_pct));
        json_object_set_new(go, "power_w", json_real(g->power_w));
        json_object_set_new(go, "power_cap_w", json_real(prof[g->type].power_cap_w));
        json_object_set_new(go, "clock_mhz", json_real(g->clock_mhz));
        json_object_set_new(go, "workloads", wa);
        for (size_t i = 0; i < g->count; i++) {
            const struct slo_infer_placement *pl = &res->placements[g->first + i];
            const struct slo_ig_workload *wl = &w[pl->workload];
            json_t *o = json_object(), *sl = json_object();
            char gres[32];
            if (!o || !sl) {
                json_decref(o);
                json_decref(sl);
                json_decref(go);
                goto nomem;
            }
            snprintf(gres, sizeof gres, "mps:%d", pl->mps_gres_count);
            json_object_set_new(o, "workload", json_integer((json_int_t)pl->workload + 1));
            json_object_set_new(o, "model", json_string(wl->model));
            json_object_set_new(o, "rate_rps", json_real(pl->rate_rps));
            json_object_set_new(o, "slo_ms", json_real(wl->slo_ms));
            json_object_set_new(o, "share_pct", json_real(pl->share_pct));
            json_object_set_new(o, "batch", json_integer(pl->batch));
            json_object_set_new(o, "latency_ms", json_real(pl->latency_ms));
            json_object_set_new(o, "throughput_rps", json_real(pl->throughput_rps));
            json_object_set_new(o, "meets_slo", json_boolean(pl->meets_slo));
            json_object_set_new(sl, "gres", json_string(gres));
            json_object_set_new(sl, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                                json_integer(pl->mps_active_thread_pct));
            json_object_set_new(sl, "latency_ms", json_real(pl->mps_latency_ms));
            json_object_set_new(sl, "throughput_rps", json_real(pl->mps_throughput_rps));
            if (res->mps_verified)
                json_object_set_new(o, "slurm", sl);
            else
                json_decref(sl);
            json_array_append_new(wa, o);
        }
        text = json_dumps(go, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        json_decref(go);
        if (!text)
            goto nomem;
        printf("%s\n", j ? "," : "");
        for (line = text; line; line = nl) {
            nl = strchr(line, '\n');
            if (nl)
                *nl++ = '\0';
            printf("    %s%s", line, nl ? "\n" : "");
        }
        free(text);
    }
    printf("%s]\n}\n", res->n_gpus ? "\n  " : "");
    return SLO_EXIT_OK;
nomem:
    fprintf(stderr, "slo %s: out of memory\n", CMD);
    return SLO_EXIT_INTERNAL;
}

static void print_plan_human(const struct slo_ig_profile *prof, const struct slo_ig_workload *w,
                             size_t n, const struct slo_infer_result *res, const char *pricing,
                             const char *catalog)
{
    printf("%zu workload%s on %zu GPU%s (policy %s): %.4g USD/h (%s, catalog %s)\n", n,
           n == 1 ? "" : "s", res->n_gpus, res->n_gpus == 1 ? "" : "s",
           slo_ig_policy_name(res->policy), res->cost_usd_per_h, pricing, catalog);
    if (res->n_violations)
        printf("WARNING: %zu placement%s miss SLO/2 or the rate under the interference model "
               "(baseline policy)\n",
               res->n_violations, res->n_violations == 1 ? "" : "s");
    for (size_t j = 0; j < res->n_gpus; j++) {
        const struct slo_infer_gpu *g = &res->gpus[j];
        const struct slo_infer_gpu_type *ty = &res->types[g->type];
        const struct slo_ig_profile *p = &prof[g->type];
        char over[64] = "";
        /* term 4 is the tenants' power demand; above the cap the board holds
         * the cap and the clock drops instead (term 5) */
        if (g->power_w > p->power_cap_w)
            snprintf(over, sizeof over, " (demand; capped at %.0f W)", p->power_cap_w);
        printf("\nGPU %zu: %s (%s, %.4g USD/h)%s  share %.1f %%  power %.0f W%s  clock %.0f MHz\n",
               j + 1, gpu_name(ty->gpu_model), ty->instance_type[0] ? ty->instance_type : "-",
               g->usd_per_gpu_h, g->dedicated ? "  dedicated (split workload)" : "",
               g->share_pct, g->power_w, over, g->clock_mhz);
        printf("  %-3s %-10s %9s %7s %7s %5s %10s %8s %11s  %-4s %s\n", "#", "model", "rate/s",
               "SLO ms", "share%", "batch", "latency ms", "SLO/2 ms", "throughput/s", "ok",
               "slurm");
        for (size_t i = 0; i < g->count; i++) {
            const struct slo_infer_placement *pl = &res->placements[g->first + i];
            const struct slo_ig_workload *wl = &w[pl->workload];
            char slurm[96] = "- (see below)";
            if (res->mps_verified)
                snprintf(slurm, sizeof slurm, "--gres=mps:%d CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%d",
                         pl->mps_gres_count, pl->mps_active_thread_pct);
            printf("  %-3zu %-10s %9.1f %7.1f %7.1f %5d %10.2f %8.2f %11.1f  %-4s %s\n",
                   pl->workload + 1, wl->model, pl->rate_rps, wl->slo_ms, pl->share_pct,
                   pl->batch, pl->latency_ms, pl->slo_half_ms, pl->throughput_rps,
                   pl->meets_slo ? "yes" : "NO", slurm);
        }
    }
    printf("\nLatency is predicted per batch (transfer + GPU time under co-location) and held to "
           "SLO/2; gres/mps assumes Count=100 per GPU (doc/infer.md).\n");
    if (res->mps_verified)
        printf("The shares rounded to whole gres/mps units were re-predicted and meet every "
               "SLO.\n");
    if (res->mps_repaired_gpus)
        printf("%zu GPU%s of the planner's %zu missed an SLO at whole gres/mps units and %s "
               "re-planned at the 1 %% unit: %zu extra GPU%s.\n",
               res->mps_repaired_gpus, res->mps_repaired_gpus == 1 ? "" : "s",
               res->n_gpus - res->mps_extra_gpus, res->mps_repaired_gpus == 1 ? "was" : "were",
               res->mps_extra_gpus, res->mps_extra_gpus == 1 ? "" : "s");
    if (!res->mps_verified)
        printf("WARNING: no Slurm shares: %s\n", res->mps_reason);
}

static int run_predict(const struct slo_ig_profile *p, const struct spec *specs, size_t n,
                       int as_json)
{
    struct slo_ig_tenant *t = calloc(n, sizeof *t);
    struct slo_ig_prediction *o = calloc(n, sizeof *o);
    struct slo_ig_gpu_state st;
    slo_error_t err = {0};
    double total = 0.0;
    int status = SLO_EXIT_OK;

    if (!t || !o) {
        free(t);
        free(o);
        fprintf(stderr, "slo %s: out of memory\n", CMD);
        return SLO_EXIT_INTERNAL;
    }
    for (size_t i = 0; i < n; i++) {
        if (!specs[i].has_share || !specs[i].has_batch) {
            status = cli_usage_error(CMD,
                                     "--predict: workload %zu (%s): expected share=S and "
                                     "batch=B, found %s missing",
                                     i + 1, specs[i].model,
                                     !specs[i].has_share ? "share" : "batch");
            goto out;
        }
        t[i].model = slo_ig_find_model(p, specs[i].model);
        if (t[i].model < 0) {
            char names[256] = "";
            for (size_t m = 0; m < p->n_models; m++) {
                size_t used = strlen(names);
                snprintf(names + used, sizeof names - used, "%s%s", m ? ", " : "",
                         p->models[m].name);
            }
            status = cli_usage_error(CMD,
                                     "--workload %zu: expected a model of profile %s (%s), "
                                     "found \"%s\"",
                                     i + 1, p->source, names, specs[i].model);
            goto out;
        }
        t[i].batch = specs[i].batch;
        t[i].share_pct = specs[i].share_pct;
        total += specs[i].share_pct;
    }
    if (slo_ig_predict(p, t, n, o, &st, &err)) {
        status = cli_report(CMD, &err);
        goto out;
    }
    if (as_json) {
        json_t *root = json_object(), *arr = json_array();
        char *text;
        if (!root || !arr) {
            json_decref(root);
            json_decref(arr);
            status = SLO_EXIT_INTERNAL;
            goto out;
        }
        json_object_set_new(root, "gpu_type", json_string(gpu_name(p->gpu_model)));
        json_object_set_new(root, "model_variant", json_string(slo_ig_variant_name(p->model_variant)));
        json_object_set_new(root, "share_pct", json_real(total));
        json_object_set_new(root, "power_w", json_real(st.total_power_w));
        json_object_set_new(root, "clock_mhz", json_real(st.clock_mhz));
        json_object_set_new(root, "delta_sch_ms_per_kernel",
                            json_real(st.delta_sch_ms_per_kernel));
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_object();
            if (!e)
                continue;
            json_object_set_new(e, "model", json_string(specs[i].model));
            json_object_set_new(e, "share_pct", json_real(specs[i].share_pct));
            json_object_set_new(e, "batch", json_integer(specs[i].batch));
            json_object_set_new(e, "latency_ms", json_real(o[i].latency_ms));
            json_object_set_new(e, "throughput_rps", json_real(o[i].throughput_rps));
            json_object_set_new(e, "t_load_ms", json_real(o[i].t_load_ms));
            json_object_set_new(e, "t_feedback_ms", json_real(o[i].t_feedback_ms));
            json_object_set_new(e, "t_sch_ms", json_real(o[i].t_sch_ms));
            json_object_set_new(e, "t_act_solo_ms", json_real(o[i].t_act_solo_ms));
            json_object_set_new(e, "t_act_ms", json_real(o[i].t_act_ms));
            json_object_set_new(e, "t_gpu_ms", json_real(o[i].t_gpu_ms));
            json_object_set_new(e, "power_w", json_real(o[i].power_w));
            json_object_set_new(e, "l2_pct", json_real(o[i].l2_pct));
            if (specs[i].has_rate)
                json_object_set_new(e, "rate_rps", json_real(specs[i].rate_rps));
            if (specs[i].has_slo)
                json_object_set_new(e, "slo_ms", json_real(specs[i].slo_ms));
            json_array_append_new(arr, e);
        }
        json_object_set_new(root, "workloads", arr);
        text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        json_decref(root);
        if (!text) {
            status = SLO_EXIT_INTERNAL;
            goto out;
        }
        printf("%s\n", text);
        free(text);
    } else {
        printf("%s, %zu co-located workload%s, shares %.1f %%%s: power %.1f W, clock %.1f MHz\n",
               gpu_name(p->gpu_model), n, n == 1 ? "" : "s", total,
               total > 100.0 + 1e-9 ? " (over 100: a what-if no planner would choose)" : "",
               st.total_power_w, st.clock_mhz);
        printf("  %-10s %7s %5s %10s %11s %9s %9s %9s  %s\n", "model", "share%", "batch",
               "latency ms", "throughput/s", "load ms", "sched ms", "active ms", "vs SLO/rate");
        for (size_t i = 0; i < n; i++) {
            char verdict[96] = "";
            if (specs[i].has_slo || specs[i].has_rate) {
                int ok = slo_ig_meets_slo(o[i].latency_ms, o[i].throughput_rps,
                                          specs[i].has_slo ? specs[i].slo_ms : 0.0,
                                          specs[i].has_rate ? specs[i].rate_rps : 0.0);
                snprintf(verdict, sizeof verdict, "%s", ok ? "meets" : "MISSES");
                if (specs[i].has_slo) {
                    size_t used = strlen(verdict);
                    snprintf(verdict + used, sizeof verdict - used, " SLO/2 %.2f ms",
                             specs[i].slo_ms / 2.0);
                }
                if (specs[i].has_rate) {
                    size_t used = strlen(verdict);
                    snprintf(verdict + used, sizeof verdict - used, " rate %.1f/s",
                             specs[i].rate_rps);
                }
            }
            printf("  %-10s %7.1f %5d %10.3f %12.1f %9.3f %9.3f %9.3f  %s\n", specs[i].model,
                   specs[i].share_pct, specs[i].batch, o[i].latency_ms, o[i].throughput_rps,
                   o[i].t_load_ms, o[i].t_sch_ms, o[i].t_act_ms, verdict);
        }
    }
out:
    free(t);
    free(o);
    return status;
}

/* The placement of a re-placement as `slo infer --json` GPU objects, so it
 * can be fed back as --current. */
static json_t *replace_gpus_json(const struct slo_infer_problem *pb,
                                 const struct slo_infer_replace_result *r)
{
    json_t *gpus = json_array();
    for (size_t g = 0; gpus && g < r->n_gpus; g++) {
        const struct slo_ig_profile *p = &pb->profiles[r->gpu_type[g]];
        json_t *go = json_object(), *wa = json_array();
        for (size_t i = 0; i < r->n_placements; i++) {
            const struct slo_infer_current_placement *pl = &r->placements[i];
            const struct slo_ig_workload *wl = &pb->workloads[pl->workload];
            if (pl->gpu == g)
                json_array_append_new(
                    wa, json_pack("{s:I,s:s,s:f,s:f,s:f,s:i}", "workload",
                                  (json_int_t)pl->workload + 1, "model", wl->model, "rate_rps",
                                  wl->rate_rps, "slo_ms", wl->slo_ms, "share_pct", pl->share_pct,
                                  "batch", pl->batch));
        }
        if (!go || !wa || json_array_size(wa) == 0) {
            json_decref(go);
            json_decref(wa);
            continue; /* an emptied GPU: released */
        }
        json_object_set_new(go, "gpu_type", json_string(gpu_name(p->gpu_model)));
        json_object_set_new(go, "instance_type", json_string(p->instance_type));
        json_object_set_new(go, "workloads", wa);
        json_array_append_new(gpus, go);
    }
    return gpus;
}

/* `slo infer --current FILE`: re-place from the deployed plan (slo_infer_replace). */
static int run_replace(const struct slo_ig_profile *prof, const char *path,
                       const struct slo_infer_problem *pb, const struct slo_infer_options *opt,
                       int as_json)
{
    struct slo_infer_current cur = {0};
    struct slo_infer_replace_result r = {0};
    slo_error_t err = {0};
    int status;

    (void)prof;
    if (slo_infer_current_load(path, pb, &cur, &err))
        return cli_report(CMD, &err);
    if (slo_infer_replace(pb, opt, &cur, &r, &err)) {
        slo_infer_current_free(&cur);
        return cli_report(CMD, &err);
    }
    if (r.status != SLO_STATUS_FEASIBLE_UNPROVEN) {
        status = cli_usage_error(CMD, "--current %s: %s", path, r.reason);
        goto out;
    }
    if (as_json) {
        json_t *root = json_object(), *mv = json_array(), *fr = json_object();
        char *text;
        for (size_t k = 0; mv && k < r.n_moves; k++) {
            const struct slo_infer_move *m = &r.moves[k];
            json_t *o = json_object();
            json_object_set_new(o, "step", json_integer((json_int_t)k + 1));
            json_object_set_new(o, "workload", json_integer((json_int_t)m->workload + 1));
            json_object_set_new(o, "model", json_string(pb->workloads[m->workload].model));
            if (m->from_gpu == SIZE_MAX)
                json_object_set_new(o, "from", json_null());
            else
                json_object_set_new(o, "from",
                                    json_pack("{s:I,s:i,s:f}", "gpu",
                                              (json_int_t)m->from_gpu + 1, "batch",
                                              m->from_batch, "share_pct", m->from_share_pct));
            json_object_set_new(o, "to",
                                json_pack("{s:I,s:i,s:f}", "gpu", (json_int_t)m->to_gpu + 1,
                                          "batch", m->to_batch, "share_pct", m->to_share_pct));
            json_object_set_new(o, "shadow_latency_ms", json_real(m->shadow_latency_ms));
            json_object_set_new(o, "latency_ms", json_real(m->latency_ms));
            json_object_set_new(o, "slo_half_ms", json_real(pb->workloads[m->workload].slo_ms / 2));
            json_array_append_new(mv, o);
        }
        json_object_set_new(fr, "n_gpus", json_integer((json_int_t)r.fresh_n_gpus));
        json_object_set_new(fr, "cost_usd_per_h", json_real(r.fresh_cost_usd_per_h));
        json_object_set_new(fr, "moves", json_integer((json_int_t)r.fresh_moves));
        json_object_set_new(root, "status", json_string(slo_status_name(r.status)));
        json_object_set_new(root, "reason", json_string(r.reason));
        json_object_set_new(root, "cost_usd_per_h", json_real(r.cost_usd_per_h));
        json_object_set_new(root, "n_gpus", json_integer((json_int_t)r.n_gpus_used));
        json_object_set_new(root, "missing_slo_now", json_integer((json_int_t)r.n_missing_now));
        json_object_set_new(root, "new_workloads", json_integer((json_int_t)r.n_new));
        json_object_set_new(root, "n_moves", json_integer((json_int_t)r.n_moves));
        json_object_set_new(root, "workloads_moved",
                            json_integer((json_int_t)r.n_workloads_moved));
        json_object_set_new(root, "round_trips", json_integer((json_int_t)r.n_round_trips));
        json_object_set_new(root, "states_verified",
                            json_integer((json_int_t)r.n_states_verified));
        json_object_set_new(root, "fresh_plan", fr);
        json_object_set_new(root, "moves", mv);
        json_object_set_new(root, "gpus", replace_gpus_json(pb, &r));
        text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        json_decref(root);
        if (!text || printf("%s\n", text) < 0) {
            free(text);
            status = SLO_EXIT_INTERNAL;
            goto out;
        }
        free(text);
        status = SLO_EXIT_OK;
        goto out;
    }
    printf("re-placement of %zu workloads from %s: %zu deployed miss their SLO at the new "
           "rates, %zu new\n",
           pb->n_workloads, path, r.n_missing_now, r.n_new);
    printf("%zu move%s; %zu GPU%s, %.4g USD/h (a fresh plan: %zu GPU%s, %.4g USD/h, moving %zu)\n",
           r.n_moves, r.n_moves == 1 ? "" : "s", r.n_gpus_used, r.n_gpus_used == 1 ? "" : "s",
           r.cost_usd_per_h, r.fresh_n_gpus, r.fresh_n_gpus == 1 ? "" : "s",
           r.fresh_cost_usd_per_h, r.fresh_moves);
    if (r.n_round_trips)
        printf("The moves take %zu workload%s; %zu move%s back to a GPU it left, through "
               "another: moving it in place would fail a state.\n",
               r.n_workloads_moved, r.n_workloads_moved == 1 ? "" : "s", r.n_round_trips,
               r.n_round_trips == 1 ? " takes a workload" : "s take workloads");
    for (size_t k = 0; k < r.n_moves; k++) {
        const struct slo_infer_move *m = &r.moves[k];
        const struct slo_ig_workload *wl = &pb->workloads[m->workload];
        char from[64] = "new";
        if (m->from_gpu != SIZE_MAX)
            snprintf(from, sizeof from, "GPU %zu b%d %.1f %%", m->from_gpu + 1, m->from_batch,
                     m->from_share_pct);
        if (m->from_gpu == SIZE_MAX) /* a new workload: no old instance to run beside */
            printf("%3zu. workload %zu (%s): new -> GPU %zu b%d %.1f %%: start it (%.2f ms; "
                   "SLO/2 %.2f ms)\n",
                   k + 1, m->workload + 1, wl->model, m->to_gpu + 1, m->to_batch,
                   m->to_share_pct, m->latency_ms, wl->slo_ms / 2);
        else
            printf("%3zu. workload %zu (%s): %s -> GPU %zu b%d %.1f %%: start the new instance "
                   "(%.2f ms beside the old one), shift traffic, stop the old one (%.2f ms; "
                   "SLO/2 %.2f ms)\n",
                   k + 1, m->workload + 1, wl->model, from, m->to_gpu + 1, m->to_batch,
                   m->to_share_pct, m->shadow_latency_ms, m->latency_ms, wl->slo_ms / 2);
    }
    printf("Every intermediate state (%zu: each move with both instances, then without the "
           "old one) was re-predicted on every GPU: the shares fit and every SLO holds.\n",
           r.n_states_verified);
    status = SLO_EXIT_OK;
out:
    slo_infer_replace_result_free(&r);
    slo_infer_current_free(&cur);
    return status;
}

/* Append the workloads of file path to w[*n]. */
static int append_workload_file(const char *path, struct slo_ig_workload **w, size_t *n,
                                size_t *cap)
{
    struct slo_ig_workload *fw = NULL, *nw;
    size_t fn = 0;
    slo_error_t err = {0};

    if (slo_ig_workloads_load(path, &fw, &fn, &err))
        return cli_report(CMD, &err);
    if (*n + fn > *cap) {
        nw = realloc(*w, (*n + fn) * sizeof *nw);
        if (!nw) {
            free(fw);
            fprintf(stderr, "slo %s: out of memory\n", CMD);
            return SLO_EXIT_INTERNAL;
        }
        *w = nw;
        *cap = *n + fn;
    }
    memcpy(*w + *n, fw, fn * sizeof *fw);
    *n += fn;
    free(fw);
    return SLO_EXIT_OK;
}

int slo_cmd_infer(int argc, char **argv)
{
    enum {
        O_PROFILE = 256, O_WORKLOAD, O_WORKLOADS, O_POLICY, O_CATALOG, O_PRICING, O_INSTANCE,
        O_PREDICT, O_COEF, O_JSON, O_VARIANT, O_EMIT, O_OUTDIR, O_HELP, O_CURRENT
    };
    static const struct option longopts[] = {
        {"profile", required_argument, NULL, O_PROFILE},
        {"workload", required_argument, NULL, O_WORKLOAD},
        {"workloads", required_argument, NULL, O_WORKLOADS},
        {"policy", required_argument, NULL, O_POLICY},
        {"catalog", required_argument, NULL, O_CATALOG},
        {"pricing", required_argument, NULL, O_PRICING},
        {"instance-type", required_argument, NULL, O_INSTANCE},
        {"predict", no_argument, NULL, O_PREDICT},
        {"coefficients", no_argument, NULL, O_COEF},
        {"json", no_argument, NULL, O_JSON},
        {"model-variant", required_argument, NULL, O_VARIANT},
        {"emit", required_argument, NULL, O_EMIT},
        {"output-dir", required_argument, NULL, O_OUTDIR},
        {"help", no_argument, NULL, O_HELP},
        {"current", required_argument, NULL, O_CURRENT},
        {NULL, 0, NULL, 0}};
    /* Options that only planning reads: with --predict or --coefficients
     * they would be ignored silently, so they are refused. */
    static const int plan_only[] = {O_WORKLOADS, O_POLICY, O_CATALOG, O_PRICING, O_INSTANCE,
                                    O_EMIT, O_OUTDIR, O_CURRENT};
    const char *profile_args[MAX_PROFILES], *catalog = "aws-table3", *instance = NULL;
    const char *workload_file = NULL, *variant = NULL, *emit = NULL, *outdir = NULL;
    const char *current = NULL;
    size_t n_profile_args = 0, n_specs = 0, n_w = 0, cap_w = 0;
    struct spec *specs = NULL;
    struct slo_ig_profile prof[MAX_PROFILES];
    size_t n_prof = 0;
    struct slo_ig_workload *w = NULL;
    struct slo_catalog cat = {0};
    struct slo_infer_problem problem = {0};
    struct slo_infer_options opt;
    struct slo_infer_result res = {0};
    const char *instance_types[MAX_PROFILES];
    struct cli_seen seen;
    enum slo_pricing pricing = SLO_PRICING_ON_DEMAND;
    int policy = SLO_IG_POLICY_IGNITER, predict = 0, coef = 0, as_json = 0, c;
    int status = SLO_EXIT_USAGE;
    slo_error_t err = {0};

    memset(prof, 0, sizeof prof);
    memset(&seen, 0, sizeof seen);
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        /* --profile and --workload are repeatable (several GPU types, several
         * workloads); any other option given twice must agree. */
        if (c != O_PROFILE && c != O_WORKLOAD &&
            cli_repeated_option(CMD, longopts, O_PROFILE, c, optarg, &seen))
            goto out;
        switch (c) {
        case O_PROFILE:
            if (n_profile_args == MAX_PROFILES) {
                status = cli_usage_error(CMD, "--profile: expected at most %d GPU types",
                                         MAX_PROFILES);
                goto out;
            }
            profile_args[n_profile_args++] = optarg;
            break;
        case O_WORKLOAD: {
            struct spec *ns = realloc(specs, (n_specs + 1) * sizeof *ns);
            if (!ns) {
                status = SLO_EXIT_INTERNAL;
                goto out;
            }
            specs = ns;
            if (parse_spec(optarg, &specs[n_specs]))
                goto out;
            n_specs++;
            break;
        }
        case O_WORKLOADS: workload_file = optarg; break;
        case O_POLICY:
            policy = slo_ig_policy_from_name(optarg);
            if (policy < 0) {
                status = cli_usage_error(CMD,
                                         "--policy: expected igniter, ffd, gslice or gpulets, "
                                         "found \"%s\"",
                                         optarg);
                goto out;
            }
            break;
        case O_CATALOG: catalog = optarg; break;
        case O_PRICING:
            if (!strcmp(optarg, "on-demand"))
                pricing = SLO_PRICING_ON_DEMAND;
            else if (!strcmp(optarg, "spot"))
                pricing = SLO_PRICING_SPOT;
            else {
                status = cli_usage_error(CMD, "--pricing: expected on-demand or spot, found \"%s\"",
                                         optarg);
                goto out;
            }
            break;
        case O_INSTANCE: instance = optarg; break;
        case O_PREDICT: predict = 1; break;
        case O_COEF: coef = 1; break;
        case O_JSON: as_json = 1; break;
        case O_VARIANT:
            if (slo_ig_variant_from_name(optarg) < 0) {
                status = cli_usage_error(CMD,
                                         "--model-variant: expected igniter-2023 or "
                                         "igniter-calibrated, found \"%s\"",
                                         optarg);
                goto out;
            }
            variant = optarg;
            break;
        case O_EMIT:
            if (strcmp(optarg, "triton") && strcmp(optarg, "slurm")) {
                status = cli_usage_error(CMD, "--emit: expected triton or slurm, found \"%s\"",
                                         optarg);
                goto out;
            }
            emit = optarg;
            break;
        case O_OUTDIR: outdir = optarg; break;
        case O_CURRENT: current = optarg; break;
        case O_HELP:
            usage(stdout);
            status = SLO_EXIT_OK;
            goto out;
        case ':':
            status = cli_usage_error(CMD, "%s: expected a value, found none", argv[optind - 1]);
            goto out;
        default:
            status = cli_usage_error(CMD, "unknown or ambiguous option \"%s\" (slo infer --help)",
                                     cli_refused_option(argc, argv));
            goto out;
        }
    }
    if (optind < argc) {
        status = cli_usage_error(CMD, "unexpected argument \"%s\" (slo infer --help)",
                                 argv[optind]);
        goto out;
    }
    /* Modes: planning (default), --predict, --coefficients: one at a time. */
    if (predict && coef) {
        status = cli_usage_error(CMD, "--predict and --coefficients: expected one mode, found "
                                      "both (slo infer --help)");
        goto out;
    }
    if (predict || coef) {
        const char *mode = predict ? "--predict" : "--coefficients";
        for (size_t k = 0; k < sizeof plan_only / sizeof plan_only[0]; k++)
            if (seen.value[plan_only[k] - O_PROFILE]) {
                status = cli_usage_error(CMD, "--%s: only for planning, not with %s",
                                         longopts[plan_only[k] - O_PROFILE].name, mode);
                goto out;
            }
        if (coef && n_specs) {
            status = cli_usage_error(CMD, "--workload: not with --coefficients (it prints the "
                                          "profile's coefficients, nothing else)");
            goto out;
        }
    }
    if (current && emit) {
        status = cli_usage_error(CMD, "--current: not with --emit (re-place first, then emit "
                                      "the new plan)");
        goto out;
    }
    if ((emit != NULL) != (outdir != NULL)) {
        status = cli_usage_error(CMD, "%s: expected together with %s, found it alone",
                                 emit ? "--emit" : "--output-dir",
                                 emit ? "--output-dir DIR" : "--emit triton|slurm");
        goto out;
    }
    if (n_profile_args == 0)
        profile_args[n_profile_args++] = slo_embedded_gpu_profile_names()[0];
    if ((predict || coef) && n_profile_args > 1) {
        status = cli_usage_error(CMD, "--%s: expected one --profile, found %zu",
                                 predict ? "predict" : "coefficients", n_profile_args);
        goto out;
    }
    for (size_t i = 0; i < n_profile_args; i++) {
        if (slo_ig_profile_open(profile_args[i], "--profile", &prof[i], &err)) {
            status = cli_report(CMD, &err);
            goto out;
        }
        n_prof++;
        /* the variant the profile lacks the runs for: one message, exit 2 */
        if (variant && slo_ig_profile_set_variant(&prof[i], variant, &err)) {
            status = cli_report(CMD, &err);
            goto out;
        }
    }
    if (coef) {
        char *text = slo_ig_profile_coefficients_json(&prof[0]);
        if (!text) {
            status = SLO_EXIT_INTERNAL;
            goto out;
        }
        printf("%s\n", text);
        free(text);
        status = SLO_EXIT_OK;
        goto out;
    }
    if (predict) {
        if (n_specs == 0) {
            status = cli_usage_error(CMD, "--predict: expected --workload MODEL:share=S:batch=B "
                                          "(repeatable), found none");
            goto out;
        }
        status = run_predict(&prof[0], specs, n_specs, as_json);
        goto out;
    }
    for (size_t i = 0; i < n_specs; i++) {
        if (!specs[i].has_rate || !specs[i].has_slo || specs[i].has_share || specs[i].has_batch) {
            status = cli_usage_error(CMD,
                                     "--workload %s: expected MODEL:rate=R:slo=MS (share and "
                                     "batch only with --predict), found %s",
                                     specs[i].model,
                                     !specs[i].has_rate ? "no rate"
                                     : !specs[i].has_slo ? "no slo"
                                                         : "share or batch");
            goto out;
        }
        if (n_w == cap_w) {
            size_t ncap = cap_w ? cap_w * 2 : 16;
            struct slo_ig_workload *nw = realloc(w, ncap * sizeof *nw);
            if (!nw) {
                status = SLO_EXIT_INTERNAL;
                goto out;
            }
            w = nw;
            cap_w = ncap;
        }
        memset(&w[n_w], 0, sizeof *w);
        snprintf(w[n_w].model, sizeof w[n_w].model, "%s", specs[i].model);
        w[n_w].rate_rps = specs[i].rate_rps;
        w[n_w].slo_ms = specs[i].slo_ms;
        n_w++;
    }
    if (workload_file && (status = append_workload_file(workload_file, &w, &n_w, &cap_w)))
        goto out;
    status = SLO_EXIT_USAGE;
    if (n_w == 0) {
        status = cli_usage_error(CMD, "expected workloads (--workload MODEL:rate=R:slo=MS or "
                                      "--workloads FILE), found none (slo infer --help)");
        goto out;
    }
    if (cli_load_catalog(catalog, &cat, &err)) {
        status = cli_report(CMD, &err);
        goto out;
    }
    /* --instance-type prices profiles that name no type (slo_infer_price_gpu);
     * one that names another type would silently keep its own */
    if (instance && !*instance) {
        status = cli_usage_error(CMD, "--instance-type: expected an instance type of catalog "
                                      "%s, found an empty value", cat.name);
        goto out;
    }
    for (size_t i = 0; instance && i < n_prof; i++)
        if (prof[i].instance_type[0] && strcmp(prof[i].instance_type, instance) != 0) {
            status = cli_usage_error(CMD, "--instance-type %s: expected a profile that names no "
                                          "instance type, found %s naming %s "
                                          "(gpu.instance_type; it is priced as that type)",
                                     instance, prof[i].source, prof[i].instance_type);
            goto out;
        }
    /* a type the user named on the command line is blamed on the option,
     * not on the profile it would price */
    if (instance && slo_catalog_find(&cat, instance) < 0) {
        status = cli_usage_error(CMD, "--instance-type: expected an instance type of catalog "
                                      "%s (--catalog NAME|FILE), found \"%s\"",
                                 cat.name, instance);
        goto out;
    }
    for (size_t i = 0; i < n_prof; i++)
        instance_types[i] = instance;
    problem.profiles = prof;
    problem.n_types = n_prof;
    problem.catalog = &cat;
    problem.pricing = pricing;
    problem.instance_types = instance_types;
    problem.workloads = w;
    problem.n_workloads = n_w;
    slo_infer_options_init(&opt);
    opt.policy = policy;
    opt.model_variant = variant; /* already set on every profile above; same check */
    if (current) {
        status = run_replace(prof, current, &problem, &opt, as_json);
        goto out;
    }
    if (slo_infer_solve(&problem, &opt, &res, &err)) {
        status = cli_report(CMD, &err);
        goto out;
    }
    if (res.n_gpus == 0) {
        /* no plan: a workload no GPU type can serve (infeasible, proven or not) */
        status = cli_usage_error(CMD, "%s", res.reason);
        if (as_json) {
            /* one object on stdout too, as `slo train --json` prints it */
            json_t *o = json_pack("{s:s,s:s,s:s}", "status", slo_status_name(res.status),
                                  "reason", res.reason, "policy",
                                  slo_ig_policy_name(res.policy));
            char *text = o ? json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
            json_decref(o);
            if (!text || printf("%s\n", text) < 0 || fflush(stdout) != 0)
                status = SLO_EXIT_INTERNAL;
            free(text);
        }
        goto out;
    }
    if (emit && !strcmp(emit, "slurm") && !res.mps_verified) {
        /* before anything is printed or written: one message, exit 2 */
        status = cli_usage_error(CMD, "--emit slurm: the plan's MPS shares do not round to "
                                      "Slurm's gres/mps units: %s",
                                 res.mps_reason);
        goto out;
    }
    if (emit && (status = !strcmp(emit, "triton") ? infer_emit_triton(outdir, w, n_w, &res)
                                                  : infer_emit_slurm(outdir, w, n_w, &res)))
        goto out;
    if (as_json)
        status = print_plan_json(prof, w, &res,
                                 pricing == SLO_PRICING_SPOT ? "spot" : "on-demand");
    else {
        print_plan_human(prof, w, n_w, &res,
                         pricing == SLO_PRICING_SPOT ? "spot" : "on-demand", cat.name);
        status = SLO_EXIT_OK;
    }
out:
    slo_infer_result_free(&res);
    for (size_t i = 0; i < n_prof; i++)
        slo_ig_profile_free(&prof[i]);
    slo_catalog_free(&cat);
    free(specs);
    free(w);
    return status;
}

static void usage_fit_infer(FILE *f)
{
    fprintf(f, "usage: slo fit infer PROFILE\n\nFit the iGniter coefficients (doc/infer.md) from "
               "a raw GPU profile (upstream JSON-lines or our JSON; a file or the embedded %s)\n"
               "and print them as JSON in the \"coefficients\" form that --profile reads back.\n",
            slo_embedded_gpu_profile_names()[0]);
}

/* `slo fit infer PROFILE`: fit and print the coefficients of a profile. */
int slo_cmd_fit_infer(int argc, char **argv)
{
    enum { O_HELP = 256 };
    static const struct option longopts[] = {{"help", no_argument, NULL, O_HELP},
                                             {NULL, 0, NULL, 0}};
    struct slo_ig_profile p;
    slo_error_t err = {0};
    char *text;
    int c;

    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case O_HELP:
        case 'h': usage_fit_infer(stdout); return SLO_EXIT_OK;
        default:
            return cli_usage_error("fit infer", "unknown or ambiguous option \"%s\" (slo fit "
                                                "infer --help)",
                                   cli_refused_option(argc, argv));
        }
    }
    if (argc - optind != 1)
        return cli_usage_error("fit infer", "expected one PROFILE file, found %d arguments",
                               argc - optind);
    if (slo_ig_profile_open(argv[optind], "PROFILE", &p, &err))
        return cli_report("fit infer", &err);
    text = slo_ig_profile_coefficients_json(&p);
    slo_ig_profile_free(&p);
    if (!text) {
        fprintf(stderr, "slo fit infer: out of memory\n");
        return SLO_EXIT_INTERNAL;
    }
    printf("%s\n", text);
    free(text);
    return SLO_EXIT_OK;
}
