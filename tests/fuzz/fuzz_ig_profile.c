/* Fuzz the iGniter GPU profile reader (slo_ig_profile_parse: our JSON
 * document or the upstream JSON-lines file; doc/infer.md "Profiles"), with
 * its hardware and model fits. Properties: every model is found by its name;
 * the fitted coefficients are finite; the coefficients document it writes
 * (slo_ig_profile_coefficients_json) is JSON that the reader takes again. */
#include <math.h>
#include "slo.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *text = fuzz_text(data, size);
    struct slo_ig_profile p = {0}, back = {0};
    slo_error_t err;
    if (slo_ig_profile_parse(text, "fuzz", &p, &err) == SLO_OK) {
        FUZZ_REQUIRE(p.n_models >= 1, "profile without a model accepted");
        FUZZ_REQUIRE(isfinite(p.idle_power_w) && isfinite(p.max_clock_mhz) &&
                         isfinite(p.power_cap_w) && isfinite(p.unit_pct) &&
                         isfinite(p.bandwidth_bytes_per_ms) &&
                         isfinite(p.clock_slope_mhz_per_w) && isfinite(p.sched_alpha_ms) &&
                         isfinite(p.sched_beta_ms),
                     "hardware coefficient not finite");
        for (size_t i = 0; i < p.n_models; i++)
            FUZZ_REQUIRE(slo_ig_find_model(&p, p.models[i].name) == (int)i, "model %zu", i);
        char *json = slo_ig_profile_coefficients_json(&p);
        FUZZ_REQUIRE(json != NULL, "coefficients not written");
        int rc = slo_ig_profile_parse(json, "fuzz:coefficients", &back, &err);
        FUZZ_REQUIRE(rc == SLO_OK, "written coefficients refused: %s: %s\n%s", err.source,
                     err.text, json);
        FUZZ_REQUIRE(back.n_models == p.n_models, "%zu models read back, %zu written",
                     back.n_models, p.n_models);
        free(json);
    }
    slo_ig_profile_free(&back);
    slo_ig_profile_free(&p);
    free(text);
    return 0;
}
