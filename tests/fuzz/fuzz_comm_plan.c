/* Fuzz the plan reader (slo_comm_plan_parse: a plan object or a whole
 * `slo comm --json` document; doc/comm.md "Plan JSON") and the policy list
 * (slo_comm_plan_policies). Properties: every plan read passes
 * slo_comm_plan_check, and written back (slo_comm_plan_to_json) reads again
 * to the same JSON text. */
#include "slo.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX_INPUT)
        return 0;
    char *text = fuzz_text(data, size);
    struct slo_comm_plan plan = {0}, back = {0};
    slo_error_t err;
    char names[8][SLO_COMM_NAME_LENGTH];
    size_t n = 0;
    (void)slo_comm_plan_policies(text, "fuzz", names, 8, &n, &err);
    FUZZ_REQUIRE(n <= 8, "%zu names", n);
    if (slo_comm_plan_parse(text, "fuzz", NULL, 4, &plan, &err) == SLO_OK) {
        char *json = NULL, *json2 = NULL;
        FUZZ_REQUIRE(slo_comm_plan_check(&plan, &err) == SLO_OK, "plan read: %s", err.text);
        FUZZ_REQUIRE(slo_comm_plan_to_json(&plan, &json, &err) == SLO_OK, "json: %s", err.text);
        FUZZ_REQUIRE(slo_comm_plan_parse(json, "fuzz:plan", NULL, 4, &back, &err) == SLO_OK,
                     "written plan refused: %s\n%s", err.text, json);
        FUZZ_REQUIRE(slo_comm_plan_to_json(&back, &json2, &err) == SLO_OK, "json2: %s",
                     err.text);
        FUZZ_REQUIRE(strcmp(json, json2) == 0, "round trip differs:\n%s\n%s", json, json2);
        free(json);
        free(json2);
    }
    slo_comm_plan_free(&back);
    slo_comm_plan_free(&plan);
    free(text);
    return 0;
}
