/* Fuzz the instance catalog reader (slo_catalog_parse; doc/formats.md
 * "Instance catalog"). Property: every parsed type is found by its name at
 * its own index, its prices are finite and >= 0. */
#include <math.h>
#include "slo.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *text = fuzz_text(data, size);
    struct slo_catalog cat = {0};
    slo_error_t err;
    if (slo_catalog_parse(text, "fuzz", &cat, &err) == SLO_OK) {
        FUZZ_REQUIRE(cat.n_types >= 1, "empty catalog accepted");
        for (size_t i = 0; i < cat.n_types; i++) {
            FUZZ_REQUIRE(slo_catalog_find(&cat, cat.types[i].name) == (int)i, "type %zu", i);
            for (int p = SLO_PRICING_SPOT; p <= SLO_PRICING_ON_DEMAND; p++) {
                double usd = slo_instance_price(&cat.types[i], (enum slo_pricing)p);
                FUZZ_REQUIRE(isfinite(usd) && usd >= 0, "type %zu price %g", i, usd);
            }
        }
    }
    slo_catalog_free(&cat);
    free(text);
    return 0;
}
