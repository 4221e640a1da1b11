/* Fuzz the iGniter workload list reader (slo_ig_workloads_parse; doc/infer.md)
 * and plan every list read on the built-in V100 profile priced by the
 * aws-table3 catalog (slo_infer_solve,
 * policy igniter). Properties: every workload read has a finite rate and SLO
 * > 0; a plan with status optimal or feasible_unproven has every placement
 * meeting its SLO (slo_ig_meets_slo rechecked here), GPUs at most 100 %
 * shared and a cost >= its proven lower bound. */
#include <math.h>
#include "slo.h"
#include "fuzz.h"

static struct slo_ig_profile v100;
static struct slo_catalog aws;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    slo_error_t err;
    if (!v100.n_models &&
        slo_ig_profile_parse(slo_embedded_gpu_profile("v100"), "embedded:v100", &v100, &err))
        abort();
    if (!aws.n_types && slo_catalog_parse(slo_embedded_catalog("aws-table3"),
                                          "embedded:aws-table3", &aws, &err))
        abort();
    if (size > 4096)
        return 0;
    char *text = fuzz_text(data, size);
    struct slo_ig_workload *w = NULL;
    size_t n = 0;
    if (slo_ig_workloads_parse(text, "fuzz", &w, &n, &err) == SLO_OK) {
        for (size_t i = 0; i < n; i++)
            FUZZ_REQUIRE(isfinite(w[i].rate_rps) && w[i].rate_rps > 0 && isfinite(w[i].slo_ms) &&
                             w[i].slo_ms > 0,
                         "workload %zu", i);
        if (n <= 16) {
            struct slo_infer_problem pb = {&v100, 1, &aws, SLO_PRICING_ON_DEMAND, NULL, w, n};
            struct slo_infer_result r = {0};
            if (slo_infer_solve(&pb, NULL, &r, &err) == SLO_OK && slo_status_feasible(r.status)) {
                FUZZ_REQUIRE(r.n_gpus >= 1, "feasible plan without a GPU");
                FUZZ_REQUIRE(r.cost_usd_per_h >= r.cost_lower_bound_usd_per_h - 1e-9,
                             "cost %g below its bound %g", r.cost_usd_per_h,
                             r.cost_lower_bound_usd_per_h);
                for (size_t g = 0; g < r.n_gpus; g++)
                    FUZZ_REQUIRE(r.gpus[g].share_pct <= 100 + 1e-9, "gpu %zu at %g %%", g,
                                 r.gpus[g].share_pct);
                for (size_t k = 0; k < r.n_placements; k++) {
                    const struct slo_infer_placement *pl = &r.placements[k];
                    FUZZ_REQUIRE(pl->meets_slo &&
                                     slo_ig_meets_slo(pl->latency_ms, pl->throughput_rps,
                                                      w[pl->workload].slo_ms, pl->rate_rps),
                                 "placement %zu misses its SLO", k);
                }
            }
            slo_infer_result_free(&r);
        }
    }
    free(w);
    free(text);
    return 0;
}
