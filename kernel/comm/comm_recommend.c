/*
 * comm_recommend.c - the knobs of a real framework that come closest to the
 * best plan under the same simulator (slo_comm_recommend; doc/comm.md,
 * "--recommend").
 *
 * Each framework's bucketing is the simulator's policy for it, run with the
 * knob values on a grid; the grid point with the least simulated period T
 * wins (the default wins ties, then the earlier grid point):
 *   DDP (PyTorch, docs/source/notes/ddp.rst, torch/nn/parallel/
 *     distributed.py; notes 2.7): SLO_COMM_DDP, static buckets in reverse
 *     parameter order closed once they reach bucket_cap_mb MiB (default 25),
 *     the first at torch.distributed._DEFAULT_FIRST_BUCKET_BYTES (default
 *     1 MiB), launched in bucket order, barrier before the next forward.
 *   Horovod (docs tensor-fusion.rst, v0.21.0 release notes; notes 2.6):
 *     SLO_COMM_HOROVOD, every HOROVOD_CYCLE_TIME ms (default 1) the ready
 *     tensors are fused in ready order into buffers of at most
 *     HOROVOD_FUSION_THRESHOLD bytes (default 128 MiB), barrier.
 *   DeepSpeed ZeRO stage 1/2 with overlap_comm (deepspeed/runtime/zero/
 *     stage_1_and_2.py, config docs "reduce_bucket_size", default 5e8
 *     elements): gradients are gathered in ready order into a bucket of
 *     reduce_bucket_size elements and reduced when full; modelled as
 *     SLO_COMM_DDP with first bucket = bucket = reduce_bucket_size x
 *     elem_bytes. DeepSpeed flushes a bucket when the next gradient would
 *     overflow it (at that gradient's ready time), the model when its last
 *     gradient is ready: the model is optimistic by at most one layer's
 *     backward per bucket. allgather_bucket_size moves updated parameters
 *     after the optimizer step, which the simulator does not model: it is
 *     reported at its default, not recommended.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <math.h>
#include <string.h>

#include "slo_comm.h"
#include "slo_private.h"

#define MIB 1048576.0

static const char *const fw_names[SLO_COMM_N_FRAMEWORKS] = {"ddp", "horovod", "deepspeed"};

const char *slo_comm_framework_name(int framework)
{
    return framework >= 0 && framework < SLO_COMM_N_FRAMEWORKS ? fw_names[framework] : NULL;
}

int slo_comm_framework_find(const char *name)
{
    for (int f = 0; name && f < SLO_COMM_N_FRAMEWORKS; f++)
        if (strcmp(name, fw_names[f]) == 0)
            return f;
    return -1;
}

void slo_comm_knobs_default(struct slo_comm_knobs *k)
{
    /* the frameworks' defaults the simulator's parameters already hold */
    struct slo_comm_params p;
    slo_comm_params_default(&p);
    k->ddp_bucket_cap_mb = p.ddp_bucket_bytes / MIB;
    k->ddp_first_bucket_mb = p.ddp_first_bucket_bytes / MIB;
    k->hvd_fusion_threshold_bytes = p.hvd_fusion_bytes;
    k->hvd_cycle_time_ms = p.hvd_cycle_s * 1e3;
    k->ds_reduce_bucket_size = 5e8;
    k->ds_allgather_bucket_size = 5e8;
}

/* the simulator's policy and parameters for knobs k of framework f */
static int knob_params(int f, const struct slo_comm_knobs *k, size_t elem,
                       struct slo_comm_params *p)
{
    slo_comm_params_default(p);
    switch (f) {
    case SLO_COMM_FRAMEWORK_DDP:
        p->ddp_bucket_bytes = k->ddp_bucket_cap_mb * MIB;
        p->ddp_first_bucket_bytes = k->ddp_first_bucket_mb * MIB;
        return SLO_COMM_DDP;
    case SLO_COMM_FRAMEWORK_HOROVOD:
        p->hvd_fusion_bytes = k->hvd_fusion_threshold_bytes;
        p->hvd_cycle_s = k->hvd_cycle_time_ms * 1e-3;
        return SLO_COMM_HOROVOD;
    default:
        p->ddp_bucket_bytes = p->ddp_first_bucket_bytes = k->ds_reduce_bucket_size * (double)elem;
        return SLO_COMM_DDP;
    }
}

static int period(const struct slo_comm_problem *pb, int f, const struct slo_comm_knobs *k,
                  size_t elem, double *t, slo_error_t *err)
{
    struct slo_comm_params p;
    struct slo_comm_result r;
    int policy = knob_params(f, k, elem, &p), rc;
    memset(&r, 0, sizeof r);
    if ((rc = slo_comm_simulate(pb->model, pb->link, &p, policy, &r, err)))
        return rc;
    *t = r.iteration_s;
    slo_comm_result_free(&r);
    return SLO_OK;
}

/* sizes in MiB people set: 1/4 .. 1024, and the model's total */
static const double mib_grid[] = {0.25, 0.5, 1, 2, 3, 4, 6, 8, 12, 16, 25, 32, 50, 64, 100,
                                  128, 256, 512, 1024};
#define N_MIB (sizeof mib_grid / sizeof mib_grid[0])
static const double cycle_grid_ms[] = {0.1, 0.2, 0.5, 1, 2, 3.5, 5, 10, 20};
#define N_CYCLE (sizeof cycle_grid_ms / sizeof cycle_grid_ms[0])

int slo_comm_recommend(const struct slo_comm_problem *problem, int framework, size_t elem_bytes,
                       struct slo_comm_recommendation *out, slo_error_t *err)
{
    struct slo_comm_recommendation r;
    struct slo_comm_result opt;
    struct slo_comm_options o;
    struct slo_comm_knobs k;
    double total = 0, t, best;
    int rc;

    if (!problem || !problem->model || !problem->link || !out)
        return slo__fail(err, SLO_ERR_INVALID, "problem", "expected a model, a link and a "
                         "result, found NULL");
    if (!slo_comm_framework_name(framework))
        return slo__fail(err, SLO_ERR_INVALID, "framework",
                         "expected ddp, horovod or deepspeed (0..%d), found %d",
                         SLO_COMM_N_FRAMEWORKS - 1, framework);
    if (elem_bytes == 0)
        return slo__fail(err, SLO_ERR_INVALID, "elem_bytes", "expected >= 1, found 0");
    memset(&r, 0, sizeof r);
    r.framework = framework;
    slo_comm_knobs_default(&r.defaults);
    /* the optimal plan and the lower bound: slo_comm_solve, as slo comm */
    memset(&opt, 0, sizeof opt);
    slo_comm_options_init(&o);
    o.elem_bytes = elem_bytes;
    if ((rc = slo_comm_solve(problem, &o, &opt, err)))
        return rc;
    r.optimal_iteration_s = opt.iteration_s;
    r.lower_bound_s = opt.lower_bound_s;
    slo_comm_result_free(&opt);
    for (size_t j = 0; j < problem->model->n_layers; j++)
        total += problem->model->layers[j].grad_bytes;

    if ((rc = period(problem, framework, &r.defaults, elem_bytes, &r.default_iteration_s, err)))
        return rc;
    r.knobs = r.defaults;
    best = r.default_iteration_s;
    r.n_evaluated = 1;
#define TRY(KNOBS)                                                                       \
    do {                                                                                 \
        if ((rc = period(problem, framework, &(KNOBS), elem_bytes, &t, err)))            \
            return rc;                                                                   \
        r.n_evaluated++;                                                                 \
        if (t < best * (1 - 1e-9)) {                                                     \
            best = t;                                                                    \
            r.knobs = (KNOBS);                                                           \
        }                                                                                \
    } while (0)
    switch (framework) {
    case SLO_COMM_FRAMEWORK_DDP:
        /* bucket x first bucket, first <= bucket; sizes past the model's
         * bytes all give one bucket: the first such size is enough */
        for (size_t b = 0; b < N_MIB; b++) {
            if (b > 0 && mib_grid[b - 1] * MIB >= total)
                break;
            for (size_t f = 0; f < N_MIB && mib_grid[f] <= mib_grid[b]; f++) {
                if (f > 0 && mib_grid[f - 1] * MIB >= total)
                    break;
                k = r.defaults;
                k.ddp_bucket_cap_mb = mib_grid[b];
                k.ddp_first_bucket_mb = mib_grid[f];
                TRY(k);
            }
        }
        break;
    case SLO_COMM_FRAMEWORK_HOROVOD:
        for (size_t b = 0; b < N_MIB; b++) {
            if (b > 0 && mib_grid[b - 1] * MIB >= total)
                break;
            for (size_t c = 0; c < N_CYCLE; c++) {
                k = r.defaults;
                k.hvd_fusion_threshold_bytes = mib_grid[b] * MIB;
                k.hvd_cycle_time_ms = cycle_grid_ms[c];
                TRY(k);
            }
        }
        break;
    default:
        /* elements: 1e5 x 2^i up to the first size past the model's */
        for (double e = 1e5; e <= 4e9; e *= 2) {
            k = r.defaults;
            k.ds_reduce_bucket_size = e;
            TRY(k);
            if (e * (double)elem_bytes >= total)
                break;
        }
        break;
    }
#undef TRY
    r.iteration_s = best;
    if (best <= r.lower_bound_s * (1 + 1e-12)) {
        r.status = SLO_STATUS_OPTIMAL;
    } else {
        r.status = SLO_STATUS_FEASIBLE_UNPROVEN;
        snprintf(r.reason, sizeof r.reason,
                 "the best of %zu %s knob settings on the grid: T = %.6g ms, %.4f x the lower "
                 "bound %.6g ms (the optimal plan: %.6g ms); a setting off the grid may be "
                 "faster", r.n_evaluated, fw_names[framework], best * 1e3,
                 best / r.lower_bound_s, r.lower_bound_s * 1e3, r.optimal_iteration_s * 1e3);
    }
    *out = r;
    return SLO_OK;
}
