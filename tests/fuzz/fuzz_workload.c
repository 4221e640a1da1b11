/* Fuzz the training workload profile reader (slo_workload_parse;
 * doc/formats.md "Training workload profile"). Property: a parsed workload
 * written back (slo_workload_to_json) reads again and writes the same text. */
#include "slo.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *text = fuzz_text(data, size);
    struct slo_workload wl = {0}, again = {0};
    slo_error_t err;
    if (slo_workload_parse(text, "fuzz", &wl, &err) == SLO_OK) {
        char *json = slo_workload_to_json(&wl);
        FUZZ_REQUIRE(json != NULL, "workload not written");
        int rc = slo_workload_parse(json, "fuzz:rewritten", &again, &err);
        FUZZ_REQUIRE(rc == SLO_OK, "written workload refused: %s: %s\n%s", err.source, err.text,
                     json);
        char *json2 = slo_workload_to_json(&again);
        FUZZ_REQUIRE(json2 && strcmp(json, json2) == 0, "round trip differs:\n%s\n%s", json,
                     json2 ? json2 : "(null)");
        free(json);
        free(json2);
    }
    slo_workload_free(&again);
    slo_workload_free(&wl);
    free(text);
    return 0;
}
