/* infer.c - the inference planner of libslo: MPS shares and batch sizes for
 * inference workloads on shared GPUs that keep every latency SLO at least
 * cost, in one call (doc/api/infer.md).
 * Build: cc $(pkg-config --cflags libslo) infer.c $(pkg-config --libs libslo) */
#include <slo.h>
#include <stdio.h>

/* Solve one request and print what was found. Returns 0, or 1 when the call failed. */
static int plan(const struct slo_ig_profile *gpu, const struct slo_catalog *cat,
                const struct slo_ig_workload *w, size_t n)
{
    struct slo_infer_problem pb = {
        .profiles = gpu,
        .n_types = 1,
        .catalog = cat, /* prices the profile's gpu.instance_type */
        .pricing = SLO_PRICING_ON_DEMAND,
        .workloads = w,
        .n_workloads = n
    };
    struct slo_infer_options opt;
    struct slo_infer_result r;
    slo_error_t err;

    slo_infer_options_init(&opt); /* policy igniter */
    printf("%zu workload%s:", n, n == 1 ? "" : "s");
    for (size_t i = 0; i < n; i++)
        printf(" %s %g req/s SLO %g ms%s", w[i].model, w[i].rate_rps, w[i].slo_ms,
               i + 1 < n ? "," : "\n");
    /* The return code is for bad input and memory only ... */
    if (slo_infer_solve(&pb, &opt, &r, &err) != SLO_OK) {
        fprintf(stderr, "%s: %s\n", err.source, err.text);
        return 1;
    }
    /* ... what the planner found is the status. */
    printf("  status %s%s%s\n", slo_status_name(r.status), r.reason[0] ? ": " : "", r.reason);
    if (r.n_gpus)
        printf("  %zu GPU%s, %.2f USD/h (lower bound %.2f USD/h)\n", r.n_gpus,
               r.n_gpus == 1 ? "" : "s", r.cost_usd_per_h, r.cost_lower_bound_usd_per_h);
    for (size_t k = 0; k < r.n_placements; k++) {
        const struct slo_infer_placement *p = &r.placements[k];
        printf("  GPU %zu (%s %s, %.2f USD/h): %-8s share %4.1f %% batch %2d latency %5.2f ms "
               "(SLO/2 %5.2f) %s, CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=%d\n",
               p->gpu + 1, r.types[p->type].gpu_model, r.types[p->type].instance_type,
               p->usd_per_gpu_h, w[p->workload].model, p->share_pct, p->batch, p->latency_ms,
               p->slo_half_ms, p->meets_slo ? "meets" : "MISSES", p->mps_active_thread_pct);
    }
    slo_infer_result_free(&r);
    return 0;
}

int main(void)
{
    /* iGniter's README example, and an SLO below ssd's solo latency */
    struct slo_ig_workload readme[3] = {
        {"alexnet", 500, 15}, {"resnet50", 400, 40}, {"vgg19", 200, 60}};
    struct slo_ig_workload tight[1] = {{"ssd", 100, 12}};
    struct slo_ig_profile gpu;
    struct slo_catalog cat;
    slo_error_t err;
    int rc;

    /* embedded data: the V100 profile and the AWS catalog, no files needed */
    if (slo_ig_profile_open("v100", NULL, &gpu, &err)) {
        fprintf(stderr, "%s: %s\n", err.source, err.text);
        return 1;
    }
    if (slo_catalog_open("aws-table3", NULL, &cat, &err)) {
        fprintf(stderr, "%s: %s\n", err.source, err.text);
        slo_ig_profile_free(&gpu);
        return 1;
    }
    rc = plan(&gpu, &cat, readme, 3) || plan(&gpu, &cat, tight, 1);
    slo_catalog_free(&cat);
    slo_ig_profile_free(&gpu);
    return rc;
}
